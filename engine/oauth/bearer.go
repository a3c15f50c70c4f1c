package oauth

import (
	"fmt"
	"io"
	"net/http"

	"golang.org/x/oauth2"
)

// Wrap returns a RoundTripper that sends each request through base with
// the access token. When the server answers 401 Unauthorized and a
// refresh token is held, it refreshes the token and sends the request
// once more. When it answers 403 with error="insufficient_scope", it
// signs in again for the scopes held and those the server names (the
// browser opens again) and sends the request once more. It makes Client
// an engine.HTTPAuth.
func (c *Client) Wrap(base http.RoundTripper) http.RoundTripper {
	return &bearer{c: c, base: base}
}

type bearer struct {
	c    *Client
	base http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	b.c.mu.Lock()
	signed := b.c.signed && b.c.token != nil
	b.c.mu.Unlock()
	if !signed {
		// The server asked for no token at sign-in, or SignIn was not
		// called: the request goes as it is.
		return b.base.RoundTrip(r)
	}
	tok, err := b.c.Token()
	if err != nil {
		return nil, err
	}
	resp, err := b.base.RoundTrip(withToken(r, tok))
	if err != nil {
		return resp, err
	}
	if ch, ok := insufficientScope(resp); ok {
		refused := *resp
		out, err := b.stepUp(r, resp, tok, ch)
		if err != nil {
			return refusal(r, &refused, err)
		}
		return out, nil
	}
	if resp.StatusCode != http.StatusUnauthorized {
		return resp, nil
	}
	drain(resp)
	if !b.c.refreshable() {
		return nil, fmt.Errorf("OAuth: the server refused the access token (%s) and there is no refresh token to renew it: sign in again", resp.Status)
	}
	if r.Body != nil && r.Body != http.NoBody && r.GetBody == nil {
		return nil, fmt.Errorf("OAuth: the server refused the access token (%s) and the request cannot be sent again: sign in again", resp.Status)
	}
	if err := b.c.refresh(r.Context(), tok.AccessToken); err != nil {
		return nil, fmt.Errorf("OAuth: the server refused the access token (%s) and renewing it failed: %w", resp.Status, err)
	}
	if tok, err = b.c.Token(); err != nil {
		return nil, err
	}
	again := withToken(r, tok)
	if r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		again.Body = body
	}
	resp, err = b.base.RoundTrip(again)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		drain(resp)
		return nil, fmt.Errorf("OAuth: the server refused the renewed access token too (%s): sign in again", resp.Status)
	}
	return resp, err
}

// withToken is a copy of r carrying tok.
func withToken(r *http.Request, tok *oauth2.Token) *http.Request {
	r2 := r.Clone(r.Context())
	tok.SetAuthHeader(r2)
	return r2
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
