package timeline

import (
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// settledSpans walks the snapshots of a live recording as it grows,
// handing each span over once, when it is settled: whatever the caller
// derives from it is final. It rests on the recorder's promise that an
// answered span never changes (the recorder changes a copy) and that a
// later snapshot of the same recording holds it at the same place: the
// spans still in flight, which are few, are looked at again each time.
// So a frame costs the new and open spans, not all of them.
type settledSpans struct {
	created  time.Time
	lo, hi   int            // the first and last span settled
	loS, hiS *recorder.Span // and what they were, to tell the same recording
	scanned  int            // spans looked at
	waiting  []int32        // spans looked at and not settled yet, in order
}

// walk hands settle the spans of snap not settled yet, in order; settle
// reports whether the span is settled (it will not be handed over
// again). When snap is not a later snapshot of the spans walked so far
// (another recording, or another part of it), walk starts over, calling
// restart first.
func (w *settledSpans) walk(snap *recorder.Snapshot, restart func(), settle func(i int, s *recorder.Span) bool) {
	spans := snap.Spans
	if w.scanned > 0 && (!snap.Meta.Created.Equal(w.created) || len(spans) < w.scanned ||
		w.loS != nil && (spans[w.lo] != w.loS || spans[w.hi] != w.hiS)) {
		*w = settledSpans{waiting: w.waiting[:0]}
	}
	if w.scanned == 0 {
		w.created = snap.Meta.Created
		restart()
	}
	try := func(i int) bool {
		if !settle(i, spans[i]) {
			return false
		}
		if w.loS == nil || i < w.lo {
			w.lo, w.loS = i, spans[i]
		}
		if w.hiS == nil || i > w.hi {
			w.hi, w.hiS = i, spans[i]
		}
		return true
	}
	keep := w.waiting[:0]
	for _, i := range w.waiting {
		if !try(int(i)) {
			keep = append(keep, i)
		}
	}
	w.waiting = keep
	for ; w.scanned < len(spans); w.scanned++ {
		if !try(w.scanned) {
			w.waiting = append(w.waiting, int32(w.scanned))
		}
	}
}

// each calls fn with every span of snap walked and not settled.
func (w *settledSpans) each(snap *recorder.Snapshot, fn func(s *recorder.Span)) {
	for _, i := range w.waiting {
		fn(snap.Spans[i])
	}
}
