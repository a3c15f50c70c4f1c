package recorder

import (
	"cmp"
	"slices"
	"time"
)

// mergeHTTP joins the sources' HTTP exchanges, or returns nil when none
// has any: each exchange is copied with its times shifted like the
// source's spans and its session renamed, then all are put in order of
// when they were sent and numbered from 1. Total is the sum of the
// sources' totals. When together they hold more than [MaxExchanges], each
// source keeps a fair share (what a source with fewer leaves goes to the
// others), its first half and its latest, as a recording keeps them.
func mergeHTTP(snaps []*Snapshot, names []string, shifts []time.Duration) *HTTPLog {
	total, held := 0, 0
	for _, s := range snaps {
		if s.HTTP != nil {
			total += s.HTTP.Total
			held += len(s.HTTP.Exchanges)
		}
	}
	if total == 0 {
		return nil
	}
	shares := exchangeShares(snaps)
	out := &HTTPLog{Total: total, Exchanges: make([]*Exchange, 0, min(held, MaxExchanges))}
	for i, s := range snaps {
		if s.HTTP == nil {
			continue
		}
		xs, keep := s.HTTP.Exchanges, shares[i]
		if len(xs) > keep {
			head := keep / 2
			xs = append(slices.Clip(xs[:head]), xs[len(xs)-(keep-head):]...)
		}
		for _, x := range xs {
			c := *x
			c.Session = mergedSession(names[i], c.Session)
			shiftExchange(&c, shifts[i])
			out.Exchanges = append(out.Exchanges, &c)
		}
	}
	slices.SortStableFunc(out.Exchanges, func(a, b *Exchange) int { return cmp.Compare(a.Sent, b.Sent) })
	for n, x := range out.Exchanges {
		x.ID = ExchangeID(n + 1)
	}
	return out
}

// exchangeShares says how many exchanges each source keeps in a merge:
// all of them when together they fit [MaxExchanges], else a fair share
// each, the sources with fewer first.
func exchangeShares(snaps []*Snapshot) []int {
	held := make([]int, len(snaps))
	sum := 0
	for i, s := range snaps {
		if s.HTTP != nil {
			held[i] = len(s.HTTP.Exchanges)
			sum += held[i]
		}
	}
	if sum <= MaxExchanges {
		return held
	}
	order := make([]int, len(snaps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(held[a], held[b]) })
	shares := make([]int, len(snaps))
	left := MaxExchanges
	for k, i := range order {
		shares[i] = min(held[i], left/(len(order)-k))
		left -= shares[i]
	}
	return shares
}

// shiftExchange moves the times of x, a copy, by d; its events are
// copied, not changed in place.
func shiftExchange(x *Exchange, d time.Duration) {
	x.Sent = shiftOffset(x.Sent, d)
	x.Responded, x.Ended = shiftOffset(x.Responded, d), shiftOffset(x.Ended, d)
	if len(x.Events) > 0 {
		events := make([]StreamEvent, len(x.Events))
		for i, e := range x.Events {
			e.At = shiftOffset(e.At, d)
			events[i] = e
		}
		x.Events = events
	}
}
