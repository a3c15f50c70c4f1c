package timeline

import (
	"image"
	"slices"
	"testing"

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
