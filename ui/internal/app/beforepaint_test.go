package app

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// animDriver keeps the animations started and not stopped, for a test
// to tick as the real driver does before each paint.
type animDriver struct {
	fyne.Driver
	running []*fyne.Animation
}

func (d *animDriver) StartAnimation(a *fyne.Animation) { d.running = append(d.running, a) }
func (d *animDriver) StopAnimation(a *fyne.Animation) {
	d.running = slices.DeleteFunc(d.running, func(r *fyne.Animation) bool { return r == a })
}

// tick is the driver right before a paint.
func (d *animDriver) tick() {
	for _, a := range d.running {
		a.Tick(0.5)
	}
}

type animApp struct {
	fyne.App
	drv *animDriver
}

func (a *animApp) Driver() fyne.Driver { return a.drv }

// TestBeforePaintRunsEachHandoverOnce hands work over as the live feed
// does: the animation Fyne ticks right before a paint runs what is
// waiting, in order, and the fyne.Do queued for it then finds nothing
// left; work that fyne.Do reaches first is not run again at the tick.
// Once stopped, nothing is ticked before the paints any more.
func TestBeforePaintRunsEachHandoverOnce(t *testing.T) {
	a := test.NewTempApp(t)
	drv := &animDriver{Driver: a.Driver()}
	fyne.SetCurrentApp(&animApp{App: a, drv: drv})
	var queued []func() // fyne.Do's queue
	b := newBeforePaint(func(f func()) { queued = append(queued, f) })
	if len(drv.running) != 1 {
		t.Fatalf("%d animations ticked before each paint, want 1", len(drv.running))
	}
	var ran []int
	b.do(func() { ran = append(ran, 1) })
	b.do(func() { ran = append(ran, 2) })
	if len(ran) != 0 {
		t.Fatalf("work ran as it was handed over: %v", ran)
	}
	drv.tick()
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
	drv.tick()
	if !slices.Equal(ran, []int{1, 2, 3}) {
		t.Fatalf("ran %v, want [1 2 3]", ran)
	}

	b.stop()
	if len(drv.running) != 0 {
		t.Fatal("the animation still ticks after stop")
	}
}
