package timeline

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestTooltipLeaves: the tooltip leaves the screen after a zoom (wheel,
// keys, buttons), a pan, a scroll of the rows, a fit, and when the
// pointer leaves; moving the pointer brings it back.
func TestTooltipLeaves(t *testing.T) {
	test.NewTempApp(t)
	over := fyne.NewPos(400, ganttRulerH+ganttLaneH+2.5*ganttRowH)
	for _, tt := range []struct {
		name string
		do   func(g *Gantt, w fyne.Window)
	}{
		{"Ctrl+wheel zoom", func(g *Gantt, _ fyne.Window) {
			g.scroll(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: over}, Scrolled: fyne.NewDelta(0, 10)}, fyne.KeyModifierControl)
		}},
		{"+ key", func(g *Gantt, _ fyne.Window) { g.TypedRune('+') }},
		{"zoom out button", func(g *Gantt, _ fyne.Window) { g.ZoomOut() }},
		{"Fit", func(g *Gantt, _ fyne.Window) { g.fit() }},
		{"Shift+wheel pan", func(g *Gantt, _ fyne.Window) {
			g.scroll(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: over}, Scrolled: fyne.NewDelta(0, 20)}, fyne.KeyModifierShift)
		}},
		{"drag", func(g *Gantt, _ fyne.Window) {
			g.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: over}, Dragged: fyne.NewDelta(30, 0)})
		}},
		{"Right key", func(g *Gantt, _ fyne.Window) { g.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight}) }},
		{"wheel over the rows", func(g *Gantt, _ fyne.Window) {
			g.scroll(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: over}, Scrolled: fyne.NewDelta(0, -10)}, 0)
		}},
		{"pointer leaves", func(_ *Gantt, w fyne.Window) { test.MoveMouse(w.Canvas(), fyne.NewPos(-1, -1)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, w := showGantt(t, bigSnapshot(60), fyne.NewSize(800, 260))
			g.SetVisibleRange(0, 2*time.Second)
			test.MoveMouse(w.Canvas(), over)
			if g.tooltip() == nil {
				t.Fatal("no tooltip under the pointer to begin with")
			}
			tt.do(g, w)
			w.Canvas().Capture()
			if got := g.tooltip(); got != nil {
				t.Errorf("the tooltip stays: %q", got)
			}
			if r, ok := test.WidgetRenderer(g).(*ganttRenderer); ok && r.tipBg.Visible() {
				t.Errorf("the tooltip's background is still drawn")
			}
			test.MoveMouse(w.Canvas(), over.AddXY(3, 0))
			if g.tooltip() == nil {
				t.Errorf("moving the pointer does not bring the tooltip back")
			}
		})
	}
}

// TestTooltipWords: a call the client made is sent, not received.
func TestTooltipWords(t *testing.T) {
	snap := fixedSnapshot()
	call := snap.Spans[0]
	if call.Direction != recorder.Outgoing {
		t.Fatalf("span 0 of the fixed recording is %s, want the outgoing call", call.Direction)
	}
	lines := spanSummary(snap, call)
	if !slices.Contains(lines, "sent 0.000 s → answered 2.560 s") {
		t.Errorf("the call's tooltip = %q, want it sent, then answered", lines)
	}
}
