package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestTimelineShowsOverTimeForLoad checks that a load test's timeline
// shows the run second by second under the concurrency chart, and a
// fan-out's does not.
func TestTimelineShowsOverTimeForLoad(t *testing.T) {
	test.NewTempApp(t)
	tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
	load := &recorder.Snapshot{Meta: recorder.Meta{Title: "load", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, Version: 1}
	for i := range 60 { // 20 calls a second for 3 s
		at := time.Duration(i) * 50 * time.Millisecond
		load.Spans = append(load.Spans, &recorder.Span{ID: recorder.SpanID(i + 1), Session: "s1", Direction: recorder.Outgoing,
			Method: "tools/call", Kind: recorder.KindTool, Name: "echo", Received: at, Queued: at, Serving: at,
			Answered: at + 10*time.Millisecond, Status: recorder.StatusOK})
		load.Now = at + 10*time.Millisecond
	}
	tv.SetSnapshot(load)
	if !tv.OverTime().Visible() {
		t.Fatal("a load test's timeline does not show calls per second")
	}
	if s := tv.OverTime().Series(); len(s) != 3 || s[1].Finished != 20 {
		t.Errorf("over time: %+v, want 3 seconds of 20 calls", s)
	}
	if h := tv.OverTime().Size().Height; h < 50 {
		t.Errorf("the over-time chart is %v high, want it laid out under the concurrency chart", h)
	}
	tv.SetSnapshot(roundsSnapshot())
	if tv.OverTime().Visible() {
		t.Error("a fan-out's timeline shows the over-time chart")
	}
}

// TestOverTimeFollowsTheRunsLength: the chart of calls per second is for
// a load test of two seconds or more, and a run is measured from its own
// start. A session of a 3-second load and, 40 s later, a half-second
// one: the short run, picked, shows no such chart (one bar of half a
// second says nothing per second), the long one does.
func TestOverTimeFollowsTheRunsLength(t *testing.T) {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "two loads", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, Version: 1}
	calls := func(from time.Duration, n int, every time.Duration) {
		for i := range n {
			at := from + time.Duration(i)*every
			snap.Spans = append(snap.Spans, &recorder.Span{ID: recorder.SpanID(len(snap.Spans) + 1), Session: "s1",
				Direction: recorder.Outgoing, Method: "tools/call", Kind: recorder.KindTool, Name: "echo",
				Received: at, Queued: at, Serving: at, Answered: at + 10*time.Millisecond, Status: recorder.StatusOK})
		}
	}
	calls(0, 60, 50*time.Millisecond)              // 0–3 s
	calls(40*time.Second, 20, 25*time.Millisecond) // 40–40.5 s
	snap.Runs = []recorder.Run{
		{Name: "Run 1", Start: 0, End: 3 * time.Second, Tool: "echo", Dispatch: "concurrent"},
		{Name: "Run 2", Start: 40 * time.Second, End: 40*time.Second + 500*time.Millisecond, Tool: "echo", Dispatch: "concurrent"},
	}
	snap.Now = snap.Runs[1].End
	m := openSnapshot(t, snap)
	over := m.timeline.OverTime()
	if over.Visible() {
		t.Errorf("the half-second run (picked, the latest) shows calls per second: %+v", over.Series())
	}
	m.timeline.PickRun(snap.Runs[0].Label())
	if !over.Visible() {
		t.Error("the 3-second load run, picked, shows no calls per second")
	}
	m.timeline.PickRun(snap.Runs[1].Label())
	if over.Visible() {
		t.Error("picked again, the half-second run shows calls per second")
	}
}
