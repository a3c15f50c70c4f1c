package otlppush

import (
	"context"
	"slices"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/fanout-inspector/inspector/recorder"
)

// Bounds on what the worker holds back.
const (
	maxEventsPerSpan = 128  // the SDK keeps 128 events a span by default
	maxHeldRounds    = 8192 // rounds waiting for their call to end
	maxHeldEvents    = 1 << 16
	maxPending       = 256 // spans held before the providers are built
)

// worker turns the observer's queue into SDK spans. It runs on one
// goroutine, so its maps need no lock.
type worker struct {
	p       *Push
	built   bool
	pending []*recorder.Span // spans that ended before the providers were built

	events  map[recorder.SpanID][]recorder.Event // events of spans not pushed yet
	nEvents int
	rounds  map[recorder.SpanID][]*recorder.Span // ended rounds, by call, until the call ends
	nRounds int
}

// handle takes one item off the queue.
//
// The providers are built once the recording says what it is connected
// to — its resource names the server, its spans the protocol version —
// that is once the metadata has a protocol version (set when the
// session is up, after initialize or server/discover), or when spans
// pile up without one, or at Close.
func (w *worker) handle(it item) {
	if it.span == nil {
		e := it.event
		// An event that came after its span ended (a late notification)
		// was queued after the span itself, which has been pushed: it is
		// not held, so that such events cannot pile up.
		s := w.p.rec.Span(e.Span)
		late := s != nil && !s.Open() && e.At > s.Answered
		if s != nil && !late && len(w.events[e.Span]) < maxEventsPerSpan && w.nEvents < maxHeldEvents {
			w.events[e.Span] = append(w.events[e.Span], e)
			w.nEvents++
		}
		if e.Kind == recorder.EventConnection && !w.built && w.ready() {
			w.build()
		}
		return
	}
	if !w.built {
		w.pending = append(w.pending, it.span)
		if w.ready() {
			w.build()
		}
		return
	}
	w.process(it.span)
}

// ready reports whether the providers can be built: the metadata names
// the protocol, or too many spans wait. It takes a snapshot, which is
// cheap this early (a handshake's few spans).
func (w *worker) ready() bool {
	return len(w.pending) >= maxPending || w.p.rec.Snapshot().Meta.Protocol != ""
}

func (w *worker) build() {
	w.built = true
	w.p.build()
	pending := w.pending
	w.pending = nil
	for _, s := range pending {
		w.process(s)
	}
}

// process pushes s, holding a round back until its call ends: the
// round's fulfilment time needs the next round, and the call's
// attributes need to know it had rounds.
func (w *worker) process(s *recorder.Span) {
	if s.Kind == recorder.KindRound && s.Parent != 0 && w.nRounds < maxHeldRounds {
		w.rounds[s.Parent] = append(w.rounds[s.Parent], s)
		w.nRounds++
		return
	}
	var call callInfo
	if rs, ok := w.rounds[s.ID]; ok {
		delete(w.rounds, s.ID)
		w.nRounds -= len(rs)
		call.hasRounds = true
		w.emitRounds(rs, &call)
	}
	w.emit(s, nil, call)
}

// emitRounds pushes the rounds of one call, noting the fulfilments
// between them in call.
func (w *worker) emitRounds(rs []*recorder.Span, call *callInfo) {
	slices.SortFunc(rs, func(a, b *recorder.Span) int { return int(a.Round - b.Round) })
	for i, r := range rs {
		var next *recorder.Span
		if i+1 < len(rs) && rs[i+1].Round == r.Round+1 {
			next = rs[i+1]
		}
		if f, ok := recorder.FulfilmentTime(r, next); ok {
			call.fulfilments = append(call.fulfilments, fulfilment{at: r.Answered, round: int(r.Round), took: f})
		}
		w.emit(r, next, callInfo{})
	}
}

// emit hands one span to the SDK and a client request's duration to
// the histogram.
func (w *worker) emit(s *recorder.Span, next *recorder.Span, call callInfo) {
	evs := w.events[s.ID]
	delete(w.events, s.ID)
	w.nEvents -= len(evs)
	p := w.p
	if p.tracer == nil { // the exporters could not be built: counted as dropped
		return
	}
	p.pushSpan(s, next, call, evs)
	if p.hist == nil || s.Direction != recorder.Outgoing || s.Kind == recorder.KindRound || s.Open() {
		return
	}
	d, ok := recorder.CallDuration(s)
	if !ok {
		return
	}
	attrs := []attribute.KeyValue{attribute.String("mcp.method.name", s.Method)}
	if s.Kind == recorder.KindTool && s.Name != "" {
		attrs = append(attrs, attribute.String("gen_ai.tool.name", s.Name))
	}
	if s.Status != recorder.StatusOK {
		errType := s.Status.String()
		if s.ErrorCode != 0 {
			errType = strconv.FormatInt(s.ErrorCode, 10)
		}
		attrs = append(attrs, attribute.String("error.type", errType))
	}
	p.hist.Record(context.Background(), d.Seconds(), metric.WithAttributes(attrs...))
}

// finish pushes what is still held when the push closes: spans from
// before the providers were built, and rounds whose call never ended.
func (w *worker) finish() {
	if !w.built && len(w.pending) > 0 {
		w.build()
	}
	for call, rs := range w.rounds {
		delete(w.rounds, call)
		w.emitRounds(rs, &callInfo{})
	}
}
