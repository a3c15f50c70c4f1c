package proxy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoHeaderServer is a Go SDK server over stateless streamable HTTP
// whose tool "whoami" answers with the Authorization header it was sent.
func echoHeaderServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "whoami", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you are " + req.Extra.Header.Get("Authorization")}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	up := httptest.NewServer(h)
	t.Cleanup(up.Close)
	return up
}

// TestHTTPManyDistinctTokens: 4,000 tool calls from 8 clients at once,
// each call with a bearer token of its own, pass through the proxy in
// well under the time a rescan of the recording per new credential took
// (522 s); every token is kept out of the recording although the server
// echoes it.
func TestHTTPManyDistinctTokens(t *testing.T) {
	const n = 4000
	const (
		workers = 8
		bound   = 60 * time.Second // generous for a busy machine: see the report of the measured time
	)
	up := echoHeaderServer(t)
	rec := recorder.New(recorder.Meta{})
	_, front := proxyTo(t, up.URL+"/mcp", rec)
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	token := func(i int) string { return fmt.Sprintf("tok-%06d-x9Q", i) }
	var next atomic.Int64
	errs := make(chan error, workers)
	start := time.Now()
	for range workers {
		go func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					errs <- nil
					return
				}
				if time.Since(start) > bound {
					errs <- fmt.Errorf("only about %d of %d requests passed in %v", i, n, bound)
					return
				}
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, i+1)
				req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+token(i))
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("request %d: %s", i, resp.Status)
					return
				}
			}
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	t.Logf("%d requests with distinct tokens in %v", n, took)
	snap := rec.Snapshot()
	if len(snap.Spans) != n {
		t.Fatalf("%d spans recorded, want %d", len(snap.Spans), n)
	}
	for i, s := range snap.Spans {
		if strings.Contains(string(s.Result), "tok-") || !strings.Contains(string(s.Result), "you are REDACTED") {
			t.Fatalf("span %d: result %s, want the echoed token redacted", i+1, s.Result)
		}
	}
}

// TestHTTPShortTokenPoisonsNoOne: a client whose credential is an
// ordinary word ("Bearer text") does not change what later sessions
// record: their "type":"text" stays as the server sent it.
func TestHTTPShortTokenPoisonsNoOne(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"listChanged true info"}],"isError":false}}`)
	}))
	defer up.Close()
	rec := recorder.New(recorder.Meta{})
	_, front := proxyTo(t, up.URL+"/mcp", rec)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"type":"text"}}}`
	exchangeRaw(t, http.MethodPost, front.URL+"/mcp", call, map[string]string{"Authorization": "Bearer text", "X-Api-Key": "true"})
	exchangeRaw(t, http.MethodPost, front.URL+"/mcp", call, map[string]string{"Mcp-Session-Id": "later"})
	snap := rec.Snapshot()
	if len(snap.Spans) != 2 {
		t.Fatalf("%d spans, want 2", len(snap.Spans))
	}
	for _, s := range snap.Spans {
		if string(s.Params) != `{"name":"x","arguments":{"type":"text"}}` ||
			string(s.Result) != `{"content":[{"type":"text","text":"listChanged true info"}],"isError":false}` {
			t.Errorf("span %d recorded params %s result %s: want them as sent", s.ID, s.Params, s.Result)
		}
	}
}
