package proxy

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends an initialize to url with the given Host (when not "") and
// headers, and returns the status, headers and body.
func post(t *testing.T, url, host string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b.String()
}

// TestGuardRefusesForeignHostAndOrigin: a request that names a foreign
// host (a DNS-rebinding page) is refused with 403 through the proxy as
// the Go SDK's streamable server refuses it directly; a page from a
// foreign origin is refused too; loopback names, and a local page's
// origin, pass and get a session.
func TestGuardRefusesForeignHostAndOrigin(t *testing.T) {
	up, _ := upstreamDemo(t)
	_, front := proxyTo(t, up.URL+"/mcp", recorder.New(recorder.Meta{}))
	port := func(base string) string { _, p, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://")); return p }
	for _, c := range []struct {
		name   string
		host   string // "" for the URL's own
		origin string
		want   int
		sdk    bool // the SDK's server refuses it directly too
	}{
		{"rebinding: foreign Host and Origin", "evil.example", "http://evil.example", http.StatusForbidden, true},
		{"rebinding: foreign Host", "evil.example:PORT", "", http.StatusForbidden, true},
		{"a private address as Host", "192.168.1.10:PORT", "", http.StatusForbidden, true},
		{"foreign Origin", "", "http://evil.example", http.StatusForbidden, false},
		{"null Origin", "", "null", http.StatusForbidden, false},
		{"loopback Host", "", "", http.StatusOK, false},
		{"localhost Host, local page", "localhost:PORT", "http://localhost:6274", http.StatusOK, false},
		{"[::1] Host", "[::1]:PORT", "http://127.0.0.1:6274", http.StatusOK, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{}
			if c.origin != "" {
				h["Origin"] = c.origin
			}
			status, hdr, body := post(t, front.URL+"/mcp", strings.ReplaceAll(c.host, "PORT", port(front.URL)), h)
			if status != c.want {
				t.Errorf("through the proxy: %d %q, want %d", status, body, c.want)
			}
			if c.want == http.StatusForbidden && !strings.Contains(body, "inspector proxy: Forbidden") {
				t.Errorf("403 body %q: want it to say why", body)
			}
			if c.want == http.StatusOK && hdr.Get("Mcp-Session-Id") == "" {
				t.Errorf("admitted, but no session: %v", hdr)
			}
			if c.sdk {
				if s, _, b := post(t, up.URL+"/mcp", strings.ReplaceAll(c.host, "PORT", port(up.URL)), h); s != http.StatusForbidden {
					t.Errorf("the SDK's server directly: %d %q, want 403 (the reference)", s, b)
				}
			}
		})
	}
}

// TestGuardClientToken: with a client token, a request without it or
// with a wrong one gets 401; with it, in the header or the query, it
// passes, the server never sees it, and the recording never holds it,
// even where a message quotes it.
func TestGuardClientToken(t *testing.T) {
	const token = "client-token-5f1d7e"
	var leaked atomic.Int64
	h := demo.NewHTTPHandler()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(TokenHeader) != "" || strings.Contains(r.URL.RawQuery, TokenParam) {
			leaked.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer up.Close()
	rec := recorder.New(recorder.Meta{})
	p, front := proxyTo(t, up.URL+"/mcp", rec)
	p.SetClientToken(token)
	for _, c := range []struct {
		name  string
		url   string
		token string
		want  int
	}{
		{"no token", "/mcp", "", http.StatusUnauthorized},
		{"wrong token", "/mcp", "client-token-5f1d7f", http.StatusUnauthorized},
		{"token as a prefix", "/mcp", token + "x", http.StatusUnauthorized},
		{"token in the header", "/mcp", token, http.StatusOK},
		{"token in the query", "/mcp?" + TokenParam + "=" + token, "", http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := map[string]string{}
			if c.token != "" {
				hs[TokenHeader] = c.token
			}
			status, hdr, body := post(t, front.URL+c.url, "", hs)
			if status != c.want {
				t.Errorf("%d %q, want %d", status, body, c.want)
			}
			if c.want == http.StatusUnauthorized && (!strings.Contains(body, TokenHeader) || hdr.Get("WWW-Authenticate") == "") {
				t.Errorf("401 %q %v: want the body to say how to send the token, and WWW-Authenticate", body, hdr)
			}
		})
	}
	// A message quoting the token: passed on, never recorded.
	quote := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + token + `"}}}`
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(quote))
	req.Header.Set(TokenHeader, token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if n := leaked.Load(); n > 0 {
		t.Errorf("the server saw the client token on %d requests", n)
	}
	b, err := json.Marshal(rec.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), token) {
		t.Error("the recording holds the client token")
	}
	if !strings.Contains(string(b), "tools/call") {
		t.Error("the message quoting the token was not recorded at all: the test does not test it")
	}
}

// TestListenLoopbackOnly: every address that is not a loopback one is
// refused unless remote clients are allowed.
func TestListenLoopbackOnly(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{":0", false, false},
		{"0.0.0.0:0", false, false},
		{"[::]:0", false, false},
		{"192.0.2.1:0", false, false}, // refused before it is tried
		{"127.0.0.1:0", false, true},
		{"localhost:0", false, true},
		{":0", true, true},
		{"0.0.0.0:0", true, true},
	} {
		l, err := Listen(c.addr, c.remote)
		switch {
		case c.ok && err != nil:
			t.Errorf("Listen(%q, %v): %v, want it to listen", c.addr, c.remote, err)
		case !c.ok && !IsRemoteListen(err):
			t.Errorf("Listen(%q, %v): %v, want a RemoteListenError", c.addr, c.remote, err)
		case !c.ok && !strings.Contains(err.Error(), "--allow-remote"):
			t.Errorf("Listen(%q): %v: want the message to name --allow-remote", c.addr, err)
		}
		if l != nil {
			l.Close()
		}
	}
	// This machine's own non-loopback address, if it has one.
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
			addr := net.JoinHostPort(ipn.IP.String(), "0")
			if l, err := Listen(addr, false); !IsRemoteListen(err) {
				t.Errorf("Listen(%q, false): %v, want a RemoteListenError", addr, err)
				if l != nil {
					l.Close()
				}
			}
			break
		}
	}
	if _, err := Listen("nonsense", false); err == nil || IsRemoteListen(err) || errors.Is(err, net.ErrClosed) {
		t.Errorf("Listen(nonsense): %v, want a HOST:PORT error", err)
	}
}

// TestUpstreamCredentialsStayWithTheProxy: the upstream URL's ?token= and
// user info reach the server on every request, and never a caller who did
// not bring them: not in a redirect's Location, a header or an error
// page that echoes the request's URL, nor in the proxy's own 502.
func TestUpstreamCredentialsStayWithTheProxy(t *testing.T) {
	const token, pass = "upstream-token-8c2a91", "upstream-pass-77d3"
	var seen atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") == token {
			seen.Add(1)
		}
		self := "http://" + r.Host + r.URL.RequestURI()
		w.Header().Set("X-Request-URL", self)
		switch r.Header.Get("X-Case") {
		case "redirect":
			http.Redirect(w, r, self, http.StatusTemporaryRedirect)
		case "error page":
			http.Error(w, "no such thing as "+self+" (token "+token+")", http.StatusNotFound)
		case "json error":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"bad token `+token+`"}}`)
		}
	}))
	defer up.Close()
	rec := recorder.New(recorder.Meta{})
	upstream := strings.Replace(up.URL, "http://", "http://user:"+pass+"@", 1) + "/mcp?token=" + token
	_, front := proxyTo(t, upstream, rec)
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ask := func(base, c string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(initializeBody))
		req.Header.Set("X-Case", c)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var all strings.Builder
		resp.Header.Write(&all)
		io.Copy(&all, resp.Body)
		return resp.StatusCode, all.String()
	}
	for _, c := range []string{"redirect", "error page", "json error"} {
		status, got := ask(front.URL, c)
		if strings.Contains(got, token) || strings.Contains(got, pass) {
			t.Errorf("%s: the caller got the upstream's credentials:\n%s", c, got)
		}
		if c == "redirect" && (status != http.StatusTemporaryRedirect || !strings.Contains(got, "Location: /mcp\r\n")) {
			t.Errorf("redirect: %d\n%s\nwant 307 to /mcp on the proxy, without the token", status, got)
		}
	}
	if seen.Load() != 3 {
		t.Errorf("the server got the upstream's token on %d of 3 requests", seen.Load())
	}
	// The proxy's own 502, the server gone.
	up.Close()
	status, got := ask(front.URL, "gone")
	if status != http.StatusBadGateway || strings.Contains(got, token) || strings.Contains(got, pass) {
		t.Errorf("upstream down: %d\n%s\nwant 502 without the upstream's credentials", status, got)
	}
}
