package oauth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// scopeChallenge is a server's 403 asking for more scopes: the Bearer
// challenge with error="insufficient_scope".
type scopeChallenge struct {
	scopes      []string // the scope parameter: what the request needs
	description string
}

// insufficientScope reads resp's challenge; ok is false for a 403 that
// is not insufficient_scope (which no token would change).
func insufficientScope(resp *http.Response) (scopeChallenge, bool) {
	if resp.StatusCode != http.StatusForbidden {
		return scopeChallenge{}, false
	}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return scopeChallenge{}, false
	}
	for _, ch := range cs {
		if ch.Scheme == "bearer" && ch.Params["error"] == "insufficient_scope" {
			return scopeChallenge{scopes: strings.Fields(ch.Params["scope"]), description: ch.Params["error_description"]}, true
		}
	}
	return scopeChallenge{}, false
}

// stepUp answers a 403 insufficient_scope to r (sent with tok): it signs
// in again for the scopes held and those asked, once, and sends r once
// more. A request refused for scopes the client already holds is not
// signed in again for (that would loop): its error names the scopes.
// Step-ups are made one at a time; a request refused while another
// stepped up is sent again with the new token.
func (b *bearer) stepUp(r *http.Request, resp *http.Response, tok *oauth2.Token, ch scopeChallenge) (*http.Response, error) {
	c := b.c
	asked := scopeList(ch.scopes)
	if r.Body != nil && r.Body != http.NoBody && r.GetBody == nil {
		drain(resp)
		return nil, fmt.Errorf("OAuth: the server at %s asks for the scope %q (403 insufficient_scope) and the request cannot be sent again: sign in with --oauth-scopes including it", c.cfg.ServerURL, asked)
	}
	if len(ch.scopes) == 0 {
		drain(resp)
		return nil, fmt.Errorf("OAuth: the server at %s refuses the request for want of a scope (403 insufficient_scope%s) without naming it: "+
			"ask its operator which scope it needs and sign in with --oauth-scopes including it", c.cfg.ServerURL, described(ch))
	}
	c.stepping.Lock()
	defer c.stepping.Unlock()
	c.mu.Lock()
	held, current := slices.Clone(c.scopes), c.token
	c.mu.Unlock()
	if covers(held, ch.scopes) {
		drain(resp)
		if current == nil || current.AccessToken == tok.AccessToken {
			return nil, fmt.Errorf("OAuth: the server at %s refuses the request for want of the scope %q (403 insufficient_scope%s), "+
				"but the token already holds %q: the server wants more than it names, or does not take this authorization server's grant; ask its operator",
				c.cfg.ServerURL, asked, described(ch), scopeList(held))
		}
		return b.again(r, current, ch)
	}
	want := union(held, ch.scopes)
	key := scopeList(want)
	if c.steppedUp[key] {
		drain(resp)
		return nil, fmt.Errorf("OAuth: the server at %s asks for the scope %q (403 insufficient_scope) again, and signing in again for %q did not get it: "+
			"the authorization server does not grant it to this client (or this person); ask its administrator", c.cfg.ServerURL, asked, key)
	}
	if c.steppedUp == nil {
		c.steppedUp = map[string]bool{}
	}
	c.steppedUp[key] = true
	c.notify("the server at %s asks for the scope %q for this request (403 insufficient_scope%s): signing in again for %q",
		c.cfg.ServerURL, asked, described(ch), scopeList(want))
	// authorize reads the challenge's scopes itself and asks for them
	// with those held. The resource is the server's address, not the
	// one posted to (a legacy SSE server's message endpoint has a query).
	if u, err := url.Parse(c.cfg.ServerURL); err == nil {
		req := r.Clone(r.Context())
		req.URL = u
		resp.Request = req
	}
	if err := c.authorize(r.Context(), resp, append([]string{}, held...)); err != nil {
		return nil, fmt.Errorf("OAuth: the server at %s asks for the scope %q (403 insufficient_scope) and signing in again for it failed: %w", c.cfg.ServerURL, asked, err)
	}
	c.mu.Lock()
	granted, current := slices.Clone(c.scopes), c.token
	c.mu.Unlock()
	if !covers(granted, ch.scopes) {
		return nil, fmt.Errorf("OAuth: the server at %s asks for the scope %q (403 insufficient_scope), but the authorization server granted only %q: "+
			"it does not let this client (or this person) have that scope; ask its administrator", c.cfg.ServerURL, asked, scopeList(granted))
	}
	return b.again(r, current, ch)
}

// again sends r once more with tok, after a step-up: a second 403 for
// the same scopes is an error that names them.
func (b *bearer) again(r *http.Request, tok *oauth2.Token, ch scopeChallenge) (*http.Response, error) {
	retry := withToken(r, tok)
	if r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		retry.Body = body
	}
	resp, err := b.base.RoundTrip(retry)
	if err != nil {
		return nil, err
	}
	if again, ok := insufficientScope(resp); ok {
		drain(resp)
		return nil, fmt.Errorf("OAuth: the server at %s refused the request again (403 insufficient_scope, scope %q) with a token granted %q: "+
			"it asks for a scope it does not accept from this authorization server; ask its operator",
			b.c.cfg.ServerURL, scopeList(again.scopes), scopeList(b.c.heldScopes()))
	}
	return resp, nil
}

func (c *Client) heldScopes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.scopes)
}

// scopeList is scopes as a scope parameter, sorted (the SDK gathers
// them in no order), for messages and keys.
func scopeList(scopes []string) string {
	return strings.Join(slices.Sorted(slices.Values(scopes)), " ")
}

func described(ch scopeChallenge) string {
	if ch.description == "" {
		return ""
	}
	return ": " + ch.description
}

// union is a and then those of b not in a, in order.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// covers says whether held includes every scope of want.
func covers(held, want []string) bool {
	for _, s := range want {
		if !slices.Contains(held, s) {
			return false
		}
	}
	return true
}

// grantedScopes are the scopes tok was granted: its scope field, or
// asked when the token response says none (RFC 6749: then the grant is
// what was asked).
func grantedScopes(tok *oauth2.Token, asked []string) []string {
	if s, ok := tok.Extra("scope").(string); ok {
		return strings.Fields(s)
	}
	return slices.Clone(asked)
}

// RefusalCode is the JSON-RPC error code of a call the server refused
// for want of a scope that signing in again could not get (the message
// says why). It is in the range JSON-RPC leaves to implementations.
const RefusalCode = -32001

// refusal is the server's 403 to r, its body replaced by a JSON-RPC
// error for r's id that says why signing in again did not help: the SDK
// fails that one call with it and the session goes on (a 403 with any
// other body, or an error of the round trip, would end the session). A
// message without an id (a notification) gets err itself.
func refusal(r *http.Request, resp *http.Response, err error) (*http.Response, error) {
	if r.GetBody == nil {
		return nil, err
	}
	body, gerr := r.GetBody()
	if gerr != nil {
		return nil, err
	}
	data, _ := io.ReadAll(io.LimitReader(body, 1<<20))
	body.Close()
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(data, &msg) != nil || len(msg.ID) == 0 || string(msg.ID) == "null" {
		return nil, err
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
		"error": map[string]any{"code": RefusalCode, "message": err.Error()}})
	header := resp.Header.Clone()
	header.Set("Content-Type", "application/json")
	header.Del("Content-Length")
	return &http.Response{
		Status: resp.Status, StatusCode: resp.StatusCode, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
		Header: header, Body: io.NopCloser(bytes.NewReader(out)), ContentLength: int64(len(out)), Request: r,
	}, nil
}
