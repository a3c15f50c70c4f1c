package timeline

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestOverview: the strip draws the whole recording whatever the Gantt
// shows, with the Gantt's range on it; clicking or dragging on it moves
// that range there, keeping its width, and stops following.
func TestOverview(t *testing.T) {
	test.NewTempApp(t)
	snap := fanoutOf(0, 500*ms, 1000*ms, 1500*ms, 2000*ms) // 2.53 s
	g, _ := showGantt(t, snap, fyne.NewSize(ganttGutter+600, 200))
	o, release := NewOverview(g)
	defer release()
	size := fyne.NewSize(ganttGutter+600, OverviewHeight)
	o.Resize(size)
	g.SetFollow(true)
	g.SetVisibleRange(0, 500*ms)

	img := o.draw(int(size.Width), int(size.Height))
	pal := newGanttPalette()
	// the range shown is outlined where the strip begins; the requests in
	// flight late in the recording are drawn though the Gantt does not show them
	if got := toRGBA(img.At(ganttGutter, OverviewHeight/2)); got != pal.now {
		t.Errorf("the range's left edge is %v, want %v", got, pal.now)
	}
	late := ganttGutter + 521 // 2.2 s of 2.53 s across 600 dp
	if got := toRGBA(img.At(late, OverviewHeight-3)); got == pal.ruler {
		t.Errorf("at 2.2 s, where a request is in flight, the strip draws nothing")
	}
	if o.levels == nil || o.peak != 5 {
		t.Errorf("levels peak at %d, want the 5 requests pending at once", o.peak)
	}

	// a click at the middle, x = gutter + 300: 1.265 s
	o.Tapped(&fyne.PointEvent{Position: fyne.NewPos(ganttGutter+300, 10)})
	s, e := g.VisibleRange()
	if e-s != 500*ms || (s+e)/2 < 1200*ms || (s+e)/2 > 1330*ms || g.Following() {
		t.Errorf("after a click at 1.26 s: view %v – %v, following %v; want 0.5 s wide around it, not following", s, e, g.Following())
	}
	o.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(ganttGutter+60, 10)}, Dragged: fyne.NewDelta(-240, 0)})
	if s, e := g.VisibleRange(); (s+e)/2 > 400*ms || e-s != 500*ms {
		t.Errorf("after dragging to 0.25 s: view %v – %v", s, e)
	}
}
