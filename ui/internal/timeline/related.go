package timeline

import "github.com/fanout-inspector/inspector/recorder"

// related is what a snapshot tells about one span besides the span itself:
// what a details pane shows under it.
type related struct {
	// Parent is the tool call (or round) the span was linked to, or nil.
	Parent *recorder.Span
	// RoundFacts are label and value pairs about a round of a
	// multi-round-trip call, or about a request answered in one.
	RoundFacts [][2]string
	// Events are the notifications that name the span.
	Events []recorder.Event
	// Children counts the requests linked to the span; Failed those of
	// them that did not end well.
	Children, Failed int
}

// RelatedTo gathers what snap tells about s.
func RelatedTo(snap *recorder.Snapshot, s *recorder.Span) related {
	r := related{Parent: snap.SpanByID(s.Parent), RoundFacts: roundFacts(snap, s), Events: eventsOf(snap, s.ID)}
	for _, c := range snap.Spans {
		if c.Parent == s.ID {
			r.Children++
			if c.Status != recorder.StatusOpen && c.Status != recorder.StatusOK {
				r.Failed++
			}
		}
	}
	return r
}

// eventsOf returns the events of snap that name span id.
func eventsOf(snap *recorder.Snapshot, id recorder.SpanID) []recorder.Event {
	var evs []recorder.Event
	for _, e := range snap.Events {
		if e.Span == id {
			evs = append(evs, e)
		}
	}
	return evs
}
