package app

import (
	"slices"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestScopeSnapshot: the charts' part of a recording is the spans of the
// run picked, in order, whether they lie in one stretch of the recording
// (a run after the session's initialize: shared, not copied) or among
// another session's (a merged recording, whose runs overlap in time);
// appending to the part never writes into the recording's spans.
func TestScopeSnapshot(t *testing.T) {
	span := func(id int, session string, at time.Duration) *recorder.Span {
		return &recorder.Span{ID: recorder.SpanID(id), Session: session, Direction: recorder.Outgoing, Method: "tools/call",
			Kind: recorder.KindTool, Status: recorder.StatusOK, Received: at, Queued: at, Serving: at, Answered: at + ms}
	}
	ids := func(spans []*recorder.Span) (out []int) {
		for _, s := range spans {
			out = append(out, int(s.ID))
		}
		return out
	}
	snap := &recorder.Snapshot{Now: time.Second, Spans: []*recorder.Span{
		span(1, "a", 0), // initialize, before the runs
		span(2, "a", 10*ms), span(3, "b", 12*ms), span(4, "a", 20*ms), span(5, "b", 22*ms),
		span(6, "a", 30*ms), span(7, "a", 40*ms),
	}}
	for _, c := range []struct {
		name string
		run  recorder.Run
		want []int
	}{
		{"one stretch", recorder.Run{Name: "Run 1", Start: 10 * ms, End: recorder.Unset}, []int{2, 3, 4, 5, 6, 7}},
		{"one stretch inside", recorder.Run{Name: "Run 1", Start: 11 * ms, End: 25 * ms}, []int{3, 4, 5}},
		{"one session among two", recorder.Run{Name: "a", Start: 10 * ms, End: recorder.Unset, Sessions: []string{"a"}}, []int{2, 4, 6, 7}},
		{"the other", recorder.Run{Name: "b", Start: 10 * ms, End: 35 * ms, Sessions: []string{"b"}}, []int{3, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			part := scopeSnapshot(snap, runScope{run: c.run})
			if got := ids(part.Spans); !slices.Equal(got, c.want) {
				t.Fatalf("the charts' part holds spans %v, want %v", got, c.want)
			}
			_ = append(part.Spans, span(99, "a", 50*ms))
			if got := ids(snap.Spans); !slices.Equal(got, []int{1, 2, 3, 4, 5, 6, 7}) {
				t.Fatalf("appending to the part changed the recording's spans: %v", got)
			}
		})
	}
	if part := scopeSnapshot(snap, runScope{whole: true}); part != snap {
		t.Error("the whole session's part is not the snapshot itself")
	}
}
