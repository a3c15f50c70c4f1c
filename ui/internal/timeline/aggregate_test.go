package timeline

import (
	"image"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestGanttAggregatesALoadTest checks that 5,000 calls show as one band
// per method rather than 5,000 one-line rows, in normal and compact mode,
// and that a click on the band, or zooming in, shows the calls' own rows.
func TestGanttAggregatesALoadTest(t *testing.T) {
	test.NewTempApp(t)
	snap := echoLoad(5000, 50, 10*ms)
	snap.Spans[1234].Status, snap.Spans[1234].Error = recorder.StatusError, "boom"
	for _, compact := range []bool{false, true} {
		name := "gantt_load"
		if compact {
			name += "_compact"
		}
		t.Run(name, func(t *testing.T) {
			g, w := showGantt(t, snap, fyne.NewSize(800, 200))
			g.SetCompact(compact)
			img := w.Canvas().Capture()
			if !g.aggregated() {
				t.Fatal("5,000 rows are drawn one by one")
			}
			want := []GanttGroup{{label: "tools/call echo", requests: 5000, failed: 1}}
			if got := g.groups(); !slices.Equal(got, want) {
				t.Errorf("groups %+v, want %+v", got, want)
			}
			// the band covers the plot: most of the row's pixels in the tool colour
			if n := countColor(img.(*image.NRGBA), KindColor(recorder.KindTool)); n < 5000 {
				t.Errorf("the band has %d pixels in the tool colour: nearly blank", n)
			}
			assertImage(t, name+".png", img)
		})
	}

	t.Run("a click drills down", func(t *testing.T) {
		g, w := showGantt(t, snap, fyne.NewSize(800, 200))
		w.Canvas().Capture()
		test.TapAt(g, fyne.NewPos(400, ganttRulerH+ganttLaneH+ganttAggH/2))
		w.Canvas().Capture()
		if g.aggregated() {
			t.Fatal("a click on the group left it aggregated")
		}
		if s := g.spanAt(fyne.NewPos(400, ganttRulerH+ganttLaneH+ganttRowH/2)); s == nil || s.ID != 1 {
			t.Errorf("after the click the first row shows %v, want the first call", s)
		}
		g.fit() // the whole recording again: aggregated
		w.Canvas().Capture()
		if !g.aggregated() {
			t.Error("fitting the whole recording did not aggregate again")
		}
		test.TapAt(g, fyne.NewPos(400, ganttRulerH+ganttLaneH+ganttAggH/2))
		g.ZoomOut()
		w.Canvas().Capture()
		if !g.aggregated() {
			t.Error("zooming out after a drill-down did not aggregate again")
		}
	})

	t.Run("zooming in drills down", func(t *testing.T) {
		g, w := showGantt(t, snap, fyne.NewSize(800, 200))
		// 100 ms around 0.5 s: ten waves of 50 calls
		g.SetVisibleRange(500*ms, 600*ms)
		w.Canvas().Capture()
		if g.aggregated() {
			t.Fatal("zoomed in on 500 calls, the Gantt still aggregates")
		}
		s := g.spanAt(fyne.NewPos(400, ganttRulerH+ganttLaneH+ganttRowH/2))
		if s == nil || recorder.SpanEnd(snap, s) < 500*ms || s.Received > 600*ms {
			t.Errorf("zoomed in at 0.5 s, the first row shows %v, not a call in view", s)
		}
	})

	t.Run("a fan-out of a few hundred rows is not aggregated", func(t *testing.T) {
		g, w := showGantt(t, fanoutSnapshot(5, 5, 500*ms), fyne.NewSize(800, 200))
		w.Canvas().Capture()
		if g.aggregated() {
			t.Error("6 rows aggregated")
		}
	})
}

func TestGanttFilter(t *testing.T) {
	test.NewTempApp(t)
	snap := fixedSnapshot()
	tests := []struct {
		filter string
		want   []recorder.SpanID
	}{
		{"", []recorder.SpanID{1, 2, 3, 4, 5, 6, 8, 7, 9, 10}},
		{"elicitation", []recorder.SpanID{8}},
		{"status:error", []recorder.SpanID{8}},
		{"id:#4", []recorder.SpanID{4}},
		{"SAMPLING", []recorder.SpanID{2, 3, 4, 5, 6}},
		{"sampling status:ok", []recorder.SpanID{2, 3, 4, 5, 6}},
		{"nothing-like-this", nil},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			g, _ := showGantt(t, snap, fyne.NewSize(800, 260))
			g.setFilter(tt.filter)
			var got []recorder.SpanID
			for _, r := range g.Rows() {
				got = append(got, r.Span.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("filter %q shows %v, want %v", tt.filter, got, tt.want)
			}
		})
	}
	// the filter outlives new spans of a live recording
	g, _ := showGantt(t, echoLoad(10, 2, ms), fyne.NewSize(800, 260))
	g.setFilter("id:#3")
	more := echoLoad(12, 2, ms)
	g.SetSnapshot(more)
	if rows := g.Rows(); len(rows) != 1 || rows[0].Span.ID != 3 {
		t.Errorf("after new spans the filter shows %d rows", len(rows))
	}
}

// BenchmarkLoadFrame measures one frame of a 5,000-call load test at
// 1600×900 on the main goroutine: grouping the rows, drawing the
// aggregated Gantt, and the chart of the calls in flight:
// go test ./ui/internal/timeline -run '^$' -bench LoadFrame
func BenchmarkLoadFrame(b *testing.B) {
	test.NewTempApp(b)
	snap := echoLoad(5000, 50, 10*ms)
	g, c := NewGantt(), NewConcurrencyChart()
	c.useAxis(g.axis)
	w := test.NewTempWindow(b, g)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(1600, 900))
	g.SetSnapshot(snap)
	for _, part := range []string{"gantt", "chart"} {
		b.Run(part, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				switch part {
				case "gantt":
					g.updateAggregate()
					g.draw(1600, 760)
				case "chart":
					c.SetSteps(snap, nil) // a load test: the calls' steps
					c.draw(1600+i%2, 140) // a new size each time: no cached image
				}
			}
			if part == "gantt" && !g.aggregated() {
				b.Fatal("not aggregated")
			}
		})
	}
}

// TestGanttAggregateFollowsALiveRun checks that the groups kept up to
// date frame by frame, as a live run grows, show what a Gantt given the
// same snapshot afresh shows: the same groups, counts and failures (of
// requests that failed after they were first drawn in flight), and the
// same picture. Two runs: a load test whose calls are appended, and a
// fan-out whose requests arrive under their tool call, so that the rows
// after it are laid out again every frame.
func TestGanttAggregateFollowsALiveRun(t *testing.T) {
	test.NewTempApp(t)
	size := fyne.NewSize(800, 300)
	same := func(t *testing.T, step int, g *Gantt, snap *recorder.Snapshot) {
		t.Helper()
		fresh, _ := showGantt(t, snap, size)
		fresh.SetFollow(g.Following()) // the live end's line
		fresh.SetVisibleRange(g.VisibleRange())
		fresh.scrollY = g.scrollY
		g.updateAggregate()
		fresh.updateAggregate()
		start, end := g.VisibleRange()
		inView := 0
		for _, r := range g.layout.rows {
			if s := snap.Spans[r.span]; s.Received != recorder.Unset && s.Received <= end && recorder.SpanEnd(snap, s) >= start {
				inView++
			}
		}
		if got := g.rowsInView(len(snap.Spans) + 1); got != inView {
			t.Fatalf("frame %d: %d rows in view, want %d", step, got, inView)
		}
		if got, want := g.groups(), fresh.groups(); !slices.Equal(got, want) {
			t.Fatalf("frame %d: groups %+v, afresh %+v", step, got, want)
		}
		if a, b := g.draw(800, 300).(*image.RGBA), fresh.draw(800, 300).(*image.RGBA); !slices.Equal(a.Pix, b.Pix) {
			t.Fatalf("frame %d: the picture differs from the one drawn afresh", step)
		}
	}

	t.Run("load test", func(t *testing.T) {
		snap := liveLoad(3000, 10)
		g, _ := showGantt(t, snap, size)
		g.SetFollow(true)
		g.SetVisibleRange(0, snap.Now)
		for step := range 40 {
			next := grow(snap, 40, 10)
			// a call drawn in flight in the frame before fails
			i := len(snap.Spans) - 1 - step%10
			failed := *next.Spans[i]
			failed.Status = recorder.StatusError
			next.Spans[i] = &failed
			snap = next
			g.SetSnapshot(snap)
			same(t, step, g, snap)
		}
		if got := g.groups()[0]; got.requests != len(snap.Spans) || got.failed < 40 {
			t.Errorf("after 40 frames: %+v, want all %d calls and at least the 40 that failed late", got, len(snap.Spans))
		}
	})

	t.Run("fan-out", func(t *testing.T) {
		// the last frame is of the whole run: aggregated
		all := echoLoad(1500, 50, 10*ms)
		var snap *recorder.Snapshot
		g, _ := showGantt(t, nil, size)
		for step, n := 0, 1100; n <= 1500; step, n = step+1, n+50 {
			// an open fan-out call, then n requests: every third one under
			// the call, so that the rows after the call are laid out again
			next := &recorder.Snapshot{Meta: all.Meta, Now: all.Now, Version: uint64(step + 1)}
			next.Spans = append(next.Spans, &recorder.Span{ID: 1, Session: "s1", Direction: recorder.Outgoing,
				Method: "tools/call", Kind: recorder.KindTool, Name: "fanout", Answered: recorder.Unset, Status: recorder.StatusOpen})
			for i, s := range all.Spans[:n] {
				c := *s
				c.ID, c.Direction, c.Kind, c.Method, c.Name = recorder.SpanID(i+2), recorder.Incoming, recorder.KindSampling, "sampling/createMessage", ""
				if i%3 == 0 {
					c.Parent = 1
				}
				if i == n-7 {
					c.Status = recorder.StatusTimeout
				}
				next.Spans = append(next.Spans, &c)
			}
			snap = next
			g.SetSnapshot(snap)
			g.SetVisibleRange(0, snap.Now)
			if step%2 == 1 { // a narrow view: the rows outside it are not looked at
				g.SetVisibleRange(snap.Now/2, snap.Now/2+50*ms)
			}
			same(t, step, g, snap)
		}
		if !g.aggregated() || len(g.groups()) < 2 {
			t.Fatalf("groups %+v: want the call and its requests at two depths, aggregated", g.groups())
		}
	})
}

// TestRowsInViewAfterRelayout checks that the rows found in view, which
// skips the rows wholly before or after the visible time, follows the
// rows when they are laid out again: folded, a kind hidden, unfolded.
func TestRowsInViewAfterRelayout(t *testing.T) {
	test.NewTempApp(t)
	snap := bigSnapshot(20000)
	g, _ := showGantt(t, snap, fyne.NewSize(800, 300))
	g.SetVisibleRange(5*time.Second, 5*time.Second+300*ms)
	for _, change := range []struct {
		name string
		do   func()
	}{
		{"as laid out", func() {}},
		{"folded", func() { g.CollapseAll(true) }},
		{"unfolded", func() { g.CollapseAll(false) }},
		{"sampling hidden", func() { g.SetKindHidden(recorder.KindSampling, true) }},
		{"sampling shown", func() { g.SetKindHidden(recorder.KindSampling, false) }},
	} {
		change.do()
		g.updateAggregate()
		want := 0
		for _, r := range g.layout.rows {
			if s := snap.Spans[r.span]; s.Received <= 5300*ms && recorder.SpanEnd(snap, s) >= 5*time.Second {
				want++
			}
		}
		if got := g.rowsInView(len(snap.Spans) + 1); got != want || want == 0 {
			t.Errorf("%s: %d rows in view, want %d", change.name, got, want)
		}
	}
}
