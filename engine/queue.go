package engine

import (
	"context"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// enter stamps the request as queued from entered, the moment its
// handler started: from then on it waits for a dispatch slot.
func (r *request) enter(entered time.Duration) {
	r.rec.Update(r.span, func(sp *recorder.Span) { sp.Queued = entered })
}

// queue waits at the dispatch gate for a slot, in arrival order, and
// stamps when the request could be chosen and when it was let in. The
// slot is held until [request.end], so that under serial dispatch the
// next request starts after this one's answer was written, not merely
// built. If ctx ends first it returns ctx's cause and holds no slot.
func (r *request) queue(ctx context.Context, entered time.Duration) error {
	queued, serving, err := r.gate.acquire(ctx, r.seq)
	if err != nil {
		return err
	}
	r.holdsSlot = true
	r.rec.Update(r.span, func(sp *recorder.Span) {
		// The gate's stamps: queued from the moment it could be chosen.
		sp.Queued = max(queued, entered)
		sp.Serving = max(serving, sp.Queued)
	})
	return nil
}
