package app

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestBeforePaintRunsEachHandoverOnce hands work over as the live feed
// does: the animation tick Fyne runs right before a paint runs what is
// waiting, in order, and the fyne.Do queued for it then finds nothing
// left; work that fyne.Do reaches first is not run again at the tick.
func TestBeforePaintRunsEachHandoverOnce(t *testing.T) {
	test.NewTempApp(t)
	var queued []func() // fyne.Do's queue
	b := newBeforePaint(func(f func()) { queued = append(queued, f) })
	defer b.stop()
	var ran []int
	b.do(func() { ran = append(ran, 1) })
	b.do(func() { ran = append(ran, 2) })
	if len(ran) != 0 {
		t.Fatalf("work ran as it was handed over: %v", ran)
	}
	b.anim.Tick(0.5) // the driver, right before a paint
	if !slices.Equal(ran, []int{1, 2}) {
		t.Fatalf("before the paint: ran %v, want [1 2]", ran)
	}
	for _, f := range queued {
		f()
	}
	if !slices.Equal(ran, []int{1, 2}) {
		t.Fatalf("fyne.Do ran the work again: %v", ran)
	}

	queued = nil
	b.do(func() { ran = append(ran, 3) })
	for _, f := range queued { // fyne.Do first this time
		f()
	}
	b.anim.Tick(0.6)
	if !slices.Equal(ran, []int{1, 2, 3}) {
		t.Fatalf("ran %v, want [1 2 3]", ran)
	}
}
