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

// syntheticFanout is n tool calls, each fanning out fan sampling
// requests served 1–20 ms, seeded so that every run is the same.
func syntheticFanout(n, fan int) *Snapshot {
	rng := rand.New(rand.NewPCG(12, uint64(n)))
	snap := &Snapshot{Meta: Meta{Title: "synthetic fan-out"}}
	id := SpanID(0)
	for i := range n {
		at := time.Duration(i) * 50 * time.Millisecond
		id++
		call := &Span{ID: id, Session: "s1", Direction: Outgoing, Method: "tools/call", Kind: KindTool, Name: "fanout",
			Received: at, Queued: at, Serving: at, Status: StatusOK}
		snap.Spans = append(snap.Spans, call)
		end := at
		for range fan {
			id++
			got := at + time.Duration(rng.IntN(1000))*time.Microsecond
			done := got + time.Millisecond + time.Duration(rng.IntN(19_000))*time.Microsecond
			snap.Spans = append(snap.Spans, &Span{ID: id, Parent: call.ID, Session: "s1", Direction: Incoming, Method: "sampling/createMessage",
				Received: got, Queued: got, Serving: got, Answered: done, Status: StatusOK})
			end = max(end, done)
		}
		call.Answered = end + time.Millisecond
		snap.Now = max(snap.Now, call.Answered)
	}
	return snap
}

// BenchmarkSteps is the cost of the concurrency steps the app's live
// feed computes for every frame: of a load test's tool calls alone (no
// server requests, no steps) and of fan-outs.
func BenchmarkSteps(b *testing.B) {
	for _, c := range []struct {
		name string
		snap *Snapshot
	}{
		{"calls-20000", syntheticCalls(20_000)},
		{"fanout-100x100", syntheticFanout(100, 100)},
		{"fanout-1x1000", syntheticFanout(1, 1000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Steps(c.snap)
			}
		})
	}
}
