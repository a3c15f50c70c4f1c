package recorder

import (
	"slices"
	"time"
)

// EstimateClientWork returns snap with the client's work estimated inside
// each server request a proxy saw, or snap itself when it is not a proxy
// recording ([ModeProxy]).
//
// A proxy sees when a request reached the client (Received) and when the
// client's answer came back (Answered), never when the client started
// working on it: the wait is exact, the work inside it is not. The
// estimate takes the requests that were pending together (a burst:
// requests whose waits overlap, chained) and, per method, the fastest
// answered wait of the burst, less a quarter for jitter ([WorkShare]),
// as the work one request takes; each
// request's work is then placed just before its answer, so its Serving
// is Answered minus that work, and never before it arrived. Queued is
// Received: a proxied request waits at the client from the moment it is
// passed on.
//
// So a client that answers five requests a work-time apart is read as
// serving them one at a time, and one that answers them together as
// serving them at once. It is fooled by a concurrent client whose
// latencies happen to form a staircase (0.5 s, 1 s, 1.5 s…): that looks
// exactly like one at a time, and is estimated so.
//
// Requests still open keep Serving unset (all waiting); a duplicate, an
// aborted request (never answered) and the fulfilment of a round's input
// requests (which never crossed the wire, InputRequests > 0) are left as
// recorded.
func EstimateClientWork(snap *Snapshot) *Snapshot {
	if snap == nil || snap.Meta.Mode != ModeProxy {
		return snap
	}
	var reqs []int // indexes into snap.Spans of the requests estimated
	for i, s := range snap.Spans {
		if s.Direction == Incoming && !s.Duplicate && s.InputRequests == 0 && s.Received != Unset {
			reqs = append(reqs, i)
		}
	}
	if len(reqs) == 0 {
		return snap
	}
	slices.SortStableFunc(reqs, func(a, b int) int {
		return cmpDuration(snap.Spans[a].Received, snap.Spans[b].Received)
	})
	out := *snap
	out.Spans = slices.Clone(snap.Spans)
	for start := 0; start < len(reqs); {
		end, until := start, SpanEnd(snap, snap.Spans[reqs[start]])
		for end+1 < len(reqs) && snap.Spans[reqs[end+1]].Received < until {
			end++
			until = max(until, SpanEnd(snap, snap.Spans[reqs[end]]))
		}
		estimateBurst(&out, reqs[start:end+1])
		start = end + 1
	}
	return &out
}

// WorkShare is the share of the fastest wait of a burst that the
// estimate counts as one request's work (see [EstimateClientWork]): three
// quarters, so that jitter does not read one at a time as two at once.
// Of a serial client's five 300 ms answers the fastest wait is the
// first's, which also holds the time its request took to reach the
// client (38 ms, once, on a loaded machine): at nine tenths that made
// its work longer than the 300 ms between answers.
const WorkShare = 0.75

// estimateBurst places the work of one burst's answered requests.
func estimateBurst(out *Snapshot, burst []int) {
	work := map[string]time.Duration{}    // fastest ok answer, per method
	anyWork := map[string]time.Duration{} // fastest answer of any status
	for _, i := range burst {
		s := out.Spans[i]
		if !answered(s) {
			continue
		}
		wait := s.Answered - s.Received
		if w, ok := anyWork[s.Method]; !ok || wait < w {
			anyWork[s.Method] = wait
		}
		if s.Status != StatusOK {
			continue
		}
		if w, ok := work[s.Method]; !ok || wait < w {
			work[s.Method] = wait
		}
	}
	for _, i := range burst {
		s := out.Spans[i]
		c := *s
		c.Queued = c.Received
		if answered(s) {
			w, ok := work[s.Method]
			if !ok || s.Status != StatusOK {
				w = anyWork[s.Method]
			}
			c.Serving = max(c.Received, c.Answered-time.Duration(float64(w)*WorkShare))
		}
		out.Spans[i] = &c
	}
}

// answered reports whether s got an answer (not open, not aborted).
func answered(s *Span) bool {
	return s.Answered != Unset && s.Status != StatusOpen && s.Status != StatusAborted
}

func cmpDuration(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
