package engine

import (
	"context"
	"slices"
	"sync"
)

// gate lets requests into their handlers under a dispatch policy: at most
// limit at once (0 = no limit), strictly first come first served. Unlike a
// semaphore, waiters queue as tickets in arrival order, so under serial and
// bounded dispatch the requests are served in the order they arrived. The
// limit can change at any time; a larger limit lets waiters in at once.
type gate struct {
	mu     sync.Mutex
	limit  int
	active int
	queue  []*ticket
}

// ticket is one request waiting at the gate.
type ticket struct {
	ch      chan struct{}
	granted bool
}

// setLimit changes how many requests may be served at once (0 = any).
func (g *gate) setLimit(n int) {
	g.mu.Lock()
	g.limit = n
	g.grantLocked()
	g.mu.Unlock()
}

// acquire waits for a slot, in arrival order. It returns ctx's error, and
// holds no slot, if ctx ends first.
func (g *gate) acquire(ctx context.Context) error {
	g.mu.Lock()
	if len(g.queue) == 0 && (g.limit <= 0 || g.active < g.limit) {
		g.active++
		g.mu.Unlock()
		return nil
	}
	t := &ticket{ch: make(chan struct{})}
	g.queue = append(g.queue, t)
	g.mu.Unlock()
	select {
	case <-t.ch:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		if t.granted {
			// Let in just as ctx ended: give the slot to the next in line.
			g.active--
			g.grantLocked()
		} else if i := slices.Index(g.queue, t); i >= 0 {
			g.queue = slices.Delete(g.queue, i, i+1)
		}
		g.mu.Unlock()
		return context.Cause(ctx)
	}
}

// release gives a slot back.
func (g *gate) release() {
	g.mu.Lock()
	g.active--
	g.grantLocked()
	g.mu.Unlock()
}

// waiting reports how many requests are queued.
func (g *gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

func (g *gate) grantLocked() {
	for len(g.queue) > 0 && (g.limit <= 0 || g.active < g.limit) {
		t := g.queue[0]
		g.queue[0] = nil
		g.queue = g.queue[1:]
		t.granted = true
		g.active++
		close(t.ch)
	}
	if len(g.queue) == 0 {
		g.queue = nil // let a long queue's backing array go
	}
}
