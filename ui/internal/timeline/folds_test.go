package timeline

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

// twoRuns is a session of a 3 s fan-out at 1 s and a 15 s load at 40 s,
// connected at 0: idle from 4 s to 40 s.
func twoRuns() *recorder.Snapshot {
	snap := &recorder.Snapshot{Now: 55 * time.Second, Runs: []recorder.Run{
		{Name: "Run 1", Start: time.Second, End: 4 * time.Second},
		{Name: "Run 2", Start: 40 * time.Second, End: 55 * time.Second},
	}}
	add := func(from, to time.Duration) {
		snap.Spans = append(snap.Spans, &recorder.Span{ID: recorder.SpanID(len(snap.Spans) + 1), Received: from, Answered: to})
	}
	add(0, 10*time.Millisecond)         // initialize
	add(time.Second, 4*time.Second)     // run 1
	add(40*time.Second, 55*time.Second) // run 2
	return snap
}

func TestIdleFolds(t *testing.T) {
	snap := twoRuns()
	folds := idleFolds(snap, 55*time.Second)
	if len(folds) != 1 {
		t.Fatalf("folds %v, want the one between the runs (the lead of 1 s is too short)", folds)
	}
	f := folds[0]
	pad := time.Duration(float64(55*time.Second) * foldShare / 2)
	if f.from != 4*time.Second+pad || f.to != 40*time.Second-pad {
		t.Errorf("fold %v–%v, want 4 s–40 s less a margin of %v each side", f.from, f.to, pad)
	}

	// a manual call at 20 s between the runs splits the idle time: the
	// larger side is folded
	snap.Spans = append(snap.Spans, &recorder.Span{ID: 9, Received: 20 * time.Second, Answered: 21 * time.Second})
	folds = idleFolds(snap, 55*time.Second)
	if len(folds) != 1 || folds[0].from < 21*time.Second || folds[0].to > 40*time.Second {
		t.Errorf("with a call at 20–21 s, folds %v, want one within 21–40 s", folds)
	}

	// one run: nothing to fold; an open run: nothing idle after it
	one := twoRuns()
	one.Runs = one.Runs[:1]
	if f := idleFolds(one, 55*time.Second); f != nil {
		t.Errorf("one run folded %v", f)
	}
	open := twoRuns()
	open.Runs[0].End = recorder.Unset
	if f := idleFolds(open, 55*time.Second); f != nil {
		t.Errorf("after an open run folded %v", f)
	}
}

func TestWarpRoundTrips(t *testing.T) {
	w := newWarp([]fold{{5 * time.Second, 35 * time.Second}, {40 * time.Second, 50 * time.Second}}, 60*time.Second)
	keep := w.keep
	for _, c := range []struct{ real, disp time.Duration }{
		{0, 0},
		{5 * time.Second, 5 * time.Second},
		{35 * time.Second, 5*time.Second + keep},
		{36 * time.Second, 6*time.Second + keep},
		{50 * time.Second, 10*time.Second + 2*keep},
		{60 * time.Second, 20*time.Second + 2*keep},
	} {
		if got := w.disp(c.real); got != c.disp {
			t.Errorf("disp(%v) = %v, want %v", c.real, got, c.disp)
		}
		if got := w.real(c.disp); got != c.real {
			t.Errorf("real(%v) = %v, want %v", c.disp, got, c.real)
		}
	}
	// inside a fold: monotonic, and back again within a nanosecond or so
	prev := time.Duration(-1)
	for r := 5 * time.Second; r <= 35*time.Second; r += 250 * time.Millisecond {
		d := w.disp(r)
		if d < prev {
			t.Fatalf("disp not monotonic at %v", r)
		}
		prev = d
		if back := w.real(d); back-r > time.Microsecond*50 || r-back > time.Microsecond*50 {
			t.Errorf("real(disp(%v)) = %v", r, back)
		}
	}
	if id := (warp{}); id.disp(7*time.Second) != 7*time.Second || id.real(7*time.Second) != 7*time.Second || id.on() {
		t.Error("a warp without folds is not the identity")
	}
}

// twoRunSession is a fan-out of three sampling requests at 1 s (run 1)
// and one at 40 s (run 2) on one connection, connected at 0.
func twoRunSession() *recorder.Snapshot {
	snap := &recorder.Snapshot{Now: 43 * time.Second, Runs: []recorder.Run{
		{Name: "Run 1", Start: time.Second, End: 2 * time.Second, Tool: "fanout"},
		{Name: "Run 2", Start: 40 * time.Second, End: 43 * time.Second, Tool: "fanout"},
	}}
	id := recorder.SpanID(0)
	add := func(s recorder.Span) recorder.SpanID {
		id++
		s.ID = id
		snap.Spans = append(snap.Spans, &s)
		return id
	}
	add(recorder.Span{Direction: recorder.Outgoing, Method: "initialize", Received: 0, Answered: 5 * time.Millisecond})
	for _, run := range []struct{ at, took time.Duration }{{time.Second, 900 * time.Millisecond}, {40 * time.Second, 2900 * time.Millisecond}} {
		call := add(recorder.Span{Direction: recorder.Outgoing, Method: "tools/call", Name: "fanout", Kind: recorder.KindTool, Received: run.at, Answered: run.at + run.took})
		add(recorder.Span{Direction: recorder.Incoming, Method: "sampling/createMessage", Kind: recorder.KindSampling, Parent: call,
			Received: run.at + 50*time.Millisecond, Queued: run.at + 50*time.Millisecond, Serving: run.at + 50*time.Millisecond, Answered: run.at + run.took - 50*time.Millisecond})
	}
	return snap
}

// TestGanttFoldsIdle: the whole session of two runs 38 s apart, folded,
// draws each run over a good part of the plot, says on the ruler how long
// the fold was idle, and reads the recording's own time back under the
// pointer; unfolded, run 1 is a sliver again.
func TestGanttFoldsIdle(t *testing.T) {
	test.NewTempApp(t)
	snap := twoRunSession()
	g, w := showGantt(t, snap, fyne.NewSize(800, 300))
	plotW := float64(g.plotW())
	width := func(from, to time.Duration) float64 {
		start, end := g.axis.start, g.axis.end
		return float64(g.axis.disp(to)-g.axis.disp(from)) / float64(end-start) * plotW
	}
	if got := width(time.Second, 1900*time.Millisecond); got > 20 {
		t.Fatalf("unfolded, run 1 is %.0f units wide: the test expects a sliver", got)
	}

	g.SetFoldIdle(true)
	g.Refresh()
	if got := width(time.Second, 1900*time.Millisecond); got < 40 {
		t.Errorf("folded, run 1 is %.0f units wide, want a readable width", got)
	}
	r := test.WidgetRenderer(g).(*ganttRenderer)
	idle := ""
	for _, l := range r.ruler {
		if l.Visible() && strings.Contains(l.Text, "idle") {
			idle = l.Text
		}
	}
	if !strings.HasPrefix(idle, "⋯ 3") || !strings.HasSuffix(idle, " s idle") {
		t.Errorf("the ruler says %q of the fold, want how long it was idle (over 30 s)", idle)
	}
	for _, l := range g.rulerLabels() {
		if v, err := time.ParseDuration(strings.ReplaceAll(l, " ", "")); err == nil && v > 3*time.Second && v < 39*time.Second {
			t.Errorf("the ruler has a tick at %s, inside the fold", l)
		}
	}
	// the pointer over run 2's sampling request reads its own time
	at := g.axis.disp(41 * time.Second)
	x := ganttGutter + float32(float64(at-g.axis.start)/float64(g.axis.end-g.axis.start))*g.plotW()
	if got := g.timeAtX(x); got < 40900*time.Millisecond || got > 41100*time.Millisecond {
		t.Errorf("time under the pointer at run 2's 41 s mark: %v", got)
	}
	if start, end := g.VisibleRange(); start > 0 || end < 43*time.Second {
		t.Errorf("fitted and folded, the Gantt shows %v–%v of the recording, want all of 0–43 s", start, end)
	}
	assertImage(t, "gantt_idle_folded.png", w.Canvas().Capture())

	g.SetFoldIdle(false)
	if got := width(time.Second, 1900*time.Millisecond); got > 20 {
		t.Errorf("unfolded again, run 1 is %.0f units wide, want the sliver back", got)
	}
}
