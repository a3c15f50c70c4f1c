package recorder

// slabSpans is how many spans one slab holds: just under 128 KiB, so
// that with the allocator's 8-byte header a slab fills 16 pages exactly
// (a slab of 64 spans would go to the next size class, 12% more).
const slabSpans = 511

// spanSlabs hold a recording's spans by value while it keeps every one
// (before a sample's cap is reached, or with no cap): span i is slot i of
// the slabs, so that appending a span allocates nothing most of the time
// and needs no pointer of its own. A slot of an ended span is shared with
// snapshots and never written again: a change after the span ended puts
// the new value in moved instead.
type spanSlabs struct {
	slabs []*[slabSpans]Span
	n     int
	moved map[SpanID]*Span
}

// add stores v in the next slot and returns it.
func (s *spanSlabs) add(v *Span) *Span {
	if s.n%slabSpans == 0 {
		s.slabs = append(s.slabs, new([slabSpans]Span))
	}
	p := &s.slabs[s.n/slabSpans][s.n%slabSpans]
	*p = *v
	s.n++
	return p
}

// at returns span i.
func (s *spanSlabs) at(i int) *Span {
	p := &s.slabs[i/slabSpans][i%slabSpans]
	if s.moved != nil {
		if m := s.moved[p.ID]; m != nil {
			return m
		}
	}
	return p
}

// set makes p span i.
func (s *spanSlabs) set(i int, p *Span) {
	if s.moved == nil {
		s.moved = map[SpanID]*Span{}
	}
	s.moved[s.slabs[i/slabSpans][i%slabSpans].ID] = p
}

// pointers fills dst[:s.n] with the spans.
func (s *spanSlabs) pointers(dst []*Span) {
	for i := range s.n {
		dst[i] = &s.slabs[i/slabSpans][i%slabSpans]
	}
	for id, p := range s.moved {
		dst[id-1] = p
	}
}

// kept is how many spans the recording keeps (open ones past a sample's
// cap, which wait in pending, aside).
func (r *Recording) kept() int {
	if r.slab != nil {
		return r.slab.n
	}
	return len(r.spans)
}

// keptAt returns kept span i.
func (r *Recording) keptAt(i int) *Span {
	if r.slab != nil {
		return r.slab.at(i)
	}
	return r.spans[i]
}

// setKept makes p kept span i.
func (r *Recording) setKept(i int, p *Span) {
	if r.slab != nil {
		r.slab.set(i, p)
		return
	}
	r.spans[i] = p
}
