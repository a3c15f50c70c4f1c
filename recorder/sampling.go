package recorder

import (
	"fmt"
	"slices"
)

// DefaultMaxSpans is the cap on the spans a recording keeps that
// `inspector run`, `gui` and `proxy` use unless told otherwise
// (--max-spans): about 30 MB of spans without their payloads.
const DefaultMaxSpans = 100_000

// Sampling says that a snapshot holds only a sample of its recording's
// spans, and carries the [Totals] of all of them.
type Sampling struct {
	// Spans counts the spans the recording had; Kept those in the
	// snapshot.
	Spans int `json:"spans"`
	Kept  int `json:"kept"`
	// MaxSpans is the cap the recording kept to ([Recording.SetMaxSpans]).
	MaxSpans int `json:"max_spans"`
	// Every says how spans were sampled: an ended span is kept when a
	// hash of its ID (its parent's, for a span that has one, so that a
	// tool call's requests go with it) is a multiple of Every, when it failed, or
	// when it is the parent of a span kept; spans still open are always
	// kept.
	Every int `json:"every"`
	// Totals are the statistics of every span of the recording, kept or
	// not.
	Totals *Totals `json:"totals"`
	// Events counts the events the recording had, EventsKept those in
	// the snapshot, and EventKinds every event by kind: set when events
	// were left out too (the cap on spans caps them, see eventcap.go).
	Events     int               `json:"events,omitempty"`
	EventsKept int               `json:"events_kept,omitempty"`
	EventKinds map[EventKind]int `json:"event_kinds,omitempty"`
	// EventsStalled counts the events that were withheld from the
	// client (Event.Stalled), kept or not.
	EventsStalled int `json:"events_stalled,omitempty"`
}

// Note says what was sampled, in the words the stats line, the report
// and `inspector run` use: "kept 100,000 of 1,000,000 spans; statistics
// are exact".
func (s *Sampling) Note() string {
	if s == nil {
		return ""
	}
	note := fmt.Sprintf("kept %s of %s spans; statistics are exact", thousands(s.Kept), thousands(s.Spans))
	if ev := s.eventNote(); ev != "" {
		if s.Kept >= s.Spans {
			note = "kept every span"
		}
		note += "; " + ev
	}
	return note
}

// SetMaxSpans caps the spans the recording keeps at about n (0: keep
// every span, the default). Up to n spans every span is kept. When n are
// kept, the ended spans are thinned to one in two (by ID; failed spans,
// and the parents of spans kept, stay), and from then on an ended span
// is kept one in k, k doubling at each thinning, so that the sample
// covers the whole run evenly. Meanwhile the recording's [Totals] count
// every span, so that [Summarize] and [Series] of its snapshots stay
// exact. Events are capped at n too, and counted by kind (eventcap.go).
// Call it before the first span.
func (r *Recording) SetMaxSpans(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n <= 0 || r.nextID > 0 {
		return
	}
	r.sampler = &sampler{max: max(n, 2), limit: max(n, 2), every: 1, totals: NewTotals()}
	if len(r.events) == 0 {
		r.eventCap = newEventSample(max(n, 2))
	}
}

// sampler decides, for a recording with a cap on its spans, which ended
// spans it keeps, and folds every span into its totals under the
// recording's lock, as the span changes: no goroutine that could lag.
type sampler struct {
	max   int
	every int
	// limit is the number of kept spans at which to thin: max, or more
	// when open and failed spans alone came near it (so that thinning
	// never runs at every span).
	limit  int
	totals *Totals
	// shared is set when a snapshot holds totals: the next change
	// works on a copy.
	shared  bool
	begun   int
	dropped int
	// wanted are open spans that must be kept when they end: the
	// parents of spans kept.
	wanted map[SpanID]bool
}

// write returns the totals to change, copying them first if a snapshot
// holds them.
func (s *sampler) write() *Totals {
	if s.shared {
		s.totals = s.totals.clone()
		s.shared = false
	}
	return s.totals
}

func (s *sampler) begin(p *Span) {
	s.begun++
	s.write().begin(p)
}

// update is told of a change of an open span (before is its value
// before the change).
func (s *sampler) update(before, p *Span) { s.write().update(before, p) }

// changed is told of a change of an ended span.
func (s *sampler) changed(before, p *Span) { s.write().changed(before, p) }

// finish folds span p, which has just ended, into the totals, and keeps
// or drops it.
func (s *sampler) finish(r *Recording, p *Span) {
	s.write().finish(p)
	if r.pending == nil {
		if r.kept() >= s.limit {
			s.thin(r)
		}
		return
	}
	if _, ok := r.pending[p.ID]; !ok {
		return
	}
	delete(r.pending, p.ID)
	keep := s.wanted[p.ID] || s.sampled(p) || p.Status != StatusOK
	delete(s.wanted, p.ID)
	if !keep {
		s.dropped++
		return
	}
	if _, open := r.pending[p.Parent]; open {
		s.wanted[p.Parent] = true
	}
	// Spans end nearly in ID order: insert from the end.
	i := len(r.spans)
	for i > r.direct && r.spans[i-1].ID > p.ID {
		i--
	}
	r.spans = slices.Insert(r.spans, i, p)
	if i < r.firstOpen {
		r.firstOpen++
	}
	if len(r.spans) >= s.limit {
		s.thin(r)
	}
}

// thin halves the sample: k doubles, and the ended spans whose ID is not
// a multiple of it go, except failed spans (while they are under half
// the cap) and the parents of spans that stay. Open spans stay. From
// then on new spans wait in r.pending until they end.
func (s *sampler) thin(r *Recording) {
	s.every *= 2
	fromSlab := r.slab != nil
	if fromSlab { // the first thinning: from here on spans are kept by pointer
		r.spans = make([]*Span, r.slab.n)
		r.slab.pointers(r.spans)
		r.slab = nil
	}
	if r.pending == nil {
		r.pending = map[SpanID]*Span{}
		s.wanted = map[SpanID]bool{}
	}
	failed := 0
	for _, p := range r.spans {
		if !p.Open() && p.Status != StatusOK {
			failed++
		}
	}
	keepFailed := failed < s.max/2
	need := map[SpanID]bool{}
	stays := make([]bool, len(r.spans))
	for i := len(r.spans) - 1; i >= 0; i-- { // children after parents
		p := r.spans[i]
		stays[i] = p.Open() || need[p.ID] || s.sampled(p) || (keepFailed && p.Status != StatusOK)
		if stays[i] && p.Parent != 0 {
			need[p.Parent] = true
		}
	}
	out := r.spans[:0]
	for i, p := range r.spans {
		if stays[i] && fromSlab {
			// a copy: the slabs go, once no snapshot holds them
			c := new(Span)
			*c = *p
			p = c
		}
		if stays[i] {
			out = append(out, p)
		} else {
			s.dropped++
		}
	}
	clear(r.spans[len(out):]) // let the dropped spans go
	r.spans = out
	r.direct = 0
	for r.direct < len(r.spans) && r.spans[r.direct].ID == SpanID(r.direct+1) {
		r.direct++
	}
	r.firstOpen = 0
	for r.firstOpen < len(r.spans) && !r.spans[r.firstOpen].Open() {
		r.firstOpen++
	}
	s.limit = max(s.max, len(r.spans)+s.max/2)
	for id := range need { // parents still open: keep them when they end
		if _, open := r.pending[id]; open {
			s.wanted[id] = true
		}
	}
}

// sampled reports whether ended span p is in a sample of one in
// s.every: by a hash of its key, not the key itself, so that a run whose
// calls repeat a pattern of IDs (every tenth call fans out) is not
// sampled in step with it. A span in the sample of one in 2k is in that
// of one in k, so thinning only removes.
func (s *sampler) sampled(p *Span) bool {
	x := uint64(sampleKey(p)) + 0x9e3779b97f4a7c15 // splitmix64
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return x%uint64(s.every) == 0
}

// sampleKey is what decides whether an ended span is in the sample: its
// parent's ID if it has one, so that a tool call's requests are kept or
// dropped with it, and a kept fan-out keeps its shape.
func sampleKey(p *Span) SpanID {
	if p.Parent != 0 {
		return p.Parent
	}
	return p.ID
}

// sampling describes the sample for a snapshot of kept spans, and marks
// the totals shared; nil while nothing was dropped.
func (s *sampler) sampling(kept int, events *eventSample, keptEvents int) *Sampling {
	if s.dropped == 0 && !events.dropped() {
		return nil
	}
	s.shared = true
	sm := &Sampling{Spans: s.begun, Kept: kept, MaxSpans: s.max, Every: s.every, Totals: s.totals}
	if events.dropped() {
		events.fill(sm, keptEvents)
	}
	return sm
}
