package mainloop

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// endedApp is a test app whose fyne.Do behaves as Fyne's does once its
// main loop has ended: it runs the function at once, on the caller's
// goroutine. That is when a handover must be dropped.
type endedApp struct {
	fyne.App
	drv endedDriver
}

type endedDriver struct{ fyne.Driver }

func (a *endedApp) Driver() fyne.Driver                 { return a.drv }
func (endedDriver) DoFromGoroutine(f func(), wait bool) { f() }

func newEndedApp(t *testing.T) {
	a := test.NewTempApp(t)
	fyne.SetCurrentApp(&endedApp{App: a, drv: endedDriver{a.Driver()}})
}

// TestGateDropsWorkOnceClosed: what a background goroutine hands over
// runs while the gate is open, and never once it is closed, even where
// fyne.Do would run it on that goroutine, as after the app quit; a
// timer's handover due after the close is dropped too.
func TestGateDropsWorkOnceClosed(t *testing.T) {
	newEndedApp(t)
	synctest.Test(t, func(t *testing.T) {
		var g Gate
		var ran atomic.Int32
		go g.Do(func() { ran.Add(1) })
		synctest.Wait()
		if ran.Load() != 1 || g.Closed() {
			t.Fatalf("an open gate ran %d of 1 handovers (closed: %v)", ran.Load(), g.Closed())
		}
		g.After(20*time.Millisecond, func() { ran.Add(1) })

		g.Close()
		g.Close() // again: nothing more
		go g.Do(func() { ran.Add(1) })
		<-time.After(time.Second) // on the bubble's clock, which moves once all else waits: the 20 ms timer has fired
		synctest.Wait()
		if n := ran.Load(); n != 1 || !g.Closed() {
			t.Errorf("a closed gate ran %d handovers, want none (closed: %v)", n-1, g.Closed())
		}
	})
}

// TestNilGateHandsOver: a widget given no gate hands over as fyne.Do does.
func TestNilGateHandsOver(t *testing.T) {
	newEndedApp(t)
	var g *Gate
	ran := false
	g.Do(func() { ran = true })
	if !ran || g.Closed() {
		t.Errorf("a nil gate ran the handover: %v, closed: %v; want it run, never closed", ran, g.Closed())
	}
}
