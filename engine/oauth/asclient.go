package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// exchange is one request the inspector made to the authorization server
// (or for a metadata document), as a person would want it named when
// something went wrong: where, and what came back.
type exchange struct {
	method, url string // the URL without its query
	status      string // "" when no answer came
	said        string // the start of an error answer's body
	clientAuth  string // for a token request: client_secret_basic, client_secret_post or none
}

func (e exchange) String() string {
	s := e.method + " " + e.url
	if e.status != "" {
		s += " answered " + e.status
	}
	if e.said != "" {
		s += ": " + e.said
	}
	return s
}

// trail keeps the requests of one sign-in, so that a failure can say
// which step it was at and what the server said.
type trail struct {
	mu    sync.Mutex
	steps []exchange
}

func (t *trail) add(e exchange) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.steps) == 64 { // a sign-in makes a dozen; keep the last ones
		t.steps = t.steps[1:]
	}
	t.steps = append(t.steps, e)
}

func (t *trail) reset() {
	t.mu.Lock()
	t.steps = nil
	t.mu.Unlock()
}

// last is the latest request whose URL contains part ("" for any).
func (t *trail) last(part string) (exchange, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.steps) - 1; i >= 0; i-- {
		if strings.Contains(t.steps[i].url, part) {
			return t.steps[i], true
		}
	}
	return exchange{}, false
}

// discovery is every request for authorization-server metadata, in order.
func (t *trail) discovery() []exchange {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []exchange
	for _, e := range t.steps {
		if isServerMetadata(e.url) {
			out = append(out, e)
		}
	}
	return out
}

// isServerMetadata says whether u is an address of authorization-server
// metadata: RFC 8414's, or OpenID Connect discovery's, with or without a
// path.
func isServerMetadata(u string) bool {
	return strings.Contains(u, "/.well-known/oauth-authorization-server") || strings.Contains(u, "/.well-known/openid-configuration")
}

// asTransport is the bottom of the client's requests to the
// authorization server: each is bounded by the HTTP timeout (the SDK's
// discovery requests carry none of their own), noted on the trail, its
// secrets registered, and, with a token endpoint authentication method
// chosen, the metadata made to offer only that one.
type asTransport struct {
	c    *Client
	base http.RoundTripper
}

func (t *asTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	outer := r.Context()
	ctx, cancel := context.WithTimeout(outer, t.c.cfg.HTTPTimeout)
	r = r.WithContext(ctx)
	e := exchange{method: r.Method, url: redactQuery(r.URL.String())}
	if r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		e.clientAuth = "none"
		if _, _, ok := r.BasicAuth(); ok {
			e.clientAuth = "client_secret_basic"
		} else if r.GetBody != nil {
			if body, err := r.GetBody(); err == nil {
				data, _ := io.ReadAll(io.LimitReader(body, 1<<20))
				body.Close()
				if bytes.Contains(data, []byte("client_secret=")) {
					e.clientAuth = "client_secret_post"
				}
			}
		}
	}
	resp, err := (&secretsRoundTripper{base: t.base, sink: t.c.sink}).RoundTrip(r)
	if err != nil {
		cancel()
		if ctx.Err() == context.DeadlineExceeded && outer.Err() == nil {
			err = noAnswer{t.c.cfg.HTTPTimeout}
		}
		e.said = err.Error()
		t.c.trail.add(e)
		return nil, err
	}
	e.status = resp.Status
	// secretsRoundTripper has read the body into memory: peek at it.
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 400:
		e.said = firstLine(data)
	case resp.StatusCode == http.StatusOK && isServerMetadata(e.url):
		if declared, want, ok := foreignIssuer(r.URL, data); ok {
			// Not used, and not the end of discovery: the next address in
			// the specification's order may hold the issuer's own.
			e.said = fmt.Sprintf("declares the issuer %q, not %q: not used", declared, want)
			t.c.notify("the authorization-server metadata at %s declares the issuer %q, not %q, as RFC 8414 asks: not used, trying the next address", e.url, declared, want)
			t.c.trail.add(e)
			resp.StatusCode, resp.Status = http.StatusNotFound, "404 Not Found"
			resp.Body = &cancelBody{io.NopCloser(strings.NewReader("")), cancel}
			resp.ContentLength = 0
			return resp, nil
		}
		if method := t.c.cfg.TokenAuthMethod; method != "" {
			var listed []string
			data, listed = pinAuthMethod(data, method)
			if len(listed) > 0 && !slices.Contains(listed, method) {
				t.c.notify("the authorization server lists %s as its token endpoint's methods, not %s: sending the secret with %s as told", strings.Join(listed, ", "), method, method)
			}
		}
	}
	resp.Body = &cancelBody{io.NopCloser(bytes.NewReader(data)), cancel}
	resp.ContentLength = int64(len(data))
	t.c.trail.add(e)
	return resp, nil
}

// foreignIssuer says whether the metadata data, read from u, declares
// an issuer other than the one u is the metadata address of (RFC 8414
// section 3.3: such metadata must not be used).
func foreignIssuer(u *url.URL, data []byte) (declared, want string, foreign bool) {
	var m struct {
		Issuer string `json:"issuer"`
	}
	if json.Unmarshal(data, &m) != nil {
		return "", "", false // the SDK says what is wrong with it
	}
	path := u.Path
	for _, wk := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		switch {
		case strings.HasPrefix(path, wk):
			path = strings.TrimPrefix(path, wk)
		case strings.HasSuffix(path, wk):
			path = strings.TrimSuffix(path, wk)
		default:
			continue
		}
		want = u.Scheme + "://" + u.Host + path
		return m.Issuer, want, strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(want, "/")
	}
	return "", "", false
}

// noAnswer is a request to the authorization server that got no answer
// within the HTTP timeout; it is a timeout to those who ask.
type noAnswer struct{ wait time.Duration }

func (e noAnswer) Error() string { return fmt.Sprintf("no answer within %v", e.wait) }

func (e noAnswer) Timeout() bool { return true }

// pinAuthMethod makes authorization-server metadata offer only method at
// the token endpoint, so that the SDK, which picks one from the list,
// picks it (for the exchange and every refresh alike).
// It returns the methods the metadata listed.
func pinAuthMethod(data []byte, method string) ([]byte, []string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data, nil
	}
	var listed []string
	json.Unmarshal(m["token_endpoint_auth_methods_supported"], &listed)
	m["token_endpoint_auth_methods_supported"], _ = json.Marshal([]string{method})
	out, err := json.Marshal(m)
	if err != nil {
		return data, listed
	}
	return out, listed
}

// firstLine is the first line of an answer, if short.
func firstLine(data []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return line
}

// newASClient is the HTTP client for the authorization server and the
// client's metadata document.
func (c *Client) newASClient() *http.Client {
	base := http.DefaultTransport
	var check func(*http.Request, []*http.Request) error
	if c.cfg.HTTPClient != nil {
		if c.cfg.HTTPClient.Transport != nil {
			base = c.cfg.HTTPClient.Transport
		}
		check = c.cfg.HTTPClient.CheckRedirect
	}
	// No Timeout here: asTransport bounds each request, its answer read
	// whole, and says so.
	return &http.Client{
		Transport:     &asTransport{c: c, base: base},
		CheckRedirect: check,
	}
}
