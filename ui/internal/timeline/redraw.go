package timeline

import (
	"slices"
	"time"

	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
)

// MinFrameInterval is the least time between two redraws of a live or
// interacted-with widget: one frame of Fyne's 60 Hz paint loop, so a live
// view can draw every frame the window paints. It costs nothing while
// nothing changes: a frame is only asked for when the recording (or the
// view) changed. Tests set it to 0.
var MinFrameInterval = 16 * time.Millisecond

// changed asks for a redraw of the Gantt in the next frame of its axis.
func (g *Gantt) changed() { g.redraw() }

// One path redraws: a widget that changed (new data, a hover, a zoom)
// marks itself dirty on its time axis and asks the axis for a frame; the
// frame refreshes every dirty widget on the axis at once. So the Gantt and
// the chart under it, given one snapshot in one event, are drawn in the
// same frame, and never one of them with an older snapshot than the other.

// listener is one widget on a time axis.
type listener struct {
	refresh func()
	dirty   bool
}

// listen adds a widget to the axis: refresh redraws it. Calling changed
// (or changing the range) redraws it in the next frame, until cancel is
// called.
func (a *timeAxis) listen(refresh func()) (changed, cancel func()) {
	id := a.next
	a.next++
	l := &listener{refresh: refresh}
	a.listeners[id] = l
	changed = func() {
		l.dirty = true
		a.frame.request()
	}
	return changed, func() { delete(a.listeners, id) }
}

// draw is one frame: it refreshes the widgets that changed since the last.
func (a *timeAxis) draw() {
	for _, l := range a.listeners {
		if l.dirty {
			l.dirty = false
			l.refresh()
		}
	}
}

// throttle runs fn at most once every MinFrameInterval, and once for any
// number of requests made while handling one event: the first request
// queues fn behind the event (or until the interval is over), later ones
// join it. A queued run that nothing was requested for since is skipped.
type throttle struct {
	fn      func()
	gate    *mainloop.Gate // hands the runs to the main goroutine
	last    time.Time
	pending bool   // a run of fn is queued
	queued  bool   // in queued, for FlushFrames
	want    uint64 // requests made
	done    uint64 // requests the last run of fn served
}

func (t *throttle) request() {
	t.want++
	if MinFrameInterval <= 0 {
		t.flush() // tests: draw at once
		return
	}
	if !t.queued {
		t.queued = true
		queued = append(queued, t)
	}
	if t.pending {
		return
	}
	t.pending = true
	run := func() {
		t.pending = false
		t.flush()
	}
	// A quarter of an interval's slack: a live feed that delivers a frame
	// every interval, a little early now and then, is not held back to
	// the interval after.
	if wait := t.wait(); wait > 0 {
		t.gate.After(wait, run)
		return
	}
	t.gate.Do(run)
}

// wait is how long until fn may run again.
func (t *throttle) wait() time.Duration { return MinFrameInterval*3/4 - time.Since(t.last) }

// dequeue takes t out of queued.
func (t *throttle) dequeue() {
	if t.queued {
		t.queued = false
		queued = slices.DeleteFunc(queued, func(q *throttle) bool { return q == t })
	}
}

// queued holds the throttles with a frame asked for and not drawn yet
// (main goroutine only): [FlushFrames] draws them.
var queued []*throttle

// FlushFrames draws at once every frame asked for and not drawn yet,
// unless the last one was drawn less than a frame interval ago (its
// queued run draws it then). A live feed calls it right after handing a
// snapshot to the widgets, so that the frame is ready for the window's
// next paint: left queued, it would be drawn one turn of the main loop
// later, and a paint in between (of a stats line the same snapshot
// changed) would paint the window twice for one frame.
func FlushFrames() {
	for _, t := range slices.Clone(queued) {
		if t.wait() <= 0 {
			t.flush()
		}
	}
}

func (t *throttle) flush() {
	t.dequeue()
	if t.done == t.want {
		return
	}
	t.done = t.want
	t.last = time.Now()
	t.fn()
}
