package load

import (
	"context"
	"time"
)

// wakeEarly is how long before an open-loop arrival the Go timer fires;
// [sleepUntil] waits out the rest. Go's timers wake up to a millisecond
// late when the process is idle (the runtime then sleeps in epoll_wait,
// whose timeout is whole milliseconds), and later still on a busy
// machine: a call started that late counts as a late start.
const wakeEarly = 2 * time.Millisecond

// arrivalClock wakes an open loop shortly before each of its arrivals,
// one at a time, with one reused timer.
type arrivalClock struct {
	timer *time.Timer
}

func newArrivalClock() *arrivalClock {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &arrivalClock{timer: t}
}

// wakeBefore returns wakeEarly before at, or at once when that has
// passed (a late schedule catches up); false at once when ctx ends first.
func (c *arrivalClock) wakeBefore(ctx context.Context, at time.Time) bool {
	if d := time.Until(at) - wakeEarly; d > 0 {
		c.timer.Reset(d)
		select {
		case <-c.timer.C:
		case <-ctx.Done():
			c.timer.Stop()
		}
	}
	return ctx.Err() == nil
}

func (c *arrivalClock) stop() { c.timer.Stop() }

// sleepUntil returns at at or just after it (at once when it has
// passed), sleeping with [preciseSleep], which keeps no CPU busy. It is
// meant for the last moments before an arrival, after
// [arrivalClock.wakeBefore].
func sleepUntil(at time.Time) {
	for d := time.Until(at); d > 0; d = time.Until(at) {
		preciseSleep(d)
	}
}
