package engine

import (
	"context"
	"time"
)

// wakeEarly is how long before an open-loop arrival the Go timer is set
// to fire; [preciseSleep] waits out the rest. Go's timers wake up to a
// millisecond late when the process is idle (the runtime then sleeps in
// epoll_wait, whose timeout is whole milliseconds), and later still on a
// busy machine: a call started that late counts as a late start.
const wakeEarly = 2 * time.Millisecond

// arrivalClock waits for an open loop's arrivals, one at a time, with one
// reused timer.
type arrivalClock struct {
	timer *time.Timer
}

func newArrivalClock() *arrivalClock {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &arrivalClock{timer: t}
}

// until returns at at or just after it, or false at once when ctx ends
// first. It sleeps on the timer until wakeEarly before at, then the rest
// with [preciseSleep], which keeps no CPU busy; when at has passed it
// returns at once, so that a late schedule catches up.
func (c *arrivalClock) until(ctx context.Context, at time.Time) bool {
	if d := time.Until(at) - wakeEarly; d > 0 {
		c.timer.Reset(d)
		select {
		case <-c.timer.C:
		case <-ctx.Done():
			c.timer.Stop()
			return false
		}
	}
	if ctx.Err() != nil {
		return false
	}
	for {
		d := time.Until(at)
		if d <= 0 {
			return true
		}
		preciseSleep(d)
	}
}

func (c *arrivalClock) stop() { c.timer.Stop() }
