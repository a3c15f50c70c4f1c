package oauth

import (
	"encoding/json"
	"errors"

	"github.com/zalando/go-keyring"
	"golang.org/x/oauth2"
)

// KeyringService is the service name remembered tokens are filed under
// in the OS keyring, one entry per server URL.
const KeyringService = "fanout-inspector-oauth"

// ErrNotRemembered is what a [Keyring] returns for an entry it does not
// hold (the OS keyring's own "not found").
var ErrNotRemembered = keyring.ErrNotFound

// Keyring is where remembered tokens are kept. Get and Delete return
// [ErrNotRemembered] for an entry they do not hold.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// OSKeyring is the operating system's keyring (the Secret Service on
// Linux, the Keychain on macOS, the Credential Manager on Windows),
// through github.com/zalando/go-keyring.
type OSKeyring struct{}

// Get reads an entry.
func (OSKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }

// Set writes an entry.
func (OSKeyring) Set(service, user, secret string) error { return keyring.Set(service, user, secret) }

// Delete removes an entry.
func (OSKeyring) Delete(service, user string) error { return keyring.Delete(service, user) }

// remembered is what the keyring keeps for one server: the client
// registration and the token.
type remembered struct {
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"auth_url"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style"`
	RedirectURL  string        `json:"redirect_url"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// remember saves the client's token in the keyring when asked to; a
// keyring that cannot be written is reported once, and the token stays
// in memory.
func (c *Client) remember() {
	if !c.cfg.Remember {
		return
	}
	c.mu.Lock()
	cfg, tok := c.oauth, c.token
	c.mu.Unlock()
	if cfg == nil || tok == nil {
		return
	}
	data, err := json.Marshal(remembered{
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthURL: cfg.Endpoint.AuthURL, TokenURL: cfg.Endpoint.TokenURL,
		AuthStyle: int(cfg.Endpoint.AuthStyle), RedirectURL: cfg.RedirectURL, Scopes: cfg.Scopes, Token: tok,
	})
	if err != nil {
		return
	}
	if err := c.cfg.Keyring.Set(KeyringService, c.cfg.ServerURL, string(data)); err != nil {
		c.keyringUnavailable(err)
		return
	}
	c.notifyOnce(&c.savedSaid, "the token is saved in the OS keyring (service %s, account %s)", KeyringService, c.cfg.ServerURL)
}

// loadRemembered takes the token remembered for the server, if any.
func (c *Client) loadRemembered() {
	data, err := c.cfg.Keyring.Get(KeyringService, c.cfg.ServerURL)
	if errors.Is(err, keyring.ErrNotFound) {
		return
	}
	if err != nil {
		c.keyringUnavailable(err)
		return
	}
	var r remembered
	if json.Unmarshal([]byte(data), &r) != nil || r.Token == nil {
		c.notify("the token saved in the OS keyring for %s is unreadable: signing in again", c.cfg.ServerURL)
		return
	}
	c.sink.add(r.ClientSecret)
	c.sink.addToken(r.Token)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != nil {
		return // signed in this run already
	}
	c.oauth = &oauth2.Config{
		ClientID: r.ClientID, ClientSecret: r.ClientSecret, RedirectURL: r.RedirectURL, Scopes: r.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: r.AuthURL, TokenURL: r.TokenURL, AuthStyle: oauth2.AuthStyle(r.AuthStyle)},
	}
	c.token = r.Token
	c.scopes = append([]string{}, r.Scopes...) // a step-up asks for them again
	c.loaded = true
}

func (c *Client) keyringUnavailable(err error) {
	c.notifyOnce(&c.keyringSaid, "the OS keyring is not available (%v): the token is kept in memory for this run only", err)
}

// notifyOnce notifies the first time only, per flag.
func (c *Client) notifyOnce(said *bool, format string, a ...any) {
	c.mu.Lock()
	first := !*said
	*said = true
	c.mu.Unlock()
	if first {
		c.notify(format, a...)
	}
}

// Forget removes the token remembered for the server from the keyring
// and drops the one held in memory.
func (c *Client) Forget() error {
	c.mu.Lock()
	c.oauth, c.token, c.signed = nil, nil, false
	c.mu.Unlock()
	err := c.cfg.Keyring.Delete(KeyringService, c.cfg.ServerURL)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}
