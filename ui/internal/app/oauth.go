package app

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/oauth"
)

// oauthChoice is the connection panel's "Sign in with OAuth" row: when
// Use is checked, connecting to an HTTP or SSE server signs in first (the
// system browser opens the authorization page, the redirect comes back
// to a 127.0.0.1 port); Remember keeps the tokens in the OS keyring.
// Tokens live in the [oauth.Client] of each server URL, in memory for as
// long as the app runs; nothing of them goes to the preferences.
// SignOut drops the tokens of the server in the URL field, from memory
// and from the keyring: the next Connect signs in again. The folded
// "Client" part says how the inspector is known to the authorization
// server ([oauth.Registration]): a client id registered beforehand, where
// a confidential client's secret is kept (env:NAME or keyring, never the
// secret itself), how it authenticates at the token endpoint, and the
// URL of a client metadata document; all empty registers dynamically.
type oauthChoice struct {
	use         *widget.Check
	remember    *widget.Check
	clientID    *widget.Entry
	secret      *widget.Entry
	method      *widget.Select
	metadataURL *widget.Entry
	client      *widget.Accordion // folds the four above
	SignOut     *widget.Button
	clients     map[string]*oauth.Client // by URL, Remember and registration
	content     fyne.CanvasObject
}

// methodFromMetadata is the token endpoint authentication choice that
// leaves it to the authorization server's metadata.
const methodFromMetadata = "from the server's metadata"

// registrationFields name the fields of each setting of a registration.
var registrationFields = map[string]string{
	oauth.FieldClientID:        "Client id",
	oauth.FieldClientSecret:    "Client secret",
	oauth.FieldTokenAuthMethod: "Token auth",
	oauth.FieldMetadataURL:     "Metadata URL",
}

// newOAuthChoice makes the row; serverURL reads the panel's URL field,
// problem shows an error on the panel.
func newOAuthChoice(serverURL func() string, problem func(error)) *oauthChoice {
	o := &oauthChoice{clients: map[string]*oauth.Client{}}
	o.use = widget.NewCheck("Sign in (browser)", nil)
	o.remember = widget.NewCheck("Remember", nil)
	o.SignOut = widget.NewButton("Sign out", func() { problem(o.signOut(serverURL())) })
	o.clientID = widget.NewEntry()
	o.clientID.SetPlaceHolder("Client id")
	o.secret = widget.NewEntry()
	o.secret.SetPlaceHolder("Secret: env:NAME or keyring")
	o.method = widget.NewSelect([]string{methodFromMetadata, oauth.ClientSecretBasic, oauth.ClientSecretPost}, nil)
	o.method.SetSelectedIndex(0)
	o.metadataURL = widget.NewEntry()
	o.metadataURL.SetPlaceHolder("Client metadata URL (https)")
	o.client = widget.NewAccordion(widget.NewAccordionItem("Client", container.NewVBox(o.clientID, o.secret, o.method, o.metadataURL)))
	// Narrow: the Server panel is a side panel.
	o.content = container.NewVBox(o.use, o.remember, container.NewHBox(o.SignOut), o.client)
	return o
}

// registration is what the Client part says.
func (o *oauthChoice) registration() oauth.Registration {
	method := o.method.Selected
	if method == methodFromMetadata {
		method = ""
	}
	return oauth.Registration{ClientID: o.clientID.Text, SecretSource: o.secret.Text, TokenAuthMethod: method, MetadataURL: o.metadataURL.Text}
}

// signOut forgets the tokens held for serverURL, with or without
// Remember, and the remembered one.
func (o *oauthChoice) signOut(serverURL string) error {
	var errs []error
	for key, c := range o.clients {
		if strings.HasPrefix(key, serverURL+"\x00") {
			errs = append(errs, c.Forget())
			delete(o.clients, key)
		}
	}
	// A token remembered by an earlier start, which no client holds yet.
	errs = append(errs, oauth.New(oauth.Config{ServerURL: serverURL, Keyring: oauthKeyring}).Forget())
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("signed out of %s in memory, but the OS keyring could not be reached to remove a remembered token: %v", serverURL, err)
		}
	}
	return nil
}

// showProblem shows err under the panel's buttons, or hides it for nil.
func (p *connectionPanel) showProblem(err error) {
	if err == nil {
		p.problem.Hide()
		return
	}
	p.problem.SetText(err.Error())
	p.problem.Show()
}

// oauthKeyring is where remembered tokens are kept; tests replace it.
var oauthKeyring oauth.Keyring = oauth.OSKeyring{}

// apply gives t the OAuth client of its URL when Use is checked.
func (o *oauthChoice) apply(t *engine.Target) error {
	if !o.use.Checked {
		return nil
	}
	for k := range t.Headers {
		if k == "Authorization" || k == "authorization" {
			return errors.New("an Authorization header and OAuth sign-in: choose one (remove the header or uncheck OAuth)")
		}
	}
	reg := o.registration()
	key := o.key(t.URL, o.remember.Checked, reg)
	c, ok := o.clients[key]
	if !ok {
		cfg := oauth.Config{ServerURL: t.URL, Remember: o.remember.Checked, Keyring: oauthKeyring}
		if err := reg.Apply(&cfg, oauthKeyring); err != nil {
			var rerr *oauth.RegistrationError
			if errors.As(err, &rerr) {
				return fmt.Errorf("OAuth %s: %v", registrationFields[rerr.Field], rerr.Err)
			}
			return err
		}
		c = oauth.New(cfg)
		o.clients[key] = c
	}
	t.HTTPAuth = c
	return nil
}

// key is the clients' key for a server URL, with the Remember choice
// and the registration: another client id or secret is another client.
func (o *oauthChoice) key(serverURL string, remember bool, reg oauth.Registration) string {
	return strings.Join([]string{serverURL, fmt.Sprint(remember), strings.TrimSpace(reg.ClientID), strings.TrimSpace(reg.SecretSource),
		reg.TokenAuthMethod, strings.TrimSpace(reg.MetadataURL)}, "\x00")
}

// set checks Use for a target that came with an OAuth client (from
// inspector gui --oauth, or a recent connection made with one), and
// keeps that client, with its settings. A target without one leaves the
// boxes as they are.
func (o *oauthChoice) set(t engine.Target) {
	c, ok := t.HTTPAuth.(*oauth.Client)
	if ok {
		o.use.SetChecked(true)
		o.remember.SetChecked(c.Remembers())
		reg := c.Registration()
		o.clientID.SetText(reg.ClientID)
		o.secret.SetText(reg.SecretSource)
		o.metadataURL.SetText(reg.MetadataURL)
		if reg.TokenAuthMethod == "" {
			o.method.SetSelectedIndex(0)
		} else {
			o.method.SetSelected(reg.TokenAuthMethod)
		}
		o.clients[o.key(c.ServerURL(), c.Remembers(), o.registration())] = c
	}
}

// openInBrowser opens an address in the system browser; tests replace it.
var openInBrowser = func(address string) error {
	u, err := url.Parse(address)
	if err != nil {
		return err
	}
	app := fyne.CurrentApp()
	if app == nil {
		return errors.New("no app to open a browser with")
	}
	return app.OpenURL(u)
}
