package recorder

import (
	"math"
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
	// An edge is one int64: its time shifted left by edgeBits, what
	// happened in the low bits, numbered so that ends sort before starts
	// at one instant. Plain integers sort several times faster than
	// structs with a comparison function, which took most of a live
	// frame's time on a long recording.
	const (
		endServe = iota // stopped being served (and pending)
		endPend         // answered without being served
		startPend
		startServe
		edgeBits = 2
		maxAt    = time.Duration(math.MaxInt64 >> (edgeBits + 1))
	)
	key := func(at time.Duration, what int64) int64 {
		return int64(min(max(at, -maxAt), maxAt))<<edgeBits | what
	}
	// Counted first: a load test's spans are nearly all tool calls, and
	// making room for every span's edges (640 KB at 20,000 calls) with
	// each of the app's live frames made garbage for nothing.
	counted := func(s *Span) bool { return s.Direction == Incoming && s.Received != Unset }
	n := 0
	for _, s := range snap.Spans {
		if counted(s) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	edges := make([]int64, 0, 3*n)
	for _, s := range snap.Spans {
		if !counted(s) {
			continue
		}
		end := s.Answered
		if end == Unset {
			end = max(snap.Now, s.Received)
		}
		edges = append(edges, key(s.Received, startPend))
		if s.Serving != Unset {
			edges = append(edges, key(s.Serving, startServe), key(end, endServe))
		} else {
			edges = append(edges, key(end, endPend))
		}
	}
	slices.Sort(edges)
	steps := make([]Step, 0, len(edges)) // at most one per edge
	var cur Step
	for i, e := range edges {
		switch e & (1<<edgeBits - 1) {
		case endServe:
			cur.InFlight--
			cur.Pending--
		case endPend:
			cur.Pending--
		case startPend:
			cur.Pending++
		case startServe:
			cur.InFlight++
		}
		if i+1 < len(edges) && edges[i+1]>>edgeBits == e>>edgeBits {
			continue // coalesce everything at one instant into one step
		}
		cur.At = time.Duration(e >> edgeBits)
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
