package timeline

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

// liveLoad is an open-loop load test as the live view sees it: n echo
// calls, one every half millisecond (2,000 a second), each answered 2 ms
// after it was sent, except the last open ones, which are still in
// flight at Now.
func liveLoad(n, open int) *recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "load", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	snap.Spans = make([]*recorder.Span, n)
	for i := range n {
		at := time.Duration(i) * ms / 2
		s := &recorder.Span{ID: recorder.SpanID(i + 1), Session: "s1", Direction: recorder.Outgoing,
			Method: "tools/call", Kind: recorder.KindTool, Name: "echo", Received: at, Queued: at, Serving: at, Answered: at + 2*ms,
			Status: recorder.StatusOK}
		if i%97 == 13 {
			s.Status = recorder.StatusError
		}
		snap.Spans[i] = s
	}
	snap.Now = snap.Spans[n-1].Received + ms
	for _, s := range snap.Spans[max(n-open, 0):] {
		s.Answered, s.Status = recorder.Unset, recorder.StatusOpen
	}
	return snap
}

// grow returns the snapshot after prev in a live load: the calls open in
// prev answered (new copies, as a recording's snapshot has), add more
// calls, the last open of them still in flight.
func grow(prev *recorder.Snapshot, add, open int) *recorder.Snapshot {
	next := *prev
	n := len(prev.Spans)
	next.Spans = slices.Grow(slices.Clone(prev.Spans), add)
	for i := n - 1; i >= 0 && next.Spans[i].Open(); i-- {
		c := *next.Spans[i]
		c.Answered, c.Status = c.Received+2*ms, recorder.StatusOK
		next.Spans[i] = &c
	}
	for i := n; i < n+add; i++ {
		at := time.Duration(i) * ms / 2
		s := &recorder.Span{ID: recorder.SpanID(i + 1), Session: "s1", Direction: recorder.Outgoing,
			Method: "tools/call", Kind: recorder.KindTool, Name: "echo", Received: at, Queued: at, Serving: at,
			Answered: recorder.Unset, Status: recorder.StatusOpen}
		if i < n+add-open {
			s.Answered, s.Status = at+2*ms, recorder.StatusOK
		}
		next.Spans = append(next.Spans, s)
	}
	next.Now = next.Spans[len(next.Spans)-1].Received + ms
	next.Version++
	return &next
}

// BenchmarkLiveLoadFrame measures one live frame of an open-loop load test
// on the main goroutine, 1600×900, following the live end with 5 s in
// view (10,000 calls, aggregated): taking a snapshot 20 calls longer
// (SetSnapshot on the Gantt and the chart, as the live view's apply does),
// then drawing the Gantt and the chart. With 10,000 calls recorded or
// 100,000, the same 5 s are in view, so a frame should cost the same:
// go test ./ui/internal/timeline -run '^$' -bench LiveLoadFrame
func BenchmarkLiveLoadFrame(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("spans=%d", n), func(b *testing.B) {
			test.NewTempApp(b)
			g, c := NewGantt(), NewConcurrencyChart()
			c.useAxis(g.axis)
			w := test.NewTempWindow(b, g)
			w.SetPadded(false)
			w.Resize(fyne.NewSize(1600, 900))
			snap := liveLoad(n, 10)
			g.SetSnapshot(snap)
			g.SetFollow(true)
			g.SetVisibleRange(snap.Now-5*time.Second, snap.Now)
			c.SetSteps(snap, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if i%500 == 499 { // start over, not to grow without end
					snap = liveLoad(n, 10)
					g.SetSnapshot(snap) // a recording anew: the view is fitted to it
					g.SetVisibleRange(snap.Now-5*time.Second, snap.Now)
				}
				snap = grow(snap, 20, 10)
				b.StartTimer()
				g.SetSnapshot(snap)
				c.SetSteps(snap, nil) // a load test: the calls' steps
				g.updateAggregate()
				g.draw(1600, 760)
				c.draw(1600, 140)
			}
			b.StopTimer()
			if !g.aggregated() {
				b.Fatal("not aggregated")
			}
			if start, end := g.VisibleRange(); end-start != 5*time.Second {
				b.Fatalf("%v in view, want 5s", end-start)
			}
		})
	}
}

// BenchmarkLiveOverview measures the overview strip of an open-loop load
// test drawn for each live frame (1400 dp wide, the Gantt following 5 s
// at the live end), with 10,000 or 100,000 calls recorded and 20 more
// each frame: the strip shows the whole recording, and what a frame
// costs should not grow with it:
// go test ./ui/internal/timeline -run '^$' -bench LiveOverview
func BenchmarkLiveOverview(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("spans=%d", n), func(b *testing.B) {
			test.NewTempApp(b)
			g := NewGantt()
			o, release := NewOverview(g)
			defer release()
			o.Resize(fyne.NewSize(1400, OverviewHeight))
			snap := liveLoad(n, 10)
			g.SetSnapshot(snap)
			g.SetFollow(true)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if i%500 == 499 { // start over, not to grow without end
					snap = liveLoad(n, 10)
				}
				snap = grow(snap, 20, 10)
				g.SetSnapshot(snap)
				b.StartTimer()
				o.draw(1400, OverviewHeight)
			}
			b.StopTimer()
			if o.peak == 0 {
				b.Fatal("the strip counted no call in flight")
			}
		})
	}
}
