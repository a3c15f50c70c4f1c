package timeline

import (
	"time"

	"fyne.io/fyne/v2"
)

// MinFrameInterval is the least time between two redraws of a live or
// interacted-with widget (about 30 frames a second). Tests set it to 0.
var MinFrameInterval = 33 * time.Millisecond

// changed asks for a redraw, at most every MinFrameInterval.
func (g *Gantt) changed() { g.redraw.request() }

// throttle runs fn at most once every MinFrameInterval, and once for any
// number of requests made while handling one event: the first request
// queues fn behind the event (or until the interval is over), later ones
// join it. now runs fn at once, and a queued run that nothing was
// requested for since is skipped.
type throttle struct {
	fn      func()
	last    time.Time
	pending bool
	want    uint64 // requests made
	done    uint64 // requests the last run of fn served
}

func (t *throttle) request() {
	t.want++
	if MinFrameInterval <= 0 {
		t.flush() // tests: draw at once
		return
	}
	if t.pending {
		return
	}
	t.pending = true
	run := func() {
		t.pending = false
		t.flush()
	}
	if wait := MinFrameInterval - time.Since(t.last); wait > 0 {
		time.AfterFunc(wait, func() { fyne.Do(run) })
		return
	}
	fyne.Do(run)
}

// now runs fn at once, so that widgets showing one frame redraw in the
// same event and so in the same painted frame.
func (t *throttle) now() {
	t.want++
	t.flush()
}

func (t *throttle) flush() {
	if t.done == t.want {
		return
	}
	t.done = t.want
	t.last = time.Now()
	t.fn()
}
