package recorder

import (
	"testing"
	"time"
)

// TestLoadFigures: an open-loop call sent late is timed from its intended
// start and counted as a late start; dropped arrivals and sessions are
// counted.
func TestLoadFigures(t *testing.T) {
	ms := time.Millisecond
	call := func(session string, intended, sent, answered time.Duration) *Span {
		return &Span{Session: session, Direction: Outgoing, Method: "tools/call", Kind: KindTool, Status: StatusOK,
			Intended: intended, Received: sent, Queued: sent, Serving: sent, Answered: answered}
	}
	snap := &Snapshot{
		Spans: []*Span{
			call("s1", 100*ms, 100*ms+200*time.Microsecond, 105*ms), // on time: 4.8 ms from sent, 5 ms from intended
			call("s2", 110*ms, 120*ms, 125*ms),                      // 10 ms late: 5 ms from sent, 15 ms from intended
			call("s1", 0, 130*ms, 132*ms),                           // not scheduled: 2 ms
		},
		Events: []Event{{At: 115 * ms, Session: "s2", Kind: EventDropped}, {At: 116 * ms, Session: "s3", Kind: EventConnection}},
		Now:    200 * ms,
	}
	sum := Summarize(snap)
	if sum.ToolCalls.DurationMS.Max != 15 || sum.ToolCalls.DurationMS.P50 != 5 {
		t.Errorf("call times %+v, want max 15 ms (from the late call's intended start) and p50 5 ms", sum.ToolCalls.DurationMS)
	}
	if sum.LateStarts != 1 || sum.Dropped != 1 || sum.Sessions != 3 {
		t.Errorf("late_starts %d, dropped %d, sessions %d; want 1, 1 and 3", sum.LateStarts, sum.Dropped, sum.Sessions)
	}
}
