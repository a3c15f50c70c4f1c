package recorder

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// syntheticCalls is a load test of n tool calls started 1,000 a second,
// each taking 1–100 ms with a long tail (one in a thousand up to 2 s),
// seeded so that every run is the same; one in fifty fails.
func syntheticCalls(n int) *Snapshot {
	rng := rand.New(rand.NewPCG(11, uint64(n)))
	snap := &Snapshot{Meta: Meta{Title: "synthetic"}}
	snap.Spans = make([]*Span, n)
	for i := range n {
		at := time.Duration(i) * time.Millisecond
		d := time.Millisecond + time.Duration(rng.ExpFloat64()*float64(10*time.Millisecond))
		if rng.IntN(1000) == 0 {
			d = time.Duration(rng.Int64N(int64(2 * time.Second)))
		}
		s := &Span{ID: SpanID(i + 1), Session: "s1", Direction: Outgoing, Method: "tools/call", Kind: KindTool, Name: "echo",
			Received: at, Queued: at, Serving: at, Answered: at + d, Status: StatusOK}
		if i%50 == 0 {
			s.Status, s.Error, s.ErrorCode = StatusError, "internal error", -32603
		}
		snap.Spans[i] = s
		snap.Now = max(snap.Now, at+d)
	}
	return snap
}

// BenchmarkSummarize is the cost of the summary of a large load test.
func BenchmarkSummarize(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			snap := syntheticCalls(n)
			b.ReportAllocs()
			for b.Loop() {
				Summarize(snap)
			}
		})
	}
}

// BenchmarkSeries is the cost of the per-second series of a large load
// test: computed when a recording is saved, and by the app at most twice
// a second during a run.
func BenchmarkSeries(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			snap := syntheticCalls(n)
			b.ReportAllocs()
			for b.Loop() {
				Series(snap)
			}
		})
	}
}
