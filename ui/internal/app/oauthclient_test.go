package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/engine/oauth"
	"github.com/fanout-inspector/inspector/engine/oauth/oauthtest"
)

// TestOAuthConfidentialClientFromThePanel: the OAuth row's Client part
// signs in as a client registered beforehand, its secret read from the
// environment variable the Secret field names, authenticating as the
// Token auth choice says.
func TestOAuthConfidentialClientFromThePanel(t *testing.T) {
	test.NewTempApp(t)
	const id, secret = "inspector-app", "s3cret-of-the-app-client"
	t.Setenv("INSPECTOR_APP_SECRET", secret)
	srv := oauthtest.New(oauthtest.Options{NoRegistration: true, Confidential: map[string]string{id: secret},
		TokenAuthMethods: []string{"client_secret_post", "client_secret_basic"}})
	t.Cleanup(srv.Close)
	was := openInBrowser
	openInBrowser = func(address string) error {
		go oauthtest.Browse(context.Background(), address)
		return nil
	}
	t.Cleanup(func() { openInBrowser = was })

	p := newConnectionPanel(engine.Target{}, nil)
	p.setTarget(engine.Target{Transport: engine.TransportHTTP, URL: srv.MCPURL()})
	test.Tap(p.oauth.use)
	test.Type(p.oauth.clientID, id)
	test.Type(p.oauth.secret, "env:INSPECTOR_APP_SECRET")
	p.oauth.method.SetSelected(oauth.ClientSecretBasic)
	target, err := p.target()
	if err != nil {
		t.Fatal(err)
	}
	b := newBridge(engine.DefaultAnswerPolicy())
	b.journalDir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := b.Connect(ctx, target)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer b.disconnect()
	if res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "whoami"}, nil); err != nil || res.OK != 1 {
		t.Fatalf("whoami: %+v %v", res, err)
	}
	if used := srv.AuthMethodsUsed(); !slices.Equal(used, []string{"client_secret_basic"}) {
		t.Errorf("the token endpoint saw %q, want client_secret_basic", used)
	}
}

// TestOAuthClientFieldErrors: what the Client part cannot use is refused
// when connecting, naming the field, and a secret typed in by mistake
// is not repeated.
func TestOAuthClientFieldErrors(t *testing.T) {
	test.NewTempApp(t)
	tests := []struct {
		id, secret, method, doc string
		want                    string
	}{
		{"ci", "hunter2-typed-in", "", "", "OAuth Client secret: want env:NAME (an environment variable that holds the client secret) or keyring"},
		{"", "env:HOME", "", "", "OAuth Client secret: a secret belongs to a client registered beforehand: give its client id too"},
		{"ci", "", oauth.ClientSecretPost, "", "OAuth Token auth: it is how a confidential client sends its secret"},
		{"", "", "", "http://example.com/client.json", "OAuth Metadata URL: \"http://example.com/client.json\": a client metadata document's URL is https with a path"},
		{"ci", "keyring", "", "", "OAuth Client secret: the OS keyring holds no secret for the client ci"},
	}
	keyringWas := oauthKeyring
	oauthKeyring = &memKeyring{}
	t.Cleanup(func() { oauthKeyring = keyringWas })
	for _, tt := range tests {
		p := newConnectionPanel(engine.Target{Transport: engine.TransportHTTP, URL: "http://127.0.0.1:9/mcp"}, nil)
		test.Tap(p.oauth.use)
		p.oauth.clientID.SetText(tt.id)
		p.oauth.secret.SetText(tt.secret)
		if tt.method != "" {
			p.oauth.method.SetSelected(tt.method)
		}
		p.oauth.metadataURL.SetText(tt.doc)
		_, err := p.target()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v\nwant it to say %q", tt, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error repeats the secret typed in: %v", err)
		}
	}
}

// TestOAuthClientFieldsFromFlags: inspector gui with --oauth-client-id
// and --oauth-client-metadata-url shows them in the Client part, and
// connecting uses the client the flags made.
func TestOAuthClientFieldsFromFlags(t *testing.T) {
	test.NewTempApp(t)
	const doc = "https://example.com/inspector/client.json"
	c := oauth.New(oauth.Config{ServerURL: "http://127.0.0.1:9/mcp", ClientID: "from-the-flags", ClientMetadataURL: doc})
	p := newConnectionPanel(engine.Target{Transport: engine.TransportHTTP, URL: "http://127.0.0.1:9/mcp", HTTPAuth: c}, nil)
	if p.oauth.clientID.Text != "from-the-flags" || p.oauth.metadataURL.Text != doc || p.oauth.method.Selected != methodFromMetadata {
		t.Errorf("Client part: id %q, metadata URL %q, method %q", p.oauth.clientID.Text, p.oauth.metadataURL.Text, p.oauth.method.Selected)
	}
	got, err := p.target()
	if err != nil {
		t.Fatal(err)
	}
	if got.HTTPAuth != c {
		t.Error("connecting would not use the client the flags made")
	}
}

// TestOAuthClientPartGolden pins the look of the OAuth row with its
// Client part open and filled in as for a confidential client.
func TestOAuthClientPartGolden(t *testing.T) {
	test.NewTempApp(t)
	o := newOAuthChoice(func() string { return "" }, func(error) {})
	w := test.NewWindow(o.content)
	defer w.Close()
	w.Resize(fyne.NewSize(260, 330))
	o.use.SetChecked(true)
	o.client.Open(0)
	o.clientID.SetText("inspector-ci")
	o.secret.SetText("env:CI_CLIENT_SECRET")
	o.method.SetSelected(oauth.ClientSecretBasic)
	o.metadataURL.SetText("")
	w.Canvas().Unfocus()
	assertImage(t, "oauth_client_part.png", w.Canvas().Capture())
}
