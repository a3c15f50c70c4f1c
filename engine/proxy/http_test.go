package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The credentials the tests' client sends; none may reach a recording.
const (
	testBearer = "sekrit-bearer-4711"
	testCookie = "cookie-value-0815"
	testQuery  = "query-token-2342"
)

// upstreamDemo serves the demo server over streamable HTTP on loopback.
// authSeen counts the requests that carried the test's Authorization
// header.
func upstreamDemo(t *testing.T) (srv *httptest.Server, authSeen *atomic.Int64) {
	t.Helper()
	authSeen = new(atomic.Int64)
	h := demo.NewHTTPHandler()
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+testBearer {
			authSeen.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, authSeen
}

// proxyTo serves an HTTP proxy to upstream on loopback.
func proxyTo(t *testing.T, upstream string, rec *recorder.Recording) (*HTTP, *httptest.Server) {
	t.Helper()
	p, err := NewHTTP(upstream, rec, engine.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	return p, front
}

// withCredentials adds the test's credentials to every request.
type withCredentials struct{}

func (withCredentials) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+testBearer)
	r.Header.Set("Cookie", "sid="+testCookie)
	return http.DefaultTransport.RoundTrip(r)
}

// httpClient connects an SDK client with the given sampling handler to
// endpoint over streamable HTTP, with the test's credentials.
func httpClient(t *testing.T, endpoint, protocol string, sample func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1"}, &mcp.ClientOptions{CreateMessageHandler: sample})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withCredentials{}}},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestHTTPRecordsClientFanout: through the HTTP proxy, a client that
// serves sampling one at a time answers the demo server's five requests
// a latency apart and a concurrent one together, on both protocol
// versions: pushed on the tool call's event stream (2025-11-25), each
// sampling span a child of the call, or asked for in rounds
// (2026-07-28), the fulfilment between them. The credentials reach the
// server and appear nowhere in the recording.
func TestHTTPRecordsClientFanout(t *testing.T) {
	const latency = 200 * time.Millisecond
	run := func(t *testing.T, protocol string, serial bool) *recorder.Snapshot {
		var mu *sync.Mutex
		if serial {
			mu = &sync.Mutex{}
		}
		up, auth := upstreamDemo(t)
		rec := recorder.New(recorder.Meta{})
		p, front := proxyTo(t, up.URL+"/mcp", rec)
		cs := httpClient(t, front.URL+"/mcp?api_key="+testQuery, protocol, sampleAfter(latency, mu))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": 5}}); err != nil {
			t.Fatal(err)
		}
		// A message that quotes the credentials (a model pasting them,
		// an error echoing them): they pass, and are not recorded.
		leak := strings.Join([]string{testBearer, testCookie, testQuery}, " ")
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": leak}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, leak) {
			t.Errorf("echo answered %q through the proxy, want it to hold %q", got, leak)
		}
		cs.Close()
		p.Close("test over")
		if auth.Load() == 0 {
			t.Error("the Authorization header did not reach the server")
		}
		snap := rec.Snapshot()
		if snap.Meta.Protocol != protocol {
			t.Errorf("protocol %q, want %q", snap.Meta.Protocol, protocol)
		}
		raw, err := json.Marshal(snap)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), "echo") {
			t.Error("the recording lacks the echo call")
		}
		for _, secret := range []string{testBearer, testCookie, testQuery} {
			if strings.Contains(string(raw), secret) {
				t.Errorf("the recording holds the credential %q", secret)
			}
		}
		return snap
	}
	t.Run("2025-11-25", func(t *testing.T) {
		spread := func(serial bool) time.Duration {
			snap := run(t, "2025-11-25", serial)
			var call *recorder.Span
			for _, s := range snap.Spans {
				if s.Kind == recorder.KindTool && s.Name == "fanout" {
					call = s
				}
			}
			if call == nil || call.Status != recorder.StatusOK {
				t.Fatalf("tool call span %+v, want one answered ok", call)
			}
			var first, last time.Duration = -1, 0
			n := 0
			for _, s := range snap.Spans {
				if s.Kind != recorder.KindSampling {
					continue
				}
				n++
				if s.Parent != call.ID || s.Status != recorder.StatusOK {
					t.Errorf("sampling span %d: parent %d status %s %s, want the tool call's child answered ok", s.ID, s.Parent, s.Status, s.Error)
				}
				if first < 0 || s.Answered < first {
					first = s.Answered
				}
				last = max(last, s.Answered)
			}
			if n != 5 {
				t.Fatalf("recorded %d sampling spans, want 5", n)
			}
			return last - first
		}
		serial, concurrent := spread(true), spread(false)
		if serial < 3*latency {
			t.Errorf("serial client: answers spread over %v, want at least %v", serial, 3*latency)
		}
		if concurrent > latency/2 {
			t.Errorf("concurrent client: answers spread over %v, want under %v", concurrent, latency/2)
		}
	})
	t.Run("2026-07-28", func(t *testing.T) {
		fulfil := func(serial bool) time.Duration {
			snap := run(t, "2026-07-28", serial)
			var call, inside *recorder.Span
			var rounds []*recorder.Span
			for _, s := range snap.Spans {
				if s.Kind == recorder.KindTool && s.Name == "fanout" {
					call = s
				}
			}
			for _, s := range snap.Spans {
				switch {
				case call == nil:
				case s.Kind == recorder.KindRound && s.Parent == call.ID:
					rounds = append(rounds, s)
				case s.Kind == recorder.KindSampling:
					inside = s
				}
			}
			if call == nil || len(rounds) != 2 || inside == nil {
				t.Fatalf("call %v, %d rounds, fulfilment %v: want one call, two rounds and the fulfilment", call, len(rounds), inside)
			}
			if rounds[0].Parent != call.ID || rounds[1].Parent != call.ID || rounds[0].InputRequests != 5 ||
				inside.Parent != rounds[0].ID || inside.InputRequests != 5 || call.Status != recorder.StatusOK {
				t.Errorf("call %+v rounds %+v %+v fulfilment %+v: want two rounds of the call, the first asking for 5", *call, *rounds[0], *rounds[1], *inside)
			}
			return inside.Total()
		}
		serial, concurrent := fulfil(true), fulfil(false)
		if serial < 4*latency || concurrent > 2*latency {
			t.Errorf("fulfilment: serial %v (want ≥ %v), concurrent %v (want ≤ %v)", serial, 4*latency, concurrent, 2*latency)
		}
	})
}

// exchangeRaw posts body to url with headers and returns the status,
// the headers and the body.
func exchangeRaw(t *testing.T, method, url, body string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// TestHTTPIsTransparent: the same exchanges, directly and through the
// proxy, give the same status codes, content types and bodies, and a
// session id where the direct one gives one; DELETE ends the session
// through the proxy too.
func TestHTTPIsTransparent(t *testing.T) {
	up, _ := upstreamDemo(t)
	rec := recorder.New(recorder.Meta{})
	_, front := proxyTo(t, up.URL+"/mcp", rec)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	type answer struct {
		status   int
		ctype    string
		session  bool
		body     string
		after    int // status of a request in that session
		deleted  int
		afterDel int
	}
	get := func(base string) answer {
		var a answer
		var h http.Header
		a.status, h, a.body = exchangeRaw(t, http.MethodPost, base+"/mcp", initialize, nil)
		a.ctype = h.Get("Content-Type")
		sid := h.Get("Mcp-Session-Id")
		a.session = sid != ""
		hs := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
		a.after, _, _ = exchangeRaw(t, http.MethodPost, base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hs)
		a.deleted, _, _ = exchangeRaw(t, http.MethodDelete, base+"/mcp", "", hs)
		a.afterDel, _, _ = exchangeRaw(t, http.MethodPost, base+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, hs)
		return a
	}
	direct, proxied := get(up.URL), get(front.URL)
	if !direct.session {
		t.Fatal("the direct connection gave no Mcp-Session-Id: the test does not test it")
	}
	if direct != proxied {
		t.Errorf("through the proxy:\n%+v\ndirectly:\n%+v", proxied, direct)
	}
	// A POST with no Accept header: the server's error passes unchanged.
	s1, _, b1 := exchangeRaw(t, http.MethodGet, up.URL+"/mcp", "", map[string]string{"Accept": "text/plain"})
	s2, _, b2 := exchangeRaw(t, http.MethodGet, front.URL+"/mcp", "", map[string]string{"Accept": "text/plain"})
	if s1 != s2 || b1 != b2 {
		t.Errorf("a bad GET: directly %d %q, through the proxy %d %q", s1, b1, s2, b2)
	}
	snap := rec.Snapshot()
	var init *recorder.Span
	for _, s := range snap.Spans {
		if s.Method == "initialize" {
			init = s
		}
	}
	if init == nil || init.Status != recorder.StatusOK || !strings.HasPrefix(snap.Meta.Server, "fanout-demo") {
		t.Errorf("initialize span %+v, server %q: want the exchange recorded", init, snap.Meta.Server)
	}
}

// TestHTTPUpstreamDown: when the server cannot be reached the client
// gets a 502 that says so, and the recording ends its request with the
// reason.
func TestHTTPUpstreamDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	rec := recorder.New(recorder.Meta{})
	_, front := proxyTo(t, dead, rec)
	status, _, body := exchangeRaw(t, http.MethodPost, front.URL+"/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, nil)
	if status != http.StatusBadGateway || !strings.Contains(body, "the server could not be reached") || !strings.Contains(body, dead) {
		t.Errorf("got %d %q, want 502 saying the server at %s could not be reached", status, body, dead)
	}
	snap := rec.Snapshot()
	if len(snap.Spans) != 1 || snap.Spans[0].Status != recorder.StatusAborted || !strings.Contains(snap.Spans[0].Error, "could not be reached") {
		t.Errorf("spans %+v: want tools/list aborted with the reason", snap.Spans)
	}
}

// absoluteEndpoint makes the Go SDK's legacy SSE server name its
// message endpoint by an absolute URL, as some servers do.
type absoluteEndpoint struct {
	http.ResponseWriter
	base string
}

func (w absoluteEndpoint) Write(p []byte) (int, error) {
	q := strings.Replace(string(p), "event: endpoint\ndata: /", "event: endpoint\ndata: "+w.base+"/", 1)
	if _, err := w.ResponseWriter.Write([]byte(q)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w absoluteEndpoint) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// TestHTTPLegacySSE: a client of the legacy HTTP+SSE transport reaches
// the server through the proxy: the endpoint event the server sends,
// naming the server by an absolute URL, is rewritten to lead the
// client's posts to the proxy, not past it, and the fan-out is recorded.
func TestHTTPLegacySSE(t *testing.T) {
	var posts atomic.Int64
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return demo.NewServer() }, nil)
	var base string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		sse.ServeHTTP(absoluteEndpoint{w, base}, r)
	}))
	base = up.URL
	defer up.Close()
	rec := recorder.New(recorder.Meta{})
	p, _ := proxyTo(t, up.URL+"/sse", rec)
	var proxiedPosts atomic.Int64
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			proxiedPosts.Add(1)
		}
		p.ServeHTTP(w, r)
	}))
	defer counting.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, &mcp.ClientOptions{CreateMessageHandler: sampleAfter(10*time.Millisecond, nil)})
	// Pushed sampling (2025-11-25) is what crosses this transport's
	// event stream; left to negotiate, a round's input requests would be
	// one fulfilment span instead.
	cs, err := c.Connect(ctx, &mcp.SSEClientTransport{Endpoint: counting.URL + "/sse"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": 3}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if posts.Load() == 0 || posts.Load() != proxiedPosts.Load() {
		t.Errorf("the server got %d posts, the proxy passed on %d: want every post through the proxy", posts.Load(), proxiedPosts.Load())
	}
	n := 0
	for _, s := range rec.Snapshot().Spans {
		if s.Kind == recorder.KindSampling && s.Status == recorder.StatusOK && s.Parent != 0 {
			n++
		}
	}
	if n != 3 {
		t.Errorf("recorded %d sampling spans answered and linked to the call, want 3", n)
	}
}

// TestHTTPBrokenStreams: a client that goes away cancels its request
// upstream, and an upstream that dies in the middle of a response stream
// ends the request in the recording with the reason.
func TestHTTPBrokenStreams(t *testing.T) {
	upstreamGone := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		if r.URL.Path == "/die" {
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		<-r.Context().Done() // the client of /wait goes away
		close(upstreamGone)
	}))
	defer up.Close()
	rec := recorder.New(recorder.Meta{})
	_, front := proxyTo(t, up.URL+"/mcp", rec)

	post := func(ctx context.Context, path, id string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+path,
			strings.NewReader(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"x"}}`))
		req.Header.Set("Content-Type", "application/json")
		return http.DefaultClient.Do(req)
	}
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := post(ctx, "/wait", "1")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-upstreamGone:
	case <-time.After(5 * time.Second):
		t.Fatal("the client went away and the upstream request was still open 5 s later")
	}

	resp, err = post(context.Background(), "/die", "2")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Errorf("the client read %q and a clean end, want the stream to break as the upstream's did", body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var st []string
		ok := 0
		for _, s := range rec.Snapshot().Spans {
			st = append(st, fmt.Sprintf("%s %s %s", s.RequestID, s.Status, s.Error))
			if (s.RequestID == "1" && s.Status == recorder.StatusAborted && strings.Contains(s.Error, "went away")) ||
				(s.RequestID == "2" && s.Status == recorder.StatusAborted && strings.Contains(s.Error, "broke off")) {
				ok++
			}
		}
		if ok == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("spans %q: want 1 aborted as the client went away, 2 as the stream broke off", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHTTPSetCookieAttributesAreNotSecrets: the value a server sets in
// a cookie is kept out of the recording, but the cookie's attributes
// (Max-Age=3600) are not secrets: a 3600 elsewhere in a message stays.
func TestHTTPSetCookieAttributesAreNotSecrets(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "sid=server-set-cookie-77; Path=/; Max-Age=3600")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"ttl":3600,"echo":"server-set-cookie-77"}}`)
	}))
	defer up.Close()
	rec := recorder.New(recorder.Meta{})
	_, front := proxyTo(t, up.URL+"/mcp", rec)
	_, h, body := exchangeRaw(t, http.MethodPost, front.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	if h.Get("Set-Cookie") != "sid=server-set-cookie-77; Path=/; Max-Age=3600" || !strings.Contains(body, "server-set-cookie-77") {
		t.Errorf("the client got Set-Cookie %q and %q: want both unchanged", h.Get("Set-Cookie"), body)
	}
	snap := rec.Snapshot()
	if len(snap.Spans) != 1 {
		t.Fatalf("%d spans, want the tools/list", len(snap.Spans))
	}
	if got := string(snap.Spans[0].Result); got != `{"ttl":3600,"echo":"REDACTED"}` {
		t.Errorf("recorded result %s, want the cookie's value redacted and the rest as it was", got)
	}
}
