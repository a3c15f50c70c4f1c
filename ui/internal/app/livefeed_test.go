package app

import (
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
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
		got, want := makeLiveFrame(snap, pickLatest, &seg, nil), makeFrame(snap, pickLatest)
		if !reflect.DeepEqual(got.summary, want.summary) {
			t.Fatalf("frame %d: the live frame's stats differ from those made afresh:\n%+v\nwant\n%+v", frame, got.summary, want.summary)
		}
		if got.summary.ToolCalls.Total != 7*(frame+1) {
			t.Fatalf("frame %d: %d tool calls in the stats, want %d", frame, got.summary.ToolCalls.Total, 7*(frame+1))
		}
	}
}

// TestLiveStatsPaced: while a run goes on, the feed summarizes a frame at
// most every statsEvery and the frames between carry the last summary,
// marked stale (the stats line leaves them), whether calls are in flight
// or not (an open loop's moments between calls); the frame of a run that
// ended with nothing in flight, and a frame of another run, are
// summarized afresh.
func TestLiveStatsPaced(t *testing.T) {
	defer func(was time.Duration) { timeline.MinFrameInterval = was }(timeline.MinFrameInterval)
	timeline.MinFrameInterval = 16 * time.Millisecond // paced, as in the app

	synctest.Test(t, func(t *testing.T) {
		rec := recorder.New(recorder.Meta{Title: "live"})
		rec.BeginRun("echo", "concurrent")
		var (
			seg  recorder.Segmenter
			pace statsPace
			open []recorder.SpanID
		)
		call := func() {
			s := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
			s.Kind, s.Name, s.Received = recorder.KindTool, "echo", rec.Now()
			open = append(open, rec.Begin(s))
		}
		frame := func() liveFrame { return makeLiveFrame(rec.Snapshot(), pickLatest, &seg, &pace) }

		call()
		if f := frame(); f.stale || f.summary.ToolCalls.Total != 1 {
			t.Fatalf("the first frame: stale %v, %d tool calls; want its own summary of 1", f.stale, f.summary.ToolCalls.Total)
		}
		for i := range 11 { // 11 frames 16 ms apart: within statsEvery
			time.Sleep(16 * time.Millisecond)
			call()
			f := frame()
			if !f.stale || f.summary.ToolCalls.Total != 1 {
				t.Fatalf("frame %d, %v in: stale %v, %d tool calls; want the first frame's summary, stale", i+2, time.Duration(i+1)*16*time.Millisecond, f.stale, f.summary.ToolCalls.Total)
			}
		}
		time.Sleep(statsEvery - 11*16*time.Millisecond)
		if f := frame(); f.stale || f.summary.ToolCalls.Total != 12 {
			t.Errorf("a frame %v after the last summary: stale %v, %d tool calls; want its own of 12", statsEvery, f.stale, f.summary.ToolCalls.Total)
		}
		if f := makeLiveFrame(rec.Snapshot(), 1, &seg, &pace); f.stale {
			t.Errorf("a frame of another run (the picker changed) is stale, want its own summary")
		}
		run := rec.BeginRun("echo", "concurrent") // the latest run is a new one
		call()
		if f := frame(); f.stale || f.summary.ToolCalls.Total != 1 {
			t.Errorf("the first frame of a new run: stale %v, %d tool calls; want its own summary of 1", f.stale, f.summary.ToolCalls.Total)
		}
		time.Sleep(16 * time.Millisecond)
		call()
		for _, id := range open {
			rec.Update(id, func(s *recorder.Span) { s.Answered, s.Status = rec.Now(), recorder.StatusOK })
		}
		if f := frame(); !f.stale || f.open || f.summary.ToolCalls.Total != 1 {
			t.Errorf("a frame with nothing in flight while the run goes on: stale %v, open %v, %d tool calls; want the last summary (1 call), stale", f.stale, f.open, f.summary.ToolCalls.Total)
		}
		time.Sleep(time.Millisecond)
		rec.EndRun(run) // after its calls were answered
		if f := frame(); f.stale || f.open || f.summary.ToolCalls.OK != 2 {
			t.Errorf("the frame once the run ended: stale %v, open %v, %d calls ok; want its own summary of the run's 2", f.stale, f.open, f.summary.ToolCalls.OK)
		}
	})
}

// TestLiveFeedMakesStaleStatsGood runs the live feed on a run that goes
// on: a call is answered right after the stats were summarized, so the
// frame of its answer carries the last summary; nothing changes after
// that, and the feed still shows, at the pace's next turn, a frame whose
// stats count the answer.
func TestLiveFeedMakesStaleStatsGood(t *testing.T) {
	defer func(was time.Duration) { timeline.MinFrameInterval = was }(timeline.MinFrameInterval)
	timeline.MinFrameInterval = 16 * time.Millisecond // paced, as in the app

	synctest.Test(t, func(t *testing.T) {
		rec := recorder.New(recorder.Meta{Title: "live"})
		rec.BeginRun("echo", "concurrent") // never ended: the run goes on
		var (
			mu    sync.Mutex
			shown []liveFrame
		)
		feed := startLiveFeed(rec, func(f func()) { f() }, func() int64 { return pickLatest }, func(f liveFrame) {
			mu.Lock()
			shown = append(shown, f)
			mu.Unlock()
		})
		defer feed.stop()
		last := func() liveFrame {
			mu.Lock()
			defer mu.Unlock()
			return shown[len(shown)-1]
		}

		s := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
		s.Kind, s.Name, s.Received = recorder.KindTool, "echo", rec.Now()
		id := rec.Begin(s)
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		if f := last(); f.summary.ToolCalls.Total != 1 || f.summary.ToolCalls.OK != 0 {
			t.Fatalf("the frames of the call: %d tool calls, %d ok; want 1 in flight", f.summary.ToolCalls.Total, f.summary.ToolCalls.OK)
		}
		rec.Update(id, func(s *recorder.Span) { s.Answered, s.Status = rec.Now(), recorder.StatusOK })
		rec.End(id, rec.Now(), recorder.Outcome{Status: recorder.StatusOK})
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		if f := last(); !f.stale || f.summary.ToolCalls.OK != 0 {
			t.Fatalf("the frame of the answer, within %v of the last summary: stale %v, %d ok; want the last summary, stale", statsEvery, f.stale, f.summary.ToolCalls.OK)
		}
		time.Sleep(statsEvery + 100*time.Millisecond) // nothing changes meanwhile
		synctest.Wait()
		if f := last(); f.stale || f.summary.ToolCalls.OK != 1 {
			t.Errorf("%v later, with nothing changed: the last frame shown is stale %v with %d ok; want its own summary of the answered call", statsEvery, f.stale, f.summary.ToolCalls.OK)
		}
	})
}
