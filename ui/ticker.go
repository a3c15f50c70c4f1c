package ui

import (
	"time"

	"fyne.io/fyne/v2"
)

// mainTicker calls a function on the main goroutine at a steady interval
// until halted: the clocks of the Workload and Manual panels. All its
// methods run on the main goroutine.
type mainTicker struct {
	stop chan struct{} // nil when not running
}

// start begins calling f every interval, unless the ticker already runs.
// A tick already handed to the main goroutine when halt is called is
// dropped.
func (t *mainTicker) start(every time.Duration, f func()) {
	if t.stop != nil {
		return
	}
	stop := make(chan struct{})
	t.stop = stop
	go func() {
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
			}
			fyne.Do(func() {
				if t.stop == stop {
					f()
				}
			})
		}
	}()
}

// halt stops the ticker, if it runs.
func (t *mainTicker) halt() {
	if t.stop != nil {
		close(t.stop)
		t.stop = nil
	}
}
