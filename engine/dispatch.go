package engine

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// gate lets requests into their handlers under a dispatch policy: at most
// limit at once (0 = no limit), served in the order they arrived on the
// wire. The SDK starts each request's handler on its own goroutine, so
// handlers reach the gate in an order of the scheduler's choosing, not
// the order the requests were read; the gate therefore keeps its waiters
// in a min-heap by arrival sequence and gives a freed slot to the waiter
// that arrived first. It never holds a slot back for a request that has
// been read but has not reached the gate (it may never get there), so a
// request that reaches an idle slot is let in at once. The limit can
// change at any time; a larger limit lets waiters in at once.
type gate struct {
	mu     sync.Mutex
	limit  int
	active int
	queue  ticketHeap
	seq    int64 // the last sequence handed out by next

	arrivals map[string]int64 // requests of each method so far, for arrive

	reached map[int64]chan struct{} // see expect

	// clock, if set, timestamps each grant under the gate's lock, so that
	// the times requests were let in are in the order they were let in
	// (a goroutine reading the clock after it wakes could be overtaken).
	clock func() time.Duration
}

// ticket is one request waiting at the gate.
type ticket struct {
	ch      chan struct{}
	seq     int64 // arrival sequence: lower is let in first
	pos     int   // position in the heap, -1 once out of it
	granted bool
	at      time.Duration // when it was granted, by the gate's clock
}

// ticketHeap orders waiting tickets by arrival sequence (container/heap).
type ticketHeap []*ticket

func (h ticketHeap) Len() int           { return len(h) }
func (h ticketHeap) Less(i, j int) bool { return h[i].seq < h[j].seq }
func (h ticketHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].pos, h[j].pos = i, j
}
func (h *ticketHeap) Push(x any) {
	t := x.(*ticket)
	t.pos = len(*h)
	*h = append(*h, t)
}
func (h *ticketHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.pos = -1
	return t
}

// next returns a new arrival sequence, for requests that did not get one
// when they were read (they rank after everything read so far, as they
// arrive now). The wire tap takes a sequence from next as it reads each
// request, so one counter orders both kinds.
func (g *gate) next() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	return g.seq
}

// arrive numbers a new request of method: its arrival sequence (see
// next) and its 1-based arrival index among requests of its method.
func (g *gate) arrive(method string) (seq, index int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	if g.arrivals == nil {
		g.arrivals = make(map[string]int64)
	}
	g.arrivals[method]++
	return g.seq, g.arrivals[method]
}

// expect returns a channel closed when the request with arrival sequence
// seq reaches the gate, and a func that forgets it (call it once the
// request can no longer get there). Under the gate's lock a request that
// reaches the gate takes a free slot or joins the queue before anyone
// else can act, so once the channel is closed the request is either
// being served or in line: a caller that starts requests one by one,
// each after the last reached the gate, has them let in in its order.
func (g *gate) expect(seq int64) (reached <-chan struct{}, forget func()) {
	ch := make(chan struct{})
	g.mu.Lock()
	if g.reached == nil {
		g.reached = make(map[int64]chan struct{})
	}
	g.reached[seq] = ch
	g.mu.Unlock()
	return ch, func() {
		g.mu.Lock()
		g.reachLocked(seq)
		g.mu.Unlock()
	}
}

// reachLocked notes that the request with sequence seq reached the gate
// (see expect).
func (g *gate) reachLocked(seq int64) {
	if ch, ok := g.reached[seq]; ok {
		close(ch)
		delete(g.reached, seq)
	}
}

// setLimit changes how many requests may be served at once (0 = any).
func (g *gate) setLimit(n int) {
	g.mu.Lock()
	g.limit = n
	g.grantLocked()
	g.mu.Unlock()
}

// acquire waits for a slot; among waiters, the lowest seq (the earliest
// arrival) gets the next slot. It returns when the request reached the
// gate and when it was granted the slot, both by the gate's clock (0
// without one) and stamped under its lock, so that a request stamped as
// waiting before another was let in was indeed there to be chosen. If ctx
// ends first it returns ctx's cause and holds no slot.
func (g *gate) acquire(ctx context.Context, seq int64) (in, at time.Duration, err error) {
	g.mu.Lock()
	g.reachLocked(seq)
	in = g.now()
	if len(g.queue) == 0 && (g.limit <= 0 || g.active < g.limit) {
		g.active++
		g.mu.Unlock()
		return in, in, nil
	}
	t := &ticket{ch: make(chan struct{}), seq: seq}
	heap.Push(&g.queue, t)
	g.mu.Unlock()
	select {
	case <-t.ch:
		return in, t.at, nil
	case <-ctx.Done():
		g.mu.Lock()
		if t.granted {
			// Let in just as ctx ended: give the slot to the next in line.
			g.active--
			g.grantLocked()
		} else if t.pos >= 0 {
			heap.Remove(&g.queue, t.pos)
		}
		g.mu.Unlock()
		return in, 0, context.Cause(ctx)
	}
}

// release gives a slot back and returns when, by the gate's clock (0
// without one). A waiter it lets in is stamped with that same time, so
// that a recording never shows the slot free while a request waited for
// it: the request that gave the slot back should end at that time.
func (g *gate) release() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	at := g.now()
	g.grantAtLocked(at)
	return at
}

// waiting reports how many requests are queued.
func (g *gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

func (g *gate) grantLocked() {
	if len(g.queue) > 0 && (g.limit <= 0 || g.active < g.limit) {
		g.grantAtLocked(g.now())
	}
}

// grantAtLocked lets waiters into free slots, stamped at.
func (g *gate) grantAtLocked(at time.Duration) {
	for len(g.queue) > 0 && (g.limit <= 0 || g.active < g.limit) {
		t := heap.Pop(&g.queue).(*ticket)
		t.granted = true
		t.at = at
		g.active++
		close(t.ch)
	}
	if len(g.queue) == 0 {
		g.queue = nil // let a long queue's backing array go
	}
}

func (g *gate) now() time.Duration {
	if g.clock == nil {
		return 0
	}
	return g.clock()
}
