package app

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// The window sizes the layout is checked at: a small laptop screen and
// the default.
var windowSizes = []fyne.Size{fyne.NewSize(1024, 700), fyne.NewSize(1400, 900)}

// absRect is where o is on its window: its left, top, right and bottom.
func absRect(o fyne.CanvasObject) (l, t, r, b float32) {
	p := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	return p.X, p.Y, p.X + o.Size().Width, p.Y + o.Size().Height
}

// checkOneLine fails unless the objects of line that show sit on one
// line, inside it, and the line is no taller than its tallest object.
func checkOneLine(t *testing.T, name string, line *fyne.Container) {
	t.Helper()
	var tallest float32
	for _, o := range line.Objects {
		tallest = max(tallest, o.MinSize().Height)
	}
	if h := line.Size().Height; h > tallest+0.5 {
		t.Errorf("the %s is %.0f px tall, more than one line (%.0f px)", name, h, tallest)
	}
	shown := 0
	for _, o := range line.Objects {
		if !o.Visible() {
			continue
		}
		shown++
		if x := o.Position().X + o.Size().Width; x > line.Size().Width+0.5 {
			t.Errorf("the %s's %T reaches x=%.0f, past its width %.0f", name, o, x, line.Size().Width)
		}
		if y := o.Position().Y; y < -0.5 || y+o.Size().Height > line.Size().Height+0.5 {
			t.Errorf("the %s's %T is at y=%.0f–%.0f, off its one line of %.0f px", name, o, y, y+o.Size().Height, line.Size().Height)
		}
	}
	if shown < 3 {
		t.Errorf("the %s shows %d objects", name, shown)
	}
}

// TestDetailsDrawerKeepsRows selects a request at 1024×700 and
// 1400×900: the details open without moving the Gantt's rows (before,
// the narrower timeline wrapped its toolbar and legend onto more lines
// and the rows moved down ~36 px, so that the next click at the same
// place selected the wrong row), the toolbar and legend stay one line
// each, and the details' Copy buttons show whole.
func TestDetailsDrawerKeepsRows(t *testing.T) {
	for _, size := range windowSizes {
		t.Run(fmt.Sprintf("%.0fx%.0f", size.Width, size.Height), func(t *testing.T) {
			loop := newMainLoop(t)
			m := openMainWindow(t, loop, Options{})
			m.window.Resize(size)
			tv := m.timeline
			tv.SetSnapshot(fixedSnapshot())
			m.window.Canvas().Capture()
			g := tv.Gantt()
			toolbar, legend := tv.left.Objects[0].(*fyne.Container), tv.left.Objects[1].(*fyne.Container)
			checkOneLine(t, "toolbar", toolbar)
			checkOneLine(t, "legend", legend)
			_, top, _, _ := absRect(g)
			// the middle of the fourth row (#4), from the window's top
			rowY := top + ganttRulerH + ganttLaneH + 3.5*ganttRowH

			test.TapAt(g, fyne.NewPos(400, rowY-top))
			m.window.Canvas().Capture()
			if !m.panes.rightShown() || g.Selected() == nil || g.Selected().ID != 4 {
				t.Fatalf("a tap on the fourth row: details shown %v, selected %v; want #4 in the details", m.panes.rightShown(), g.Selected())
			}
			_, after, _, _ := absRect(g)
			t.Logf("row #4 at y=%.0f before the details opened, the Gantt's top %.0f → %.0f; toolbar %.0f px, legend %.0f px tall",
				rowY, top, after, toolbar.Size().Height, legend.Size().Height)
			if after != top {
				t.Errorf("opening the details moved the Gantt from y=%.0f to y=%.0f", top, after)
			}
			checkOneLine(t, "toolbar with the details open", toolbar)
			checkOneLine(t, "legend with the details open", legend)
			// the next click, one row down at the same place on the
			// window, selects the next row
			test.TapAt(g, fyne.NewPos(400, rowY+ganttRowH-after))
			if s := g.Selected(); s == nil || s.ID != 5 {
				t.Errorf("a tap one row under #4 with the details open selected %v, want #5", s)
			}

			d := tv.Details()
			dl, dt, dr, db := absRect(d)
			for name, b := range map[string]*widget.Button{"params": d.copyParams, "result": d.copyResult} {
				l, bt, r, bb := absRect(b)
				if !b.Visible() || l < dl || r > dr+0.5 || r > size.Width {
					t.Errorf("the %s' Copy button spans x=%.0f–%.0f, the details pane x=%.0f–%.0f: cut off", name, l, r, dl, dr)
				}
				if bt < dt || bb > db && name == "params" {
					t.Errorf("the %s' Copy button spans y=%.0f–%.0f, outside the pane's y=%.0f–%.0f", name, bt, bb, dt, db)
				}
			}
		})
	}
}

// loadSnapshot is a closed-loop load test: n tool calls, c at a time,
// back to back, and no request from the server, so that the
// concurrency chart stays at c throughout.
func loadSnapshot(n, c int, each time.Duration) *recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "load"}}
	for i := range n {
		start := time.Duration(i/c) * each
		snap.Spans = append(snap.Spans, &recorder.Span{
			ID: recorder.SpanID(i + 1), Direction: recorder.Outgoing, Kind: recorder.KindTool,
			Method: "tools/call", Name: "echo", Session: "s1", Status: recorder.StatusOK,
			Received: start, Queued: start, Serving: start, Answered: start + each,
		})
	}
	snap.Now = time.Duration(n/c) * each
	return snap
}

// TestGanttKeepsItsHeight shows a recording at 1024×700 and 1400×900
// with the details open: the Gantt keeps at least ganttMinHeight, or
// all its rows when they need less (it was about 75 px at 1024×700 with
// a load, under a toolbar of 2 lines and a legend of 3), and a chart
// that never leaves one value folds to a line that unfolds it when
// clicked.
func TestGanttKeepsItsHeight(t *testing.T) {
	for _, size := range windowSizes {
		for _, rec := range []struct {
			name string
			snap *recorder.Snapshot
			flat bool
		}{
			{"a fan-out", fixedSnapshot(), false},
			{"a closed-loop load", loadSnapshot(400, 4, 50*ms), true},
		} {
			t.Run(fmt.Sprintf("%.0fx%.0f %s", size.Width, size.Height, rec.name), func(t *testing.T) {
				loop := newMainLoop(t)
				m := openMainWindow(t, loop, Options{})
				m.window.Resize(size)
				tv := m.timeline
				tv.SetSnapshot(rec.snap)
				tv.Gantt().Select(tv.Rows()[0].Span.ID)
				m.window.Canvas().Capture()
				if !m.panes.rightShown() {
					t.Fatal("the details did not open")
				}
				g := tv.Gantt()
				t.Logf("Gantt %.0f px tall, its rows need %.0f", g.Size().Height, g.RowsHeight())
				if h, want := g.Size().Height, min(ganttMinHeight, g.RowsHeight()); h < want {
					t.Errorf("the Gantt is %.0f px tall, want at least %.0f (its rows need %.0f)", h, want, g.RowsHeight())
				}
				fold := tv.chartFold
				if fold.Visible() != rec.flat || tv.Chart().Visible() == rec.flat {
					t.Errorf("concurrency chart shown %v, its folded line %v; want the line alone when the chart is flat (%v)",
						tv.Chart().Visible(), fold.Visible(), rec.flat)
				}
				if !rec.flat {
					return
				}
				if want := "▸ concurrency chart: flat at 4 throughout — click to show it"; fold.text.Text != want {
					t.Errorf("the folded chart's line reads %q, want %q", fold.text.Text, want)
				}
				test.Tap(fold)
				m.window.Canvas().Capture()
				if !tv.Chart().Visible() || tv.Chart().Size().Height < chartFloor {
					t.Errorf("a click on the line did not unfold the chart: shown %v, %.0f px", tv.Chart().Visible(), tv.Chart().Size().Height)
				}
				test.Tap(fold)
				if tv.Chart().Visible() {
					t.Error("a second click did not fold the chart again")
				}
			})
		}
	}
}

// TestStatsShowWhole checks that the stats bar's last line ends inside
// the window at 1024×700.
func TestStatsShowWhole(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.window.Resize(windowSizes[0])
	m.timeline.SetSnapshot(loadSnapshot(400, 4, 50*ms))
	m.timeline.Gantt().Select(1)
	m.window.Canvas().Capture()
	_, _, _, bottom := absRect(m.timeline.stats)
	if h := m.window.Canvas().Size().Height; bottom > h+0.5 {
		t.Errorf("the stats end at y=%.0f, below the window's %.0f", bottom, h)
	}
	if min := m.window.Content().MinSize(); min.Width > 1024 || min.Height > 700 {
		t.Errorf("the window's content needs %.0f×%.0f, more than 1024×700", min.Width, min.Height)
	}
}

// TestWindowSize: the window opens at the size asked for, else at
// 1400×900 made smaller to fit the screen when the screen is known.
func TestWindowSize(t *testing.T) {
	screen := func(w, h float32) func() fyne.Size { return func() fyne.Size { return fyne.NewSize(w, h) } }
	for _, tt := range []struct {
		name string
		opts Options
		want fyne.Size
	}{
		{"screen unknown", Options{}, DefaultWindowSize},
		{"screen not answering", Options{Screen: screen(0, 0)}, DefaultWindowSize},
		{"a large screen", Options{Screen: screen(2560, 1440)}, DefaultWindowSize},
		{"a 1024×700 screen", Options{Screen: screen(1024, 700)}, fyne.NewSize(1024, 700)},
		{"a short wide screen", Options{Screen: screen(1920, 768)}, fyne.NewSize(1400, 768)},
		{"asked for", Options{WindowSize: fyne.NewSize(800, 600), Screen: screen(1024, 700)}, fyne.NewSize(800, 600)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := windowSize(tt.opts); got != tt.want {
				t.Errorf("windowSize = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("the window", func(t *testing.T) {
		loop := newMainLoop(t)
		m := openMainWindow(t, loop, Options{Screen: screen(1024, 700)})
		if got := m.window.Canvas().Size(); got != fyne.NewSize(1024, 700) {
			t.Errorf("the window opened at %v on a 1024×700 screen", got)
		}
	})
}

// TestLayoutGolden pins the window's look at 1024×700 and 1400×900
// with a request's details open. The panels are folded: their look
// belongs to their own tests.
func TestLayoutGolden(t *testing.T) {
	for _, size := range windowSizes {
		t.Run(fmt.Sprintf("%.0fx%.0f", size.Width, size.Height), func(t *testing.T) {
			loop := newMainLoop(t)
			m := openMainWindow(t, loop, Options{})
			m.window.Resize(size)
			m.panes.setLeft(false)
			m.timeline.SetSnapshot(fixedSnapshot())
			m.timeline.Gantt().Select(4)
			pinned := m.timeline.Summary()
			pinned.VerdictText = "partial: the verdict in words"
			m.timeline.setStats(func() { m.timeline.stats.setSummary(pinned) })
			assertImage(t, fmt.Sprintf("window_details_%.0fx%.0f.png", size.Width, size.Height), m.window.Canvas().Capture())
		})
	}
}

// TestChartsStayBesideFewRows shows a 3,000-call load test in a window
// of 1024×520: its rows are a few groups, and the chart of calls per
// second, which folds to give a long Gantt its room, stays open under
// them, every row still in view; 400 calls drawn a row each do need the
// room, and the chart folds.
func TestChartsStayBesideFewRows(t *testing.T) {
	for _, tt := range []struct {
		name   string
		snap   *recorder.Snapshot
		folded bool
	}{
		{"3,000 calls in groups", loadSnapshot(3000, 50, 40*ms), false},
		{"400 calls, a row each", loadSnapshot(400, 4, 50*ms), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loop := newMainLoop(t)
			m := openMainWindow(t, loop, Options{})
			m.window.Resize(fyne.NewSize(1024, 520))
			tv := m.timeline
			tv.SetSnapshot(tt.snap)
			m.window.Canvas().Capture()
			g := tv.Gantt()
			if !tv.overFold.shown {
				t.Fatal("the chart of calls per second does not apply to the recording")
			}
			if folded := !tv.OverTime().Visible(); folded != tt.folded {
				t.Errorf("calls per second and latency folded: %v, want %v (the Gantt %.0f px tall, its rows need %.0f)",
					folded, tt.folded, g.Size().Height, g.RowsHeight())
			}
			if h := g.Size().Height; !tt.folded && h < g.RowsHeight() {
				t.Errorf("the Gantt is %.0f px tall: its rows need %.0f", h, g.RowsHeight())
			}
		})
	}
}
