package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// flowLayout places objects from left to right and starts a new line when
// the next one would not fit, like words in a paragraph, so that it needs
// no more width than its widest object. Each line is as tall as its
// tallest object, and objects are centred in it (a separator runs its
// height). The stretch object (a
// truncating label) takes the rest of its line when at least
// flowStretchMin is left, else a line of its own; breakAfter ends a line.
type flowLayout struct {
	stretch, breakAfter fyne.CanvasObject
	width               float32 // the width of the last layout, 0 before
	// gap is the space between two objects on a line; 0 means the
	// theme's padding
	gap float32
}

// gapOr returns the gap between objects on a line.
func (l *flowLayout) gapOr() float32 {
	if l.gap > 0 {
		return l.gap
	}
	return theme.Padding()
}

// flowStretchMin is the least width the stretch object is given beside
// other objects.
const flowStretchMin = 160

// flowPlace is where an object goes: its line and its position and width
// within the line.
type flowPlace struct {
	line int
	x, w float32
}

// place lays objects out in lines of width w, returning where each goes
// and each line's height.
func (l *flowLayout) place(objects []fyne.CanvasObject, w float32) ([]flowPlace, []float32) {
	gap := l.gapOr()
	places := make([]flowPlace, len(objects))
	var heights []float32
	x, line := float32(0), 0
	newLine := func() {
		line++
		x = 0
	}
	for i, o := range objects {
		if !o.Visible() {
			places[i].line = -1
			continue
		}
		size := o.MinSize()
		need := size.Width
		if o == l.stretch {
			need = max(need, flowStretchMin)
		}
		if x > 0 && x+need > w {
			newLine()
		}
		if line == len(heights) {
			heights = append(heights, 0)
		}
		width := size.Width
		if o == l.stretch {
			width = max(w-x, size.Width)
		}
		places[i] = flowPlace{line: line, x: x, w: width}
		heights[line] = max(heights[line], size.Height)
		x += width + gap
		if o == l.breakAfter && i+1 < len(objects) {
			newLine()
		}
	}
	return places, heights
}

// heightFor is how tall objects are when laid out in width w.
func (l *flowLayout) heightFor(objects []fyne.CanvasObject, w float32) float32 {
	_, heights := l.place(objects, w)
	var h float32
	for i, lh := range heights {
		if i > 0 {
			h += theme.Padding() / 2
		}
		h += lh
	}
	return h
}

// MinSize is the widest object, and the height of the lines at the width
// of the last layout.
func (l *flowLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objects {
		if o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	if l.stretch != nil && l.stretch.Visible() {
		w = max(w, flowStretchMin)
	}
	return fyne.NewSize(w, l.heightFor(objects, max(l.width, w)))
}

// Layout places objects in lines of the container's width.
func (l *flowLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	places, heights := l.place(objects, size.Width)
	tops := make([]float32, len(heights))
	for i := 1; i < len(heights); i++ {
		tops[i] = tops[i-1] + heights[i-1] + theme.Padding()/2
	}
	for i, o := range objects {
		p := places[i]
		if p.line < 0 {
			continue
		}
		h := o.MinSize().Height
		if _, ok := o.(*widget.Separator); ok {
			h = heights[p.line] // a divider runs the line's height
		}
		o.Move(fyne.NewPos(p.x, tops[p.line]+(heights[p.line]-h)/2))
		o.Resize(fyne.NewSize(p.w, h))
	}
}

// columnLayout stacks the timeline's toolbar (a [flowLayout] container, as
// tall as its lines are at the width given), the Gantt and chart area
// (the rest) and the stats bar (its own height) from top to bottom.
type columnLayout struct {
	bar *flowLayout
}

// MinSize is the widest of the three, and their heights one above the
// other.
func (l *columnLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var size fyne.Size
	for i, o := range objects {
		m := o.MinSize()
		size.Width = max(size.Width, m.Width)
		size.Height += m.Height
		if i > 0 {
			size.Height += theme.Padding()
		}
	}
	return size
}

// Layout gives the toolbar the height of its lines at the full width,
// the stats bar its own height at the bottom, and the area what is left.
func (l *columnLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	bar, area, stats := objects[0], objects[1], objects[2]
	pad := theme.Padding()
	bh := l.bar.heightFor(bar.(*fyne.Container).Objects, size.Width)
	bar.Move(fyne.NewPos(0, 0))
	bar.Resize(fyne.NewSize(size.Width, bh))
	// at the full width first, so that its figures and verdict wrap to
	// that width before its height is asked
	stats.Resize(fyne.NewSize(size.Width, stats.Size().Height))
	sh := stats.MinSize().Height
	stats.Move(fyne.NewPos(0, size.Height-sh))
	stats.Resize(fyne.NewSize(size.Width, sh))
	area.Move(fyne.NewPos(0, bh+pad))
	area.Resize(fyne.NewSize(size.Width, max(size.Height-bh-sh-2*pad, 0)))
}
