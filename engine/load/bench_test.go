package load

import (
	"context"
	"encoding/json"
	"strconv"
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

// BenchmarkLoadEchoBare is BenchmarkLoadEcho with a bare SDK client
// making the same calls (the same arguments, a progress token each) and
// holding the same reserve of heap, so that the two profiles differ by
// the engine's own work (go tool pprof -diff_base).
func BenchmarkLoadEchoBare(b *testing.B) {
	ctx := context.Background()
	cs := bareClient(b)
	defer holdGCRoom()()
	b.ReportAllocs()
	cpu := processCPU()
	var token atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				params := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}
				params.SetProgressToken("bare-" + strconv.FormatInt(token.Add(1), 10))
				if _, err := cs.CallTool(ctx, params); err != nil {
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
