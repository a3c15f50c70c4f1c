package timeline

import (
	"testing"

	"fyne.io/fyne/v2/test"
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
