package oauth

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// explain turns a failed sign-in into what happened: at which step,
// which URL, what the server said, and what to do. The SDK's errors are
// plain text, so the step is told by their wording; the URL and the
// answer come from the client's own trail of requests.
func (c *Client) explain(err error) error {
	var waited *waitError
	var denied *deniedError
	var stopped *stoppedError
	var docErr *clientDocumentError
	var rerr *oauth2.RetrieveError
	var uerr *url.Error
	msg := err.Error()
	switch {
	case errors.As(err, &waited), errors.As(err, &denied), errors.As(err, &stopped), errors.As(err, &docErr):
		return err
	case msg == "state mismatch":
		return errors.New("OAuth: the browser came back from another sign-in (its state does not match this one's): sign in again, from the address printed last")
	case strings.Contains(msg, "no configured client registration methods"):
		return c.noRegistration()
	case errors.As(err, &rerr):
		return c.tokenRefused(rerr)
	case errors.As(err, &uerr) && uerr.Timeout():
		return fmt.Errorf("OAuth: the authorization server did not answer %s within %v: try again later, or check that it is up", redactQuery(uerr.URL), c.cfg.HTTPTimeout)
	case strings.HasPrefix(msg, "failed to get authorization server metadata: "):
		return c.discoveryFailed(strings.TrimPrefix(msg, "failed to get authorization server metadata: "))
	case strings.Contains(msg, "protected resource metadata has no authorization servers"):
		at, _ := c.trail.last("oauth-protected-resource")
		return fmt.Errorf("OAuth: discovery: the protected-resource metadata of %s (%s) names no authorization server: the server's OAuth settings are incomplete; ask its operator, or connect with a token you have (--header 'Authorization: Bearer TOKEN')",
			c.cfg.ServerURL, at.url)
	case strings.HasPrefix(msg, "failed to register client: "):
		return c.registrationFailed(strings.TrimPrefix(msg, "failed to register client: "))
	case strings.Contains(msg, "iss parameter") || strings.HasPrefix(msg, "authorization response issuer"):
		return fmt.Errorf("OAuth: the redirect from the authorization server does not name the issuer discovery found (%s): "+
			"the browser may have signed in at another authorization server (a mix-up); sign in again, and if it persists check the authorization server's issuer setting", msg)
	case strings.HasPrefix(msg, "failed to parse WWW-Authenticate header"):
		return fmt.Errorf("OAuth: the server at %s refused the request with a WWW-Authenticate header that cannot be read (%s): the server's OAuth settings are wrong; ask its operator", c.cfg.ServerURL, msg)
	}
	if at, ok := c.trail.last(""); ok {
		return fmt.Errorf("OAuth: signing in to %s failed after %s: %v", c.cfg.ServerURL, at, err)
	}
	return fmt.Errorf("OAuth: signing in to %s failed: %v", c.cfg.ServerURL, err)
}

// noRegistration explains an authorization server the client cannot be
// known to.
func (c *Client) noRegistration() error {
	if c.cfg.ClientMetadataURL != "" {
		return fmt.Errorf("OAuth: the authorization server of %s does not take client ID metadata documents (its metadata lacks client_id_metadata_document_supported) "+
			"and offers no dynamic client registration: register the inspector there and give its client id with --oauth-client-id", c.cfg.ServerURL)
	}
	return fmt.Errorf("OAuth: the authorization server of %s offers no dynamic client registration: "+
		"register the inspector there and give its client id with --oauth-client-id", c.cfg.ServerURL)
}

// tokenRefused explains the token endpoint's refusal (of a code or a
// refresh token).
func (c *Client) tokenRefused(rerr *oauth2.RetrieveError) error {
	msg := rerr.ErrorCode
	if rerr.ErrorDescription != "" {
		msg += ": " + rerr.ErrorDescription
	}
	if msg == "" && rerr.Response != nil {
		msg = rerr.Response.Status
		if said := firstLine(rerr.Body); said != "" {
			msg += ": " + said
		}
	}
	where := ""
	at, ok := c.trail.last("")
	if ok && at.clientAuth != "" {
		where = " at " + at.url
	}
	hint := ""
	switch rerr.ErrorCode {
	case "invalid_client", "unauthorized_client":
		switch {
		case c.cfg.ClientSecret != "":
			hint = fmt.Sprintf(" (the client authenticated with %s: check --oauth-client-id and its secret, and whether the client is registered for %s; --oauth-token-auth picks the other)", at.clientAuth, at.clientAuth)
		case c.cfg.ClientID != "":
			hint = " (check --oauth-client-id; a confidential client needs its secret: --oauth-client-secret)"
		default:
			hint = " (check --oauth-client-id)"
		}
	case "invalid_grant":
		hint = " (the code or refresh token was not taken: sign in again)"
	case "invalid_scope":
		hint = " (ask for other scopes with --oauth-scopes)"
	}
	return fmt.Errorf("OAuth: the authorization server%s refused to issue a token: %s%s", where, msg, hint)
}

// discoveryFailed explains authorization-server metadata that could not
// be used, naming each address tried.
func (c *Client) discoveryFailed(detail string) error {
	tried := c.trail.discovery()
	var list []string
	for _, e := range tried {
		st := e.status
		if st == "" {
			st = e.said
		}
		list = append(list, e.url+" ("+st+")")
	}
	what := "check that the authorization server is up and that its metadata is served there"
	switch {
	case strings.HasPrefix(detail, "metadata issuer"):
		what = "RFC 8414 wants the metadata's issuer to be exactly the authorization server the protected resource names, " +
			"so that no server can pass for another: fix the issuer in the authorization server's settings, or the authorization_servers of the resource's metadata"
	case strings.Contains(detail, "does not implement PKCE"):
		what = "its metadata lists no code_challenge_methods_supported, and MCP clients sign in only with PKCE: enable PKCE (S256) on the authorization server"
	}
	return fmt.Errorf("OAuth: discovery: the authorization server's metadata could not be used (%s; tried %s): %s",
		detail, strings.Join(list, ", "), what)
}

// registrationFailed explains a refused dynamic registration.
func (c *Client) registrationFailed(detail string) error {
	at, ok := c.trail.last("")
	found := false
	var tried []string
	for _, e := range c.trail.discovery() {
		st := e.status
		if e.said != "" && e.status == "200 OK" {
			st += ", " + e.said
		}
		tried = append(tried, e.url+" ("+st+")")
		found = found || (e.status == "200 OK" && e.said == "")
	}
	guess := ""
	if !found && len(tried) > 0 {
		guess = "; no authorization-server metadata was found (tried " + strings.Join(tried, ", ") + "), so the registration address was guessed"
	}
	what := strings.TrimSpace(detail)
	if ok && strings.Contains(at.url, "register") {
		what = at.String() // the same, with the address
	}
	return fmt.Errorf("OAuth: registering the inspector with the authorization server failed (%s)%s: "+
		"register it there by hand and give its client id with --oauth-client-id", what, guess)
}
