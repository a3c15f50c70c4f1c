package timeline

import (
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
)

// rulerLabels returns the labels the time ruler shows, left to right.
func (g *Gantt) rulerLabels() []string {
	ticks := g.axis.ticks(g.plotW())
	labels := make([]string, len(ticks))
	for i, t := range ticks {
		labels[i] = t.label
	}
	return labels
}

// zoomAt scales the visible width by factor, keeping the instant at
// fraction frac of the plot where it is, and stops following the live
// end: the person chose what to look at (following would slide it away).
func (g *Gantt) zoomAt(factor, frac float64) {
	start, end := float64(g.axis.start), float64(g.axis.end)
	pivot := start + frac*(end-start)
	w := (end - start) * factor
	g.SetFollow(false)
	g.hideTooltip()
	g.axis.set(time.Duration(pivot-frac*w), time.Duration(pivot-frac*w+w))
}

// panBy moves the view by dx device-independent units (positive: earlier
// times come into view) and stops following the live end.
func (g *Gantt) panBy(dx float32) {
	w := g.axis.end - g.axis.start
	shift := time.Duration(float64(dx) / float64(g.plotW()) * float64(w))
	if shift == 0 {
		return
	}
	g.SetFollow(false)
	g.hideTooltip()
	g.axis.set(g.axis.start-shift, g.axis.end-shift)
}

// slideToNow keeps the view's width and moves it so that the recording's
// latest instant is in view, and scrolls to the latest rows.
func (g *Gantt) slideToNow() {
	if g.snap == nil {
		return
	}
	// Extent, kept up to date frame by frame (see liveend.go); while
	// nothing runs the live end is the last thing recorded, not the wall
	// clock, so that an idle view stays where the bars are
	now := g.axis.disp(g.live.of(g.snap))
	w := g.axis.end - g.axis.start
	if now > g.axis.end-w/20 {
		g.axis.set(now+w/20-w, now+w/20)
	}
	if n := g.rowCount(); n != g.followedRows {
		g.followedRows = n
		g.scrollY = float32(n)*g.rowH() - g.rowsAreaH()
	}
	g.clampScroll()
}

// Extent is the latest instant of snap: its Now, or the end of its last
// span or event, whichever is later.
func Extent(snap *recorder.Snapshot) time.Duration {
	if snap == nil {
		return 0
	}
	end := snap.Now
	for _, s := range snap.Spans {
		end = max(end, spanExtent(s))
	}
	for _, e := range snap.Events {
		end = max(end, e.At+max(e.Stalled, 0))
	}
	return end
}

// spanExtent is the latest instant of s: its end, or, for a response
// withheld from the client (Stalled), when the client saw it.
func spanExtent(s *recorder.Span) time.Duration {
	end := max(s.Received, s.Answered)
	if s.Stalled > 0 && s.Direction == recorder.Outgoing && s.Answered != recorder.Unset {
		end = max(end, s.Answered+s.Stalled)
	}
	return end
}

// timeAxis is a visible time range shared by a Gantt, the chart under it
// and, when comparing, a second Gantt and chart. The widgets on one axis
// are redrawn together, in one frame (see redraw.go).
type timeAxis struct {
	// start and end are in display time: the recording's time with the
	// idle stretches warp folds squeezed out (folds.go); without folds
	// the two are the same
	start, end time.Duration
	warp       warp
	warpV      int // counts changes of warp, for the pictures' caches
	// gutter is the width of the row labels' column on the left, which
	// every widget on the axis leaves so that their times line up; the
	// person can widen it (see setGutter)
	gutter    float32
	listeners map[int]*listener
	next      int
	frame     throttle
}

func newTimeAxis() *timeAxis {
	a := &timeAxis{end: time.Second, gutter: ganttGutter, listeners: map[int]*listener{}}
	a.frame.fn = a.draw
	return a
}

// set changes the range, keeping it at least minVisibleSpan wide and not
// starting before the recording, and tells the listeners.
func (a *timeAxis) set(start, end time.Duration) {
	w := max(end-start, minVisibleSpan)
	w = min(w, 24*time.Hour)
	if start < 0 {
		start = 0
	}
	end = start + w
	if start == a.start && end == a.end {
		return
	}
	a.start, a.end = start, end
	for _, l := range a.listeners {
		l.dirty = true
	}
	a.frame.request()
}

// setGutter makes the label column w wide on every widget of the axis.
func (a *timeAxis) setGutter(w float32) {
	if w == a.gutter {
		return
	}
	a.gutter = w
	for _, l := range a.listeners {
		l.dirty = true
	}
	a.frame.request()
}

// disp is the recording's instant t in the axis's display time.
func (a *timeAxis) disp(t time.Duration) time.Duration { return a.warp.disp(t) }

// real is the recording's instant at display time d.
func (a *timeAxis) real(d time.Duration) time.Duration { return a.warp.real(d) }

// visible is the stretch of the recording in view, in its own time.
func (a *timeAxis) visible() (start, end time.Duration) {
	return a.warp.real(a.start), a.warp.real(a.end)
}

// setReal shows the recording from start to end (its own time).
func (a *timeAxis) setReal(start, end time.Duration) {
	a.set(a.warp.disp(start), a.warp.disp(end))
}

// setWarp folds the axis by w, keeping in view what was, and redraws.
func (a *timeAxis) setWarp(w warp) {
	if slices.Equal(w.folds, a.warp.folds) && w.keep == a.warp.keep {
		return
	}
	start, end := a.visible()
	a.warp = w
	a.warpV++
	a.start, a.end = -1, -1 // set must not take the range for unchanged
	a.setReal(start, end)
}

// ticks returns the ruler's ticks over a plot width wide: round
// instants of the recording's time, spaced for the display width, none
// inside a fold.
func (a *timeAxis) ticks(width float32) []rulerTick {
	if !a.warp.on() {
		return rulerTicks(a.start, a.end, width)
	}
	if a.end <= a.start || width <= 0 {
		return nil
	}
	step := niceStep(a.end-a.start, float64(width)/90)
	from, to := a.visible()
	var ticks []rulerTick
	for seg := range a.warp.segments(from, to) {
		first := (seg[0] + step - 1) / step * step
		for t := first; t <= seg[1] && len(ticks) < 200; t += step {
			ticks = append(ticks, rulerTick{at: t, label: formatTick(t, step)})
		}
	}
	return ticks
}

// rulerTick is one labelled instant of the time ruler: at is the
// recording's time.
type rulerTick struct {
	at    time.Duration
	label string
}

// rulerTicks returns round instants between start and end, spaced at least
// about 90 units apart on a plot width wide, labelled in the unit that
// suits the spacing.
func rulerTicks(start, end time.Duration, width float32) []rulerTick {
	if end <= start || width <= 0 {
		return nil
	}
	step := niceStep(end-start, float64(width)/90)
	var ticks []rulerTick
	first := (start + step - 1) / step * step
	if start <= 0 {
		first = 0
	}
	for t := first; t <= end && len(ticks) < 200; t += step {
		ticks = append(ticks, rulerTick{at: t, label: formatTick(t, step)})
	}
	return ticks
}

// niceStep returns the smallest 1, 2 or 5 × 10ⁿ nanoseconds that divides
// width into at most n parts.
func niceStep(width time.Duration, n float64) time.Duration {
	n = max(n, 1)
	for mag := time.Duration(1); mag < 1e15; mag *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if float64(width)/float64(m*mag) <= n {
				return m * mag
			}
		}
	}
	return time.Hour
}

// formatTick writes t in seconds, milliseconds or microseconds, whichever
// suits the ruler's step, with as many decimals as the step needs.
func formatTick(t, step time.Duration) string {
	unit, name := time.Microsecond, "µs"
	switch {
	case step >= 100*time.Millisecond:
		unit, name = time.Second, "s"
	case step >= 100*time.Microsecond:
		unit, name = time.Millisecond, "ms"
	}
	dec := 0
	for s := step; s < unit && dec < 6; s *= 10 {
		dec++
	}
	return fmt.Sprintf("%.*f %s", dec, float64(t)/float64(unit), name)
}

// useAxis makes the Gantt show axis, shared with other widgets, until
// the returned function is called.
func (g *Gantt) useAxis(a *timeAxis) (release func()) {
	g.axis = a
	g.redraw, release = a.listen(g.Refresh)
	return release
}

// placeRuler writes the time ruler's labels over its ticks.
func (r *ganttRenderer) placeRuler() {
	g := r.g
	size := g.Size()
	fg := theme.Color(theme.ColorNameForeground)
	small := theme.Size(theme.SizeNameCaptionText)
	ticks := g.axis.ticks(g.plotW())
	r.ticks = ticks // the lines under the picture go under them too (below.go)
	g.lastTicks = g.lastTicks[:0]
	xOf := func(t time.Duration) float32 {
		return g.axis.gutter + float32(float64(g.axis.disp(t)-g.axis.start)/float64(g.axis.end-g.axis.start))*g.plotW()
	}
	n := 0
	// the names of the runs, where they start, first: a tick label they
	// would cover is left out
	var taken [][2]float32
	if g.snap != nil && len(g.snap.Runs) >= 2 {
		for _, run := range g.snap.Runs {
			x := xOf(run.Start)
			if x < g.axis.gutter || x+40 > size.Width {
				continue
			}
			lbl := r.text(&r.ruler, n, small)
			n++
			setText(lbl, run.Name, theme.Color(theme.ColorNamePrimary))
			lbl.TextStyle.Bold, lbl.TextStyle.Italic = true, false
			lbl.Move(fyne.NewPos(x+3, 2))
			lbl.Resize(lbl.MinSize())
			taken = append(taken, [2]float32{x, x + 6 + lbl.MinSize().Width})
		}
	}
	// then how long each fold in view was idle, where it fits
	for _, f := range g.axis.warp.folds {
		x0, x1 := xOf(f.from), xOf(f.to)
		text := "⋯ " + FormatDuration(f.to-f.from) + " idle"
		tw := fyne.MeasureText(text, small, fyne.TextStyle{Italic: true}).Width
		x := max(x0+3, (x0+x1-tw)/2)
		if x < g.axis.gutter || x+tw > size.Width || slices.ContainsFunc(taken, func(k [2]float32) bool { return x+tw > k[0] && x < k[1] }) {
			continue
		}
		lbl := r.text(&r.ruler, n, small)
		n++
		lbl.TextStyle.Bold = false
		lbl.TextStyle.Italic = true
		setText(lbl, text, theme.Color(theme.ColorNameDisabled))
		lbl.Move(fyne.NewPos(x, 2))
		lbl.Resize(lbl.MinSize())
		taken = append(taken, [2]float32{x - 3, x + tw + 3})
	}
	for _, t := range ticks {
		x := xOf(t.at)
		if x+40 > size.Width || slices.ContainsFunc(taken, func(k [2]float32) bool { return x+40 > k[0] && x < k[1] }) {
			continue
		}
		lbl := r.text(&r.ruler, n, small)
		n++
		lbl.TextStyle.Bold, lbl.TextStyle.Italic = false, false
		setText(lbl, t.label, fg)
		lbl.Move(fyne.NewPos(x+3, 2))
		lbl.Resize(lbl.MinSize())
		g.lastTicks = append(g.lastTicks, t.label)
	}
	hideFrom(r.ruler, n)
}

// SetGate makes the widgets on g's time axis (g, and those sharing it)
// hand their frames and background results to the main goroutine through
// gate, so that none reaches them once gate is closed. Without a gate
// they hand over with fyne.Do as it is.
func (g *Gantt) SetGate(gate *mainloop.Gate) { g.axis.frame.gate = gate }

// ShareAxis makes g show the time range of with, zooming and panning
// together, until release is called.
func (g *Gantt) ShareAxis(with *Gantt) (release func()) { return g.useAxis(with.axis) }
