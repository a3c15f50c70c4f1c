package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// concurrentFanout is six fanout calls of five sampling requests, three
// calls at once: what a person runs to see fan-out under load.
func concurrentFanout() testCalls {
	return testCalls{Tool: "fanout", Args: fanoutArgs(5, "sampling"), Calls: 6, Concurrency: 3}
}

// slowAnswers answers every request after 150 ms, so that the three calls
// of [concurrentFanout] are in flight together when their requests arrive.
func slowAnswers() AnswerPolicy {
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: ms(150)}
	return policy
}

// linkedRun checks what the timeline of a [concurrentFanout] run shows:
// six tool calls, of which several were in flight at once, and 30
// sampling requests, each under a call; ownerOf names the call a request
// truly belongs to (its progress token), or "" when the test cannot
// tell. It returns the sampling spans.
func linkedRun(t *testing.T, snap *recorder.Snapshot, ownerOf func(*recorder.Span) string) []*recorder.Span {
	t.Helper()
	calls := spansOf(snap, "tools/call")
	if len(calls) != 6 {
		t.Fatalf("%d tool calls recorded, want 6", len(calls))
	}
	if peak := peakCalls(calls); peak < 2 {
		t.Fatalf("at most %d tool call in flight at once: the test needs them to overlap", peak)
	}
	byID := make(map[recorder.SpanID]*recorder.Span, len(calls))
	for _, c := range calls {
		byID[c.ID] = c
	}
	spans := spansOf(snap, "sampling/createMessage")
	if len(spans) != 30 {
		t.Fatalf("%d sampling requests recorded, want 30", len(spans))
	}
	children := make(map[recorder.SpanID]int)
	for _, sp := range spans {
		c := byID[sp.Parent]
		if c == nil {
			t.Errorf("sampling #%d (id %s) is not under any tool call: parent %d, unlinked %q", sp.ID, sp.RequestID, sp.Parent, sp.Unlinked)
			continue
		}
		if sp.Unlinked != "" {
			t.Errorf("sampling #%d is linked yet says %q", sp.ID, sp.Unlinked)
		}
		if want := ownerOf(sp); want != "" && want != callToken(c) {
			t.Errorf("sampling #%d is under call #%d (token %s), but was sent for the call with token %s", sp.ID, c.ID, callToken(c), want)
		}
		children[c.ID]++
	}
	for _, c := range calls {
		if children[c.ID] != 5 {
			t.Errorf("tool call #%d has %d sampling requests under it, want 5", c.ID, children[c.ID])
		}
	}
	return spans
}

// peakCalls is how many of the calls were in flight at once, at most.
func peakCalls(calls []*recorder.Span) int {
	peak := 0
	for _, a := range calls {
		n := 0
		for _, b := range calls {
			if b.Received <= a.Received && a.Received < b.Answered {
				n++
			}
		}
		peak = max(peak, n)
	}
	return peak
}

// callToken is the progress token the session gave a tool call.
func callToken(c *recorder.Span) string {
	var p struct {
		Meta struct {
			ProgressToken string `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(c.Params, &p)
	return p.Meta.ProgressToken
}

// TestConcurrentCallsLinkedOnDemo runs six fanout calls, three at once, on
// the demo server in process, over stdio and over streamable HTTP: every
// sampling request must be shown under the call it was sent for (the demo
// server echoes the call's progress token in each request's _meta).
func TestConcurrentCallsLinkedOnDemo(t *testing.T) {
	tests := []struct {
		name   string
		target func(t *testing.T) Target
	}{
		{"in-process", func(*testing.T) Target { return Target{} }},
		{"stdio", func(*testing.T) Target { return stdioTarget("demo") }},
		{"http", func(t *testing.T) Target {
			srv := httptest.NewServer(demo.NewHTTPHandler())
			t.Cleanup(srv.Close)
			return Target{Transport: TransportHTTP, URL: srv.URL}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := connectTarget(t, tt.target(t), slowAnswers())
			if res := run(t, s, concurrentFanout()); res.OK != 6 {
				t.Fatalf("run: %+v", res)
			}
			linkedRun(t, s.Recording().Snapshot(), func(sp *recorder.Span) string { return wire.Token(sp.Params) })
		})
	}
}

// tokenlessServer is a server whose fanout tool sends five sampling
// requests without the call's progress token in their _meta, as most
// servers do; it writes the token into each request's message text
// instead, so that a test can tell which call a request was sent for.
// detached sends them outside the call (with a context of their own),
// which over streamable HTTP puts them on the session's standalone
// event stream.
func tokenlessServer(detached bool) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "engine-test-tokenless", Version: "0.0.1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "fanout"}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		tok, _ := json.Marshal(req.Params.GetProgressToken())
		sendCtx := ctx
		if detached {
			sendCtx = context.Background()
		}
		done := make(chan error, 5)
		for range 5 {
			go func() {
				_, err := req.Session.CreateMessage(sendCtx, &mcp.CreateMessageParams{
					MaxTokens: 10,
					Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "call " + string(tok)}}},
				})
				done <- err
			}()
		}
		for range 5 {
			if err := <-done; err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	return srv
}

// serveLinking serves the demo server or a [tokenlessServer] over stdio.
func serveLinking(mode string) {
	var err error
	if mode == "demo" {
		err = demo.ServeStdio(context.Background())
	} else {
		err = tokenlessServer(false).Run(context.Background(), &mcp.StdioTransport{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// sentFor is the progress token a [tokenlessServer] wrote into a sampling
// request's message text.
func sentFor(sp *recorder.Span) string {
	m := regexp.MustCompile(`call \\"([^"\\]+)\\"`).FindStringSubmatch(string(sp.Params))
	if m == nil {
		return ""
	}
	return m[1]
}

// TestTokenlessRequestsUnlinkedOverStdio runs six calls, three at once,
// on a stdio server whose requests carry no progress token: a request
// that arrives while several calls are in flight cannot be tied to one,
// and must say so rather than be put under a guess; one that arrives
// while a single call is in flight is that call's.
func TestTokenlessRequestsUnlinkedOverStdio(t *testing.T) {
	s := connectTarget(t, stdioTarget("tokenless"), slowAnswers())
	if res := run(t, s, concurrentFanout()); res.OK != 6 {
		t.Fatalf("run: %+v", res)
	}
	snap := s.Recording().Snapshot()
	calls := make(map[recorder.SpanID]*recorder.Span)
	for _, c := range spansOf(snap, "tools/call") {
		calls[c.ID] = c
	}
	reason := regexp.MustCompile(`^[2-6] tool calls were in flight and the request carried no progress token$`)
	unlinked := 0
	for _, sp := range spansOf(snap, "sampling/createMessage") {
		if sp.Parent == 0 {
			unlinked++
			if !reason.MatchString(sp.Unlinked) {
				t.Errorf("sampling #%d has no parent and says why as %q, want it to match %s", sp.ID, sp.Unlinked, reason)
			}
			continue
		}
		c := calls[sp.Parent]
		if c == nil || callToken(c) != sentFor(sp) {
			t.Errorf("sampling #%d (sent for the call with token %s) is under #%d, a guess", sp.ID, sentFor(sp), sp.Parent)
		}
	}
	if unlinked == 0 {
		t.Error("no request was unlinked, though three calls were in flight at once and none carried a token")
	}
}

// TestTokenlessRequestsLinkedByStreamOverHTTP runs the same on a
// streamable HTTP server: a request the server sends on a call's response
// stream (the event stream of the POST that carried the tools/call)
// belongs to that call, token or not. One it sends on the session's
// standalone stream belongs to none, and says so.
func TestTokenlessRequestsLinkedByStreamOverHTTP(t *testing.T) {
	t.Run("call stream", func(t *testing.T) {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return tokenlessServer(false) }, nil)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		s := connectTarget(t, Target{Transport: TransportHTTP, URL: srv.URL}, slowAnswers())
		if res := run(t, s, concurrentFanout()); res.OK != 6 {
			t.Fatalf("run: %+v", res)
		}
		for _, sp := range linkedRun(t, s.Recording().Snapshot(), sentFor) {
			if sentFor(sp) == "" {
				t.Fatalf("sampling #%d does not say which call it was sent for: %s", sp.ID, sp.Params)
			}
		}
	})
	t.Run("standalone stream", func(t *testing.T) {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return tokenlessServer(true) }, nil)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		s := connectTarget(t, Target{Transport: TransportHTTP, URL: srv.URL}, slowAnswers())
		if res := run(t, s, testCalls{Tool: "fanout", Calls: 2, Concurrency: 2}); res.OK != 2 {
			t.Fatalf("run: %+v", res)
		}
		snap := s.Recording().Snapshot()
		unlinked := 0
		for _, sp := range spansOf(snap, "sampling/createMessage") {
			if sp.Parent != 0 {
				continue
			}
			unlinked++
			if !strings.Contains(sp.Unlinked, "standalone event stream") {
				t.Errorf("sampling #%d is unlinked, and says %q: want it to name the standalone event stream", sp.ID, sp.Unlinked)
			}
		}
		if unlinked == 0 {
			t.Error("no request was unlinked, though two calls were in flight and the requests came on the standalone stream")
		}
	})
}
