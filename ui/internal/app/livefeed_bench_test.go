package app

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

// BenchmarkLiveLoadTestFrame is what one frame of a live load test costs
// the app: the feed making the frame (its steps, paced stats and what the
// charts draw; feed-µs/frame) and the timeline taking it in on the main
// goroutine (main-µs/frame), with 20,000 and 100,000 echo calls recorded
// and 40 more each frame (an open loop at 2,000 calls a second, each
// answered in 0.2 ms, seen at 50 frames a second), in a run that began
// after the session's initialize and goes on. The snapshots are made as
// the recording makes them (ended spans shared from one to the next),
// with the times of such a run, not the benchmark's. The bytes it
// allocates are garbage the collector competes with the calls and the
// painting for:
//
//	go test ./ui/internal/app -run '^$' -bench LiveLoadTestFrame
func BenchmarkLiveLoadTestFrame(b *testing.B) {
	defer func(was time.Duration) { timeline.MinFrameInterval = was }(timeline.MinFrameInterval)
	timeline.MinFrameInterval = 16 * time.Millisecond // paced, as in the app
	const every, took, perFrame = 500 * time.Microsecond, 200 * time.Microsecond, 40
	for _, before := range []int{20_000, 100_000} {
		b.Run(fmt.Sprint(before), func(b *testing.B) {
			test.NewTempApp(b)
			tv := NewTimelineView()
			w := test.NewTempWindow(b, tv)
			w.Resize(fyne.NewSize(1400, 900))
			frames := 2000
			spans := make([]*recorder.Span, 1+before+frames*perFrame)
			spans[0] = &recorder.Span{ID: 1, Session: "s1", Direction: recorder.Outgoing, Method: "initialize",
				Status: recorder.StatusOK, Received: 0, Queued: 0, Serving: 0, Answered: time.Millisecond}
			const runStart = 10 * time.Millisecond
			for i := 1; i < len(spans); i++ {
				at := runStart + time.Duration(i)*every
				spans[i] = &recorder.Span{ID: recorder.SpanID(i + 1), Session: "s1", Direction: recorder.Outgoing,
					Method: "tools/call", Kind: recorder.KindTool, Name: "echo", Status: recorder.StatusOK,
					Received: at, Queued: at, Serving: at, Answered: at + took}
			}
			meta := recorder.Meta{Title: "live", Created: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}
			runs := []recorder.Run{{Name: "Run 1", Start: runStart, End: recorder.Unset, Tool: "echo", Dispatch: "concurrent"}}
			snapshot := func(n int) *recorder.Snapshot {
				return &recorder.Snapshot{Meta: meta, Spans: spans[:n:n], Runs: runs, Version: uint64(n), Now: runStart + time.Duration(n)*every}
			}
			var (
				seg  recorder.Segmenter
				pace statsPace
			)
			tv.gantt.SetFollow(true)
			tv.apply(makeLiveFrame(snapshot(1+before), pickLatest, &seg, &pace))
			b.ReportAllocs()
			n, frame := 1+before, 0
			var feed, main time.Duration
			for b.Loop() {
				if n += perFrame; n > len(spans) {
					n = 1 + before + perFrame // start again: the segmenter sees a shorter run
				}
				start := time.Now()
				f := makeLiveFrame(snapshot(n), pickLatest, &seg, &pace)
				made := time.Now()
				tv.apply(f)
				feed, main, frame = feed+made.Sub(start), main+time.Since(made), frame+1
			}
			b.ReportMetric(float64(feed.Microseconds())/float64(frame), "feed-µs/frame")
			b.ReportMetric(float64(main.Microseconds())/float64(frame), "main-µs/frame")
		})
	}
}
