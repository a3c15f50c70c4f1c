package recorder

import "fmt"

// eventSample caps the events a recording keeps, as [sampler] caps its
// spans, with the same cap ([Recording.SetMaxSpans]): the first half of
// the cap are kept as they come; past them an event is kept one in
// every (by a hash of its number), and when the kept events reach the
// cap, every doubles and the kept events past the first half are
// thinned to the new sample. Observers (the journal) are told only of
// events kept as they come. Every event is counted, by kind, exactly.
type eventSample struct {
	max     int
	head    int // events kept whatever comes after
	every   int
	seen    int
	seqs    []int // the number of each kept event past the head
	byKind  map[EventKind]int
	stalled int // events with Stalled set
}

func newEventSample(max int) *eventSample {
	return &eventSample{max: max, head: max / 2, every: 1, byKind: map[EventKind]int{}}
}

// add counts e and reports whether to keep it; r.events are the events
// kept so far, which add thins when they reach the cap.
func (s *eventSample) add(r *Recording, e *Event) bool {
	seq := s.seen
	s.seen++
	s.byKind[e.Kind]++
	if e.Stalled > 0 {
		s.stalled++
	}
	if seq < s.head {
		return true
	}
	if !s.sampled(seq) {
		return false
	}
	if len(r.events) >= s.max {
		s.thin(r)
		if !s.sampled(seq) {
			return false
		}
	}
	s.seqs = append(s.seqs, seq)
	return true
}

// thin doubles every and keeps, of the events past the head, those in
// the new sample, in a new slice (snapshots share the old one).
func (s *eventSample) thin(r *Recording) {
	s.every *= 2
	events := make([]Event, s.head, s.max)
	copy(events, r.events[:s.head])
	var seqs []int
	for i, seq := range s.seqs {
		if s.sampled(seq) {
			events = append(events, r.events[s.head+i])
			seqs = append(seqs, seq)
		}
	}
	r.events, s.seqs = events, seqs
}

// sampled reports whether event number seq is in a sample of one in
// s.every (a sample of one in 2k is within that of one in k).
func (s *eventSample) sampled(seq int) bool {
	x := uint64(seq) + 0x9e3779b97f4a7c15 // splitmix64
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return x%uint64(s.every) == 0
}

// dropped reports whether any event was left out.
func (s *eventSample) dropped() bool { return s != nil && s.seen > s.head+len(s.seqs) }

// fill sets the event figures of sm for a snapshot that keeps kept
// events.
func (s *eventSample) fill(sm *Sampling, kept int) {
	sm.Events, sm.EventsKept, sm.EventsStalled = s.seen, kept, s.stalled
	sm.EventKinds = make(map[EventKind]int, len(s.byKind))
	for k, n := range s.byKind {
		sm.EventKinds[k] = n
	}
}

// stalledEvents counts the events in events with Stalled set.
func stalledEvents(events []Event) int {
	n := 0
	for _, e := range events {
		if e.Stalled > 0 {
			n++
		}
	}
	return n
}

// eventNote is the events' part of [Sampling.Note], or "".
func (s *Sampling) eventNote() string {
	if s.Events <= s.EventsKept {
		return ""
	}
	return fmt.Sprintf("kept %s of %s events (counts by kind are exact)", thousands(s.EventsKept), thousands(s.Events))
}
