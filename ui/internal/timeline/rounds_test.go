package timeline

import (
	"image"
	"image/color"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

func TestGanttRoundRows(t *testing.T) {
	test.NewTempApp(t)
	full := roundsSnapshot()
	tests := []struct {
		name string
		do   func(g *Gantt)
		want string
	}{
		{"rounds under their call, input requests under their round", func(g *Gantt) {}, "1 >2 >>3 >>4 >5 >>6 >7 8 >9 >10 11"},
		{"a round folds its input requests", func(g *Gantt) { g.setCollapsed(2, true) }, "1 >2 >5 >>6 >7 8 >9 >10 11"},
		{"the call folds its rounds", func(g *Gantt) { g.setCollapsed(1, true) }, "1 8 >9 >10 11"},
		{"a request without children does not fold", func(g *Gantt) { g.setCollapsed(3, true) }, "1 >2 >>3 >>4 >5 >>6 >7 8 >9 >10 11"},
		{"fold all folds calls and rounds", func(g *Gantt) { g.CollapseAll(true) }, "1 8 11"},
		{"fold all, then unfold a call: its rounds stay folded", func(g *Gantt) {
			g.CollapseAll(true)
			g.setCollapsed(1, false)
		}, "1 >2 >5 >7 8 11"},
		{"hidden rounds leave their input requests under the call", func(g *Gantt) { g.SetKindHidden(recorder.KindRound, true) },
			"1 >>3 >>4 >>6 8 >9 >10 11"},
		{"selecting a folded input request unfolds its round and call", func(g *Gantt) {
			g.CollapseAll(true)
			g.Select(6)
			if s := g.Selected(); s == nil || s.ID != 6 {
				t.Errorf("selected %v, want #6", s)
			}
		}, "1 >2 >5 >>6 >7 8 11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGantt()
			g.SetSnapshot(full)
			tt.do(g)
			if got := ids(g.Rows()); got != tt.want {
				t.Errorf("rows = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("appending lays out like a fresh start", func(t *testing.T) {
		for _, step := range []int{1, 2, 3} {
			g := NewGantt()
			for n := 0; n <= len(full.Spans); n += step {
				part := *full
				part.Spans = full.Spans[:n]
				g.SetSnapshot(&part)
			}
			g.SetSnapshot(full)
			if got, want := ids(g.Rows()), "1 >2 >>3 >>4 >5 >>6 >7 8 >9 >10 11"; got != want {
				t.Errorf("rows after appending %d at a time = %q, want %q", step, got, want)
			}
		}
	})
	t.Run("a call answered in one round has no round row", func(t *testing.T) {
		g := NewGantt()
		more := *full
		more.Spans = slices.Clone(full.Spans)
		more.Spans = append(more.Spans,
			&recorder.Span{ID: 12, Session: "s1", Direction: recorder.Outgoing, Method: "tools/call", Name: "echo", Kind: recorder.KindTool,
				Received: 200 * ms, Queued: 200 * ms, Serving: 200 * ms, Answered: 201 * ms, Status: recorder.StatusOK},
			&recorder.Span{ID: 13, Session: "s1", Parent: 12, Round: 1, Direction: recorder.Outgoing, Method: "tools/call", Name: "echo",
				Kind: recorder.KindRound, Received: 200 * ms, Queued: 200 * ms, Serving: 200 * ms, Answered: 201 * ms, Status: recorder.StatusOK})
		g.SetSnapshot(&more)
		if got, want := ids(g.Rows()), "1 >2 >>3 >>4 >5 >>6 >7 8 >9 >10 11 12"; got != want {
			t.Errorf("rows = %q, want %q: the echo call once, without its lone round", got, want)
		}
		// a second round arrives: both rounds get rows
		more.Spans = append(slices.Clone(more.Spans),
			&recorder.Span{ID: 14, Session: "s1", Parent: 12, Round: 2, Direction: recorder.Outgoing, Method: "tools/call", Name: "echo",
				Kind: recorder.KindRound, Received: 202 * ms, Queued: 202 * ms, Serving: 202 * ms, Answered: 203 * ms, Status: recorder.StatusOK})
		g.SetSnapshot(&more)
		if got, want := ids(g.Rows()), "1 >2 >>3 >>4 >5 >>6 >7 8 >9 >10 11 12 >13 >14"; got != want {
			t.Errorf("rows with a second round = %q, want %q", got, want)
		}
	})
	t.Run("fold state belongs to the span, not its row", func(t *testing.T) {
		g := NewGantt()
		g.SetSnapshot(full)
		g.setCollapsed(5, true) // round 2, on row 4
		// a late input request of round 1 arrives: round 2 moves a row down
		more := *full
		more.Spans = slices.Clone(full.Spans)
		more.Spans = append(more.Spans, &recorder.Span{ID: 12, Session: "s1", Parent: 2, Round: 1, InputKey: "r1-2",
			Direction: recorder.Incoming, Method: "roots/list", Kind: recorder.KindRoots,
			Received: 100 * ms, Queued: 100 * ms, Serving: 100 * ms, Answered: 110 * ms, Status: recorder.StatusOK})
		g.SetSnapshot(&more)
		if got, want := ids(g.Rows()), "1 >2 >>3 >>4 >>12 >5 >7 8 >9 >10 11"; got != want {
			t.Errorf("rows = %q, want %q (round 2 still folded, round 1 not)", got, want)
		}
		if !g.collapsed(5) || g.collapsed(2) {
			t.Errorf("folded: #5 %v, #2 %v; want #5 only", g.collapsed(5), g.collapsed(2))
		}
	})
	t.Run("the fold marker of a round", func(t *testing.T) {
		g, _ := showGantt(t, full, fyne.NewSize(800, 300))
		// round 1 is the second row
		test.TapAt(g, fyne.NewPos(ganttGutter-ganttFoldW/2, ganttRulerH+ganttLaneH+1.5*ganttRowH))
		if got, want := ids(g.Rows()), "1 >2 >5 >>6 >7 8 >9 >10 11"; got != want || g.Selected() != nil {
			t.Errorf("rows after clicking round 1's fold marker = %q (selected %v), want %q", got, g.Selected(), want)
		}
	})
}

func TestFulfilments(t *testing.T) {
	snap := roundsSnapshot()
	rounds := roundsOf(snap, snap.Spans[0])
	if len(rounds) != 3 {
		t.Fatalf("%d rounds, want 3", len(rounds))
	}
	want := []fulfilment{{after: 1, from: 100 * ms, to: 1150 * ms}, {after: 2, from: 1250 * ms, to: 1500 * ms}}
	if got := fulfilments(rounds, snap.Now, false); !slices.Equal(got, want) {
		t.Errorf("fulfilments = %+v, want %+v", got, want)
	}
	// live: round 2 asked for input, round 3 not sent yet
	live := fulfilments(rounds[:2], 1400*ms, true)
	if len(live) != 2 || live[1] != (fulfilment{after: 2, from: 1250 * ms, to: 1400 * ms, open: true}) {
		t.Errorf("live fulfilments = %+v, want round 2's open until now", live)
	}
	if got := roundsOf(snap, snap.Spans[7]); got != nil {
		t.Errorf("a 2025-era call has rounds %v", got)
	}
}

func TestGanttRoundTooltips(t *testing.T) {
	test.NewTempApp(t)
	rowY := func(row int) float32 { return ganttRulerH + ganttLaneH + (float32(row)+0.5)*ganttRowH }
	tests := []struct {
		name string
		row  int
		want []string
	}{
		{"the call", 0, []string{
			"#1 tools/call fanout (outgoing, ok)",
			"rounds 3 (2 input_required)",
			"fulfilment 1.30 s in all (the client, between rounds)",
			"round trip 1.60 s",
		}},
		{"round 1", 1, []string{
			"#2 tools/call fanout (outgoing, ok)",
			"round 1 answered: input_required with 2 requests",
			"fulfilment 1.05 s after it: the client fulfilling its input (round 1 answered → round 2 sent)",
			"round trip 100 ms",
		}},
		{"an input request", 2, []string{
			"#3 sampling/createMessage (incoming, ok)",
			"input request of round 1",
			"input key r1-0",
		}},
		{"round 2", 4, []string{
			"#5 tools/call fanout (outgoing, ok)",
			"round 2 answered: input_required with 1 request",
			"fulfilment 1.05 s before it: the client fulfilling round 1's input (round 1 answered → round 2 sent)",
			"fulfilment 250 ms after it: the client fulfilling its input (round 2 answered → round 3 sent)",
		}},
		{"round 3", 6, []string{"round 3 answered: the result", "fulfilment 250 ms before it: the client fulfilling round 2's input (round 2 answered → round 3 sent)"}},
		{"a stalled request", 9, []string{"#10 sampling/createMessage (incoming, ok)", "stalled 450 ms (read, not yet seen by the client)"}},
		{"a stalled response", 10, []string{"#11 tools/list (outgoing, ok)", "response stalled 300 ms (read, not yet seen by the client)"}},
	}
	g, w := showGantt(t, roundsSnapshot(), fyne.NewSize(800, 300))
	t.Run("a stalled notification", func(t *testing.T) {
		start, end := g.VisibleRange()
		x := ganttGutter + float32(float64(2000*ms-start)/float64(end-start))*(800-ganttGutter) + 1
		test.MoveMouse(w.Canvas(), fyne.NewPos(x, ganttRulerH+ganttLaneH/2))
		want := []string{"notifications/progress at 2.000 s", "stalled 250 ms (read, not yet seen by the client)", "about #8 tools/call slow"}
		if got := g.tooltip(); !slices.Equal(got, want) {
			t.Errorf("tooltip = %q, want %q", got, want)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			test.MoveMouse(w.Canvas(), fyne.NewPos(300, rowY(tt.row)))
			tip := g.tooltip()
			for _, want := range tt.want {
				if !slices.Contains(tip, want) {
					t.Errorf("tooltip lacks %q:\n%s", want, strings.Join(tip, "\n"))
				}
			}
		})
	}
}

// pixelAt returns the colour the Gantt drew at instant at on row (in
// window w of the given size, the Gantt fitted to the recording).
func pixelAt(t *testing.T, g *Gantt, img image.Image, size fyne.Size, row int, at time.Duration) color.RGBA {
	t.Helper()
	start, end := g.VisibleRange()
	sc := float64(img.Bounds().Dx()) / float64(size.Width)
	x := (ganttGutter + float64(at-start)/float64(end-start)*float64(size.Width-ganttGutter)) * sc
	y := (ganttRulerH + ganttLaneH + (float64(row)+0.5)*ganttRowH) * sc
	return toRGBA(img.At(int(x), int(y)))
}

func TestGanttDrawsFulfilmentAndStalled(t *testing.T) {
	test.NewTempApp(t)
	size := fyne.NewSize(800, 300)
	g, w := showGantt(t, roundsSnapshot(), size)
	img := w.Canvas().Capture()
	near := func(c, want color.RGBA) bool {
		d := func(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
		return d(c.R, want.R)+d(c.G, want.G)+d(c.B, want.B) < 90
	}
	pal := newGanttPalette()
	isFulfil := func(c color.RGBA) bool { return near(c, FulfilColor) || near(c, mix(pal.bg, FulfilColor, 0.3)) }
	isStalled := func(c color.RGBA) bool { return near(c, StalledColor) || near(c, mix(pal.bg, StalledColor, 0.45)) }
	for _, tt := range []struct {
		name string
		row  int
		at   time.Duration
		want func(color.RGBA) bool
		what string
	}{
		{"the call between rounds 1 and 2", 0, 600 * ms, isFulfil, "fulfilment gold"},
		{"the call between rounds 2 and 3", 0, 1460 * ms, isFulfil, "fulfilment gold"}, // past the duration written on it
		{"the call while round 2 is on the wire", 0, 1200 * ms, func(c color.RGBA) bool { return near(c, KindColor(recorder.KindTool)) }, "the tool's slate"},
		{"a stalled request before its hand-off", 9, 2000 * ms, isStalled, "stalled pink"},
		{"the same request once served", 9, 2500 * ms, func(c color.RGBA) bool { return near(c, KindColor(recorder.KindSampling)) }, "sampling blue"},
		{"a stalled response after it was read", 10, 2100 * ms, isStalled, "stalled pink"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// sample a few pixels: patterns leave gaps
			hit := false
			for dx := range 4 {
				if tt.want(pixelAt(t, g, img, size, tt.row, tt.at+time.Duration(dx)*5*ms)) {
					hit = true
				}
			}
			if !hit {
				t.Errorf("row %d at %v is %v, want %s", tt.row, tt.at, pixelAt(t, g, img, size, tt.row, tt.at), tt.what)
			}
		})
	}
}

func TestGanttRoundsGolden(t *testing.T) {
	test.NewTempApp(t)
	for _, tt := range []struct {
		name string
		do   func(g *Gantt)
	}{
		{"gantt_rounds", func(g *Gantt) {}},
		{"gantt_rounds_folded", func(g *Gantt) { g.setCollapsed(2, true); g.setCollapsed(8, true) }},
		{"gantt_rounds_call_folded", func(g *Gantt) { g.setCollapsed(1, true) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, w := showGantt(t, roundsSnapshot(), fyne.NewSize(800, 300))
			tt.do(g)
			assertMarkup(t, tt.name+".xml", w.Canvas())
			assertImage(t, tt.name+".png", w.Canvas().Capture())
		})
	}
	t.Run("round tooltip", func(t *testing.T) {
		g, w := showGantt(t, roundsSnapshot(), fyne.NewSize(800, 300))
		test.MoveMouse(w.Canvas(), fyne.NewPos(300, ganttRulerH+ganttLaneH+4.5*ganttRowH))
		if len(g.tooltip()) == 0 {
			t.Fatal("no tooltip over round 2")
		}
		assertImage(t, "gantt_rounds_tooltip.png", w.Canvas().Capture())
	})
}

func TestRowLabels(t *testing.T) {
	snap := roundsSnapshot()
	var got []string
	for _, s := range snap.Spans {
		got = append(got, rowLabel(s))
	}
	want := []string{
		"tools/call fanout", "round 1: 2 inputs", "r1-0 sampling/createMessage", "r1-1 sampling/createMessage",
		"round 2: 1 input", "r2-0 elicitation/create", "round 3: result",
		"tools/call slow", "sampling/createMessage", "sampling/createMessage", "tools/list",
	}
	if !slices.Equal(got, want) {
		t.Errorf("labels =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestGanttMarksRuns: a recording of two runs has each run's name on the
// ruler where it starts (a tick label it would cover is left out) and a
// line down through the rows there; a recording of one run has neither.
func TestGanttMarksRuns(t *testing.T) {
	test.NewTempApp(t)
	span := func(id recorder.SpanID, at time.Duration) *recorder.Span {
		return &recorder.Span{ID: id, Session: "s1", Direction: recorder.Outgoing, Method: "tools/call", Name: "echo", Kind: recorder.KindTool,
			Received: at, Queued: at, Serving: at, Answered: at + 100*ms, Status: recorder.StatusOK}
	}
	snap := &recorder.Snapshot{Spans: []*recorder.Span{span(1, 100*ms), span(2, 1200*ms)}, Now: 1400 * ms,
		Runs: []recorder.Run{{Name: "Run 1", Start: 50 * ms, End: 300 * ms}, {Name: "Run 2", Start: 1100 * ms, End: 1350 * ms}}}
	size := fyne.NewSize(ganttGutter+700, 200)
	g, _ := showGantt(t, snap, size)
	g.SetVisibleRange(0, 1500*ms)
	r := test.WidgetRenderer(g).(*ganttRenderer)
	r.Refresh()
	var shown []string
	for _, l := range r.ruler {
		if l.Visible() {
			shown = append(shown, l.Text)
		}
	}
	if !slices.Contains(shown, "Run 1") || !slices.Contains(shown, "Run 2") {
		t.Errorf("the ruler shows %q, want the runs' names", shown)
	}
	img := g.draw(int(size.Width), int(size.Height))
	now := newGanttPalette().now
	if got := pixelAt(t, g, img, size, 3, 1100*ms); got != now {
		t.Errorf("at run 2's start, under the rows, the pixel is %v, want the run line %v", got, now)
	}

	one := *snap
	one.Runs = one.Runs[:1]
	g.SetSnapshot(&one)
	r.Refresh()
	for _, l := range r.ruler {
		if l.Visible() && strings.HasPrefix(l.Text, "Run ") {
			t.Errorf("a recording of one run has %q on its ruler", l.Text)
		}
	}
}

// TestGanttRoundBarsShow: a round answered in under a millisecond is
// drawn 3 px wide at a 2 s view, not a hairline.
func TestGanttRoundBarsShow(t *testing.T) {
	test.NewTempApp(t)
	round := func(id recorder.SpanID, n int32, at time.Duration) *recorder.Span {
		return &recorder.Span{ID: id, Parent: 1, Round: n, Session: "s1", Direction: recorder.Outgoing, Method: "tools/call", Name: "echo",
			Kind: recorder.KindRound, Received: at, Queued: at, Serving: at, Answered: at + 700*time.Microsecond, Status: recorder.StatusOK}
	}
	snap := &recorder.Snapshot{Spans: []*recorder.Span{
		{ID: 1, Session: "s1", Direction: recorder.Outgoing, Method: "tools/call", Name: "echo", Kind: recorder.KindTool,
			Received: 100 * ms, Queued: 100 * ms, Serving: 100 * ms, Answered: 1100 * ms, Status: recorder.StatusOK},
		round(2, 1, 100*ms), round(3, 2, 1099*ms)}, Now: 1200 * ms}
	size := fyne.NewSize(ganttGutter+600, 200)
	g, _ := showGantt(t, snap, size)
	g.SetVisibleRange(0, 2*time.Second)
	img := g.draw(int(size.Width), int(size.Height))
	// 2 px into round 1's bar: 2 px of 600 across 2 s is 6.7 ms
	if got, want := pixelAt(t, g, img, size, 1, 100*ms+6700*time.Microsecond), toRGBA(KindColor(recorder.KindRound)); got != want {
		t.Errorf("2 px into a 0.7 ms round the pixel is %v, want the round's colour %v", got, want)
	}
}

// TestGanttWritesRoundDurations: each stretch of a multi-round-trip
// call's band says how long the client took to fulfil that round's input,
// inside the stretch; a stretch too narrow for its text gets none.
func TestGanttWritesRoundDurations(t *testing.T) {
	test.NewTempApp(t)
	written := func(g *Gantt) map[string][2]float32 {
		out := map[string][2]float32{}
		for _, l := range test.WidgetRenderer(g).(*ganttRenderer).durations {
			if l.Visible() {
				out[l.Text] = [2]float32{l.Position().X, l.Position().X + l.Size().Width}
			}
		}
		return out
	}
	g, w := showGantt(t, roundsSnapshot(), fyne.NewSize(800, 300))
	got := written(g)
	xOf := func(d time.Duration) float32 {
		start, end := g.VisibleRange()
		return ganttGutter + float32(float64(d-start)/float64(end-start))*g.plotW()
	}
	for text, span := range map[string][2]time.Duration{"1.05 s": {100 * ms, 1150 * ms}, "250 ms": {1250 * ms, 1500 * ms}} {
		at, ok := got[text]
		if !ok {
			t.Errorf("no %q written on the band at 800 px; written: %v", text, got)
			continue
		}
		if at[0] < xOf(span[0]) || at[1] > xOf(span[1]) {
			t.Errorf("%q written at x %v, outside its stretch %v–%v", text, at, xOf(span[0]), xOf(span[1]))
		}
	}
	if len(got) != 2 {
		t.Errorf("written %v, want the two fulfilments only", got)
	}

	w.Resize(fyne.NewSize(420, 300))
	g.Refresh()
	if got := written(g); len(got) != 1 || got["1.05 s"] == [2]float32{} {
		t.Errorf("at 420 px written %v, want 1.05 s alone (250 ms has no room)", got)
	}
}
