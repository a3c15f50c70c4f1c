// Package oauth signs the inspector in to an OAuth-protected MCP server
// over HTTP, with the Go MCP SDK's own client support
// ([auth.AuthorizationCodeHandler]: protected-resource metadata discovery,
// authorization-server metadata, dynamic client registration, the
// authorization code flow with PKCE).
//
// A [Client] is made once per server with [New] and set as the target's
// engine.Target.HTTPAuth. [Client.SignIn] runs before connecting: it
// asks the server whether it wants a token (posting a ping), and if so
// discovers the authorization server, registers the inspector there when
// it can (or uses the client id it was given), sends the person to the authorization page
// ([Config.Notify] prints the address, [Config.OpenBrowser] opens it),
// catches the redirect on a 127.0.0.1 port, exchanges the code with its
// PKCE verifier, and checks that the server takes the token. The session's
// HTTP requests then carry the token; a 401 on the way renews it with the
// refresh token, once for all the requests refused at the same time; a
// 403 insufficient_scope signs in again for the scopes held and asked,
// and sends the request once more ([Client.Wrap]).
//
// The client is known to the authorization server in one of three ways,
// tried in this order: a client ID metadata document ([Config.ClientMetadataURL],
// where the server supports them), a client registered beforehand
// ([Config.ClientID], with [Config.ClientSecret] for a confidential one:
// see [ReadClientSecret]), or dynamic registration. Discovery finds the
// authorization server's metadata for issuers with a path too (RFC 8414
// path insertion, then OpenID Connect's two forms). Every failure says
// which step it was at, which URL, what the server said and what to do.
//
// Every token, code, client secret and verifier is handed to the secrets
// sink given to SignIn (a recording's AddSecrets) before anything else sees
// it, so that recordings, journals and exports scrub it. Tokens stay in
// memory unless [Config.Remember] is set: then they go to the OS keyring,
// and a machine without one is told so and keeps them in memory.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Defaults for [Config].
const (
	DefaultWait        = 5 * time.Minute
	DefaultHTTPTimeout = 30 * time.Second
)

// Config says how to sign in to one server.
type Config struct {
	// ServerURL is the MCP server's endpoint (the --url or --sse address).
	ServerURL string
	// ClientID is a client id registered beforehand with the authorization
	// server; empty means register dynamically, which the authorization
	// server must then offer.
	ClientID string
	// Scopes, when set, are asked for instead of those the server names.
	Scopes []string
	// RedirectPort is the 127.0.0.1 port the redirect comes back to; 0
	// picks a free one (a pre-registered client may need a fixed one).
	RedirectPort int
	// Remember keeps the tokens in the OS keyring between runs.
	Remember bool
	// Wait bounds the wait for the person to finish in the browser
	// (default [DefaultWait]).
	Wait time.Duration
	// HTTPTimeout bounds each request to the authorization server
	// (default [DefaultHTTPTimeout]).
	HTTPTimeout time.Duration
	// Notify, when set, is told what is happening, in sentences for a
	// person: the address to open, where the tokens are kept. It never
	// receives a secret.
	Notify func(string)
	// OpenBrowser, when set, opens the authorization page in a browser;
	// its failure is reported through Notify and the wait goes on.
	OpenBrowser func(string) error
	// Keyring is where remembered tokens go; nil means the OS keyring.
	Keyring Keyring
	// ClientSecret is the secret of the confidential client ClientID
	// (read with [ReadClientSecret]); it is registered for scrubbing
	// before it is sent.
	ClientSecret string
	// TokenAuthMethod is how a confidential client authenticates at the
	// token endpoint: [ClientSecretBasic] or [ClientSecretPost]; empty
	// picks one from the authorization server's
	// token_endpoint_auth_methods_supported.
	TokenAuthMethod string
	// ClientMetadataURL is the https URL of the client's metadata
	// document: where the authorization server says
	// client_id_metadata_document_supported, it is the client id.
	ClientMetadataURL string
	// HTTPClient, when set, carries the requests to the authorization
	// server and for the client's metadata document (its Transport and
	// CheckRedirect; HTTPTimeout still bounds each request).
	HTTPClient *http.Client
}

// Token endpoint authentication methods, for [Config.TokenAuthMethod].
const (
	ClientSecretBasic = "client_secret_basic"
	ClientSecretPost  = "client_secret_post"
)

// Client holds one server's OAuth state: the client registration and the
// tokens, in memory. It is safe for concurrent use.
type Client struct {
	cfg   Config
	http  *http.Client // to the authorization server, registering secrets
	sink  *secretSink
	trail trail // the requests of the latest sign-in
	mu    sync.Mutex
	// renewing is held while the token is renewed; stepping while the
	// client signs in again for more scopes.
	renewing sync.Mutex
	stepping sync.Mutex
	oauth    *oauth2.Config // set once signed in
	token    *oauth2.Token
	scopes   []string // granted with the token (or asked, if it does not say)
	// steppedUp are the scope sets signed in again for (guarded by
	// stepping): each is tried once.
	steppedUp map[string]bool
	signed    bool
	// loaded says the token came from the keyring; the notices below are
	// given once each.
	loaded                 bool
	savedSaid, keyringSaid bool
}

// New returns a client for cfg, not yet signed in.
func New(cfg Config) *Client {
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
	}
	if cfg.HTTPTimeout <= 0 {
		cfg.HTTPTimeout = DefaultHTTPTimeout
	}
	if cfg.Keyring == nil {
		cfg.Keyring = OSKeyring{}
	}
	c := &Client{cfg: cfg, sink: &secretSink{}}
	c.http = c.newASClient()
	return c
}

// Tell sets [Config.Notify] and [Config.OpenBrowser], for a client made
// before the caller knew where notices go. Call it before SignIn.
func (c *Client) Tell(notify func(string), openBrowser func(string) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.Notify, c.cfg.OpenBrowser = notify, openBrowser
}

// ServerURL is the server the client signs in to.
func (c *Client) ServerURL() string { return c.cfg.ServerURL }

// Registration is how the client is known to the authorization server,
// as it was configured: its SecretSource is "secret given" when it holds
// a secret (where the secret came from is not kept).
func (c *Client) Registration() Registration {
	r := Registration{ClientID: c.cfg.ClientID, TokenAuthMethod: c.cfg.TokenAuthMethod, MetadataURL: c.cfg.ClientMetadataURL}
	if c.cfg.ClientSecret != "" {
		r.SecretSource = "secret given"
	}
	return r
}

// Remembers says whether the client keeps its tokens in the OS keyring.
func (c *Client) Remembers() bool { return c.cfg.Remember }

func (c *Client) notify(format string, a ...any) {
	c.mu.Lock()
	f := c.cfg.Notify
	c.mu.Unlock()
	if f != nil {
		f(fmt.Sprintf(format, a...))
	}
}

// SignIn makes sure the client holds a token the server takes, signing
// in if the server asks for one. Every secret met on the way is passed
// to secrets first (nil: none are reported). It returns nil at once when
// the server asks for no token.
func (c *Client) SignIn(ctx context.Context, secrets func(...string)) error {
	c.sink.set(secrets)
	c.sink.add(c.cfg.ClientSecret)
	if c.cfg.Remember {
		c.loadRemembered()
	}
	// A token already held (remembered, or from an earlier sign-in).
	resp, err := c.probe(ctx)
	if err != nil {
		return err
	}
	if !refused(resp) {
		c.markSignedIn()
		return nil
	}
	if c.refreshable() {
		resp.Body.Close()
		if err := c.refresh(ctx, ""); err == nil {
			if resp, err = c.probe(ctx); err != nil {
				return err
			}
			if !refused(resp) {
				c.markSignedIn()
				return nil
			}
		} else {
			c.notify("refreshing the saved token failed (%v): signing in again", err)
			if resp, err = c.probe(ctx); err != nil {
				return err
			}
		}
	}
	var held []string // a token held but short of a scope: asked for again
	if _, short := insufficientScope(resp); short {
		held = append([]string{}, c.heldScopes()...)
	}
	if err := c.authorize(ctx, resp, held); err != nil {
		return err
	}
	resp, err = c.probe(ctx)
	if err != nil {
		return err
	}
	if refused(resp) {
		defer resp.Body.Close()
		return fmt.Errorf("OAuth: the server at %s refused the token the authorization server just issued (%s%s): "+
			"it does not accept tokens from that authorization server or for this resource; check the server's OAuth settings",
			c.cfg.ServerURL, resp.Status, serverSays(resp))
	}
	resp.Body.Close()
	c.markSignedIn()
	return nil
}

func (c *Client) markSignedIn() {
	c.mu.Lock()
	c.signed = true
	c.mu.Unlock()
}

// authorize runs the SDK's authorization code flow for the server's
// refusal resp (which it closes). held, for a step-up, are the scopes
// the client holds: they are asked for again with those the refusal
// names.
func (c *Client) authorize(ctx context.Context, resp *http.Response, held []string) error {
	c.trail.reset()
	c.mu.Lock()
	registered := c.oauth // a client registered dynamically before, kept for a step-up
	c.mu.Unlock()
	if held == nil || c.cfg.ClientID != "" || c.cfg.ClientMetadataURL != "" {
		registered = nil
	}
	catcher, err := c.listen(registered)
	if err != nil {
		resp.Body.Close()
		return err
	}
	defer catcher.close()
	hcfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              catcher.redirectURL(),
		AuthorizationCodeFetcher: c.fetchCode(catcher),
		RequestRefreshToken:      true,
		Client:                   c.http,
		NewTokenSource:           c.keepToken,
	}
	hcfg.ScopeFilter = func(discovered []string) []string {
		if len(c.cfg.Scopes) > 0 && held == nil {
			discovered = c.cfg.Scopes
		}
		return union(held, discovered)
	}
	if c.cfg.ClientMetadataURL != "" {
		hcfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: c.cfg.ClientMetadataURL}
	}
	switch {
	case c.cfg.ClientID != "":
		hcfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: c.cfg.ClientID}
		if c.cfg.ClientSecret != "" {
			hcfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: c.cfg.ClientSecret}
		}
	case registered != nil:
		hcfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: registered.ClientID}
		if registered.ClientSecret != "" {
			hcfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: registered.ClientSecret}
		}
	default:
		hcfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName:    "Fanout Inspector",
				RedirectURIs:  []string{catcher.redirectURL()},
				GrantTypes:    []string{"authorization_code", "refresh_token"},
				ResponseTypes: []string{"code"},
			},
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(hcfg)
	if err != nil {
		resp.Body.Close()
		return fmt.Errorf("OAuth: %v", err)
	}
	wait, cancel := context.WithTimeout(ctx, c.cfg.Wait+2*c.cfg.HTTPTimeout)
	defer cancel()
	status := resp.Status
	c.mu.Lock()
	before := c.token
	c.mu.Unlock()
	if err := h.Authorize(wait, resp.Request, resp); err != nil {
		return c.explain(err)
	}
	c.mu.Lock()
	got := c.token != nil && c.token != before
	c.mu.Unlock()
	if !got {
		return fmt.Errorf("OAuth: the server at %s answered %s without asking for a missing scope: it refuses this client whatever the token", c.cfg.ServerURL, status)
	}
	return nil
}

// keepToken is the SDK's hook for the token it obtained: the client keeps
// it (and its oauth2 config, to refresh it) and serves it from memory.
func (c *Client) keepToken(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	c.sink.addToken(tok)
	c.sink.add(cfg.ClientSecret)
	c.mu.Lock()
	c.oauth, c.token = cfg, tok
	c.scopes = grantedScopes(tok, cfg.Scopes)
	c.mu.Unlock()
	c.remember()
	return c, nil
}

// Token returns the current access token, refreshing it first when it
// has expired and can be refreshed. It makes Client an
// [oauth2.TokenSource].
func (c *Client) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	tok := c.token
	c.mu.Unlock()
	if tok == nil {
		return nil, errors.New("OAuth: not signed in")
	}
	if !tok.Valid() && tok.RefreshToken != "" {
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.HTTPTimeout)
		defer cancel()
		if err := c.refresh(ctx, tok.AccessToken); err != nil {
			return nil, err
		}
		c.mu.Lock()
		tok = c.token
		c.mu.Unlock()
	}
	return tok, nil
}

func (c *Client) refreshable() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.oauth != nil && c.token != nil && c.token.RefreshToken != ""
}

// refresh trades the refresh token for a new access token. stale, when
// not empty, is the access token found wanting: if the client holds
// another one already (renewed meanwhile for a request refused at the
// same time), that one is kept. Renewals are made one at a time, as an
// authorization server that rotates refresh tokens takes each only once.
func (c *Client) refresh(ctx context.Context, stale string) error {
	c.renewing.Lock()
	defer c.renewing.Unlock()
	c.mu.Lock()
	cfg, old := c.oauth, c.token
	c.mu.Unlock()
	if stale != "" && old != nil && old.AccessToken != stale {
		return nil
	}
	if cfg == nil || old == nil || old.RefreshToken == "" {
		return errors.New("OAuth: no refresh token to renew the access token with: sign in again")
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, c.http)
	tok, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: old.RefreshToken}).Token()
	if err != nil {
		return c.explain(err)
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = old.RefreshToken
	}
	c.sink.addToken(tok)
	c.mu.Lock()
	c.token = tok
	c.scopes = grantedScopes(tok, c.scopes)
	c.mu.Unlock()
	c.remember()
	return nil
}

// probe asks the server, with the token held if any, whether it lets the
// inspector in: it POSTs a JSON-RPC ping, as every message of a session
// is posted, which opens no session; the answer is not read unless it is
// a refusal. The caller closes the body.
func (c *Client) probe(ctx context.Context) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.HTTPTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.ServerURL, strings.NewReader(`{"jsonrpc":"2.0","id":"oauth-probe","method":"ping"}`))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("OAuth: %q is not a server address: %v", c.cfg.ServerURL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.mu.Lock()
	if c.token != nil && c.token.AccessToken != "" {
		c.token.SetAuthHeader(req)
	}
	c.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("OAuth: cannot reach %s: %v", c.cfg.ServerURL, err)
	}
	resp.Request = req
	resp.Body = &cancelBody{resp.Body, cancel}
	if !refused(resp) {
		resp.Body.Close()
	}
	return resp, nil
}

// cancelBody ends the probe's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// refused says whether resp is the server asking for (another) token.
func refused(resp *http.Response) bool {
	return resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
}

// serverSays is the first line of what the server wrote with a refusal,
// if short, as ": it said …". It closes nothing.
func serverSays(resp *http.Response) string {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	line, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if line == "" || len(line) > 200 {
		return ""
	}
	return "; it said: " + line
}

// redactQuery drops a URL's query, which may carry a code or a state.
func redactQuery(s string) string {
	if u, err := url.Parse(s); err == nil {
		u.RawQuery = ""
		return u.String()
	}
	return s
}
