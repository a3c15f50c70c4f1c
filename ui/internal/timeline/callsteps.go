package timeline

import (
	"math"
	"slices"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// liveCalls keeps what the chart shows of a load test, the tool calls in
// flight ([recorder.CallSteps]) and how many finished per second, up to
// date as a live recording grows, without sorting every call each frame.
//
// An answered span of a snapshot never changes (the recorder changes a
// copy of an answered span) and later snapshots of the same recording
// share it at the same place. So the edges of the answered calls (a
// call's start and end) are kept sorted, each added once; the calls still
// in flight, which are few, are looked at again each frame and their
// edges merged in; and the steps are made again only from the first edge
// that moved, which for a live run is near the end.
type liveCalls struct {
	spans        settledSpans
	settled      []int64   // edges of the settled tool calls, sorted (see [recorder.CallSteps])
	settledCount callTally // what the settled spans hold
	merged       []int64   // settled and the waiting spans' edges, as last merged
	othersFrom   int       // the first edge in merged that was not settled then
	inFlight     []int32   // in flight after each edge of merged
	stepOf       []int32   // the step each edge of merged belongs to
	steps        []recorder.Step
	peakUpTo     []int // the most in flight in steps[:i+1]
	others       []int64
}

// callTally is what a part of a snapshot says of its tool calls.
type callTally struct {
	incoming    bool          // a request from the server: not a load test
	calls       int           // tool calls, either way
	done        int           // of them, the ones that finished
	open        bool          // a tool call is in flight
	first, last time.Duration // the first send and the last finish
}

func newTally() callTally { return callTally{first: math.MaxInt64} }

func (t *callTally) add(snap *recorder.Snapshot, s *recorder.Span) {
	switch {
	case s.Direction == recorder.Incoming:
		t.incoming = true
	case s.Kind == recorder.KindTool:
		t.calls++
		t.open = t.open || s.Open()
	}
	if s.Kind != recorder.KindTool || s.Direction != recorder.Outgoing || s.Received == recorder.Unset {
		return
	}
	t.first = min(t.first, s.Received)
	if !s.Open() {
		t.done++
		t.last = max(t.last, s.Answered)
	}
}

func (t callTally) plus(o callTally) callTally {
	return callTally{incoming: t.incoming || o.incoming, calls: t.calls + o.calls, done: t.done + o.done,
		open: t.open || o.open, first: min(t.first, o.first), last: max(t.last, o.last)}
}

// callEdges appends the two edges of a tool call with a send time.
func callEdges(edges []int64, snap *recorder.Snapshot, s *recorder.Span) []int64 {
	if s.Direction != recorder.Outgoing || s.Kind != recorder.KindTool || s.Received == recorder.Unset {
		return edges
	}
	return append(edges, int64(s.Received)<<1|1, int64(recorder.SpanEnd(snap, s))<<1)
}

// settles reports whether s can join the settled prefix: it is answered
// and its end no longer grows with Now.
func settles(s *recorder.Span) bool {
	return !s.Open() && (s.Answered != recorder.Unset || s.Direction == recorder.Incoming || s.Kind != recorder.KindTool)
}

// update takes snap. It returns the steps of its calls in flight (equal
// to [recorder.CallSteps]), their peak, and what it says of its calls.
func (l *liveCalls) update(snap *recorder.Snapshot) (steps []recorder.Step, peak int, t callTally) {
	// the spans answered since the last frame are settled
	var joined []int64
	l.spans.walk(snap, func() {
		l.settledCount, l.settled, l.merged, l.othersFrom = newTally(), l.settled[:0], l.merged[:0], 0
	}, func(_ int, s *recorder.Span) bool {
		if !settles(s) {
			return false
		}
		l.settledCount.add(snap, s)
		joined = callEdges(joined, snap, s)
		return true
	})
	from := min(l.othersFrom, len(l.merged)) // merged is the settled edges up to here
	if len(joined) > 0 {
		slices.Sort(joined)
		at, _ := slices.BinarySearch(l.settled, joined[0])
		from = min(from, at)
		l.settled = mergeInto(l.settled, joined, at)
	}
	others := newTally()
	l.others = l.others[:0]
	l.spans.each(snap, func(s *recorder.Span) {
		others.add(snap, s)
		l.others = callEdges(l.others, snap, s)
	})
	slices.Sort(l.others)
	if len(l.others) > 0 {
		at, _ := slices.BinarySearch(l.settled, l.others[0])
		from = min(from, at)
	}
	from = min(from, len(l.settled))
	l.merged = append(l.merged[:from], l.settled[from:]...)
	l.othersFrom = len(l.merged)
	if len(l.others) > 0 {
		at, _ := slices.BinarySearch(l.merged[from:], l.others[0])
		l.othersFrom = from + at
		l.merged = mergeInto(l.merged, l.others, from+at)
	}
	// from an instant's first edge: its step is made again whole
	for from > 0 && from < len(l.merged) && l.merged[from-1]>>1 == l.merged[from]>>1 {
		from--
	}
	l.makeSteps(from)
	if len(l.steps) > 0 {
		peak = l.peakUpTo[len(l.steps)-1]
	}
	return l.steps, peak, l.settledCount.plus(others)
}

// mergeInto merges the sorted edges add into the sorted edges dst, all
// of which from position at on are at least add[0], and returns dst.
func mergeInto(dst, add []int64, at int) []int64 {
	tail := slices.Clone(dst[at:])
	dst = dst[:at]
	i, j := 0, 0
	for i < len(tail) && j < len(add) {
		if tail[i] <= add[j] {
			dst = append(dst, tail[i])
			i++
		} else {
			dst = append(dst, add[j])
			j++
		}
	}
	dst = append(dst, tail[i:]...)
	return append(dst, add[j:]...)
}

// makeSteps makes the steps again from edge from of merged on, keeping
// those of the edges before it.
func (l *liveCalls) makeSteps(from int) {
	n, keep := 0, 0
	if from > 0 {
		n, keep = int(l.inFlight[from-1]), int(l.stepOf[from-1])+1
	}
	l.steps, l.peakUpTo = l.steps[:keep], l.peakUpTo[:keep]
	l.inFlight, l.stepOf = l.inFlight[:from], l.stepOf[:from]
	peak := 0
	if keep > 0 {
		peak = l.peakUpTo[keep-1]
	}
	for i := from; i < len(l.merged); i++ {
		e := l.merged[i]
		if e&1 == 1 {
			n++
		} else {
			n--
		}
		l.inFlight = append(l.inFlight, int32(n))
		l.stepOf = append(l.stepOf, int32(len(l.steps)))
		if i+1 < len(l.merged) && l.merged[i+1]>>1 == e>>1 {
			continue // everything at one instant is one step
		}
		peak = max(peak, n)
		l.steps = append(l.steps, recorder.Step{At: time.Duration(e >> 1), InFlight: n, Pending: n})
		l.peakUpTo = append(l.peakUpTo, peak)
	}
}

// isLoad is [IsLoad] of the tallied spans.
func (t callTally) isLoad() bool { return !t.incoming && t.calls >= 2 }

// perSecond is how many tool calls finished per second, from the first
// call sent to the last finished (or Now, while calls are in flight).
func (t callTally) perSecond(snap *recorder.Snapshot) float64 {
	last := t.last
	if t.open {
		last = max(last, snap.Now)
	}
	if t.done == 0 || last <= t.first {
		return 0
	}
	return float64(t.done) / (last - t.first).Seconds()
}
