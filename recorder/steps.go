package recorder

import (
	"slices"
	"time"
)

// Step is a change in concurrency: from At on, InFlight incoming requests
// were being served and Pending had been received and not yet answered.
type Step struct {
	At       time.Duration
	InFlight int
	Pending  int
}

// Steps returns the concurrency of the snapshot's incoming requests over
// time, one [Step] per instant at which it changed, in time order. Open
// spans count until snap.Now. At equal times, requests that end are
// counted before requests that start, so back-to-back serial requests
// never count as two at once.
func Steps(snap *Snapshot) []Step {
	type edge struct {
		at             time.Duration
		inFlight, pend int
	}
	edges := make([]edge, 0, 4*len(snap.Spans))
	for _, s := range snap.Spans {
		if s.Direction != Incoming || s.Received == Unset {
			continue
		}
		end := s.Answered
		if end == Unset {
			end = max(snap.Now, s.Received)
		}
		edges = append(edges, edge{s.Received, 0, +1}, edge{end, 0, -1})
		if s.Serving != Unset {
			edges = append(edges, edge{s.Serving, +1, 0}, edge{end, -1, 0})
		}
	}
	slices.SortStableFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		// ends (negative) first
		return (a.inFlight + a.pend) - (b.inFlight + b.pend)
	})
	var steps []Step
	var cur Step
	for i, e := range edges {
		cur.InFlight += e.inFlight
		cur.Pending += e.pend
		if i+1 < len(edges) && edges[i+1].at == e.at {
			continue // coalesce everything at one instant into one step
		}
		cur.At = e.at
		steps = append(steps, cur)
	}
	return steps
}

// Peaks returns the most requests in flight and pending at once.
func Peaks(steps []Step) (inFlight, pending int) {
	for _, s := range steps {
		inFlight = max(inFlight, s.InFlight)
		pending = max(pending, s.Pending)
	}
	return inFlight, pending
}
