package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/engine/oauth"
	"github.com/fanout-inspector/inspector/engine/oauth/oauthtest"
	"github.com/fanout-inspector/inspector/recorder"
)

// browser plays the person: it follows every authorization address it
// is given, as a browser would, and keeps the last page it landed on.
type browser struct {
	t      *testing.T
	mu     sync.Mutex
	opened int
	page   string
	status int
}

func (b *browser) open(authURL string) error {
	b.mu.Lock()
	b.opened++
	b.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		status, page, err := oauthtest.Browse(ctx, authURL)
		if err != nil {
			page = err.Error()
		}
		b.mu.Lock()
		b.status, b.page = status, page
		b.mu.Unlock()
	}()
	return nil
}

// last waits (up to 5s) for the page the browser landed on, and says
// how many times it was opened.
func (b *browser) last() (opened, status int, page string) {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b.mu.Lock()
		opened, status, page = b.opened, b.status, b.page
		b.mu.Unlock()
		if opened == 0 || status != 0 || time.Now().After(deadline) {
			return opened, status, page
		}
	}
}

// secrets collects what the client registers for scrubbing.
type secrets struct {
	mu   sync.Mutex
	vals []string
	rec  *recorder.Recording // also told, once set
}

func (s *secrets) add(v ...string) {
	s.mu.Lock()
	s.vals = append(s.vals, v...)
	rec := s.rec
	s.mu.Unlock()
	if rec != nil {
		rec.AddSecrets(v...)
	}
}

// to makes rec scrub every secret registered, before and after.
func (s *secrets) to(rec *recorder.Recording) {
	s.mu.Lock()
	s.rec = rec
	rec.AddSecrets(s.vals...)
	s.mu.Unlock()
}

func (s *secrets) has(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.vals, v)
}

// notes collects the client's notices.
type notes struct {
	mu   sync.Mutex
	text []string
}

func (n *notes) add(s string) {
	n.mu.Lock()
	n.text = append(n.text, s)
	n.mu.Unlock()
}

func (n *notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.text, "\n")
}

func signIn(t *testing.T, srv *oauthtest.Server, cfg oauth.Config) (*oauth.Client, *secrets, *browser, error) {
	t.Helper()
	b := &browser{t: t}
	sec := &secrets{}
	if cfg.ServerURL == "" {
		cfg.ServerURL = srv.MCPURL()
	}
	if cfg.OpenBrowser == nil {
		cfg.OpenBrowser = b.open
	}
	if cfg.Keyring == nil {
		cfg.Keyring = &memKeyring{}
	}
	c := oauth.New(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c, sec, b, c.SignIn(ctx, sec.add)
}

// callWhoami connects through c and calls the server's tool; it returns
// what the tool said, as recorded.
func callWhoami(t *testing.T, srv *oauthtest.Server, c *oauth.Client, sec *secrets, calls int) (*recorder.Recording, string) {
	t.Helper()
	return callWhoamiOver(t, engine.Target{Transport: engine.TransportHTTP, URL: srv.MCPURL(), HTTPAuth: c}, sec, calls)
}

func callWhoamiOver(t *testing.T, target engine.Target, sec *secrets, calls int) (*recorder.Recording, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{Title: "oauth"})
	sec.to(rec)
	s, err := engine.Connect(ctx, target, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	defer s.Close()
	res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "whoami", Calls: calls}, nil)
	if err != nil || res.OK != calls {
		t.Fatalf("calling whoami: %+v %v", res, err)
	}
	var said string
	for _, sp := range rec.Snapshot().Spans {
		if sp.Method == "tools/call" {
			said = string(sp.Result)
		}
	}
	return rec, said
}

// TestSignInThroughTheBrowser is the whole flow against a protected
// server: discovery, dynamic registration, the browser's round trip to
// the loopback catcher, the PKCE exchange, then an MCP session whose
// requests carry the token. Every secret the servers issued or were given
// is registered for scrubbing, and the recording holds none of them.
func TestSignInThroughTheBrowser(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	var n notes
	c, sec, b, err := signIn(t, srv, oauth.Config{Notify: n.add})
	if err != nil {
		t.Fatalf("sign-in: %v\nnotices: %s", err, n.String())
	}
	if opened, status, page := b.last(); opened != 1 || status != 200 || !strings.Contains(page, "signed in") {
		t.Errorf("browser opened %d time(s), landed on %d %q; want one visit ending on the signed-in page", opened, status, page)
	}
	if !strings.Contains(n.String(), "Open this address in a browser") || !strings.Contains(n.String(), "code_challenge=") {
		t.Errorf("the notices do not show the authorization address:\n%s", n.String())
	}
	rec, said := callWhoami(t, srv, c, sec, 1)
	if !strings.Contains(said, "signed in with Bearer REDACTED") {
		t.Errorf("the recorded tool result is %s; want the server's echo of the token, redacted", said)
	}
	issued := srv.Issued()
	if len(issued) < 5 { // client secret, code, verifier, access, refresh
		t.Fatalf("the servers issued %d secrets: %q", len(issued), issued)
	}
	var data strings.Builder
	if err := recorder.Save(&data, rec.Snapshot()); err != nil {
		t.Fatal(err)
	}
	for _, v := range issued {
		if !sec.has(v) {
			t.Errorf("secret %q was not registered for scrubbing", v)
		}
		if strings.Contains(data.String(), v) || strings.Contains(n.String(), v) && !strings.HasPrefix(v, "code-") {
			t.Errorf("secret %q is in the recording or the notices", v)
		}
	}
}

// TestSignInOverSSE: the same flow for a legacy HTTP+SSE server, whose
// event stream and posts both carry the token.
func TestSignInOverSSE(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	c, sec, _, err := signIn(t, srv, oauth.Config{ServerURL: srv.SSEURL()})
	if err != nil {
		t.Fatal(err)
	}
	before := srv.LetIn()
	_, said := callWhoamiOver(t, engine.Target{Transport: engine.TransportSSE, URL: srv.SSEURL(), HTTPAuth: c}, sec, 2)
	if !strings.Contains(said, "signed in") {
		t.Errorf("the recorded tool result is %s", said)
	}
	// The stream, initialize, initialized, 2 calls.
	if n := srv.LetIn() - before; n < 5 {
		t.Errorf("the server let in %d requests with the token, want at least 5", n)
	}
}

// TestRefreshOn401: when the server stops taking the access token, the
// session's next request renews it with the refresh token, once, and
// goes on.
func TestRefreshOn401(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	c, sec, _, err := signIn(t, srv, oauth.Config{})
	if err != nil {
		t.Fatal(err)
	}
	callWhoami(t, srv, c, sec, 1)
	before := len(srv.Issued())
	srv.RevokeAccess()
	_, said := callWhoami(t, srv, c, sec, 2)
	if !strings.Contains(said, "signed in") {
		t.Fatalf("after the refresh the tool said %s", said)
	}
	issued := srv.Issued()
	if len(issued) != before+2 { // a new access and refresh token
		t.Errorf("%d secrets issued after the revocation, want 2 (one refresh)", len(issued)-before)
	}
	for _, v := range issued[before:] {
		if !sec.has(v) {
			t.Errorf("renewed secret %q was not registered for scrubbing", v)
		}
	}
}

// TestConcurrentRefreshOnce: many requests refused at once renew the
// token once between them; the authorization server rotates refresh
// tokens, so a second renewal with the same refresh token would fail.
func TestConcurrentRefreshOnce(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	c, sec, _, err := signIn(t, srv, oauth.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{Title: "oauth"})
	sec.to(rec)
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportHTTP, URL: srv.MCPURL(), HTTPAuth: c}, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := len(srv.Issued())
	srv.RevokeAccess()
	res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "whoami", Calls: 16, Concurrency: 16}, nil)
	if err != nil || res.OK != 16 {
		t.Fatalf("16 calls at once after the revocation: %+v %v", res, err)
	}
	if n := len(srv.Issued()) - before; n != 2 {
		t.Errorf("%d secrets issued after the revocation, want 2 (one renewal)", n)
	}
}

// TestSignInFailures: each way signing in goes wrong ends in an error
// that says what happened and what to do, within its time bound.
func TestSignInFailures(t *testing.T) {
	tests := []struct {
		name string
		opts oauthtest.Options
		cfg  oauth.Config
		want []string
		page string // what the browser must have shown, if anything
	}{
		{"wrong client id", oauthtest.Options{NoRegistration: true, Clients: []string{"inspector"}},
			oauth.Config{ClientID: "not-registered", Wait: time.Second},
			[]string{"did not come back from the authorization page within 1s", "check --oauth-client-id"}, "unknown client not-registered"},
		{"client id of a confidential client, without its secret", oauthtest.Options{NoRegistration: true, Confidential: map[string]string{"inspector": "s3cret-of-the-client"}},
			oauth.Config{ClientID: "inspector"},
			[]string{"the authorization server at http://127.0.0.1:", "/token refused to issue a token: invalid_client: unknown client or wrong secret",
				"check --oauth-client-id; a confidential client needs its secret: --oauth-client-secret"}, "signed in"},
		{"no registration and no client id", oauthtest.Options{NoRegistration: true},
			oauth.Config{Wait: time.Second},
			[]string{"offers no dynamic client registration", "--oauth-client-id"}, ""},
		{"consent denied", oauthtest.Options{Deny: true}, oauth.Config{},
			[]string{"access_denied", "the person declined", "access was not granted in the browser"}, "was not signed in"},
		{"token endpoint hangs", oauthtest.Options{HangToken: true}, oauth.Config{HTTPTimeout: 500 * time.Millisecond},
			[]string{"did not answer", "/token within 500ms"}, ""},
		{"server refuses every token", oauthtest.Options{RefuseAll: true}, oauth.Config{},
			[]string{"refused the token the authorization server just issued", "401 Unauthorized", "check the server's OAuth settings"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := oauthtest.New(tt.opts)
			defer srv.Close()
			start := time.Now()
			_, sec, b, err := signIn(t, srv, tt.cfg)
			if err == nil {
				t.Fatal("signed in")
			}
			if took := time.Since(start); took > 15*time.Second {
				t.Errorf("took %v to fail", took)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to say %q", err, w)
				}
			}
			for _, v := range srv.Issued() {
				if strings.Contains(err.Error(), v) {
					t.Errorf("the error shows the secret %q", v)
				}
				if !sec.has(v) && !strings.HasPrefix(v, "client-secret") {
					t.Errorf("secret %q not registered", v)
				}
			}
			if tt.page != "" {
				if _, _, page := b.last(); !strings.Contains(page, tt.page) {
					t.Errorf("the browser showed %q, want %q", page, tt.page)
				}
			}
		})
	}
}

// TestNoTokenNeeded: a server that asks for no token is connected to as
// it is, without a browser.
func TestNoTokenNeeded(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	c := oauth.New(oauth.Config{ServerURL: srv.URL + "/.well-known/oauth-authorization-server",
		OpenBrowser: func(string) error { t.Error("a browser was opened"); return nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.SignIn(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// TestRedirectFromAnotherSignIn: a redirect whose state is not this
// sign-in's (a stale tab, a forged link) is refused, saying so.
func TestRedirectFromAnotherSignIn(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	forger := func(address string) error {
		go func() {
			noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := noFollow.Get(address)
			if err != nil {
				return
			}
			resp.Body.Close()
			back, err := url.Parse(resp.Header.Get("Location"))
			if err != nil {
				return
			}
			q := back.Query()
			q.Set("state", "not-this-one")
			back.RawQuery = q.Encode()
			if resp, err := http.Get(back.String()); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	_, _, _, err := signIn(t, srv, oauth.Config{OpenBrowser: forger, Wait: 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "the browser came back from another sign-in") {
		t.Errorf("error %v", err)
	}
}

// TestSignInStopped: giving the sign-in up while the browser is out
// (an interrupt, Disconnect in the app) ends it at once, saying so.
func TestSignInStopped(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c := oauth.New(oauth.Config{ServerURL: srv.MCPURL(), Keyring: &memKeyring{},
		OpenBrowser: func(string) error { time.AfterFunc(50*time.Millisecond, cancel); return nil }})
	start := time.Now()
	err := c.SignIn(ctx, nil)
	if err == nil || err.Error() != "OAuth: sign-in stopped before the browser came back: context canceled" {
		t.Errorf("error %v", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Error("the error does not say the context was canceled")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping took %v", took)
	}
}

// memKeyring stands for an OS keyring.
type memKeyring struct {
	mu      sync.Mutex
	entries map[string]string
	fail    error
}

func (k *memKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fail != nil {
		return "", k.fail
	}
	v, ok := k.entries[service+"\x00"+user]
	if !ok {
		return "", oauth.ErrNotRemembered
	}
	return v, nil
}

func (k *memKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fail != nil {
		return k.fail
	}
	if k.entries == nil {
		k.entries = map[string]string{}
	}
	k.entries[service+"\x00"+user] = secret
	return nil
}

func (k *memKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.entries, service+"\x00"+user)
	return nil
}

// TestRemember: with Remember the token goes to the keyring, and the
// next run signs in from it without a browser; without it, nothing is
// written; a keyring that fails is reported and the token stays in
// memory.
func TestRemember(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()

	kr := &memKeyring{}
	if _, _, _, err := signIn(t, srv, oauth.Config{Keyring: kr}); err != nil {
		t.Fatal(err)
	}
	if len(kr.entries) != 0 {
		t.Fatalf("without Remember the keyring got %d entries", len(kr.entries))
	}

	var n notes
	if _, _, _, err := signIn(t, srv, oauth.Config{Keyring: kr, Remember: true, Notify: n.add}); err != nil {
		t.Fatal(err)
	}
	if len(kr.entries) != 1 || !strings.Contains(n.String(), "saved in the OS keyring") {
		t.Fatalf("with Remember: %d keyring entries, notices %q", len(kr.entries), n.String())
	}
	c, sec, b, err := signIn(t, srv, oauth.Config{Keyring: kr, Remember: true})
	if err != nil {
		t.Fatal(err)
	}
	if opened, _, _ := b.last(); opened != 0 {
		t.Errorf("the remembered token did not spare the browser (opened %d times)", opened)
	}
	issued := srv.Issued()
	if !sec.has(issued[len(issued)-1]) || !sec.has(issued[len(issued)-2]) {
		t.Error("the remembered tokens were not registered for scrubbing")
	}
	callWhoami(t, srv, c, sec, 1)

	var n2 notes
	broken := &memKeyring{fail: errors.New("no secret service on the bus")}
	c, _, _, err = signIn(t, srv, oauth.Config{Keyring: broken, Remember: true, Notify: n2.add})
	if err != nil {
		t.Fatal(err)
	}
	if want := "the OS keyring is not available (no secret service on the bus): the token is kept in memory for this run only"; !strings.Contains(n2.String(), want) {
		t.Errorf("notices %q\nwant %q", n2.String(), want)
	}
	callWhoami(t, srv, c, sec, 1)
}

// TestRememberWithTheOSKeyring asks this machine's own keyring: where it
// works, the token is filed under the server's URL (and removed after);
// where it does not (no Secret Service, as on a headless Linux box), the
// person is told, and the token works from memory.
func TestRememberWithTheOSKeyring(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	var n notes
	start := time.Now()
	c, sec, _, err := signIn(t, srv, oauth.Config{Keyring: oauth.OSKeyring{}, Remember: true, Notify: n.add})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("asking the keyring took %v", took)
	}
	switch {
	case strings.Contains(n.String(), "saved in the OS keyring"):
		defer c.Forget()
		if _, err := (oauth.OSKeyring{}).Get(oauth.KeyringService, srv.MCPURL()); err != nil {
			t.Errorf("said saved, but the keyring has no entry: %v", err)
		}
	case strings.Contains(n.String(), "the OS keyring is not available (") &&
		strings.Contains(n.String(), "): the token is kept in memory for this run only"):
		t.Logf("this machine has no keyring: %s", n.String())
	default:
		t.Errorf("the notices say nothing of the keyring: %q", n.String())
	}
	callWhoami(t, srv, c, sec, 1)
}
