package timeline

import (
	"slices"
	"sort"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// levelTally counts, per column of the overview strip, the server's
// requests in flight along a recording, or when there are none (a load
// test) the tool calls, and the most in any column, as a live recording
// grows. A column holds every span whose start falls in it or before and
// whose end falls in it or after; so its count is how many spans start
// in or before it less how many end before it. The ended spans' starts
// and ends are kept sorted, each put in once ([settledSpans]), and a
// column's two counts are found by searching them: a frame costs the
// columns and the spans still in flight, not every span recorded, while
// the strip, which shows the whole recording, rescales with every frame.
type levelTally struct {
	spans       settledSpans
	reqs, calls edges
	diff, level []int
}

// edges are the starts and the ends of ended spans, each sorted.
type edges struct{ starts, ends []time.Duration }

func (e *edges) add(start, end time.Duration) {
	e.starts = insertSorted(e.starts, start)
	e.ends = insertSorted(e.ends, end)
}

// insertSorted puts x into xs, which is sorted and stays so: usually at
// the end, as a recording's spans start and end mostly in order.
func insertSorted(xs []time.Duration, x time.Duration) []time.Duration {
	if n := len(xs); n == 0 || xs[n-1] <= x {
		return append(xs, x)
	}
	i, _ := slices.BinarySearch(xs, x)
	return slices.Insert(xs, i, x)
}

// isRequest says whether s is a server's request (not a tool call or one
// of its rounds): what the strip counts when there is any.
func isRequest(s *recorder.Span) bool {
	return s.Kind != recorder.KindTool && s.Kind != recorder.KindRound
}

// levels returns the counts of snap's columns (the slice is reused by the
// next call) and the most in any, col mapping an instant to its column.
func (t *levelTally) levels(snap *recorder.Snapshot, cols int, col func(time.Duration) int) ([]int, int) {
	t.spans.walk(snap, func() { t.reqs, t.calls = edges{}, edges{} }, func(_ int, s *recorder.Span) bool {
		switch {
		case s.Open() || s.Received != recorder.Unset && s.Answered == recorder.Unset:
			return false // its end is the recording's Now, which moves
		case s.Received == recorder.Unset:
		case isRequest(s):
			t.reqs.add(s.Received, s.Answered)
		case s.Kind == recorder.KindTool:
			t.calls.add(s.Received, s.Answered)
		}
		return true
	})
	t.diff = slices.Grow(t.diff[:0], cols+1)[:cols+1]
	t.level = slices.Grow(t.level[:0], cols)[:cols]
	peak := t.count(snap, &t.reqs, isRequest, cols, col)
	if peak == 0 {
		peak = t.count(snap, &t.calls, func(s *recorder.Span) bool { return s.Kind == recorder.KindTool }, cols, col)
	}
	return t.level, peak
}

// count fills t.level from the ended spans of e and the spans still
// walked each frame that keep says are of the same kind, and returns the
// most in a column.
func (t *levelTally) count(snap *recorder.Snapshot, e *edges, keep func(*recorder.Span) bool, cols int, col func(time.Duration) int) int {
	clear(t.diff)
	t.spans.each(snap, func(s *recorder.Span) {
		if s.Received == recorder.Unset || !keep(s) {
			return
		}
		end := s.Answered
		if end == recorder.Unset {
			end = snap.Now
		}
		t.diff[col(s.Received)]++ // +1 where it starts, -1 after it ends
		t.diff[col(end)+1]--
	})
	peak, started, ended, open := 0, 0, 0, 0
	for c := range cols {
		started = after(e.starts, started, c, col) // the starts in column c or before
		open += t.diff[c]
		n := started - ended + open
		t.level[c], peak = n, max(peak, n)
		ended = after(e.ends, ended, c, col) // the ends before column c+1
	}
	return peak
}

// after returns the first index of xs, from i on, whose column is past c:
// xs is sorted, and col maps it to columns in the same order, so it looks
// ahead in growing steps from i, then searches the last step.
func after(xs []time.Duration, i, c int, col func(time.Duration) int) int {
	hi, step := i, 1
	for hi < len(xs) && col(xs[hi]) <= c {
		i = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(xs))
	return i + sort.Search(hi-i, func(k int) bool { return col(xs[i+k]) > c })
}
