package app

import (
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
)

// mainTicker calls a function on the main goroutine at a steady interval
// until halted (or its gate is closed): the clocks of the Workload and
// Manual panels, the Network and Protocol tabs' refresh. All its methods
// run on the main goroutine; a tick may run on the ticker's own goroutine
// once Fyne's main loop has ended (see [mainloop.Gate]) when its owner
// gave it no gate and halts it instead, hence the lock.
type mainTicker struct {
	gate *mainloop.Gate // hands the ticks over; nil: fyne.Do as it is
	mu   sync.Mutex
	stop chan struct{} // nil when not running; guarded by mu
}

// start begins calling f every interval, unless the ticker already runs.
// A tick already handed to the main goroutine when halt is called is
// dropped.
func (t *mainTicker) start(every time.Duration, f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
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
			t.gate.Do(func() {
				t.mu.Lock()
				current := t.stop == stop
				t.mu.Unlock()
				if current {
					f()
				}
			})
		}
	}()
}

// halt stops the ticker, if it runs.
func (t *mainTicker) halt() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stop != nil {
		close(t.stop)
		t.stop = nil
	}
}
