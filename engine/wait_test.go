package engine

import (
	"context"
	"testing"
	"time"
)

// TestArrivalClockNeverEarly: the open loop's clock wakes early on Go's
// timer and sleeps the rest precisely; it must never return before the
// arrival, whatever the distance (inside the early wake-up, beyond it,
// already past).
func TestArrivalClockNeverEarly(t *testing.T) {
	c := newArrivalClock()
	defer c.stop()
	for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 700 * time.Microsecond,
		wakeEarly - time.Microsecond, wakeEarly, wakeEarly + 300*time.Microsecond, 3 * wakeEarly} {
		for range 5 {
			at := time.Now().Add(d)
			if !c.until(context.Background(), at) {
				t.Fatalf("until(%v from now) gave up without its context ending", d)
			}
			if now := time.Now(); now.Before(at) {
				t.Errorf("until(%v from now) returned %v before the arrival", d, at.Sub(now))
			}
		}
	}
}

// TestArrivalClockStops: a run that is stopped does not wait for its next
// arrival.
func TestArrivalClockStops(t *testing.T) {
	c := newArrivalClock()
	defer c.stop()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if c.until(ctx, start.Add(time.Minute)) {
		t.Fatal("until returned true for an arrival a minute away after its context ended")
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("until took %v to notice its context ended", el)
	}
	if c.until(ctx, time.Now()) {
		t.Error("until returned true with its context already ended")
	}
}
