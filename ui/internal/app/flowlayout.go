package app

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/ui/internal/timeline"
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

// columnLayout stacks the timeline's toolbar and legend (a line each),
// the Gantt and chart area (the rest) and the stats bar (its own height)
// from top to bottom. The lines' heights do not depend on the width, so
// the area's top stays put when the view is narrowed. The stats bar is
// given the height its text wraps to while the area keeps its least
// height; on a screen too short for both (two compared recordings at
// 1024×700) it is given less, down to statsFloor, and scrolls, so that
// the window never grows past the screen and cuts off its foot.
type columnLayout struct {
	// stats is what the stats bar's scroll holds: its height at a width
	// is the bar's natural height.
	stats fyne.CanvasObject
}

// statsFloor is the least height the stats bar is given: two lines of
// text; the rest of a taller bar scrolls.
const statsFloor = 56

// MinSize is the widest of them, and their heights one above the other,
// the stats bar counted at most statsFloor tall.
func (l columnLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var size fyne.Size
	for i, o := range objects {
		m := o.MinSize()
		if i == len(objects)-1 && l.stats != nil {
			m = l.stats.MinSize()
			m.Height = min(m.Height, statsFloor)
		}
		size.Width = max(size.Width, m.Width)
		size.Height += m.Height
		if i > 0 {
			size.Height += theme.Padding()
		}
	}
	return size
}

// Layout gives the toolbar and legend their lines, the stats bar its own
// height at the bottom (less when the area would get less than its
// least), and the area what is left.
func (l columnLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	bar, legend, area, stats := objects[0], objects[1], objects[2], objects[3]
	pad := theme.Padding()
	y := float32(0)
	for _, line := range []fyne.CanvasObject{bar, legend} {
		h := line.MinSize().Height
		line.Move(fyne.NewPos(0, y))
		line.Resize(fyne.NewSize(size.Width, h))
		y += h + pad
	}
	content := stats
	if l.stats != nil {
		content = l.stats
	}
	// at the full width first, so that its figures and verdict wrap to
	// that width before its height is asked
	content.Resize(fyne.NewSize(size.Width, content.Size().Height))
	sh := content.MinSize().Height
	if room := size.Height - y - pad - area.MinSize().Height; sh > room {
		sh = max(room, min(sh, statsFloor))
	}
	stats.Move(fyne.NewPos(0, size.Height-sh))
	stats.Resize(fyne.NewSize(size.Width, sh))
	area.Move(fyne.NewPos(0, y))
	area.Resize(fyne.NewSize(size.Width, max(size.Height-y-sh-pad, 0)))
}

// paneLayout stacks a head (the overview strip, or when comparing a
// pane's title), the Gantt and, under it, the charts on its time axis. The Gantt is given at least
// ganttMinHeight, or the height its rows need when that is less, when
// the charts can give it up: they shrink, down to chartFloor each, before
// the Gantt goes below it.
type paneLayout struct {
	head, gantt fyne.CanvasObject
	below       []fyne.CanvasObject
	// cramp are the folds of the charts that fold, the first first, when
	// even at chartFloor they would leave the Gantt less than it wants
	cramp []*chartFold
	// wants, when set and above 0, is the height the Gantt is given before
	// the charts in place of ganttMinHeight (see
	// [TimelineView.settleGanttHeight])
	wants func() float32
}

const (
	ganttMinHeight = 300 // the Gantt's height, as far as the charts allow, unless its rows need less
	ganttFloor     = 120 // the least the Gantt asks for
	chartFloor     = 64  // the least a chart is shrunk to
)

// ganttWants is the height the Gantt is given before the charts, as far
// as they allow: ganttMinHeight, or less when all its rows fit in less
// (paneLayout.wants), so that a few rows do not fold the charts away.
func (l *paneLayout) ganttWants() float32 {
	if l.wants != nil {
		if w := l.wants(); w > 0 {
			return w
		}
	}
	return ganttMinHeight
}

// ganttWantsFor is what [paneLayout] would give g before the charts,
// from the rows it has now.
func ganttWantsFor(g *timeline.Gantt) float32 {
	return min(ganttMinHeight, max(g.RowsHeight(), ganttFloor))
}

// shrinks reports whether o is a chart that may be drawn shorter than it
// asks.
func shrinks(o fyne.CanvasObject) bool {
	switch o.(type) {
	case *timeline.ConcurrencyChart, *timeline.OverTimeChart:
		return true
	}
	return false
}

// heights returns the height of each chart under the Gantt in an area
// of height h, and the Gantt's.
// What would be visible can be given in visible, for objects whose
// visibility is to be supposed.
func (l *paneLayout) heights(h float32, visible map[fyne.CanvasObject]bool) (charts []float32, gantt float32) {
	shown := func(o fyne.CanvasObject) bool {
		if v, ok := visible[o]; ok {
			return v
		}
		return o.Visible()
	}
	pad := theme.Padding()
	rest := h - l.head.MinSize().Height - pad
	var room float32 // what the charts can give up
	charts = make([]float32, len(l.below))
	for i, o := range l.below {
		if !shown(o) {
			continue
		}
		charts[i] = o.MinSize().Height
		rest -= charts[i]
		if shrinks(o) {
			room += max(charts[i]-chartFloor, 0)
		}
	}
	if short := l.ganttWants() - rest; short > 0 && room > 0 {
		take := min(short, room)
		for i, o := range l.below {
			if shown(o) && shrinks(o) {
				give := take * max(charts[i]-chartFloor, 0) / room
				charts[i] -= give
				rest += give
			}
		}
	}
	return charts, max(rest, 0)
}

// MinSize is the widest, and the head, the Gantt's floor and the charts
// at their floors.
func (l *paneLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	size := l.head.MinSize()
	size.Height += theme.Padding() + ganttFloor
	size.Width = max(size.Width, l.gantt.MinSize().Width)
	for _, o := range l.below {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		size.Width = max(size.Width, m.Width)
		if shrinks(o) {
			m.Height = min(m.Height, chartFloor)
		}
		size.Height += m.Height
	}
	return size
}

// Layout places the head, the Gantt and the charts in size.
func (l *paneLayout) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	// Fold the charts in cramp order for as long as the ones left
	// unfolded would leave the Gantt less than it wants.
	suppose := map[fyne.CanvasObject]bool{}
	state := func(f *chartFold, cramped bool) {
		folded := (f.flat || cramped) && !f.open
		suppose[f] = f.shown && (f.flat || cramped)
		suppose[f.chart] = f.shown && !folded
	}
	for _, f := range l.cramp {
		state(f, false)
	}
	want := l.ganttWants()
	for _, f := range l.cramp {
		_, gh := l.heights(size.Height, suppose)
		cramped := f.shown && gh < want
		state(f, cramped)
		f.setCramped(cramped)
	}
	charts, gh := l.heights(size.Height, nil)
	hh := l.head.MinSize().Height
	l.head.Move(fyne.NewPos(0, 0))
	l.head.Resize(fyne.NewSize(size.Width, hh))
	y := hh + theme.Padding()
	l.gantt.Move(fyne.NewPos(0, y))
	l.gantt.Resize(fyne.NewSize(size.Width, gh))
	y += gh
	for i, o := range l.below {
		if o.Visible() {
			o.Move(fyne.NewPos(0, y))
			o.Resize(fyne.NewSize(size.Width, charts[i]))
			y += charts[i]
		}
	}
}

// lineLayout keeps objects on one line, left to right, whatever the
// width, so that the line's height never changes: the timeline's rows
// stay where they are when the details pane takes width from it. When the
// width is short, the objects listed in fold hide, the first listed
// first, and more (a button that offers what folded) shows at the end of
// the line. The stretch object (the filter) takes what width is left, up
// to stretchMax; beyond that, rest (a truncating hint) takes it when it
// gets at least restMin, and folds otherwise.
type lineLayout struct {
	stretch    fyne.CanvasObject
	stretchMin float32 // the least width stretch gets
	stretchMax float32 // the most (0: no limit)
	rest       fyne.CanvasObject
	restMin    float32
	fold       []fyne.CanvasObject
	more       fyne.CanvasObject
	// folded is what the last layout folded, in fold order (rest too).
	folded []fyne.CanvasObject
}

// width is what o asks for on the line.
func (l *lineLayout) width(o fyne.CanvasObject) float32 {
	switch o {
	case l.stretch:
		return max(o.MinSize().Width, l.stretchMin)
	case l.rest: // shown only once the stretch object has its most
		grow := float32(0)
		if l.stretch != nil && l.stretchMax > 0 {
			grow = max(l.stretchMax-l.width(l.stretch), 0)
		}
		return l.restMin + grow
	}
	return o.MinSize().Width
}

// MinSize is everything that never folds side by side, with more, and
// the height of the tallest object (folded ones too, so that folding
// never changes the line's height).
func (l *lineLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	gap := theme.Padding()
	var w, h float32
	n := 0
	for _, o := range objects {
		h = max(h, o.MinSize().Height)
		if o == l.rest || slices.Contains(l.fold, o) {
			continue
		}
		w += l.width(o)
		n++
	}
	return fyne.NewSize(w+float32(max(n-1, 0))*gap, h)
}

// Layout folds what does not fit in size.Width and places the rest.
func (l *lineLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	gap := theme.Padding()
	shown := map[fyne.CanvasObject]bool{}
	var need float32
	for _, o := range objects {
		if o != l.more {
			shown[o] = true
			need += l.width(o) + gap
		}
	}
	need -= gap
	l.folded = l.folded[:0]
	foldOne := func(o fyne.CanvasObject) {
		if len(l.folded) == 0 && l.more != nil {
			need += l.width(l.more) + gap
		}
		shown[o] = false
		need -= l.width(o) + gap
		l.folded = append(l.folded, o)
	}
	if l.rest != nil && need > size.Width {
		foldOne(l.rest)
	}
	for _, o := range l.fold {
		if need <= size.Width {
			break
		}
		foldOne(o)
	}
	if l.more != nil {
		shown[l.more] = len(l.folded) > 0
	}
	extra := max(size.Width-need, 0)
	x := float32(0)
	for _, o := range objects {
		if !shown[o] {
			o.Hide()
			continue
		}
		o.Show()
		w := l.width(o)
		switch o {
		case l.stretch:
			grow := extra
			if l.stretchMax > 0 {
				grow = min(extra, max(l.stretchMax-w, 0))
			}
			w += grow
			extra -= grow
		case l.rest:
			w = max(size.Width-x, 0) // what the stretch object left
		}
		h := o.MinSize().Height
		if _, ok := o.(*widget.Separator); ok {
			h = size.Height // a divider runs the line's height
		}
		o.Move(fyne.NewPos(x, (size.Height-h)/2))
		o.Resize(fyne.NewSize(w, h))
		x += w + gap
	}
}
