package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConnectRefusedCarriesStatus: an HTTP server that answers the
// handshake with 401 or 403 gives a ConnectError naming the target, and
// through it the HTTPStatusError with the code, so that a caller tells
// refused credentials from an unreachable server without reading text.
func TestConnectRefusedCarriesStatus(t *testing.T) {
	for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "no", code)
			}))
			defer srv.Close()
			target := Target{Transport: TransportHTTP, URL: srv.URL}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := Connect(ctx, target, DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
			if err == nil {
				s.Close()
				t.Fatal("Connect succeeded against a server that refuses every request")
			}
			var ce *ConnectError
			if !errors.As(err, &ce) || ce.Target.URL != srv.URL {
				t.Fatalf("Connect: %v (%T), want a ConnectError for %s", err, err, srv.URL)
			}
			var status *HTTPStatusError
			if !errors.As(err, &status) || status.Code != code {
				t.Fatalf("Connect: %v, want an HTTPStatusError with code %d (got %+v)", err, code, status)
			}
			if refused := code != http.StatusNotFound; status.Refused() != refused {
				t.Errorf("HTTP %d: Refused() = %v, want %v", code, status.Refused(), refused)
			}
		})
	}
}

// TestHTTPServerGoneMidCall: a streamable HTTP server whose connections
// are cut in the middle of a tool call (as when its process dies) ends
// the session as lost at once: Err and the run's error are a
// ConnectionLostError, the sampling requests left open are aborted, and
// the run does not wait for the server's latency. The server's requests
// come on the call's response stream (which then breaks off), or on the
// session's own stream while the call's response has not begun (whose
// POST then fails).
func TestHTTPServerGoneMidCall(t *testing.T) {
	for _, onCallStream := range []bool{true, false} {
		t.Run(fmt.Sprintf("on the call's stream %v", onCallStream), func(t *testing.T) {
			testHTTPServerGoneMidCall(t, onCallStream)
		})
	}
}

func testHTTPServerGoneMidCall(t *testing.T, onCallStream bool) {
	var ts *httptest.Server
	var client atomic.Pointer[Session]
	// The server's own requests end with the test: their client is gone.
	serverCtx, stopServer := context.WithCancel(context.Background())
	defer stopServer()
	srv := mcp.NewServer(&mcp.Implementation{Name: "dies", Version: "0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "fanout"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if !onCallStream {
			ctx = serverCtx
		}
		for range 3 {
			go req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "x"}}}})
		}
		// Once the client has the three requests, cut every connection,
		// as the death of the server's process does.
		waitFor(10*time.Second, func() bool {
			return len(spansOf(client.Load().Recording().Snapshot(), "sampling/createMessage")) >= 3
		})
		ts.CloseClientConnections()
		return nil, nil, errors.New("the connections are cut")
	})
	ts = httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(func() { // after the session's Close (cleanups run last-first)
		ts.CloseClientConnections()
		ts.Close()
	})
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: 30 * time.Second}
	s := connectTarget(t, Target{Transport: TransportHTTP, URL: ts.URL}, policy)
	client.Store(s)
	start := time.Now()
	_, err := runCalls(context.Background(), s, testCalls{Tool: "fanout", CallTimeout: 20 * time.Second})
	var lost *ConnectionLostError
	if !errors.As(s.Err(), &lost) {
		t.Fatalf("Err() = %v (%T), want a ConnectionLostError; the run said %v", s.Err(), s.Err(), err)
	}
	if !isClosed(s.Done()) {
		t.Error("the session is lost but Done is not closed")
	}
	// (that a load run's error wraps it: engine/load's TestRunStopsWhenTheConnectionEnds)
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the run took %v: it waited for the latency, not for the loss", took)
	}
	for _, sp := range spansOf(s.Recording().Snapshot(), "sampling/createMessage") {
		if sp.Status != recorder.StatusAborted {
			t.Errorf("sampling span %d is %q, want aborted: its server went away", sp.ID, sp.Status)
		}
	}
}
