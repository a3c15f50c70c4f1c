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
