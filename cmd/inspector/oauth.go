package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/oauth"
)

// oauthFlags are the flags that sign in to an OAuth-protected server.
type oauthFlags struct {
	fs           *flag.FlagSet
	enabled      *bool
	clientID     *string
	scopes       *string
	remember     *bool
	wait         *time.Duration
	redirectPort *int
	secret       *string
	tokenAuth    *string
	metadataURL  *string
}

// addOAuthFlags defines --oauth and its companions on fs.
func addOAuthFlags(fs *flag.FlagSet) *oauthFlags {
	return &oauthFlags{
		fs:           fs,
		enabled:      fs.Bool("oauth", false, "sign in with OAuth if the --url or --sse server asks for it: the authorization address is printed (and opened in a browser when there is a display), the redirect is caught on a 127.0.0.1 port"),
		clientID:     fs.String("oauth-client-id", "", "with --oauth, the client `ID` registered with the authorization server (default: register dynamically)"),
		scopes:       fs.String("oauth-scopes", "", "with --oauth, the `SCOPES` to ask for, space or comma separated (default: those the server names)"),
		remember:     fs.Bool("oauth-remember", false, "with --oauth, keep the tokens in the OS keyring for later runs (default: in memory for this run only)"),
		wait:         fs.Duration("oauth-wait", oauth.DefaultWait, "with --oauth, how long to wait for the sign-in in the browser"),
		redirectPort: fs.Int("oauth-redirect-port", 0, "with --oauth, the 127.0.0.1 `PORT` the browser is sent back to (default: any free port; a pre-registered client may need its registered one)"),
		secret: fs.String("oauth-client-secret", "", "with --oauth-client-id, where the confidential client's secret is kept, `SOURCE`: env:NAME (an environment variable) or keyring "+
			"(the OS keyring's entry for the client id, service "+oauth.ClientSecretService+"); never the secret itself"),
		tokenAuth:   fs.String("oauth-token-auth", "", "with --oauth-client-secret, how the client authenticates at the token endpoint, `METHOD`: client_secret_basic or client_secret_post (default: from the authorization server's metadata)"),
		metadataURL: fs.String("oauth-client-metadata-url", "", "with --oauth, the https `URL` of the client's metadata document, used as the client id where the authorization server takes client ID metadata documents"),
	}
}

// apply gives t an OAuth client when --oauth is set.
func (f *oauthFlags) apply(t *engine.Target) error {
	if !*f.enabled {
		for _, name := range []string{"oauth-client-id", "oauth-scopes", "oauth-remember", "oauth-wait", "oauth-redirect-port",
			"oauth-client-secret", "oauth-token-auth", "oauth-client-metadata-url"} {
			if flagWasSet(f.fs, name) {
				return fmt.Errorf("--%s is a setting of --oauth: add --oauth", name)
			}
		}
		return nil
	}
	if t.Transport != engine.TransportHTTP && t.Transport != engine.TransportSSE {
		return errors.New("--oauth: OAuth is for a --url or --sse server")
	}
	for k := range t.Headers {
		if strings.EqualFold(k, "Authorization") {
			return errors.New("--oauth and --header 'Authorization: …': choose one, a token you already have or signing in")
		}
	}
	if *f.wait <= 0 {
		return fmt.Errorf("--oauth-wait %v: want a positive duration, as in 5m", *f.wait)
	}
	if *f.redirectPort < 0 || *f.redirectPort > 65535 {
		return fmt.Errorf("--oauth-redirect-port %d: want a port from 1 to 65535, or 0 for any free one", *f.redirectPort)
	}
	cfg := oauth.Config{
		ServerURL:    t.URL,
		Scopes:       strings.FieldsFunc(*f.scopes, func(r rune) bool { return r == ',' || r == ' ' }),
		RedirectPort: *f.redirectPort,
		Remember:     *f.remember,
		Wait:         *f.wait,
	}
	reg := oauth.Registration{ClientID: *f.clientID, SecretSource: *f.secret, TokenAuthMethod: *f.tokenAuth, MetadataURL: *f.metadataURL}
	if err := reg.Apply(&cfg, nil); err != nil {
		var rerr *oauth.RegistrationError
		if errors.As(err, &rerr) {
			return fmt.Errorf("--%s: %v", registrationFlags[rerr.Field], rerr.Err)
		}
		return err
	}
	t.HTTPAuth = oauth.New(cfg)
	return nil
}

// registrationFlags name the flag of each setting of a registration.
var registrationFlags = map[string]string{
	oauth.FieldClientID:        "oauth-client-id",
	oauth.FieldClientSecret:    "oauth-client-secret",
	oauth.FieldTokenAuthMethod: "oauth-token-auth",
	oauth.FieldMetadataURL:     "oauth-client-metadata-url",
}

// openBrowser opens url in the system browser when there is a display to
// show it on; without one it does nothing (the address is printed). It
// is the command line's [capture.Options.OpenBrowser].
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return nil
		}
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
