package recorder

import "time"

// LateStart is how far past its intended start an open-loop tool call
// may be sent before it counts as a late start: the generator could not
// keep to its schedule (the machine was busy, or the schedule was too
// fast for it).
const LateStart = time.Millisecond

// loadFigures counts the sessions, dropped arrivals and late starts of a
// load test.
func loadFigures(snap *Snapshot, sum *Summary) {
	sessions := map[string]bool{}
	for _, s := range snap.Spans {
		if s.Session != "" {
			sessions[s.Session] = true
		}
		if isToolCall(s) && s.Intended > 0 && s.Received-s.Intended > LateStart {
			sum.LateStarts++
		}
	}
	for _, e := range snap.Events {
		if e.Session != "" {
			sessions[e.Session] = true
		}
		if e.Kind == EventDropped {
			sum.Dropped++
		}
	}
	sum.Sessions = len(sessions)
}
