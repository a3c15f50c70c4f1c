package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestDispatchPolicies is the seed scenario: the demo server's fanout
// tool sends 5 sampling requests at once, the inspector takes 500ms to
// answer each. Concurrent dispatch answers all in about one latency,
// serial in five, bounded:2 in three, and the concurrency chart shows it.
func TestDispatchPolicies(t *testing.T) {
	tests := []struct {
		dispatch   string
		peak       int
		minElapsed time.Duration
		maxElapsed time.Duration
	}{
		{"concurrent", 5, ms(450), ms(1000)},
		{"serial", 1, ms(2400), ms(6000)},
		{"bounded:2", 2, ms(1400), ms(3000)},
	}
	for _, tt := range tests {
		t.Run(tt.dispatch, func(t *testing.T) {
			cb := DefaultCallbacks()
			var err error
			if cb.Dispatch, err = ParseDispatch(tt.dispatch); err != nil {
				t.Fatal(err)
			}
			cb.Latency = LatencyModel{Dist: Fixed, A: ms(500)}
			s := connectDemo(t, cb)
			res := run(t, s, Workload{Tool: "fanout", Args: fanoutArgs(5, "sampling")})
			if res.OK != 1 || res.Failed != 0 {
				t.Fatalf("run = %+v, want 1 ok call", res)
			}
			if res.Elapsed < tt.minElapsed || res.Elapsed > tt.maxElapsed {
				t.Errorf("elapsed %v, want between %v and %v", res.Elapsed, tt.minElapsed, tt.maxElapsed)
			}
			snap := s.Recording().Snapshot()
			sampling := spansOf(snap, "sampling/createMessage")
			if len(sampling) != 5 {
				t.Fatalf("%d sampling spans, want 5", len(sampling))
			}
			for _, sp := range sampling {
				if sp.Status != recorder.StatusOK {
					t.Errorf("span %d status %q (%s), want ok", sp.ID, sp.Status, sp.Error)
				}
				if !(sp.Received <= sp.Queued && sp.Queued <= sp.Serving && sp.Serving <= sp.Answered) {
					t.Errorf("span %d phases out of order: %v %v %v %v", sp.ID, sp.Received, sp.Queued, sp.Serving, sp.Answered)
				}
				if sp.ServeTime() < ms(490) {
					t.Errorf("span %d served %v, want >= 500ms latency", sp.ID, sp.ServeTime())
				}
				if sp.RequestID == "" {
					t.Errorf("span %d has no JSON-RPC id", sp.ID)
				}
			}
			inFlight, pending := recorder.Peaks(recorder.Steps(snap))
			if inFlight != tt.peak {
				t.Errorf("peak in flight %d, want %d", inFlight, tt.peak)
			}
			if pending != 5 {
				t.Errorf("peak pending %d, want 5 (all received at once)", pending)
			}
			if tt.dispatch == "serial" {
				// Served one after another: the 4th waited for three.
				queued := make([]time.Duration, len(sampling))
				for i, sp := range sampling {
					queued[i] = sp.QueueTime()
				}
				slicesSort(queued)
				if queued[3] < ms(1400) {
					t.Errorf("queue times %v: the 4th should wait >= 1.4s", queued)
				}
			}
		})
	}
}

func slicesSort(d []time.Duration) {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
}

// TestGateFIFO checks that waiters get in in arrival order, that a
// cancelled waiter leaves the queue, and that raising the limit lets
// waiters in at once.
func TestGateFIFO(t *testing.T) {
	var g gate
	g.setLimit(1)
	ctx := context.Background()
	if err := g.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	cctx, cancel := context.WithCancel(ctx)
	for i := range 5 {
		wg.Add(1)
		c := ctx
		if i == 2 {
			c = cctx
		}
		go func() {
			defer wg.Done()
			if err := g.acquire(c); err != nil {
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			g.release()
		}()
		// wait until it is queued, so arrival order is i
		if !waitFor(time.Second, func() bool { return g.waiting() == i+1 }) {
			t.Fatalf("waiter %d never queued", i)
		}
	}
	cancel()
	if !waitFor(time.Second, func() bool { return g.waiting() == 4 }) {
		t.Fatalf("cancelled waiter still queued: %d waiting", g.waiting())
	}
	g.release()
	wg.Wait()
	want := []int{0, 1, 3, 4}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}

	t.Run("raise limit", func(t *testing.T) {
		var g gate
		g.setLimit(1)
		g.acquire(ctx)
		var in sync.WaitGroup
		for range 3 {
			in.Add(1)
			go func() { g.acquire(ctx); in.Done() }()
		}
		waitFor(time.Second, func() bool { return g.waiting() == 3 })
		g.setLimit(0)
		done := make(chan struct{})
		go func() { in.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("raising the limit did not let the waiters in")
		}
	})
}
