package oauth_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/oauth"
	"github.com/fanout-inspector/inspector/engine/oauth/oauthtest"
	"github.com/fanout-inspector/inspector/recorder"
)

// Sign in to a protected server, then connect: the session's requests
// carry the token, and the recording scrubs every secret of the sign-in.
func Example() {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c := oauth.New(oauth.Config{
		ServerURL: srv.MCPURL(),
		Notify:    func(string) {}, // a person would be shown the address
		// A person signs in in the browser; here oauthtest plays one.
		OpenBrowser: func(address string) error {
			go oauthtest.Browse(ctx, address)
			return nil
		},
	})
	rec := recorder.New(recorder.Meta{Title: "signed in"})
	if err := c.SignIn(ctx, rec.AddSecrets); err != nil {
		fmt.Println(err)
		return
	}
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportHTTP, URL: srv.MCPURL(), HTTPAuth: c},
		engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	tools, err := s.ListTools(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tools[0].Name)
	// Output: whoami
}

// A confidential client registered beforehand: its secret is read from
// the environment variable the registration names, never given as it is.
func ExampleRegistration_Apply() {
	os.Setenv("EXAMPLE_CLIENT_SECRET", "s3cret")
	defer os.Unsetenv("EXAMPLE_CLIENT_SECRET")
	cfg := oauth.Config{ServerURL: "https://mcp.example.com/mcp"}
	reg := oauth.Registration{ClientID: "inspector-ci", SecretSource: "env:EXAMPLE_CLIENT_SECRET", TokenAuthMethod: oauth.ClientSecretBasic}
	if err := reg.Apply(&cfg, nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.ClientID, cfg.TokenAuthMethod, cfg.ClientSecret != "")

	reg.SecretSource = "s3cret"
	fmt.Println(reg.Apply(&cfg, nil) != nil)
	// Output:
	// inspector-ci client_secret_basic true
	// true
}
