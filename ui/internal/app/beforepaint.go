package app

import (
	"sync"
	"time"

	"fyne.io/fyne/v2"
)

// beforePaint hands work to the main goroutine so that it runs, at the
// latest, right before the window's next paint.
//
// Fyne's loop waits in one select for its 60 Hz paint tick and for work
// handed over with fyne.Do. A paint that takes longer than a tick (most
// of them under load at 1400×900, where the software renderer alone
// takes some 10 ms) ends with both ready, and the select picks one at
// random: when the tick wins, the window has nothing new to paint, and
// the frame handed over meanwhile waits for the next tick, a whole
// frame lost. Fyne ticks its animations on the main goroutine right
// before it paints, so work handed over here is run by the first of a
// fyne.Do and an animation tick, and a frame handed over during a paint
// is in the next one.
type beforePaint struct {
	runOnMain func(func())
	anim      *fyne.Animation

	mu      sync.Mutex
	pending []func()
}

// newBeforePaint starts handing over work through runOnMain (fyne.Do in
// the app) and before each paint, until stop.
func newBeforePaint(runOnMain func(func())) *beforePaint {
	b := &beforePaint{runOnMain: runOnMain}
	b.anim = &fyne.Animation{
		Duration:    time.Second,
		RepeatCount: fyne.AnimationRepeatForever,
		Curve:       fyne.AnimationLinear,
		Tick:        func(float32) { b.run() },
	}
	if a := fyne.CurrentApp(); a != nil {
		a.Driver().StartAnimation(b.anim)
	}
	return b
}

// do hands f over: it runs on the main goroutine before the next paint,
// or sooner.
func (b *beforePaint) do(f func()) {
	b.mu.Lock()
	b.pending = append(b.pending, f)
	b.mu.Unlock()
	b.runOnMain(b.run)
}

// run runs, on the main goroutine, the work handed over and not run yet,
// in the order it was handed over.
func (b *beforePaint) run() {
	b.mu.Lock()
	pending := b.pending
	b.pending = nil
	b.mu.Unlock()
	for _, f := range pending {
		f()
	}
}

// stop ends the ticks before each paint; work handed over and not run
// yet still runs through runOnMain.
func (b *beforePaint) stop() {
	if a := fyne.CurrentApp(); a != nil {
		a.Driver().StopAnimation(b.anim)
	}
}
