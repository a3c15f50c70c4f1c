package timeline

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
)

// The label column on the Gantt's left is ganttGutter wide at first; a
// drag on its right edge widens or narrows it, for every widget on the
// axis (the charts under the Gantt, a compared Gantt), so their times
// stay lined up. A label too long for the column is cut with "…"; the
// row's tooltip gives it whole.

const (
	minGutter  = 120 // the narrowest label column
	gutterGrip = 5   // how near the edge, either side, a drag takes it
)

// onGutterEdge reports whether pos is on the label column's right edge.
func (g *Gantt) onGutterEdge(pos fyne.Position) bool {
	d := pos.X - g.axis.gutter
	return d >= -gutterGrip && d <= gutterGrip && pos.Y >= 0
}

// resizeGutter moves the label column's edge to x, keeping the column
// between minGutter and half the Gantt's width.
func (g *Gantt) resizeGutter(x float32) {
	w := min(max(x, minGutter), max(g.Size().Width/2, minGutter))
	g.hideTooltip()
	g.axis.setGutter(w)
	g.clampScroll()
	g.changed()
}

// Cursor shows the resize cursor over the label column's edge.
func (g *Gantt) Cursor() desktop.Cursor {
	if g.gutterDrag || g.onGutterEdge(g.hoverPos) {
		return desktop.HResizeCursor
	}
	return desktop.DefaultCursor
}

// labelChars is how many characters of a row label fit the column at
// depth: 24 (less 2 a level) at the first width, and as many more as the
// column was widened by.
func (g *Gantt) labelChars(depth int) int {
	n := 24 - 2*depth
	if extra := g.axis.gutter - ganttGutter; extra != 0 {
		n += int(extra / g.labelCharWidth())
	}
	return max(n, 6)
}

// labelCharWidth is the mean width of a character of the row labels,
// measured once per text size (labelChars asks it for each row a frame).
func (g *Gantt) labelCharWidth() float32 {
	size := theme.Size(theme.SizeNameCaptionText)
	if g.charW.size != size {
		w := fyne.MeasureText("abcdefghijklmnopqrstuvwxyz", size, fyne.TextStyle{}).Width / 26
		g.charW.size, g.charW.width = size, max(w, 1)
	}
	return g.charW.width
}
