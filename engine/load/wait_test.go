package load

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestArrivalClockNeverEarly: the open loop wakes at most wakeEarly
// before an arrival on Go's timer and sleeps the rest precisely; it must
// never start a call before the arrival, whatever the distance (inside
// the early wake-up, beyond it, already past).
func TestArrivalClockNeverEarly(t *testing.T) {
	c := newArrivalClock()
	defer c.stop()
	for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 700 * time.Microsecond,
		wakeEarly - time.Microsecond, wakeEarly, wakeEarly + 300*time.Microsecond, 3 * wakeEarly} {
		for range 5 {
			at := time.Now().Add(d)
			if !c.wakeBefore(context.Background(), at) {
				t.Fatalf("wakeBefore(%v from now) gave up without its context ending", d)
			}
			if early := time.Until(at); early > wakeEarly {
				t.Errorf("wakeBefore(%v from now) returned %v before the arrival, more than %v", d, early, wakeEarly)
			}
			sleepUntil(at)
			if now := time.Now(); now.Before(at) {
				t.Errorf("sleepUntil(%v from now) returned %v before the arrival", d, at.Sub(now))
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
	if c.wakeBefore(ctx, start.Add(time.Minute)) {
		t.Fatal("wakeBefore returned true for an arrival a minute away after its context ended")
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("wakeBefore took %v to notice its context ended", el)
	}
	if c.wakeBefore(ctx, time.Now()) {
		t.Error("wakeBefore returned true with its context already ended")
	}
}

// TestOutstandingTake: with limit calls outstanding an arrival is not
// sent (and says how many were), whoever asks at the same moment; 0 is
// no bound.
func TestOutstandingTake(t *testing.T) {
	var o outstanding
	var wg sync.WaitGroup
	var sent atomic.Int64
	for range 50 {
		wg.Go(func() {
			if _, ok := o.take(10); ok {
				sent.Add(1)
			}
		})
	}
	wg.Wait()
	if sent.Load() != 10 {
		t.Fatalf("%d of 50 arrivals taken under a limit of 10, want 10", sent.Load())
	}
	if n, ok := o.take(10); ok || n != 10 {
		t.Errorf("take with 10 outstanding = %d, %v; want 10, false", n, ok)
	}
	o.done()
	if n, ok := o.take(10); !ok || n != 10 {
		t.Errorf("take after one answered = %d, %v; want 10, true", n, ok)
	}
	if n, ok := o.take(0); !ok || n != 11 {
		t.Errorf("take without a limit = %d, %v; want 11, true", n, ok)
	}
}
