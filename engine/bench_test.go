package engine

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/internal/inproc"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSamplingFanout measures zero-latency sampling requests per
// second through the engine: the in-process demo server fans out 1000
// requests per tool call, the engine serves them concurrently, recording
// each as a span.
func BenchmarkSamplingFanout(b *testing.B) {
	ctx := context.Background()
	s, err := Connect(ctx, Target{}, DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchFanout(b, func(n int) error {
		res, err := runCalls(ctx, s, testCalls{Tool: "fanout", Args: fanoutArgs(n, "sampling")})
		if err == nil && res.Failed > 0 {
			b.Fatalf("run %+v", res)
		}
		return err
	})
}

// BenchmarkSamplingBareSDK is the same fan-out against a bare SDK client
// whose handler answers at once, without the engine: the floor the
// engine's overhead is measured against. Like the engine it sends a
// progress token with each call, for which the demo server sends a
// progress notification per answered request: without it the server
// sends half the messages, which is not the engine's overhead.
// BenchmarkSamplingBareSDKNoProgress is that lighter workload.
func BenchmarkSamplingBareSDK(b *testing.B) {
	ctx := context.Background()
	cs := bareClient(b)
	calls := 0
	benchFanout(b, func(n int) error {
		calls++
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": n, "kind": "sampling"},
			Meta: mcp.Meta{"progressToken": calls}})
		return err
	})
}

func BenchmarkSamplingBareSDKNoProgress(b *testing.B) {
	ctx := context.Background()
	cs := bareClient(b)
	benchFanout(b, func(n int) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": n, "kind": "sampling"}})
		return err
	})
}

// bareClient connects a bare SDK client to a new demo server over the
// in-process pair the engine's demo target uses.
func bareClient(b *testing.B) *mcp.ClientSession {
	ctx := context.Background()
	st, ct := inproc.Pair()
	if _, err := demo.NewServer().Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "reply"}, Model: "bare", Role: "assistant"}, nil
		},
	})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: DefaultProtocol})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func benchFanout(b *testing.B, fanout func(n int) error) {
	const per = 1000
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += per {
		if err := fanout(min(per, b.N-done)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

// TestNoGoroutineLeaks checks that serving requests leaves no goroutine
// behind, and that Close takes the session's own goroutines with it.
func TestNoGoroutineLeaks(t *testing.T) {
	settle := func(limit int) int {
		var n int
		waitFor(3*time.Second, func() bool {
			runtime.GC()
			n = runtime.NumGoroutine()
			return n <= limit
		})
		t.Logf("goroutines %d (limit %d)", n, limit)
		return n
	}
	before := runtime.NumGoroutine()
	s := connectDemo(t, DefaultAnswerPolicy())
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(50, "sampling")})
	during := settle(before + 30)
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(200, "sampling"), Calls: 3, Concurrency: 3})
	if after := settle(during); after > during+2 {
		t.Errorf("goroutines grew from %d to %d after serving 600 more requests", during, after)
	}
	s.Close()
	if n := settle(before + 2); n > before+2 {
		t.Errorf("%d goroutines after Close, %d before Connect", n, before)
	}
	s.wire.mu.Lock()
	defer s.wire.mu.Unlock()
	if len(s.wire.in)+s.wire.out.Len()+len(s.wire.answering) != 0 {
		t.Errorf("tap still tracks %d/%d/%d requests", len(s.wire.in), s.wire.out.Len(), len(s.wire.answering))
	}
}
