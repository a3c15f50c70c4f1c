package timeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline/timelinetest"
)

func init() {
	// redraw at once in tests: no deferred refresh from a timer goroutine
	MinFrameInterval = 0
}

const ms = time.Millisecond

// The recordings the tests draw, shared with the tests of package app.
var (
	fixedSnapshot  = timelinetest.Fixed
	fanoutSnapshot = timelinetest.Fanout
	bigSnapshot    = timelinetest.Big
	roundsSnapshot = timelinetest.Rounds
	assertImage    = timelinetest.AssertImage
	assertMarkup   = timelinetest.AssertMarkup
)

func ids(rows []GanttRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s%d ", strings.Repeat(">", r.Depth), r.Span.ID)
	}
	return strings.TrimSpace(b.String())
}

func TestGanttRows(t *testing.T) {
	test.NewTempApp(t)
	orphan := fixedSnapshot()
	// a request naming a parent that is not in the recording stays on top
	orphan.Spans[7] = &recorder.Span{ID: 8, Parent: 99, Direction: recorder.Incoming, Method: "elicitation/create",
		Kind: recorder.KindElicitation, Received: 1, Queued: 1, Serving: 1, Answered: 2, Status: recorder.StatusOK}
	tests := []struct {
		name string
		snap *recorder.Snapshot
		want string
	}{
		{"children follow their tool call", fixedSnapshot(), "1 >2 >3 >4 >5 >6 >8 7 9 10"},
		{"unknown parent is an orphan", orphan, "1 >2 >3 >4 >5 >6 7 8 9 10"},
		{"empty", &recorder.Snapshot{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGantt()
			g.SetSnapshot(tt.snap)
			if got := ids(g.Rows()); got != tt.want {
				t.Errorf("rows = %q, want %q", got, tt.want)
			}
		})
	}
	// two tool calls in flight at once, their requests interleaved
	interleaved := &recorder.Snapshot{Meta: recorder.Meta{Title: "interleaved"}}
	for i, parent := range []recorder.SpanID{0, 0, 1, 2, 1, 0, 2, 6, 1} {
		method := "sampling/createMessage"
		if parent == 0 {
			method = "tools/call"
		}
		interleaved.Spans = append(interleaved.Spans, &recorder.Span{ID: recorder.SpanID(i + 1), Parent: parent, Method: method,
			Kind: recorder.KindOf(method), Received: time.Duration(i) * ms, Answered: recorder.Unset})
	}
	for _, tt := range []struct {
		name string
		snap *recorder.Snapshot
		want string
	}{
		{"fixed", fixedSnapshot(), "1 >2 >3 >4 >5 >6 >8 7 9 10"},
		{"interleaved", interleaved, "1 >3 >5 >9 2 >4 >7 6 >8"},
	} {
		t.Run("appending lays out like a fresh start/"+tt.name, func(t *testing.T) {
			for _, step := range []int{1, 2, 3} {
				g := NewGantt()
				for n := 0; n <= len(tt.snap.Spans); n += step {
					part := *tt.snap
					part.Spans = tt.snap.Spans[:n]
					g.SetSnapshot(&part)
				}
				g.SetSnapshot(tt.snap)
				if got := ids(g.Rows()); got != tt.want {
					t.Errorf("rows after appending %d at a time = %q, want %q", step, got, tt.want)
				}
				fresh := NewGantt()
				fresh.SetSnapshot(tt.snap)
				for _, r := range fresh.Rows() {
					if a, b := g.layout.rowOfID(r.Span.ID), fresh.layout.rowOfID(r.Span.ID); a != b {
						t.Errorf("span %d: row %d appended, %d fresh", r.Span.ID, a, b)
					}
				}
			}
		})
	}
	t.Run("hidden kinds get no row", func(t *testing.T) {
		full := fixedSnapshot()
		g := NewGantt()
		g.SetKindHidden(recorder.KindTool, true)
		for n := 0; n <= len(full.Spans); n += 3 {
			part := *full
			part.Spans = full.Spans[:n]
			g.SetSnapshot(&part)
		}
		g.SetSnapshot(full)
		if got, want := ids(g.Rows()), ">2 >3 >4 >5 >6 >8 7 9 10"; got != want {
			t.Errorf("rows without tool calls = %q, want %q", got, want)
		}
		g.SetKindHidden(recorder.KindPing, true)
		if got, want := ids(g.Rows()), ">2 >3 >4 >5 >6 >8 9 10"; got != want {
			t.Errorf("rows without tool calls and pings = %q, want %q", got, want)
		}
		g.Select(7)
		if g.Selected() != nil {
			t.Errorf("a hidden ping was selected")
		}
		g.SetKindHidden(recorder.KindTool, false)
		g.SetKindHidden(recorder.KindPing, false)
		if got, want := ids(g.Rows()), "1 >2 >3 >4 >5 >6 >8 7 9 10"; got != want {
			t.Errorf("rows shown again = %q, want %q", got, want)
		}
	})
	t.Run("folding tool calls", func(t *testing.T) {
		g, win := showGantt(t, fixedSnapshot(), fyne.NewSize(800, 260))
		g.CollapseAll(true)
		if got, want := ids(g.Rows()), "1 7 9 10"; got != want {
			t.Errorf("rows with tool calls folded = %q, want %q", got, want)
		}
		// the fold marker at the gutter's right end unfolds the first call
		test.TapAt(g, fyne.NewPos(ganttGutter-ganttFoldW/2, ganttRulerH+ganttLaneH+ganttRowH/2))
		if got, want := ids(g.Rows()), "1 >2 >3 >4 >5 >6 >8 7 9 10"; got != want || g.Selected() != nil {
			t.Errorf("rows after clicking the fold marker = %q (selected %v), want %q and no selection", got, g.Selected(), want)
		}
		g.setCollapsed(1, true)
		if got, want := ids(g.Rows()), "1 7 9 10"; got != want {
			t.Errorf("rows after folding #1 = %q, want %q", got, want)
		}
		assertImage(t, "gantt_folded.png", win.Canvas().Capture())
		test.MoveMouse(win.Canvas(), fyne.NewPos(400, ganttRulerH+ganttLaneH+ganttRowH/2))
		if tip := g.tooltip(); len(tip) == 0 || tip[len(tip)-1] != "6 requests folded under it: click ▸ to unfold" {
			t.Errorf("tooltip of a folded tool call = %q", tip)
		}
		test.MoveMouse(win.Canvas(), fyne.NewPos(400, 250))
		// selecting a folded request unfolds its tool call
		g.Select(4)
		if s := g.Selected(); s == nil || s.ID != 4 || g.collapsed(1) {
			t.Errorf("selecting folded #4: selected %v, #1 folded %v", s, g.collapsed(1))
		}
		g.CollapseAll(false)
		if got, want := ids(g.Rows()), "1 >2 >3 >4 >5 >6 >8 7 9 10"; got != want {
			t.Errorf("rows unfolded = %q, want %q", got, want)
		}
	})
	t.Run("a request that learns its tool call moves under it", func(t *testing.T) {
		full := fixedSnapshot()
		g := NewGantt()
		g.SetSnapshot(full)
		g.setCollapsed(1, true)
		upd := *full
		upd.Spans = slices.Clone(full.Spans)
		ping := *full.Spans[6]
		ping.Parent = 1
		upd.Spans[6] = &ping
		g.SetSnapshot(&upd)
		if got, want := ids(g.Rows()), "1 9 10"; got != want || !g.collapsed(1) {
			t.Errorf("rows after #7 was linked to folded #1 = %q (folded %v), want %q", got, g.collapsed(1), want)
		}
		g.setCollapsed(1, false)
		if got, want := ids(g.Rows()), "1 >2 >3 >4 >5 >6 >7 >8 9 10"; got != want {
			t.Errorf("rows after #7 was linked to #1 = %q, want %q", got, want)
		}
	})
	t.Run("an update replaces a span", func(t *testing.T) {
		full := fixedSnapshot()
		g := NewGantt()
		g.SetSnapshot(full)
		// an update replaces a span's pointer: the row must show the new one
		upd := *full
		upd.Spans = slices.Clone(full.Spans)
		changed := *full.Spans[2]
		changed.Status = recorder.StatusTimeout
		upd.Spans[2] = &changed
		g.SetSnapshot(&upd)
		if got := g.Rows()[2].Span.Status; got != recorder.StatusTimeout {
			t.Errorf("row 2 status after update = %q, want timeout", got)
		}
	})
}

// showGantt puts a Gantt of snap in a test window of the given size.
func showGantt(t *testing.T, snap *recorder.Snapshot, size fyne.Size) (*Gantt, fyne.Window) {
	t.Helper()
	g := NewGantt()
	w := test.NewTempWindow(t, g)
	w.SetPadded(false)
	w.Resize(size)
	g.SetSnapshot(snap)
	return g, w
}

func TestGanttGolden(t *testing.T) {
	test.NewTempApp(t)
	tests := []struct {
		name string
		snap *recorder.Snapshot
		size fyne.Size
	}{
		{"gantt_fixed", fixedSnapshot(), fyne.NewSize(800, 260)},
		{"gantt_serial", fanoutSnapshot(5, 1, 500*ms), fyne.NewSize(600, 170)},
		{"gantt_concurrent", fanoutSnapshot(5, 5, 500*ms), fyne.NewSize(600, 170)},
		{"gantt_empty", &recorder.Snapshot{}, fyne.NewSize(400, 100)},
		{"gantt_compact", bigSnapshot(120), fyne.NewSize(600, 300)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, w := showGantt(t, tt.snap, tt.size)
			g.SetCompact(strings.HasSuffix(tt.name, "compact"))
			assertMarkup(t, tt.name+".xml", w.Canvas())
			assertImage(t, tt.name+".png", w.Canvas().Capture())
		})
	}
	t.Run("hover tooltip", func(t *testing.T) {
		g, w := showGantt(t, fixedSnapshot(), fyne.NewSize(800, 260))
		test.MoveMouse(w.Canvas(), fyne.NewPos(400, ganttRulerH+ganttLaneH+2.5*ganttRowH))
		want := []string{
			"#3 sampling/createMessage (incoming, ok)",
			"hand-off 0 µs · queued 499 ms · serving 500 ms · total 999 ms",
			"received 0.011 s → answered 1.010 s",
			"caused by #1 tools/call fanout",
		}
		if got := g.tooltip(); !slices.Equal(got, want) {
			t.Errorf("tooltip = %q\nwant %q", got, want)
		}
		assertImage(t, "gantt_tooltip.png", w.Canvas().Capture())
		test.MoveMouse(w.Canvas(), fyne.NewPos(400, 5))
		if got := g.tooltip(); got != nil {
			t.Errorf("tooltip over the ruler = %q, want none", got)
		}
		// the progress notification at 1.1 s, in the lane under the ruler
		start, end := g.VisibleRange()
		x := ganttGutter + float32(float64(1100*ms-start)/float64(end-start))*(800-ganttGutter) + 2
		test.MoveMouse(w.Canvas(), fyne.NewPos(x, ganttRulerH+ganttLaneH/2))
		want = []string{"notifications/progress at 1.100 s", "about #1 tools/call fanout"}
		if got := g.tooltip(); !slices.Equal(got, want) {
			t.Errorf("tooltip over a notification = %q, want %q", got, want)
		}
	})
}

func TestGanttZoomPan(t *testing.T) {
	test.NewTempApp(t)
	size := fyne.NewSize(ganttGutter+600, 260)
	// the fixed recording's latest instant is 2.7 s: fitted, the view runs
	// to 2.835 s and the ruler counts half seconds
	tests := []struct {
		name       string
		do         func(g *Gantt, w fyne.Window)
		start, end time.Duration
		ruler      []string
	}{
		{"fit", func(g *Gantt, w fyne.Window) {}, 0, 2835 * ms,
			[]string{"0.0 s", "0.5 s", "1.0 s", "1.5 s", "2.0 s", "2.5 s"}},
		{"zoom in twice keeps the middle", func(g *Gantt, w fyne.Window) { g.ZoomIn(); g.ZoomIn() },
			1063125 * time.Microsecond, 1771875 * time.Microsecond,
			[]string{"1.2 s", "1.4 s", "1.6 s"}},
		{"zoom out stops at the start", func(g *Gantt, w fyne.Window) { g.ZoomOut() }, 0, 5670 * ms,
			[]string{"0 s", "1 s", "2 s", "3 s", "4 s", "5 s"}},
		{"ctrl+wheel zooms around the pointer", func(g *Gantt, w fyne.Window) {
			// the pointer at a third of the plot: 0.945 s stays under it
			ev := &fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 50 * 0.6931471805599453}}
			ev.Position = fyne.NewPos(ganttGutter+200, 100)
			g.scroll(ev, fyne.KeyModifierControl)
		}, 472500 * time.Microsecond, 1890 * ms, []string{"0.5 s", "1.0 s", "1.5 s"}},
		{"drag left pans later", func(g *Gantt, w fyne.Window) {
			g.ZoomIn()
			test.Drag(w.Canvas(), fyne.NewPos(ganttGutter+300, 100), -300, 0)
		}, 1417500 * time.Microsecond, 2835 * ms, []string{"1.5 s", "2.0 s", "2.5 s"}},
		{"shift+wheel pans", func(g *Gantt, w fyne.Window) {
			g.ZoomIn()
			g.scroll(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -150}}, fyne.KeyModifierShift)
		}, 1063125 * time.Microsecond, 2480625 * time.Microsecond, []string{"1.5 s", "2.0 s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, w := showGantt(t, fixedSnapshot(), size)
			tt.do(g, w)
			start, end := g.VisibleRange()
			// zooming by the wheel goes through floating point: a
			// microsecond either way is the same view
			if (start-tt.start).Abs() > time.Microsecond || (end-tt.end).Abs() > time.Microsecond {
				t.Errorf("visible range = %v – %v, want %v – %v", start, end, tt.start, tt.end)
			}
			if got := g.rulerLabels(); !slices.Equal(got, tt.ruler) {
				t.Errorf("ruler = %q, want %q", got, tt.ruler)
			}
			g.Refresh()
			if !slices.Equal(g.lastTicks, tt.ruler) {
				t.Errorf("ruler drawn = %q, want %q", g.lastTicks, tt.ruler)
			}
		})
	}
	t.Run("wheel scrolls rows", func(t *testing.T) {
		g, w := showGantt(t, bigSnapshot(200), size)
		top := g.spanAt(fyne.NewPos(10, ganttRulerH+ganttLaneH+1))
		test.Scroll(w.Canvas(), fyne.NewPos(400, 100), 0, -10*ganttRowH)
		after := g.spanAt(fyne.NewPos(10, ganttRulerH+ganttLaneH+1))
		if top == nil || after == nil || after.ID != top.ID+10 {
			t.Errorf("top row after scrolling 10 rows = %v, want span %d", after, top.ID+10)
		}
		if s, e := g.VisibleRange(); s != 0 {
			t.Errorf("scrolling rows moved the time range to %v – %v", s, e)
		}
	})
}

func TestGanttFollowLive(t *testing.T) {
	test.NewTempApp(t)
	full := bigSnapshot(300)
	g, _ := showGantt(t, &recorder.Snapshot{Meta: full.Meta}, fyne.NewSize(ganttGutter+600, 200))
	g.SetFollow(true)
	g.SetVisibleRange(0, 2*time.Second)
	for _, now := range []time.Duration{time.Second, 10 * time.Second, 30 * time.Second} {
		part := *full
		part.Spans = nil
		for _, s := range full.Spans {
			if s.Received <= now {
				if s.Answered > now { // live: still in flight at now
					c := *s
					c.Answered, c.Status = recorder.Unset, recorder.StatusOpen
					s = &c
				}
				part.Spans = append(part.Spans, s)
			}
		}
		// a call in flight since now: the run goes on
		part.Spans = append(part.Spans, &recorder.Span{ID: recorder.SpanID(len(full.Spans) + 1), Direction: recorder.Outgoing,
			Method: "tools/call", Kind: recorder.KindTool, Received: now, Queued: now, Serving: now, Answered: recorder.Unset})
		part.Now = now
		g.SetSnapshot(&part)
		start, end := g.VisibleRange()
		if end-start != 2*time.Second {
			t.Errorf("at %v: width = %v, want the 2 s the user chose", now, end-start)
		}
		if now > 2*time.Second && (now < start || now > end) {
			t.Errorf("at %v: view %v – %v does not show the latest instant", now, start, end)
		}
		last := g.Rows()[len(g.Rows())-1].Span
		if bottom := g.spanAt(fyne.NewPos(10, 200-ganttRowH/2)); bottom != last {
			t.Errorf("at %v: bottom row is %v, want the latest span #%d", now, bottom, last.ID)
		}
	}
	// scrolling back through the rows stops following, so they stay put
	g.scroll(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 3 * ganttRowH}}, 0)
	if g.Following() {
		t.Error("scrolling up to earlier rows kept following")
	}
	g.SetFollow(true)

	// zooming by hand stops following: Ctrl + wheel, and View ▸ Zoom in
	ev := &fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 20}}
	ev.Position = fyne.NewPos(ganttGutter+300, 50)
	g.scroll(ev, fyne.KeyModifierControl)
	if g.Following() {
		t.Error("zooming with Ctrl + wheel kept following")
	}
	g.SetFollow(true)
	g.ZoomIn()
	if g.Following() {
		t.Error("Zoom in kept following")
	}
	g.SetFollow(true)

	// panning stops following
	var followed []bool
	g.OnFollowChanged = func(on bool) { followed = append(followed, on) }
	g.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 100}})
	if g.Following() || !slices.Equal(followed, []bool{false}) {
		t.Errorf("after a drag: following %v, changes %v; want off", g.Following(), followed)
	}
	start, _ := g.VisibleRange()
	part := *full
	part.Spans = append(part.Spans, &recorder.Span{ID: recorder.SpanID(len(part.Spans) + 1), Direction: recorder.Outgoing,
		Method: "tools/call", Kind: recorder.KindTool, Received: 30 * time.Second, Queued: 30 * time.Second,
		Serving: 30 * time.Second, Answered: recorder.Unset}) // in flight: a follower would slide to it
	part.Now = 31 * time.Second
	g.SetSnapshot(&part)
	if s, _ := g.VisibleRange(); s != start {
		t.Errorf("not following: view moved from %v to %v", start, s)
	}
}

func TestGanttDrawsWithoutPanic(t *testing.T) {
	test.NewTempApp(t)
	one := &recorder.Snapshot{Spans: []*recorder.Span{{ID: 1, Direction: recorder.Incoming, Method: "ping", Kind: recorder.KindPing,
		Received: 5 * ms, Queued: recorder.Unset, Serving: recorder.Unset, Answered: recorder.Unset}}, Now: 5 * ms}
	tests := []struct {
		name string
		snap *recorder.Snapshot
		size fyne.Size
	}{
		{"nil", nil, fyne.NewSize(500, 200)},
		{"empty", &recorder.Snapshot{}, fyne.NewSize(500, 200)},
		{"one open span at its first instant", one, fyne.NewSize(500, 200)},
		{"tiny", fixedSnapshot(), fyne.NewSize(10, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, w := showGantt(t, tt.snap, tt.size)
			g.SetCompact(true)
			g.ZoomIn()
			test.MoveMouse(w.Canvas(), fyne.NewPos(250, 50))
			test.TapAt(g, fyne.NewPos(250, 50))
			if img := w.Canvas().Capture(); img.Bounds().Dx() == 0 {
				t.Error("nothing drawn")
			}
		})
	}
}

func TestRulerTicks(t *testing.T) {
	tests := []struct {
		start, end time.Duration
		width      float32
		want       []string
	}{
		{0, 100 * time.Microsecond, 600, []string{"0 µs", "20 µs", "40 µs", "60 µs", "80 µs", "100 µs"}},
		{0, 45 * ms, 600, []string{"0 ms", "10 ms", "20 ms", "30 ms", "40 ms"}},
		{2 * ms, 3 * ms, 600, []string{"2.0 ms", "2.2 ms", "2.4 ms", "2.6 ms", "2.8 ms", "3.0 ms"}},
		{0, 90 * time.Second, 300, []string{"0 s", "50 s"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.start, "-", tt.end), func(t *testing.T) {
			var got []string
			for _, tk := range rulerTicks(tt.start, tt.end, tt.width) {
				got = append(got, tk.label)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ticks = %q, want %q", got, tt.want)
			}
		})
	}
}

func benchmarkGanttFrame(b *testing.B, n int, compact bool) {
	test.NewTempApp(b)
	g := NewGantt()
	w := test.NewTempWindow(b, g)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(1600, 900))
	g.SetSnapshot(bigSnapshot(n))
	g.SetCompact(compact)
	g.scrollY = float32(n/2) * g.rowH() // the middle of the run
	g.SetVisibleRange(time.Duration(n/2)*ms, time.Duration(n/2)*ms+2*time.Second)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		g.draw(1600, 900)
	}
}

// BenchmarkGanttFrame measures the raster generator filling one
// 1600×900 frame: go test ./ui/ -run '^$' -bench GanttFrame
func BenchmarkGanttFrame(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("spans=%d", n), func(b *testing.B) { benchmarkGanttFrame(b, n, false) })
		b.Run(fmt.Sprintf("spans=%d/compact", n), func(b *testing.B) { benchmarkGanttFrame(b, n, true) })
	}
}

// BenchmarkGanttLayout measures laying out a snapshot's rows from scratch.
func BenchmarkGanttLayout(b *testing.B) {
	snap := bigSnapshot(100000)
	for b.Loop() {
		var l ganttLayout
		l.update(snap, nil)
	}
}

func TestGanttKeyboard(t *testing.T) {
	test.NewTempApp(t)
	tests := []struct {
		name     string
		keys     []fyne.KeyName
		runes    string
		selected recorder.SpanID
		start    time.Duration
	}{
		{"down selects the first row, then the next", []fyne.KeyName{fyne.KeyDown, fyne.KeyDown}, "", 2, 0},
		{"up stops at the first row", []fyne.KeyName{fyne.KeyDown, fyne.KeyUp, fyne.KeyUp}, "", 1, 0},
		{"end and home", []fyne.KeyName{fyne.KeyEnd}, "", 10, 0},
		{"page down moves a screenful less one row", []fyne.KeyName{fyne.KeyHome, fyne.KeyPageDown}, "", 5, 0},
		{"escape clears", []fyne.KeyName{fyne.KeyDown, fyne.KeyEscape}, "", 0, 0},
		{"right pans a tenth of the view later", []fyne.KeyName{fyne.KeyRight}, "", 0, 283500 * time.Microsecond},
		{"+ zooms in around the middle, 0 fits again", nil, "+0", 0, 0},
		{"+ zooms in around the middle", nil, "+", 0, 708750 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// 140 units high: five rows fit under the ruler
			g, w := showGantt(t, fixedSnapshot(), fyne.NewSize(ganttGutter+600, 140))
			test.TapAt(g, fyne.NewPos(10, 5)) // on the ruler: focus, no selection
			if w.Canvas().Focused() != g {
				t.Fatal("a click did not give the Gantt the keyboard focus")
			}
			for _, k := range tt.keys {
				w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: k})
			}
			test.Type(g, tt.runes)
			var got recorder.SpanID
			if s := g.Selected(); s != nil {
				got = s.ID
			}
			if got != tt.selected {
				t.Errorf("selected #%d, want #%d", got, tt.selected)
			}
			if start, _ := g.VisibleRange(); (start - tt.start).Abs() > time.Microsecond {
				t.Errorf("view starts at %v, want %v", start, tt.start)
			}
		})
	}
}

// TestUnlinkedRow checks that the timeline row of a request no tool call
// could be named for says "unlinked", within the room the label has.
func TestUnlinkedRow(t *testing.T) {
	test.NewTempApp(t)
	snap := fixedSnapshot()
	sp := snap.Spans[2]
	sp.Parent, sp.Unlinked = 0, "2 tool calls were in flight and the request carried no progress token"
	_, w := showGantt(t, snap, fyne.NewSize(800, 260))
	var labels []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *canvas.Text:
			labels = append(labels, o.Text)
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(o).Objects() {
				walk(c)
			}
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		}
	}
	walk(w.Canvas().Content())
	n := 0
	for _, l := range labels {
		if strings.HasPrefix(l, "unlinked sampling/") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d rows say unlinked, want 1; the labels drawn: %q", n, labels)
	}
}

// TestGanttDragOnRulerZooms: a drag that begins on the time ruler shades
// the range and zooms onto it when released, and stops following; a drag
// over the rows pans as before; a slip of a few dp does nothing.
func TestGanttDragOnRulerZooms(t *testing.T) {
	test.NewTempApp(t)
	g, _ := showGantt(t, fixedSnapshot(), fyne.NewSize(ganttGutter+600, 260))
	drag := func(y, from, to float32) {
		mid := (from + to) / 2
		g.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(ganttGutter+mid, y)}, Dragged: fyne.NewDelta(mid-from, 0)})
		g.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(ganttGutter+to, y)}, Dragged: fyne.NewDelta(to-mid, 0)})
	}
	g.SetVisibleRange(0, 6*time.Second)
	g.SetFollow(true)
	drag(5, 100, 300)
	if !g.zoomDrag.on {
		t.Fatal("a drag on the ruler did not start a range")
	}
	if s, e := g.VisibleRange(); s != 0 || e != 6*time.Second {
		t.Errorf("while dragging on the ruler the view moved to %v – %v", s, e)
	}
	g.DragEnd()
	if s, e := g.VisibleRange(); s != time.Second || e != 3*time.Second || g.Following() {
		t.Errorf("after dragging 1 s – 3 s on the ruler: view %v – %v, following %v; want 1s – 3s, not following", s, e, g.Following())
	}
	drag(5, 200, 202) // a slip
	g.DragEnd()
	if s, e := g.VisibleRange(); s != time.Second || e != 3*time.Second {
		t.Errorf("a 2 dp drag on the ruler changed the view to %v – %v", s, e)
	}
	drag(150, 300, 200) // over the rows: pans 100 dp, a sixth of 2 s, later
	g.DragEnd()
	if s, _ := g.VisibleRange(); s <= time.Second {
		t.Errorf("a drag over the rows did not pan: view starts at %v", s)
	}
}
