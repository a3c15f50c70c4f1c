package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	mcpgoclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// mcpgoHandlers answers sampling, elicitation and roots for mcp-go's
// client after latency, counting what it was asked and how many ran at
// once.
type mcpgoHandlers struct {
	latency  time.Duration
	mu       sync.Mutex
	asked    map[string]int
	inFlight atomic.Int32
	peak     atomic.Int32
}

func (h *mcpgoHandlers) serve(kind string) {
	h.mu.Lock()
	h.asked[kind]++
	h.mu.Unlock()
	n := h.inFlight.Add(1)
	for p := h.peak.Load(); n > p && !h.peak.CompareAndSwap(p, n); p = h.peak.Load() {
	}
	time.Sleep(h.latency)
	h.inFlight.Add(-1)
}

func (h *mcpgoHandlers) CreateMessage(context.Context, mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	h.serve("sampling")
	return &mcpgo.CreateMessageResult{Model: "mcp-go-model",
		SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent("hello from mcp-go")}}, nil
}

func (h *mcpgoHandlers) Elicit(context.Context, mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	h.serve("elicitation")
	return &mcpgo.ElicitationResult{ElicitationResponse: mcpgo.ElicitationResponse{
		Action: mcpgo.ElicitationResponseActionAccept, Content: map[string]any{"name": "Grace", "color": "blue"}}}, nil
}

func (h *mcpgoHandlers) ListRoots(context.Context, mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	h.serve("roots")
	return &mcpgo.ListRootsResult{Roots: []mcpgo.Root{{URI: "file:///mcp-go"}}}, nil
}

// TestMCPGoClientOverHTTP connects a client none of us wrote,
// github.com/mark3labs/mcp-go's, to the demo server over streamable HTTP.
// That client reads a successful server/discover as "this server speaks
// 2026-07-28" and sends its tools/call on that protocol, so the server
// must serve it there (before the fix it answered -32022). It calls
// fanout with n=3, rounds=2, fulfilled by mcp-go's own handlers, and the
// server reports both rounds and each round's wait.
func TestMCPGoClientOverHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.NewHTTPHandler())
	defer srv.Close()
	const lat = 80 * time.Millisecond
	for _, kind := range []string{"sampling", "mixed"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			tr, err := transport.NewStreamableHTTP(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			h := &mcpgoHandlers{latency: lat, asked: map[string]int{}}
			c := mcpgoclient.NewClient(tr, mcpgoclient.WithSamplingHandler(h), mcpgoclient.WithElicitationHandler(h), mcpgoclient.WithRootsHandler(h))
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
				ClientInfo: mcpgo.Implementation{Name: "mcp-go-test", Version: "1"}}})
			if err != nil {
				t.Fatal(err)
			}
			if init.ProtocolVersion != latest || c.ProtocolVersion() != latest {
				t.Fatalf("mcp-go negotiated %q (client says %q), want %q", init.ProtocolVersion, c.ProtocolVersion(), latest)
			}
			start := time.Now()
			res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{
				Name: "fanout", Arguments: map[string]any{"n": 3, "rounds": 2, "kind": kind}}})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("mcp-go's tools/call: %v", err)
			}
			var txt []string
			for _, c := range res.Content {
				if tc, ok := c.(mcpgo.TextContent); ok {
					txt = append(txt, tc.Text)
				}
			}
			if res.IsError {
				t.Fatalf("fanout failed: %s", strings.Join(txt, "\n"))
			}
			var out demo.FanoutResult
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("structured content %s: %v", b, err)
			}
			if out.Mode != "input_required" || out.Protocol != latest || out.Kind != kind {
				t.Errorf("mode %q, protocol %q, kind %q; want input_required, %s, %s", out.Mode, out.Protocol, out.Kind, latest, kind)
			}
			// mcp-go fulfils a round's requests concurrently.
			checkRounds(t, out, 3, 2, lat, 2*lat+60*time.Millisecond)
			if elapsed < 2*lat {
				t.Errorf("the call took %v, less than two rounds of %v", elapsed, lat)
			}
			if got := h.peak.Load(); got != 3 {
				t.Errorf("mcp-go ran %d handlers at once, want 3", got)
			}
			want := map[string]int{"sampling": 6}
			if kind == "mixed" {
				want = map[string]int{"sampling": 2, "elicitation": 2, "roots": 2}
			}
			if fmt.Sprint(h.asked) != fmt.Sprint(want) {
				t.Errorf("mcp-go was asked %v, want %v", h.asked, want)
			}
			if len(out.Replies) != 3 || out.Replies[0].Key != "r2-0" || out.Replies[0].Text != "hello from mcp-go" {
				t.Errorf("last round's replies %+v, want r2-0 first with mcp-go's text", out.Replies)
			}
			joined := strings.Join(txt, "\n")
			if !strings.Contains(joined, "round 1: 3 requests, waited for the retry") || !strings.Contains(joined, "round 2: 3 requests, waited for the retry") {
				t.Errorf("text result does not give both rounds' waits:\n%s", joined)
			}
		})
	}
}
