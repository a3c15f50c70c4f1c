package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
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
			policy := DefaultAnswerPolicy()
			var err error
			if policy.Dispatch, err = ParseDispatch(tt.dispatch); err != nil {
				t.Fatal(err)
			}
			policy.Latency = LatencyModel{Dist: Fixed, A: ms(500)}
			s := connectDemo(t, policy)
			res := run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(5, "sampling")})
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

// TestGateArrivalOrder enters waiters at the gate in a shuffled order,
// each carrying the sequence its request arrived with, and checks that
// freed slots go to them in arrival order, not entry order; that a
// cancelled waiter leaves the queue; and that raising the limit lets
// waiters in at once.
func TestGateArrivalOrder(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		enter  []int64 // arrival sequences, in the order they reach the gate
		cancel int64   // a waiter whose context ends while it waits (0: none)
		want   []int64 // the order they are let in
	}{
		{"serial entered in arrival order", 1, []int64{2, 3, 4, 5}, 0, []int64{2, 3, 4, 5}},
		{"serial entered shuffled", 1, []int64{5, 3, 9, 2, 7, 4, 8, 6}, 0, []int64{2, 3, 4, 5, 6, 7, 8, 9}},
		{"serial with a cancelled waiter", 1, []int64{4, 2, 5, 3}, 3, []int64{2, 4, 5}},
		{"bounded:3 entered shuffled", 3, []int64{7, 4, 9, 5, 8, 6}, 0, []int64{4, 5, 6, 7, 8, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g gate
			// A clock that ticks once per reading: the gate reads it under
			// its lock as it lets each request in, so the stamps give the
			// order it chose whatever order the goroutines wake in.
			var tick time.Duration
			g.clock = func() time.Duration { tick++; return tick }
			g.setLimit(tt.limit)
			ctx := context.Background()
			// Fill every slot (arrival 1), so that all the others queue.
			for range tt.limit {
				if _, _, err := g.acquire(ctx, 1); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			letIn := map[time.Duration]int64{}
			var wg sync.WaitGroup
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			for i, seq := range tt.enter {
				c := ctx
				if seq == tt.cancel {
					c = cctx
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, at, err := g.acquire(c, seq)
					if err != nil {
						return
					}
					mu.Lock()
					letIn[at] = seq
					mu.Unlock()
					time.Sleep(time.Millisecond)
					g.release()
				}()
				// Wait until it is queued, so the entry order is the one given.
				if !waitFor(time.Second, func() bool { return g.waiting() == i+1 }) {
					t.Fatalf("waiter %d never queued", seq)
				}
			}
			if tt.cancel != 0 {
				cancel()
				if !waitFor(time.Second, func() bool { return g.waiting() == len(tt.enter)-1 }) {
					t.Fatalf("cancelled waiter still queued: %d waiting", g.waiting())
				}
			}
			for range tt.limit {
				g.release()
			}
			wg.Wait()
			var order []int64
			for _, at := range slices.Sorted(maps.Keys(letIn)) {
				order = append(order, letIn[at])
			}
			if !slices.Equal(order, tt.want) {
				t.Errorf("let in %v, want %v (entered %v)", order, tt.want, tt.enter)
			}
			if g.waiting() != 0 {
				t.Errorf("%d still waiting", g.waiting())
			}
		})
	}

	t.Run("raise limit", func(t *testing.T) {
		var g gate
		g.setLimit(1)
		ctx := context.Background()
		g.acquire(ctx, g.next())
		var in sync.WaitGroup
		for range 3 {
			in.Add(1)
			go func() { g.acquire(ctx, g.next()); in.Done() }()
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

// TestServedInArrivalOrder is what a user reads into "serial" and
// "bounded": many requests arrive together, and they are served in the
// order they arrived on the wire, although the SDK starts their handlers
// on goroutines in whatever order the scheduler picks. The one exception
// the gate allows: a slot that is free when a request reaches the gate
// goes to it at once, even if an earlier arrival's handler has not
// reached the gate yet (the gate does not wait for requests that may
// never come), so a later arrival may be served first only while the
// earlier one was not yet queued.
func TestServedInArrivalOrder(t *testing.T) {
	for _, dispatch := range []string{"serial", "bounded:3"} {
		t.Run(dispatch, func(t *testing.T) {
			policy := DefaultAnswerPolicy()
			var err error
			if policy.Dispatch, err = ParseDispatch(dispatch); err != nil {
				t.Fatal(err)
			}
			policy.Latency = LatencyModel{Dist: Uniform, A: ms(5), B: ms(25)}
			s := connectDemo(t, policy)
			res := run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(30, "sampling")})
			if res.OK != 1 {
				t.Fatalf("run = %+v, want 1 ok call", res)
			}
			sampling := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
			if len(sampling) != 30 {
				t.Fatalf("%d sampling spans, want 30", len(sampling))
			}
			slices.SortStableFunc(sampling, func(a, b *recorder.Span) int { return cmp.Compare(a.Received, b.Received) })
			var late []string
			waited := 0
			for i, early := range sampling {
				if early.QueueTime() > 0 {
					waited++
				}
				for j, later := range sampling[i+1:] {
					if later.Serving < early.Serving && early.Queued <= later.Serving {
						late = append(late, fmt.Sprintf("arrival %d (id %s) served at %v, before arrival %d (id %s) that was queued since %v and served at %v",
							i+j+2, later.RequestID, later.Serving, i+1, early.RequestID, early.Queued, early.Serving))
					}
				}
			}
			if len(late) > 0 {
				t.Errorf("served out of arrival order:\n%s", strings.Join(late, "\n"))
			}
			// The check above means something only if most requests queued.
			if waited < 20 {
				t.Errorf("only %d of 30 requests queued; the fan-out did not arrive together", waited)
			}
		})
	}
}

// BenchmarkGateContended measures a slot changing hands under bounded:3
// with every benchmark goroutine contending: the heap's cost per grant.
func BenchmarkGateContended(b *testing.B) {
	var g gate
	g.setLimit(3)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := g.acquire(ctx, g.next()); err != nil {
				b.Fatal(err)
			}
			g.release()
		}
	})
}
