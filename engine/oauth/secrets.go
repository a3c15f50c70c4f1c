package oauth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/oauth2"
)

// secretSink passes secrets on to the recording's scrubber. It keeps
// every secret it was given, so that each new recording (a reconnect
// with the same token) is given them all when it is set.
type secretSink struct {
	mu   sync.Mutex
	f    func(...string)
	seen []string
}

func (s *secretSink) set(f func(...string)) {
	if f == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.f = f
	if len(s.seen) > 0 {
		f(s.seen...)
	}
}

func (s *secretSink) add(vals ...string) {
	var out []string
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, out...)
	if s.f != nil {
		s.f(out...)
	}
}

func (s *secretSink) addToken(tok *oauth2.Token) {
	if tok == nil {
		return
	}
	s.add(tok.AccessToken, tok.RefreshToken)
	if id, ok := tok.Extra("id_token").(string); ok {
		s.add(id)
	}
}

// secretForms are the form fields of requests to the authorization
// server that carry a secret; secretFields the JSON (or form) fields of
// its answers that do.
var (
	secretForms  = []string{"code", "code_verifier", "refresh_token", "client_secret", "client_assertion", "assertion", "subject_token"}
	secretFields = []string{"access_token", "refresh_token", "id_token", "client_secret", "registration_access_token"}
)

// secretsRoundTripper registers every secret that passes between the
// inspector and the authorization server (the code and verifier it sends,
// the tokens and client secret it is given) before the SDK sees the
// answer.
type secretsRoundTripper struct {
	base http.RoundTripper
	sink *secretSink
}

func (t *secretsRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if user, pass, ok := r.BasicAuth(); ok {
		t.sink.add(pass, base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
	}
	if r.GetBody != nil && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if body, err := r.GetBody(); err == nil {
			data, _ := io.ReadAll(io.LimitReader(body, 1<<20))
			body.Close()
			if form, err := url.ParseQuery(string(data)); err == nil {
				for _, k := range secretForms {
					t.sink.add(form[k]...)
				}
			}
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		var fields map[string]any
		if json.Unmarshal(data, &fields) == nil {
			for _, k := range secretFields {
				if v, ok := fields[k].(string); ok {
					t.sink.add(v)
				}
			}
		}
	case "application/x-www-form-urlencoded", "text/plain":
		if form, err := url.ParseQuery(string(data)); err == nil {
			for _, k := range secretFields {
				t.sink.add(form[k]...)
			}
		}
	}
	return resp, nil
}
