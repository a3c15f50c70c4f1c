package timeline

import (
	"image"
	"iter"
	"slices"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// A recording of several runs on one connection is mostly idle between
// them: a fan-out of 3 s, a minute of reading it, a load of 15 s. Drawn
// to scale, the whole session is two slivers. The whole-session view
// therefore folds each idle stretch between runs (and before the first)
// to a narrow band marked with how long it was: the Gantt, its ruler and
// the charts under it all draw in display time, the recording's time with
// the folds squeezed out, through one warp.

// fold is an idle stretch of a recording, from one instant to another,
// in which no request was open, sent or answered and no event arrived.
type fold struct{ from, to time.Duration }

// Fold thresholds: a stretch folds when it is at least minFold long and
// at least a tenth of the recording; folded, it is drawn foldShare of the
// recording's length wide.
const (
	minFold   = time.Second
	foldShare = 0.03
)

// idleFolds returns the stretches of snap worth folding: between the end
// of a run and the start of the next (and from the recording's first
// activity up to the first run), shrunk to where nothing happened. A
// recording of fewer than two runs has none.
func idleFolds(snap *recorder.Snapshot, extent time.Duration) []fold {
	if snap == nil || len(snap.Runs) < 2 || extent <= 0 {
		return nil
	}
	runs := slices.Clone(snap.Runs)
	slices.SortFunc(runs, func(a, b recorder.Run) int { return int(a.Start - b.Start) })
	var gaps []fold
	var last time.Duration // where the previous run (or the start) left off
	for i, r := range runs {
		if i > 0 {
			if runs[i-1].Open() {
				return nil // runs that overlap an open one: nothing is idle
			}
			last = max(last, runs[i-1].End)
		}
		if r.Start > last {
			gaps = append(gaps, fold{last, r.Start})
		}
	}
	// shrink each gap to where nothing happened in it
	busy := func(from, to time.Duration) {
		for i := range gaps {
			g := &gaps[i]
			if to < g.from || from > g.to {
				continue
			}
			// activity in [from, to] overlaps the gap: keep the larger
			// idle side of it
			if from-g.from >= g.to-to {
				g.to = min(g.to, from)
			} else {
				g.from = max(g.from, to)
			}
		}
	}
	for _, s := range snap.Spans {
		if s.Received == recorder.Unset {
			continue
		}
		end := s.Answered
		if end == recorder.Unset {
			end = max(snap.Now, s.Received)
		}
		busy(s.Received, end)
	}
	for _, e := range snap.Events {
		busy(e.At, e.At+max(e.Stalled, 0))
	}
	// a margin either side, so the bars next to a fold are not cut
	pad := time.Duration(float64(extent) * foldShare / 2)
	var out []fold
	for _, g := range gaps {
		g.from, g.to = g.from+pad, g.to-pad
		if g.to-g.from >= max(minFold, extent/10) {
			out = append(out, g)
		}
	}
	return out
}

// warp maps the recording's time to display time, squeezing each fold
// to keep wide; with no folds it is the identity.
type warp struct {
	folds []fold
	keep  time.Duration
}

// newWarp folds folds of a recording extent long.
func newWarp(folds []fold, extent time.Duration) warp {
	return warp{folds: folds, keep: max(time.Duration(float64(extent)*foldShare), time.Millisecond)}
}

// disp is t in display time.
func (w warp) disp(t time.Duration) time.Duration {
	d := t
	for _, f := range w.folds {
		switch {
		case t >= f.to:
			d -= f.to - f.from - w.keep
		case t > f.from: // inside the fold: squeezed in proportion
			return d - (t - f.from) + time.Duration(float64(t-f.from)*float64(w.keep)/float64(f.to-f.from))
		default:
			return d
		}
	}
	return d
}

// real is the recording's time at display time d: the inverse of disp.
func (w warp) real(d time.Duration) time.Duration {
	t := d
	for _, f := range w.folds {
		df := w.disp(f.from)
		switch {
		case d >= df+w.keep:
			t += f.to - f.from - w.keep
		case d > df:
			return f.from + time.Duration(float64(d-df)*float64(f.to-f.from)/float64(w.keep))
		default:
			return t
		}
	}
	return t
}

// on reports whether w folds anything.
func (w warp) on() bool { return len(w.folds) > 0 }

// segments yields the stretches of [from, to] (the recording's time) that
// no fold hides, in order, as [start, end] pairs.
func (w warp) segments(from, to time.Duration) iter.Seq[[2]time.Duration] {
	return func(yield func([2]time.Duration) bool) {
		at := from
		for _, f := range w.folds {
			if f.to <= at {
				continue
			}
			if f.from >= to {
				break
			}
			if f.from > at && !yield([2]time.Duration{at, f.from}) {
				return
			}
			at = f.to
		}
		if at < to {
			yield([2]time.Duration{at, to})
		}
	}
}

// drawFolds shades each fold in view, from the ruler down, with a line
// either side: time is missing there (its length is on the ruler).
func (g *Gantt) drawFolds(img *image.RGBA, y0, y1 int, xOf func(time.Duration) int, plotX0, w, line int, pal ganttPalette) {
	for _, f := range g.axis.warp.folds {
		x0, x1 := max(xOf(f.from), plotX0), min(xOf(f.to), w)
		if x1 <= x0 {
			continue
		}
		fillRect(img, x0, y0, x1, y1, pal.ruler)
		hatch(img, x0, y0, x1, y1, pal.grid)
		fillRect(img, x0, y0, x0+line, y1, pal.faint)
		fillRect(img, x1-line, y0, x1, y1, pal.faint)
	}
}

// folding is whether a Gantt folds its recording's idle stretches, and
// what it folded them for: they are found again only when the runs
// change, not every frame.
type folding struct {
	on   bool
	runs []recorder.Run // the runs the folds were found for
}

// SetFoldIdle folds (on) or unfolds the idle stretches between the runs
// of the recording on the Gantt's axis, and on the charts sharing it: a
// view of the whole session then shows each run at a readable width.
// Fit shows the whole recording, folded.
func (g *Gantt) SetFoldIdle(on bool) {
	if g.folding.on == on {
		return
	}
	g.folding = folding{on: on}
	g.updateFolds()
	g.changed()
}

// updateFolds finds the folds of the recording shown again when its runs
// changed, and puts them on the axis.
func (g *Gantt) updateFolds() {
	if !g.folding.on || g.snap == nil {
		g.axis.setWarp(warp{})
		return
	}
	same := func(a, b recorder.Run) bool { return a.Name == b.Name && a.Start == b.Start && a.End == b.End }
	if g.folding.runs != nil && slices.EqualFunc(g.folding.runs, g.snap.Runs, same) {
		return
	}
	g.folding.runs = slices.Clone(g.snap.Runs)
	extent := Extent(g.snap)
	g.axis.setWarp(newWarp(idleFolds(g.snap, extent), extent))
}

// foldedSteps are the chart's steps in the axis's display time: the same
// steps without folds, moved out of the folds with them (a copy, made
// only while the axis folds).
func (c *ConcurrencyChart) foldedSteps() []recorder.Step {
	if !c.axis.warp.on() {
		return c.steps
	}
	out := make([]recorder.Step, len(c.steps))
	for i, st := range c.steps {
		st.At = c.axis.disp(st.At)
		out[i] = st
	}
	return out
}

// Folds returns the idle stretches folded away, as [from, to] offsets
// of the recording; none unless [Gantt.SetFoldIdle] is on.
func (g *Gantt) Folds() [][2]time.Duration {
	var out [][2]time.Duration
	for _, f := range g.axis.warp.folds {
		out = append(out, [2]time.Duration{f.from, f.to})
	}
	return out
}
