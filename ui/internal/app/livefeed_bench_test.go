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
// the app off and on the main goroutine: 40 more echo calls recorded (an
// open loop at 2,000 calls a second, at 50 frames a second), the feed's
// snapshot, steps and paced stats, and the timeline taking the frame in;
// with 20,000 and 100,000 calls recorded before. The bytes it allocates
// are garbage the collector competes with the calls and the painting for:
//
//	go test ./ui/internal/app -run '^$' -bench LiveLoadTestFrame
func BenchmarkLiveLoadTestFrame(b *testing.B) {
	defer func(was time.Duration) { timeline.MinFrameInterval = was }(timeline.MinFrameInterval)
	timeline.MinFrameInterval = 16 * time.Millisecond // paced, as in the app
	for _, before := range []int{20_000, 100_000} {
		b.Run(fmt.Sprint(before), func(b *testing.B) {
			test.NewTempApp(b)
			tv := NewTimelineView()
			w := test.NewTempWindow(b, tv)
			w.Resize(fyne.NewSize(1400, 900))
			rec := recorder.New(recorder.Meta{Title: "live"})
			rec.BeginRun("echo", "open loop")
			call := func() {
				s := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
				s.Kind, s.Name, s.Received = recorder.KindTool, "echo", rec.Now()
				id := rec.Begin(s)
				rec.Update(id, func(s *recorder.Span) { s.Answered, s.Status = rec.Now(), recorder.StatusOK })
			}
			for range before {
				call()
			}
			var (
				seg  recorder.Segmenter
				pace statsPace
			)
			tv.gantt.SetFollow(true)
			tv.apply(makeLiveFrame(rec.Snapshot(), pickLatest, &seg, &pace))
			b.ReportAllocs()
			for b.Loop() {
				for range 40 {
					call()
				}
				tv.apply(makeLiveFrame(rec.Snapshot(), pickLatest, &seg, &pace))
			}
		})
	}
}
