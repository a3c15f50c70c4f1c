// Package mainloop hands work from background goroutines to Fyne's main
// goroutine for as long as a window lives.
//
// While Fyne's main loop runs, [fyne.Do] queues a function for it. Once
// the loop has ended (the app quit) the queue is gone and fyne.Do runs
// the function at once on the goroutine that called it: a widget touched
// there is a data race, and Fyne logs "Error in Fyne call thread". Work
// that finishes late on a busy machine (a chart's series computed in the
// background, a timer's redraw, a log batch) then reached the widgets
// after the app had quit. A [Gate] is closed, on the main goroutine, as
// its window shuts down and before the loop ends; from then on it drops
// every handover instead.
package mainloop

import (
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
)

// Gate hands work to the main goroutine until it is closed. A nil *Gate
// never closes: widgets made on their own (in tests) hand over with
// fyne.Do as it is.
type Gate struct{ closed atomic.Bool }

// Do runs f on the main goroutine, unless the gate is closed by then.
// Safe from any goroutine; it does not wait for f.
func (g *Gate) Do(f func()) {
	fyne.Do(func() {
		if !g.Closed() {
			f()
		}
	})
}

// After runs f on the main goroutine d from now, unless the gate is
// closed by then.
func (g *Gate) After(d time.Duration, f func()) {
	time.AfterFunc(d, func() { g.Do(f) })
}

// Close drops every handover from now on, those already queued included.
// Call it on the main goroutine (or after the main loop ended), before
// the app quits. Closing again does nothing.
func (g *Gate) Close() { g.closed.Store(true) }

// Closed reports whether Close was called; false for a nil gate.
func (g *Gate) Closed() bool { return g != nil && g.closed.Load() }
