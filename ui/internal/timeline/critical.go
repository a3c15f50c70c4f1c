package timeline

import (
	"cmp"
	"slices"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// criticalWait is how long a request must have waited before it was
// served for what it waited on to count as holding it up.
const criticalWait = time.Millisecond

// CriticalPath returns the requests that held up the end of tool call
// (or round) id in snap, latest first: the request answered last before
// the call's end; then, while the request in hand waited before it was
// served, the request answered last before it was served (the one whose
// end freed its turn); and so on. A fan-out served at once has one, its
// slowest request; one served one at a time has every request, each
// waiting on the one before. Nil when the call has no answered requests.
func CriticalPath(snap *recorder.Snapshot, id recorder.SpanID) []recorder.SpanID {
	call := snap.SpanByID(id)
	if call == nil {
		return nil
	}
	var kids []*recorder.Span
	for _, s := range snap.Spans {
		if s.Parent == id && s.Answered != recorder.Unset && s.Received != recorder.Unset {
			kids = append(kids, s)
		}
	}
	// by answer, latest first: latest(t) is the first at or before t
	// not yet on the path
	slices.SortFunc(kids, func(a, b *recorder.Span) int { return cmp.Compare(b.Answered, a.Answered) })
	on := map[recorder.SpanID]bool{}
	latest := func(t time.Duration) *recorder.Span {
		i, _ := slices.BinarySearchFunc(kids, t, func(s *recorder.Span, t time.Duration) int { return cmp.Compare(t, s.Answered) })
		for ; i < len(kids); i++ {
			if !on[kids[i].ID] {
				return kids[i]
			}
		}
		return nil
	}
	end := call.Answered
	if end == recorder.Unset {
		end = snap.Now
	}
	var path []recorder.SpanID
	for cur := latest(end); cur != nil; {
		path = append(path, cur.ID)
		on[cur.ID] = true
		serving := cur.Serving
		if serving == recorder.Unset || serving-cur.Received < criticalWait {
			break // it did not wait: nothing held it up
		}
		cur = latest(serving)
	}
	return path
}
