package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestHTTPForwardsAsReverseProxy: what httputil.ReverseProxy does to a
// request and its response, the proxy does: hop-by-hop headers (and
// those Connection names) and forwarding headers stay behind, "Te:
// trailers" goes on, a 103 reaches the client before the response, and
// so do the response's trailers after it.
func TestHTTPForwardsAsReverseProxy(t *testing.T) {
	seen := make(chan http.Header, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		seen <- r.Header.Clone()
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Set("Connection", "X-Up-Hop")
		w.Header().Set("X-Up-Hop", "1")
		w.Header().Set("Keep-Alive", "timeout=5")
		w.Header().Set("Trailer", "X-Sum")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		w.Header().Set("X-Sum", "42")
	}))
	defer up.Close()
	_, front := proxyTo(t, up.URL+"/mcp", recorder.New(recorder.Meta{}))

	var early []string
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
			early = append(early, h.Get("Link"))
			return nil
		},
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	for k, v := range map[string]string{
		"Content-Type": "application/json", "Connection": "X-Client-Hop", "X-Client-Hop": "1",
		"X-Forwarded-For": "192.0.2.1", "Forwarded": "for=192.0.2.1", "Te": "trailers", "X-Kept": "yes",
	} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("body %q (%v), want the upstream's", body, err)
	}
	h := <-seen
	for _, k := range []string{"X-Client-Hop", "X-Forwarded-For", "Forwarded", "Connection"} {
		if v, ok := h[k]; ok {
			t.Errorf("the upstream got %s: %q, want it dropped", k, v)
		}
	}
	if h.Get("Te") != "trailers" || h.Get("X-Kept") != "yes" {
		t.Errorf("the upstream got Te %q, X-Kept %q: want both passed on", h.Get("Te"), h.Get("X-Kept"))
	}
	if len(early) != 1 || early[0] != "</style.css>; rel=preload" {
		t.Errorf("the client got 1xx responses with Link %q, want the 103", early)
	}
	for _, k := range []string{"X-Up-Hop", "Keep-Alive"} {
		if v, ok := resp.Header[k]; ok {
			t.Errorf("the client got %s: %q, want it dropped", k, v)
		}
	}
	if resp.Trailer.Get("X-Sum") != "42" {
		t.Errorf("trailers %v, want X-Sum: 42", resp.Trailer)
	}
}

// TestHTTPHeadersBeforeLateBody: the headers of a response whose body
// is late reach the client on their own, before it.
func TestHTTPHeadersBeforeLateBody(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	}))
	defer up.Close()
	defer close(release)
	_, front := proxyTo(t, up.URL+"/mcp", recorder.New(recorder.Meta{}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`))
	resp, err := http.DefaultClient.Do(req) // returns with the headers
	if err != nil {
		t.Fatalf("no headers while the body waits: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("got %d %q, want the upstream's headers", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
