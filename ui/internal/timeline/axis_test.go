package timeline

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/ui/internal/timeline/timelinetest"
)

// TestShareAxisRelease checks that widgets sharing a Gantt's time range
// follow its zoom, and that once released the range forgets them: a
// compared recording removed from a view leaves nothing behind.
func TestShareAxisRelease(t *testing.T) {
	test.NewTempApp(t)
	g, other, c := NewGantt(), NewGantt(), NewConcurrencyChart()
	before := len(g.axis.listeners)
	r1, r2 := other.ShareAxis(g), c.ShareAxis(g)
	g.SetVisibleRange(0, 3*ms)
	if s, e := other.VisibleRange(); s != 0 || e != 3*ms {
		t.Errorf("the sharing Gantt shows %v – %v, want 0 – 3ms", s, e)
	}
	if s, e := c.VisibleRange(); s != 0 || e != 3*ms {
		t.Errorf("the sharing chart shows %v – %v, want 0 – 3ms", s, e)
	}
	r1()
	r2()
	if n := len(g.axis.listeners); n != before {
		t.Errorf("after release the time axis has %d listeners, want the %d it had", n, before)
	}
}

// TestFollowIdleStaysPut checks that following the live end while
// nothing is in flight keeps the bars in view: the wall clock going on
// (the snapshot's Now) does not slide the view past the last request.
func TestFollowIdleStaysPut(t *testing.T) {
	test.NewTempApp(t)
	g := NewGantt()
	test.NewWindow(g).Resize(fyne.NewSize(800, 300))
	snap := timelinetest.Big(50) // every request answered by 0.15 s
	g.SetSnapshot(snap)
	g.SetFollow(true)
	g.SetVisibleRange(0, time.Second)
	for _, now := range []time.Duration{2 * time.Second, 45 * time.Second} {
		idle := *snap
		idle.Now = now
		g.SetSnapshot(&idle)
		if s, e := g.VisibleRange(); s != 0 || e != time.Second {
			t.Errorf("idle at %v: the view slid to %v – %v, want it to stay at 0 – 1s where the bars are", now, s, e)
		}
	}
}
