package recorder

import (
	"math"
	"slices"
	"time"
)

// CallSteps returns how many of the snapshot's own tool calls were in
// flight (sent, no result yet) over time, one [Step] per instant at which
// that changed; InFlight and Pending are equal. A multi-round-trip call
// counts once, from its first request to its result; open calls count
// until snap.Now. This is the concurrency of a load test, where the server
// sends the client nothing and [Steps] stays empty.
func CallSteps(snap *Snapshot) []Step {
	if snap == nil {
		return nil
	}
	// an edge is its time shifted left one bit, the low bit 1 for a start:
	// ends sort before starts at one instant
	edges := make([]int64, 0, 2*len(snap.Spans))
	for _, s := range snap.Spans {
		if !isToolCall(s) {
			continue
		}
		edges = append(edges, int64(s.Received)<<1|1, int64(SpanEnd(snap, s))<<1)
	}
	slices.Sort(edges)
	steps := make([]Step, 0, len(edges))
	n := 0
	for i, e := range edges {
		if e&1 == 1 {
			n++
		} else {
			n--
		}
		if i+1 < len(edges) && edges[i+1]>>1 == e>>1 {
			continue
		}
		steps = append(steps, Step{At: time.Duration(e >> 1), InFlight: n, Pending: n})
	}
	return steps
}

// isToolCall reports whether s is one of the client's logical tool calls
// with a send time.
func isToolCall(s *Span) bool {
	return s.Direction == Outgoing && s.Kind == KindTool && s.Received != Unset
}

// IsLoad reports whether a run is a load test rather than a fan-out: the
// client made two or more tool calls and the server sent it no requests,
// so the calls in flight, not the server's requests, are what to show.
func (s Summary) IsLoad() bool { return s.ServerRequests.Total == 0 && s.ToolCalls.Total >= 2 }

// CallDuration is the latency of a client request that was answered:
// from its start ([callStart]: the intended start of an open-loop call,
// so that a late start counts against the server, or else its send time)
// to its answer. Every statistic of call latency (the summary's call_ms,
// by_method_ms and tool_calls.duration_ms, the over-time series, the
// OTLP metrics, the charts) takes a call's time from here. ok is false
// while the call has no send or answer time.
func CallDuration(s *Span) (d time.Duration, ok bool) {
	if s.Received == Unset || s.Answered == Unset {
		return 0, false
	}
	return s.Answered - callStart(s), true
}

// callStats fills the tool calls' peak in flight, throughput and
// duration percentiles.
func callStats(snap *Snapshot, sum *Summary) {
	var durs []float64
	for _, s := range snap.Spans {
		if !isToolCall(s) || s.Open() {
			continue
		}
		if d, ok := CallDuration(s); ok {
			durs = append(durs, ms(d))
		}
	}
	sum.ToolCalls.DurationMS = percentiles(durs)
	sum.ToolCalls.PeakInFlight, _ = Peaks(CallSteps(snap))
	if len(durs) >= 2 && sum.ElapsedMS > 0 {
		sum.ToolCalls.ThroughputPerS = math.Round(float64(len(durs))/(sum.ElapsedMS/1000)*10) / 10
	}
}

// callStart is when a tool call's time runs from: its intended start in
// an open-loop load test ([Span.Intended]), so that a late start counts
// against the server, or else when it was sent.
func callStart(s *Span) time.Duration {
	if s.Intended > 0 {
		return min(s.Intended, s.Received)
	}
	return s.Received
}
