package app

import (
	"reflect"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestLiveFrameStatsAsAfresh follows a live run frame by frame, as the
// live feed does (segmenting the run with what the last frame copied),
// and checks that every frame's stats are those made afresh of its
// snapshot.
func TestLiveFrameStatsAsAfresh(t *testing.T) {
	rec := recorder.New(recorder.Meta{Title: "live"})
	rec.Begin(recorder.NewSpan("s1", recorder.Outgoing, "initialize")) // before the run
	rec.BeginRun("echo", "concurrent")
	var seg recorder.Segmenter
	var open []recorder.SpanID
	for frame := range 20 {
		for i, id := range open[:len(open)/2] { // the older half is answered, one in three failed
			rec.Update(id, func(s *recorder.Span) {
				s.Answered, s.Status = rec.Now(), recorder.StatusOK
				if i%3 == 0 {
					s.Status = recorder.StatusError
				}
			})
		}
		open = open[len(open)/2:]
		for range 7 {
			s := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
			s.Kind, s.Name, s.Received = recorder.KindTool, "echo", rec.Now()
			open = append(open, rec.Begin(s))
		}
		snap := rec.Snapshot()
		got, want := makeLiveFrame(snap, pickLatest, &seg), makeFrame(snap, pickLatest)
		if !reflect.DeepEqual(got.summary, want.summary) {
			t.Fatalf("frame %d: the live frame's stats differ from those made afresh:\n%+v\nwant\n%+v", frame, got.summary, want.summary)
		}
		if got.summary.ToolCalls.Total != 7*(frame+1) {
			t.Fatalf("frame %d: %d tool calls in the stats, want %d", frame, got.summary.ToolCalls.Total, 7*(frame+1))
		}
	}
}
