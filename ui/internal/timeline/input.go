package timeline

import (
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/fanout-inspector/inspector/recorder"
)

// spanAt returns the span of the row under pos (relative to the Gantt), or
// nil.
func (g *Gantt) spanAt(pos fyne.Position) *recorder.Span {
	row := g.rowAt(pos.Y)
	if row < 0 {
		return nil
	}
	return g.snap.Spans[g.layout.rows[row].span]
}

// Scrolled scrolls rows (wheel), zooms (Ctrl or Cmd + wheel) or pans
// (Shift + wheel, horizontal wheel).
func (g *Gantt) Scrolled(ev *fyne.ScrollEvent) {
	var mods fyne.KeyModifier
	if d, ok := fyne.CurrentApp().Driver().(desktop.Driver); ok {
		mods = d.CurrentKeyModifiers()
	}
	g.scroll(ev, mods)
}

func (g *Gantt) scroll(ev *fyne.ScrollEvent, mods fyne.KeyModifier) {
	dx, dy := ev.Scrolled.DX, ev.Scrolled.DY
	switch {
	case mods&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0:
		frac := float64((ev.Position.X - g.axis.gutter) / max(g.plotW(), 1))
		g.zoomAt(math.Exp(-float64(dy)/50), min(max(frac, 0), 1))
		return
	case mods&fyne.KeyModifierShift != 0:
		dx, dy = dy, 0
	}
	if dx != 0 {
		g.panBy(dx)
	}
	g.scrollRows(dy)
}

// scrollRows scrolls the rows by dy units (positive: earlier rows come
// into view). Leaving the latest rows stops following the live end, as
// the person wants to read what scrolled by.
func (g *Gantt) scrollRows(dy float32) {
	if dy == 0 {
		return
	}
	g.scrollY -= dy
	g.hideTooltip()
	g.clampScroll()
	if g.follow && g.scrollY < float32(g.rowCount())*g.rowH()-g.rowsAreaH()-1 {
		g.SetFollow(false)
	}
	g.changed()
}

// Dragged pans the view: sideways in time, up and down through the
// rows. A drag that begins on the time ruler instead shades the range
// dragged over, and zooms onto it when released, as in a trace viewer.
func (g *Gantt) Dragged(ev *fyne.DragEvent) {
	if !g.dragging {
		g.dragging = true
		press := ev.Position.Subtract(ev.Dragged)
		g.gutterDrag = g.onGutterEdge(press)
		g.zoomDrag.on = !g.gutterDrag && press.Y < ganttRulerH+ganttLaneH && press.X >= g.axis.gutter
		g.zoomDrag.from = press.X
	}
	if g.gutterDrag {
		g.resizeGutter(ev.Position.X)
		return
	}
	if g.zoomDrag.on {
		g.zoomDrag.to = min(max(ev.Position.X, g.axis.gutter), g.axis.gutter+g.plotW())
		g.hideTooltip()
		g.changed()
		return
	}
	if ev.Dragged.DX != 0 {
		g.panBy(ev.Dragged.DX)
	}
	g.scrollRows(ev.Dragged.DY)
}

// DragEnd ends a drag: one on the ruler zooms onto the range dragged
// over (one narrower than 4 dp is taken for a slip and does nothing) and
// stops following the live end.
func (g *Gantt) DragEnd() {
	g.dragging, g.gutterDrag = false, false
	if !g.zoomDrag.on {
		return
	}
	g.zoomDrag.on = false
	x0, x1 := min(g.zoomDrag.from, g.zoomDrag.to), max(g.zoomDrag.from, g.zoomDrag.to)
	if x1-x0 >= 4 {
		g.SetFollow(false)
		g.agg.drilled = false
		g.axis.setReal(g.timeAtX(x0), g.timeAtX(x1))
	}
	g.changed()
}

// timeAtX is the instant of the recording at x (dp from the Gantt's
// left) on the axis.
func (g *Gantt) timeAtX(x float32) time.Duration {
	frac := float64(x-g.axis.gutter) / float64(max(g.plotW(), 1))
	return g.axis.real(g.axis.start + time.Duration(frac*float64(g.axis.end-g.axis.start)))
}

// Tapped selects the request of the row under the pointer, and takes the
// keyboard focus.
func (g *Gantt) Tapped(ev *fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(g); c != nil && !g.focused {
		c.Focus(g)
	}
	if g.agg.on {
		// a group's row: drill down to its requests
		if y := ev.Position.Y - ganttRulerH - ganttLaneH + g.scrollY; y >= 0 {
			g.drillDown(int(y / ganttAggH))
		}
		return
	}
	row := g.rowAt(ev.Position.Y)
	if row < 0 {
		g.Select(0)
		return
	}
	id := g.snap.Spans[g.layout.rows[row].span].ID
	if ev.Position.X >= g.axis.gutter-ganttFoldW && ev.Position.X < g.axis.gutter && g.layout.foldable(row) >= 0 {
		g.setCollapsed(id, !g.collapsed(id)) // the fold marker
		return
	}
	g.Select(id)
}

// FocusGained is called when the Gantt gets the keyboard focus.
func (g *Gantt) FocusGained() {
	g.focused = true
	g.changed()
}

// FocusLost is called when the Gantt loses the keyboard focus.
func (g *Gantt) FocusLost() {
	g.focused = false
	g.changed()
}

// TypedRune zooms with + and -, and fits the recording with 0.
func (g *Gantt) TypedRune(r rune) {
	switch r {
	case '+', '=':
		g.ZoomIn()
	case '-':
		g.ZoomOut()
	case '0':
		g.fit()
	}
}

// TypedKey moves the selection with the arrow, page, Home and End keys,
// pans with Left and Right, and clears the selection with Escape.
func (g *Gantt) TypedKey(ev *fyne.KeyEvent) {
	rows := len(g.layout.rows)
	row := g.layout.rowOfID(g.selected)
	page := max(int(g.rowsAreaH()/g.rowH())-1, 1)
	move := func(to int) {
		if rows > 0 {
			g.Select(g.snap.Spans[g.layout.rows[min(max(to, 0), rows-1)].span].ID)
		}
	}
	if row < 0 {
		row = max(int(g.scrollY/g.rowH()), 0) - 1 // Down selects the first visible row
	}
	switch ev.Name {
	case fyne.KeyDown:
		move(row + 1)
	case fyne.KeyUp:
		move(row - 1)
	case fyne.KeyPageDown:
		move(row + page)
	case fyne.KeyPageUp:
		move(row - page)
	case fyne.KeyHome:
		move(0)
	case fyne.KeyEnd:
		move(rows - 1)
	case fyne.KeyLeft:
		g.panBy(g.plotW() / 10)
	case fyne.KeyRight:
		g.panBy(-g.plotW() / 10)
	case fyne.KeyEscape:
		g.Select(0)
	}
}

// MouseIn is called when the pointer enters the Gantt.
func (g *Gantt) MouseIn(ev *desktop.MouseEvent) { g.MouseMoved(ev) }

// MouseMoved shows the tooltip of the request, or the notification, under
// the pointer.
func (g *Gantt) MouseMoved(ev *desktop.MouseEvent) {
	row, event := g.rowAt(ev.Position.Y), g.eventAt(ev.Position)
	if event < 0 {
		event = g.rowEventAt(row, ev.Position) // a log message marked on the row
	}
	if row == g.hoverRow && event == g.hoverEvent && (row < 0 && event < 0 || ev.Position == g.hoverPos) {
		g.hoverPos = ev.Position // for the cursor over the label column's edge
		return
	}
	g.hoverRow, g.hoverEvent, g.hoverPos = row, event, ev.Position
	g.changed()
}

// MouseOut hides the tooltip.
func (g *Gantt) MouseOut() {
	if g.hoverRow >= 0 || g.hoverEvent >= 0 {
		g.hoverRow, g.hoverEvent = -1, -1
		g.changed()
	}
}

// eventAt returns the index of the notification drawn nearest to pos in
// the lane under the ruler (within a few units), or -1.
func (g *Gantt) eventAt(pos fyne.Position) int {
	if g.snap == nil || pos.Y < ganttRulerH || pos.Y >= ganttRulerH+ganttLaneH || pos.X < g.axis.gutter {
		return -1
	}
	perUnit := float64(g.axis.end-g.axis.start) / float64(g.plotW())
	at := float64(g.axis.real(g.axis.start + time.Duration(float64(pos.X-g.axis.gutter)*perUnit)))
	best, bestD := -1, 4*perUnit
	for i, e := range g.snap.Events {
		if d := math.Abs(float64(e.At) - at); d <= bestD {
			best, bestD = i, d
		}
	}
	return best
}

func (g *Gantt) rowAt(y float32) int {
	if g.snap == nil || g.agg.on || y < ganttRulerH+ganttLaneH {
		return -1
	}
	row := int((y - ganttRulerH - ganttLaneH + g.scrollY) / g.rowH())
	if row < 0 || row >= len(g.layout.rows) {
		return -1
	}
	return row
}
