package timeline

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// TestGutterWidens: a drag on the label column's edge widens it, for the
// Gantt and the chart on its axis alike, within bounds; a cut label shows
// more of itself once wider, and whole in its row's tooltip while cut; a
// drag that starts elsewhere does not touch the column.
func TestGutterWidens(t *testing.T) {
	test.NewTempApp(t)
	g, _ := showGantt(t, roundsSnapshot(), fyne.NewSize(800, 300))
	chart := NewConcurrencyChart()
	release := chart.ShareAxis(g)
	defer release()
	r := test.WidgetRenderer(g).(*ganttRenderer)
	rowY := func(row int) float32 { return ganttRulerH + ganttLaneH + (float32(row)+0.5)*ganttRowH }
	labelOf := func(prefix string) string {
		for _, l := range r.labels {
			if l.Visible() && strings.HasPrefix(l.Text, prefix) {
				return l.Text
			}
		}
		return ""
	}
	drag := func(from, to fyne.Position) {
		g.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: to}, Dragged: fyne.NewDelta(to.X-from.X, to.Y-from.Y)})
		g.DragEnd()
		g.Refresh()
	}
	const full = "r1-0 sampling/createMessage"
	if got := labelOf("r1-0"); got == full || !strings.HasSuffix(got, "…") {
		t.Fatalf("at the first width the label is %q: the test expects it cut", got)
	}
	g.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(60, rowY(2))}})
	if tip := g.tooltip(); len(tip) == 0 || tip[0] != full {
		t.Errorf("the tooltip of the cut label starts %q, want the label whole", tip)
	}
	g.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(ganttGutter+1, 10)}})
	if g.Cursor() != desktop.HResizeCursor {
		t.Error("over the column's edge the cursor is not the resize cursor")
	}

	drag(fyne.NewPos(ganttGutter, rowY(2)), fyne.NewPos(320, rowY(2)))
	if g.axis.gutter != 320 || chart.axis.gutter != 320 {
		t.Errorf("after a drag to 320 the column is %v wide on the Gantt and %v on the chart, want 320", g.axis.gutter, chart.axis.gutter)
	}
	if got := labelOf("r1-0"); got != full {
		t.Errorf("widened, the label reads %q, want %q", got, full)
	}
	g.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(61, rowY(2))}})
	if tip := g.tooltip(); len(tip) > 0 && tip[0] == full {
		t.Errorf("a label shown whole is repeated atop its tooltip: %q", tip)
	}

	drag(fyne.NewPos(320, 10), fyne.NewPos(790, 10))
	if g.axis.gutter != 400 {
		t.Errorf("dragged to 790 of 800 the column is %v wide, want at most half the Gantt (400)", g.axis.gutter)
	}
	drag(fyne.NewPos(400, 10), fyne.NewPos(10, 10))
	if g.axis.gutter != minGutter {
		t.Errorf("dragged to 10 the column is %v wide, want the narrowest, %v", g.axis.gutter, float32(minGutter))
	}
	drag(fyne.NewPos(500, rowY(1)), fyne.NewPos(450, rowY(1)))
	if g.axis.gutter != minGutter {
		t.Errorf("a drag among the bars changed the column to %v", g.axis.gutter)
	}
}
