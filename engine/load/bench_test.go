package load

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkLoadEcho is the closed loop of BenchmarkLoadGenerator (in
// engine/interop) alone, for profiling: echo calls, 50 in flight, each
// a recorded span.
func BenchmarkLoadEcho(b *testing.B) {
	ctx := context.Background()
	s, err := engine.Connect(ctx, engine.Target{}, engine.DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	cpu := processCPU()
	res, err := Run(ctx, one(s), Workload{Tool: "echo", Args: []byte(`{"text":"x"}`), Calls: b.N, Concurrency: 50}, nil)
	if err != nil || res.OK != b.N {
		b.Fatalf("run %+v: %v", res, err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e3, "cpu-µs/call")
}

// BenchmarkLoadEchoBare is BenchmarkLoadEcho with a bare SDK client.
func BenchmarkLoadEchoBare(b *testing.B) {
	ctx := context.Background()
	cs := bareClient(b)
	b.ReportAllocs()
	cpu := processCPU()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e3, "cpu-µs/call")
}
