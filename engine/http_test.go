package engine

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPTransports runs the seed scenario over streamable HTTP and
// legacy SSE against the demo server: the wire tap in the HTTP client
// must time the requests (they have their JSON-RPC ids), the serial
// policy must hold, and the extra headers must reach the server.
func TestHTTPTransports(t *testing.T) {
	tests := []struct {
		kind    TransportKind
		handler func() http.Handler
	}{
		{TransportHTTP, func() http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return demo.NewServer() }, nil)
		}},
		{TransportSSE, func() http.Handler {
			return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return demo.NewServer() }, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			var mu sync.Mutex
			var auth []string
			h := tt.handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				auth = append(auth, r.Header.Get("Authorization"))
				mu.Unlock()
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close) // after the session's Close (cleanups run last-first)
			policy := DefaultAnswerPolicy()
			policy.Dispatch = DispatchPolicy{Mode: Serial}
			policy.Latency = LatencyModel{Dist: Fixed, A: ms(150)}
			s := connectTarget(t, Target{Transport: tt.kind, URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer sesame"}}, policy)
			res := run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(3, "sampling")})
			if res.OK != 1 {
				t.Fatalf("run %+v", res)
			}
			snap := s.Recording().Snapshot()
			call := spansOf(snap, "tools/call")[0]
			spans := spansOf(snap, "sampling/createMessage")
			if len(spans) != 3 {
				t.Fatalf("%d sampling spans, want 3", len(spans))
			}
			for _, sp := range spans {
				if sp.Status != recorder.StatusOK || sp.RequestID == "" || sp.Parent != call.ID {
					t.Errorf("span %d: status %q id %q parent %d (call %d)", sp.ID, sp.Status, sp.RequestID, sp.Parent, call.ID)
				}
				if strings.Contains(string(sp.Params), wireKey) {
					t.Errorf("params leak the tap key: %s", sp.Params)
				}
			}
			if in, pend := recorder.Peaks(recorder.Steps(snap)); in != 1 || pend != 3 {
				t.Errorf("peaks in flight %d pending %d, want 1 and 3", in, pend)
			}
			if call.RequestID == "" {
				t.Error("the tool call's id was not seen on the wire")
			}
			mu.Lock()
			defer mu.Unlock()
			for i, a := range auth {
				if a != "Bearer sesame" {
					t.Fatalf("request %d carried Authorization %q", i, a)
				}
			}
		})
	}
}
