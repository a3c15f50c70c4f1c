package timeline

import (
	"slices"
	"testing"
	"time"
)

// TestOneFrameDrawsTheAxis pins the one redraw path: widgets on one time
// axis that change while handling an event are drawn together in the next
// frame, each once, and a widget that did not change is not drawn.
func TestOneFrameDrawsTheAxis(t *testing.T) {
	defer func(was time.Duration) { MinFrameInterval = was }(MinFrameInterval)
	MinFrameInterval = time.Hour // frames only when this test runs one

	a := newTimeAxis()
	var drawn []string
	gantt, _ := a.listen(func() { drawn = append(drawn, "gantt") })
	chart, _ := a.listen(func() { drawn = append(drawn, "chart") })
	a.frame.pending = true // a frame is queued behind the event being handled

	gantt() // a new snapshot for the Gantt
	chart() // its steps for the chart
	gantt() // and the Gantt slides to the live end
	if len(drawn) != 0 {
		t.Fatalf("drawn before the frame: %v", drawn)
	}
	a.frame.flush()
	slices.Sort(drawn)
	if want := []string{"chart", "gantt"}; !slices.Equal(drawn, want) {
		t.Errorf("the frame drew %v, want each widget once: %v", drawn, want)
	}

	drawn = nil
	gantt() // a hover: the chart has nothing new
	a.frame.flush()
	if want := []string{"gantt"}; !slices.Equal(drawn, want) {
		t.Errorf("a frame for the Gantt alone drew %v, want %v", drawn, want)
	}

	drawn = nil
	a.set(0, 2*time.Second) // a zoom moves both
	a.frame.flush()
	slices.Sort(drawn)
	if want := []string{"chart", "gantt"}; !slices.Equal(drawn, want) {
		t.Errorf("a zoom drew %v, want %v", drawn, want)
	}
}

// TestFlushFramesDrawsAtOnce pins what a live feed relies on: a frame
// asked for while handing over a snapshot is drawn by FlushFrames, in the
// same turn of the main loop, once, and not again by the run queued for
// it; but not sooner than a frame interval after the last one.
func TestFlushFramesDrawsAtOnce(t *testing.T) {
	defer func(was time.Duration) { MinFrameInterval = was }(MinFrameInterval)
	MinFrameInterval = time.Hour // the queued run would come much later

	a := newTimeAxis()
	drawn := 0
	gantt, _ := a.listen(func() { drawn++ })
	a.frame.last = time.Now() // drawn just now: the next frame waits
	gantt()
	gantt()
	FlushFrames()
	if drawn != 0 {
		t.Fatalf("drawn %d times less than a frame interval after the last", drawn)
	}
	a.frame.last = time.Now().Add(-MinFrameInterval) // a frame interval later
	FlushFrames()
	if drawn != 1 {
		t.Fatalf("FlushFrames drew %d times, want once", drawn)
	}
	FlushFrames()
	a.frame.flush() // the run that was queued for the frame
	if drawn != 1 {
		t.Errorf("the frame was drawn again (%d times) with nothing new", drawn)
	}
	if len(queued) != 0 {
		t.Errorf("%d frames still queued after the flush", len(queued))
	}
}
