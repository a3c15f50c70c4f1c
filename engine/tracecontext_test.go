package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaLog is what a Go SDK server saw in the _meta of each request it
// received, by method.
type metaLog struct {
	mu   sync.Mutex
	seen map[string][]map[string]any
}

func (l *metaLog) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !strings.HasPrefix(method, "notifications/") {
			var meta map[string]any
			if p := req.GetParams(); p != nil {
				meta = p.GetMeta()
			}
			l.mu.Lock()
			l.seen[method] = append(l.seen[method], meta)
			l.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

// traceparents returns the traceparents the server saw for method.
func (l *metaLog) traceparents(method string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, m := range l.seen[method] {
		tp, _ := m["traceparent"].(string)
		out = append(out, tp)
	}
	return out
}

// TestTraceparentOnEveryRequest checks that every request the inspector
// sends — initialize, tools/list, ping, tools/call — reaches the server
// with the W3C traceparent of its own span in _meta, with the IDs the
// exports give that span; that the _meta a caller already put on a call
// is kept (and the caller's params left as they were); and that the
// recording shows the params as sent.
func TestTraceparentOnEveryRequest(t *testing.T) {
	log := &metaLog{seen: map[string][]map[string]any{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "meta", Version: "1"}, nil)
	srv.AddReceivingMiddleware(log.middleware)
	mcp.AddTool(srv, &mcp.Tool{Name: "meta"}, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	s, err := connect(ctx, Target{Protocol: "2025-11-25"}, DefaultAnswerPolicy(), rec, ct)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	mine := &mcp.CallToolParams{Name: "meta", Meta: mcp.Meta{"progressToken": "mine", "x-user": "kept", "tracestate": "vendor=1"}}
	if _, err := s.cs.CallTool(ctx, mine); err != nil {
		t.Fatal(err)
	}
	if _, ok := mine.Meta["traceparent"]; ok || len(mine.Meta) != 3 {
		t.Errorf("the caller's params were changed: _meta %v", mine.Meta)
	}
	if res := run(t, s, testCalls{Tool: "meta", Calls: 2}); res.OK != 2 {
		t.Fatalf("run %+v", res)
	}

	snap := rec.Snapshot()
	ids := recorder.TraceIDsOf(snap.Meta)
	want := map[string][]string{}
	for _, sp := range snap.Spans {
		if sp.Direction != recorder.Outgoing {
			continue
		}
		tp := ids.Traceparent(sp.ID, sp.ID) // none of these has a parent: each is its own trace
		want[sp.Method] = append(want[sp.Method], tp)
		tc, _ := recorder.TraceContextOf(sp.Params)
		if tc.Traceparent != tp {
			t.Errorf("span %d (%s) recorded params %s, want traceparent %s in _meta", sp.ID, sp.Method, sp.Params, tp)
		}
	}
	for _, method := range []string{"initialize", "tools/list", "ping", "tools/call"} {
		got := log.traceparents(method)
		if len(got) == 0 || strings.Join(got, " ") != strings.Join(want[method], " ") {
			t.Errorf("%s: the server saw traceparents %q, the exports give %q", method, got, want[method])
		}
	}
	var userCall map[string]any
	log.mu.Lock()
	for _, m := range log.seen["tools/call"] {
		if m["progressToken"] == "mine" {
			userCall = m
		}
	}
	log.mu.Unlock()
	if userCall == nil || userCall["x-user"] != "kept" || userCall["tracestate"] != "vendor=1" || userCall["traceparent"] == nil {
		t.Errorf("the caller's call reached the server with _meta %v, want its own keys kept beside the traceparent", userCall)
	}
}

// TestTraceparentOnRounds checks that each wire round of a
// multi-round-trip tool call (protocol 2026-07-28) carries the
// traceparent of its own round span, in the trace of the call.
func TestTraceparentOnRounds(t *testing.T) {
	s := connectTarget(t, Target{Protocol: "2026-07-28"}, DefaultAnswerPolicy())
	if res := run(t, s, testCalls{Tool: "fanout", Args: roundsArgs(2, 2, "sampling")}); res.OK != 1 {
		t.Fatalf("run %+v", res)
	}
	snap := s.Recording().Snapshot()
	ids := recorder.TraceIDsOf(snap.Meta)
	var call *recorder.Span
	for _, sp := range spansOf(snap, "tools/call") {
		if sp.Kind == recorder.KindTool {
			call = sp
		}
	}
	if call == nil {
		t.Fatal("no tool call recorded")
	}
	seen := map[string]bool{}
	for n := 1; n <= 3; n++ {
		r := roundOf(t, snap, call, n)
		tc, _ := recorder.TraceContextOf(r.Params)
		if want := ids.Traceparent(call.ID, r.ID); tc.Traceparent != want {
			t.Errorf("round %d went out with traceparent %q, want %q (its own span in the call's trace)", n, tc.Traceparent, want)
		}
		if seen[tc.Traceparent] {
			t.Errorf("round %d reuses traceparent %q", n, tc.Traceparent)
		}
		seen[tc.Traceparent] = true
		if r.RequestID == "" || r.Open() {
			t.Errorf("round %d: request id %q, open %v; want it written and answered", n, r.RequestID, r.Open())
		}
	}
}

// TestMalformedServerTraceparent checks that a server request carrying
// a traceparent that is not a W3C one is served as usual and recorded
// with a protocol event saying so, and that a valid one raises none.
func TestMalformedServerTraceparent(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tp", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		for _, tp := range []string{"00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"} {
			_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{Meta: mcp.Meta{"traceparent": tp}, MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
			if err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	s := connectServer(t, srv, DefaultAnswerPolicy())
	if res := run(t, s, testCalls{Tool: "ask"}); res.OK != 1 {
		t.Fatalf("run %+v", res)
	}
	snap := s.Recording().Snapshot()
	var texts []string
	for _, e := range snap.Events {
		if e.Kind == recorder.EventProtocol {
			texts = append(texts, e.Text)
		}
	}
	if len(texts) != 1 || !strings.Contains(texts[0], "malformed trace context") || !strings.Contains(texts[0], "lowercase hex") {
		t.Errorf("protocol events %q, want one about the uppercase traceparent", texts)
	}
	if n := len(spansOf(snap, "sampling/createMessage")); n != 2 {
		t.Errorf("%d sampling requests recorded, want 2", n)
	}
	var params map[string]any
	if sp := spansOf(snap, "sampling/createMessage"); len(sp) > 0 {
		_ = json.Unmarshal(sp[0].Params, &params)
	}
	if params["_meta"] == nil {
		t.Errorf("the recorded params lost the server's _meta: %v", params)
	}
}

// TestLinkByTraceparent checks that a server request carrying a
// traceparent in the trace of one of several tool calls in flight (a
// server propagating trace context, with no progress token) is linked to
// that call rather than left unlinked.
func TestLinkByTraceparent(t *testing.T) {
	const calls = 3
	var arrived sync.WaitGroup
	arrived.Add(calls)
	srv := mcp.NewServer(&mcp.Implementation{Name: "tp", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		tp, _ := req.Params.Meta["traceparent"].(string)
		if len(tp) != 55 {
			return nil, nil, fmt.Errorf("the call carried traceparent %q", tp)
		}
		arrived.Done()
		all := make(chan struct{})
		go func() { arrived.Wait(); close(all) }()
		select { // every call in flight before any asks
		case <-all:
		case <-time.After(10 * time.Second):
			return nil, nil, fmt.Errorf("not all %d calls arrived", calls)
		}
		child := tp[:36] + "1111111111111111-01" // a span of the server's in the call's trace
		_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{Meta: mcp.Meta{"traceparent": child}, MaxTokens: 10,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	s := connectServer(t, srv, DefaultAnswerPolicy())
	if res := run(t, s, testCalls{Tool: "ask", Calls: calls, Concurrency: calls}); res.OK != calls {
		t.Fatalf("run %+v", res)
	}
	snap := s.Recording().Snapshot()
	ids := recorder.TraceIDsOf(snap.Meta)
	sampling := spansOf(snap, "sampling/createMessage")
	if len(sampling) != calls {
		t.Fatalf("%d sampling requests, want %d", len(sampling), calls)
	}
	for _, sp := range sampling {
		tc, _ := recorder.TraceContextOf(sp.Params)
		if sp.Parent == 0 || !strings.Contains(tc.Traceparent, ids.TraceHex(sp.Parent)) {
			t.Errorf("sampling span %d with traceparent %s has parent %d (unlinked: %q), want the call of that trace", sp.ID, tc.Traceparent, sp.Parent, sp.Unlinked)
		}
	}
}
