package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The credentials the HTTP exchange tests send: none may reach a saved
// recording.
const (
	testBearer       = "sesame-bearer-7f3a9c2e41"
	testTenantSecret = "tenant-k3y-90ab12cd34ef"
	// testTenantToken is under a name that says nothing: it is masked
	// because it looks like a credential (recorder.LooksSecret).
	testTenantToken = "Zq8kP2mX9vL4tR7w"
)

// TestHTTPExchanges connects to the demo server over streamable HTTP in
// both protocol eras, runs a fan-out of two sampling requests and an
// unknown tool, and checks the Network view's record of it: every HTTP
// request with its method, status, MCP headers and bodies, the tool
// call's event stream as events, the modern era's Mcp-Method header and
// its HTTP status on an error, and no credential anywhere in the saved
// recording.
func TestHTTPExchanges(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		modern   bool
	}{
		{"2025-11-25", false},
		{"2026-07-28", true},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			srv := httptest.NewServer(demo.NewHTTPHandler())
			t.Cleanup(srv.Close)
			target := Target{Transport: TransportHTTP, URL: srv.URL + "/mcp", Protocol: tc.protocol, Headers: map[string]string{
				"Authorization":   "Bearer " + testBearer,
				"X-Tenant-Secret": testTenantSecret,
				"X-Tenant":        testTenantToken,
			}}
			s := connectTarget(t, target, DefaultAnswerPolicy())
			if res := run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(2, "sampling")}); res.OK != 1 {
				t.Fatalf("fanout: %+v", res)
			}
			if res := run(t, s, testCalls{Tool: "no-such-tool", Args: []byte(`{}`)}); res.Failed != 1 {
				t.Fatalf("unknown tool: %+v", res)
			}
			s.Close()
			// Every exchange, the event streams the SDK ends in its own
			// goroutines included, has ended once Close returns: what is
			// saved or journaled right after it is the session's end.
			rec := s.Recording()
			log, _ := rec.HTTP()
			if log == nil {
				t.Fatal("no HTTP exchanges recorded")
			}
			if !allEnded(log) {
				t.Fatalf("exchanges still open once the session closed:\n%s", describeExchanges(log))
			}
			if log.Dropped() != 0 {
				t.Errorf("%d exchanges dropped of %d", log.Dropped(), log.Total)
			}

			call := findExchange(log, "POST", "tools/call", func(x *recorder.Exchange) bool {
				return strings.Contains(x.RequestBody, `"fanout"`)
			})
			if call == nil {
				t.Fatalf("no POST of the fanout tools/call among:\n%s", describeExchanges(log))
			}
			if call.Status != 200 || call.Session != s.Name() || call.Ended < call.Responded || call.Responded < call.Sent {
				t.Errorf("the call's exchange: status %d session %q times %v/%v/%v", call.Status, call.Session, call.Sent, call.Responded, call.Ended)
			}
			if got := recorder.HeaderValue(call.RequestHeaders, "Mcp-Protocol-Version"); got != tc.protocol {
				t.Errorf("the call's Mcp-Protocol-Version %q, want %q", got, tc.protocol)
			}
			for _, name := range []string{"Authorization", "X-Tenant-Secret", "X-Tenant"} {
				h := headerOf(call.RequestHeaders, name)
				if h == nil || !h.Masked || strings.Contains(h.Value, "sesame") || strings.Contains(h.Value, "tenant-k3y") || strings.Contains(h.Value, testTenantToken) {
					t.Errorf("request header %s: %+v, want it masked", name, h)
				}
			}
			if got := recorder.HeaderValue(call.RequestHeaders, "Authorization"); got != "Bearer "+recorder.Redacted {
				t.Errorf("Authorization shows as %q, want the scheme and %s", got, recorder.Redacted)
			}

			if tc.modern {
				if got := recorder.HeaderValue(call.RequestHeaders, "Mcp-Method"); got != "tools/call" {
					t.Errorf("the call's Mcp-Method %q, want tools/call", got)
				}
				// The fan-out is two rounds of the same call: the first
				// answered input_required, the retry the result.
				if n := countExchanges(log, "POST", "tools/call", func(x *recorder.Exchange) bool { return strings.Contains(x.RequestBody, `"fanout"`) }); n != 2 {
					t.Errorf("%d POSTs of the fanout call, want 2 (a round and its retry)", n)
				}
				bad := findExchange(log, "POST", "tools/call", func(x *recorder.Exchange) bool { return strings.Contains(x.RequestBody, "no-such-tool") })
				if bad == nil || bad.Status != 400 || !strings.Contains(bad.ResponseBody, "-32602") {
					t.Errorf("the unknown tool's exchange: %+v, want HTTP 400 with error -32602", bad)
				}
			} else {
				init := findExchange(log, "POST", "initialize", nil)
				if init == nil || init.Status != 200 || recorder.HeaderValue(init.ResponseHeaders, "Mcp-Session-Id") == "" {
					t.Fatalf("the initialize exchange: %+v, want 200 with an Mcp-Session-Id", init)
				}
				// Two sampling requests came on the call's event stream,
				// and its result.
				var requests, results int
				for _, e := range call.Events {
					switch {
					case strings.Contains(e.Data, `"sampling/createMessage"`):
						requests++
					case strings.Contains(e.Data, `"result"`):
						results++
					}
				}
				if requests != 2 || results != 1 || call.EventCount != len(call.Events) {
					t.Errorf("the call's stream: %d sampling requests, %d results, %d of %d events kept; want 2, 1, all", requests, results, len(call.Events), call.EventCount)
				}
				if n := countExchanges(log, "POST", "response", func(x *recorder.Exchange) bool { return x.Status == 202 }); n != 2 {
					t.Errorf("%d answers posted with 202 Accepted, want 2", n)
				}
				if findExchange(log, "DELETE", "", nil) == nil {
					t.Errorf("no DELETE ending the session among:\n%s", describeExchanges(log))
				}
				bad := findExchange(log, "POST", "tools/call", func(x *recorder.Exchange) bool { return strings.Contains(x.RequestBody, "no-such-tool") })
				if bad == nil || bad.Status != 200 {
					t.Errorf("the unknown tool's exchange: %+v, want HTTP 200 (its error is in the body on 2025-11-25)", bad)
				}
			}

			var saved bytes.Buffer
			if err := recorder.Save(&saved, rec.Snapshot()); err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{testBearer, testTenantSecret, testTenantToken} {
				if bytes.Contains(saved.Bytes(), []byte(secret)) {
					t.Errorf("the saved recording holds the secret %q", secret)
				}
			}
			back, err := recorder.Load(&saved)
			if err != nil {
				t.Fatal(err)
			}
			if back.HTTP == nil || back.HTTP.Total != log.Total || len(back.HTTP.Exchanges) != len(log.Exchanges) {
				t.Fatalf("loaded %+v, saved %d exchanges", back.HTTP, log.Total)
			}
		})
	}
}

func allEnded(log *recorder.HTTPLog) bool {
	for _, x := range log.Exchanges {
		if x.Open() {
			return false
		}
	}
	return true
}

func findExchange(log *recorder.HTTPLog, method, rpc string, ok func(*recorder.Exchange) bool) *recorder.Exchange {
	for _, x := range log.Exchanges {
		if x.Method == method && x.RPC == rpc && (ok == nil || ok(x)) {
			return x
		}
	}
	return nil
}

func countExchanges(log *recorder.HTTPLog, method, rpc string, ok func(*recorder.Exchange) bool) int {
	n := 0
	for _, x := range log.Exchanges {
		if x.Method == method && x.RPC == rpc && (ok == nil || ok(x)) {
			n++
		}
	}
	return n
}

func headerOf(hs []recorder.Header, name string) *recorder.Header {
	for i := range hs {
		if strings.EqualFold(hs[i].Name, name) {
			return &hs[i]
		}
	}
	return nil
}

func describeExchanges(log *recorder.HTTPLog) string {
	var b strings.Builder
	for _, x := range log.Exchanges {
		fmt.Fprintf(&b, "%s %s %s %d", x.Method, x.URL, x.RPC, x.Status)
		if x.Open() {
			b.WriteString(" (open)")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestHTTPExchangesSSE records a session over the legacy HTTP+SSE
// transport: the GET of its event stream, whose first event names the
// endpoint to post to and whose later events carry the server's
// messages, and the POSTs of the client's messages, each accepted with
// 202 and no body.
func TestHTTPExchangesSSE(t *testing.T) {
	srv := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return demo.NewServer() }, nil))
	t.Cleanup(srv.Close)
	s := connectTarget(t, Target{Transport: TransportSSE, URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer " + testBearer}}, DefaultAnswerPolicy())
	if res := run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(2, "sampling")}); res.OK != 1 {
		t.Fatalf("fanout: %+v", res)
	}
	log, _ := s.Recording().HTTP()
	if log == nil || log.Exchanges[0].Method != "GET" {
		t.Fatalf("the first exchange is not the event stream's GET:\n%s", describeExchanges(log))
	}
	stream := log.Exchanges[0]
	if !stream.Open() || stream.Status != 200 || len(stream.Events) == 0 || stream.Events[0].Event != "endpoint" {
		t.Fatalf("the event stream: open %v status %d events %+v", stream.Open(), stream.Status, stream.Events)
	}
	var requests int
	for _, e := range stream.Events {
		if strings.Contains(e.Data, `"sampling/createMessage"`) {
			requests++
		}
	}
	if requests != 2 {
		t.Errorf("%d sampling requests on the event stream, want 2", requests)
	}
	call := findExchange(log, "POST", "tools/call", nil)
	if call == nil || call.Status != 202 || call.ResponseBytes != 0 || !strings.Contains(call.URL, "sessionid=") {
		t.Errorf("the call's POST: %+v, want 202 Accepted to the endpoint the stream named", call)
	}
	if got := recorder.HeaderValue(call.RequestHeaders, "Authorization"); got != "Bearer "+recorder.Redacted {
		t.Errorf("Authorization shows as %q", got)
	}
}

// TestHTTPExchangesOfAFailedConnect: a connection the server refuses is
// recorded too. A Mcp-Method header that disagrees with the body (set
// here by the target's own headers) is refused on 2026-07-28 with HTTP
// 400 and error -32020, which the Network view shows as it came.
func TestHTTPExchangesOfAFailedConnect(t *testing.T) {
	srv := httptest.NewServer(demo.NewHTTPHandler())
	t.Cleanup(srv.Close)
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	target := Target{Transport: TransportHTTP, URL: srv.URL + "/mcp", Protocol: "2026-07-28", Headers: map[string]string{"Mcp-Method": "tools/list"}}
	if s, err := Connect(ctx, target, DefaultAnswerPolicy(), rec); err == nil {
		s.Close()
		t.Fatal("connected with a Mcp-Method header that disagrees with every body")
	}
	log, _ := rec.HTTP()
	if log == nil || len(log.Exchanges) == 0 {
		t.Fatal("the refused connection left no exchange")
	}
	x := log.Exchanges[0]
	if x.Status != 400 || x.RPC != "server/discover" || recorder.HeaderValue(x.RequestHeaders, "Mcp-Method") != "tools/list" ||
		!strings.Contains(x.ResponseBody, `"code":-32020`) {
		t.Errorf("the refused request: %d %s, Mcp-Method %q, body %s; want 400 server/discover, tools/list, error -32020",
			x.Status, x.RPC, recorder.HeaderValue(x.RequestHeaders, "Mcp-Method"), x.ResponseBody)
	}
}

// TestHTTPExchangesBounded: a server that answers with a hundred long
// headers and a large body that is not MCP leaves an exchange within the
// recording's bounds, counted whole, and the connection fails as it
// would without the tap.
func TestHTTPExchangesBounded(t *testing.T) {
	long := strings.Repeat("v", 4<<10)
	body := `{"junk":"` + strings.Repeat("x", 200<<10) + `"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range 100 {
			w.Header().Set(fmt.Sprintf("X-Filler-%03d", i), long)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if s, err := Connect(ctx, Target{Transport: TransportHTTP, URL: srv.URL + "/mcp"}, DefaultAnswerPolicy(), rec); err == nil {
		s.Close()
		t.Fatal("connected to a server that answers no JSON-RPC")
	}
	log, _ := rec.HTTP()
	if log == nil {
		t.Fatal("no exchange recorded")
	}
	x := log.Exchanges[0]
	if len(x.ResponseHeaders) > 64 || len(x.ResponseHeaders[0].Value) > 1<<10 {
		t.Errorf("%d response headers kept, the first %d bytes long; want at most 64 of at most 1 KiB", len(x.ResponseHeaders), len(x.ResponseHeaders[0].Value))
	}
	if len(x.ResponseBody) != recorder.MaxExchangeBody || x.ResponseBytes != int64(len(body)) {
		t.Errorf("response body: %d bytes kept of %d counted; want %d of %d", len(x.ResponseBody), x.ResponseBytes, recorder.MaxExchangeBody, len(body))
	}
}

// TestRPCOf checks how an exchange names the body it carried.
func TestRPCOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"method":"inner"}}`: "tools/call",
		` {"jsonrpc":"2.0","method":"notifications/initialized"}`:                    "notifications/initialized",
		`{"jsonrpc":"2.0","id":1,"result":{"method":"inner"}}`:                       "response",
		`{"jsonrpc":"2.0","id":1,"result":null}`:                                     "response",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`:            "response",
		`{"jsonrpc":"2.0","method":"a\u002fb"}`:                                      "a/b",
		`[{"jsonrpc":"2.0","method":"x"}]`:                                           "batch",
		`{"jsonrpc":"2.0","id":1}`:                                                   "",
		`{"method":"x"`:                                                              "",
		`not json`:                                                                   "",
		``:                                                                           "",
	} {
		if got := rpcOf([]byte(body)); got != want {
			t.Errorf("rpcOf(%s) = %q, want %q", body, got, want)
		}
	}
}

// TestCloseOpenEndsStreams checks what a session's Close relies on: the
// tap ends at once the exchanges whose bodies are still being read (an
// event stream whose reader has not noticed the end yet), keeps what
// they carried, and forgets every body that has ended, so that a long
// run's tap holds only the streams open now.
func TestCloseOpenEndsStreams(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: 1\ndata: first\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // a stream that only the client ends
	}))
	t.Cleanup(srv.Close)
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	tap := &ExchangeTap{base: http.DefaultTransport, rec: rec, session: "s"}
	client := &http.Client{Transport: tap}

	for range 3 {
		resp, err := client.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() }) // before the server's Close, which waits for the stream
	firstEvent := make(chan struct{})
	readerDone := make(chan error, 1)
	go func() { // the reader that does not stop by itself
		buf := make([]byte, 64)
		var got []byte
		told := false
		for {
			n, err := resp.Body.Read(buf)
			got = append(got, buf[:n]...)
			if !told && bytes.Contains(got, []byte("\n\n")) {
				close(firstEvent)
				told = true
			}
			if err != nil {
				readerDone <- err
				return
			}
		}
	}()
	select {
	case <-firstEvent:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream's first event never arrived")
	}
	tap.mu.Lock()
	open := len(tap.open)
	tap.mu.Unlock()
	if open != 1 {
		t.Errorf("%d bodies held open after three answered POSTs and one stream, want 1 (the stream)", open)
	}

	tap.CloseOpen()
	log, _ := rec.HTTP()
	if log == nil || len(log.Exchanges) != 4 {
		t.Fatalf("recorded %+v, want 4 exchanges", log)
	}
	if !allEnded(log) {
		t.Fatalf("an exchange is still open after CloseOpen:\n%s", describeExchanges(log))
	}
	stream := log.Exchanges[3]
	if stream.Method != http.MethodGet || len(stream.Events) != 1 || stream.Events[0].Data != "first" || stream.Error != "" {
		t.Errorf("the stream's exchange: %s with events %+v and error %q; want a GET with the event \"first\" and no error", stream.Method, stream.Events, stream.Error)
	}
	select {
	case err := <-readerDone:
		if err == nil || err == io.EOF {
			t.Errorf("the stream's reader got %v, want the error of a closed body", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream's reader is still reading after CloseOpen")
	}
	tap.mu.Lock()
	open = len(tap.open)
	tap.mu.Unlock()
	if open != 0 {
		t.Errorf("%d bodies still held after CloseOpen, want none", open)
	}
}
