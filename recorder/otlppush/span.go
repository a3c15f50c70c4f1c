package otlppush

import (
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/fanout-inspector/inspector/recorder"
)

// wantedIDs is what the ID generator hands the SDK for the span being
// started: the IDs the file export gives that span.
type wantedIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

type wantedKey struct{}

// idGenerator gives each span the IDs put in its context by [pushSpan],
// so that the pushed span has the identity [recorder.TraceIDs] derives
// (the same as in the OTLP file export and the traceparent on the wire)
// instead of random ones.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	w, _ := ctx.Value(wantedKey{}).(wantedIDs)
	return w.trace, w.span
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	w, _ := ctx.Value(wantedKey{}).(wantedIDs)
	return w.span
}

// lineage is what the worker knows of a span's place in its trace.
type lineage struct {
	trace  trace.TraceID
	parent trace.SpanID // zero for a root
	remote bool         // the parent is the server's span, named by _meta.traceparent
	// ours is the recorded parent when the server's span took its place:
	// the file export links it, and so does the push.
	ours trace.SpanID
}

// lineageOf finds the trace of s (that of the root its parents lead to)
// and its parent: s.Parent when that span exists, or else, for a request
// the server sent, the server's own span named by a traceparent in its
// params' _meta when it belongs to the same trace.
func (p *Push) lineageOf(s *recorder.Span) lineage {
	root := s.ID
	for hops := 0; hops < 64; hops++ { // a cyclic parent stops the walk
		parent, ok := p.rec.ParentOf(root)
		if !ok || parent == 0 || parent == root {
			break
		}
		if _, ok := p.rec.ParentOf(parent); !ok {
			break
		}
		root = parent
	}
	l := lineage{trace: p.ids.Trace(root)}
	if _, ok := p.rec.ParentOf(s.Parent); s.Parent != 0 && s.Parent != s.ID && ok {
		l.parent = p.ids.Span(s.Parent)
	}
	if s.Direction == recorder.Incoming {
		if tid, sid, ok := traceparentOf(s.Params); ok && tid == l.trace {
			if l.parent != sid {
				l.ours = l.parent
			}
			l.parent, l.remote = sid, true
		}
	}
	return l
}

// traceparentOf reads the W3C traceparent a server put in params' _meta
// (SEP-414), with the parser the file export uses.
func traceparentOf(params json.RawMessage) (trace.TraceID, trace.SpanID, bool) {
	tc, ok := recorder.TraceContextOf(params)
	if !ok {
		return trace.TraceID{}, trace.SpanID{}, false
	}
	tid, sid, err := recorder.ParseTraceparent(tc.Traceparent)
	if err != nil {
		return trace.TraceID{}, trace.SpanID{}, false
	}
	return tid, sid, true
}

// callInfo is what a tool call's rounds tell about it: whether it had
// any (then the rounds carry the JSON-RPC ids), and the fulfilment
// events between them.
type callInfo struct {
	hasRounds   bool
	fulfilments []fulfilment
}

type fulfilment struct {
	at    time.Duration
	round int
	took  time.Duration
}

// pushSpan starts and ends s in the SDK, with the name, kind, times,
// attributes, events and status the OTLP file export (recorder/export's
// WriteOTLP) gives it. next is the next round of a round span (nil
// otherwise); call describes the rounds of a tool call.
func (p *Push) pushSpan(s *recorder.Span, next *recorder.Span, call callInfo, events []recorder.Event) {
	if s.Received == recorder.Unset {
		return
	}
	created := p.created
	at := func(d time.Duration) time.Time { return created.Add(d) }
	end := max(s.Answered, s.Received)
	if s.Answered == recorder.Unset {
		end = s.Received
	}
	l := p.lineageOf(s)
	ctx := context.WithValue(context.Background(), wantedKey{}, wantedIDs{trace: l.trace, span: p.ids.Span(s.ID)})
	if l.parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: l.trace, SpanID: l.parent, TraceFlags: trace.FlagsSampled, Remote: true,
		}))
	}

	name := s.Method
	if s.Name != "" {
		name += " " + s.Name
	}
	kind := trace.SpanKindServer
	if s.Direction == recorder.Outgoing {
		kind = trace.SpanKindClient
	}
	status := s.Status.String()
	if s.Open() {
		status = "open"
	}
	meta := p.meta()
	attrs := make([]attribute.KeyValue, 0, 16)
	attrs = append(attrs, attribute.String("mcp.method.name", s.Method))
	if s.Session != "" {
		if meta.Protocol >= "2026-07-28" { // such sessions have no session id
			attrs = append(attrs, attribute.String("fanout.session", s.Session))
		} else {
			attrs = append(attrs, attribute.String("mcp.session.id", s.Session))
		}
	}
	if meta.Protocol != "" {
		attrs = append(attrs, attribute.String("mcp.protocol.version", meta.Protocol))
	}
	if s.RequestID != "" && !call.hasRounds {
		attrs = append(attrs, attribute.String("jsonrpc.request.id", s.RequestID))
	}
	if s.Kind == recorder.KindTool {
		attrs = append(attrs, attribute.String("gen_ai.operation.name", "execute_tool"))
	}
	if (s.Kind == recorder.KindTool || s.Kind == recorder.KindRound) && s.Name != "" {
		attrs = append(attrs, attribute.String("gen_ai.tool.name", s.Name))
	}
	attrs = append(attrs,
		attribute.String("fanout.direction", s.Direction.String()),
		attribute.String("fanout.kind", s.Kind.String()),
		attribute.String("fanout.status", status),
		attribute.Int64("fanout.span_id", int64(s.ID)))
	if s.Round > 0 {
		attrs = append(attrs, attribute.Int64("fanout.round", int64(s.Round)))
	}
	if s.InputKey != "" {
		attrs = append(attrs, attribute.String("fanout.input_key", s.InputKey))
	}
	if s.Outcome != 0 {
		attrs = append(attrs, attribute.String("fanout.outcome", s.Outcome.String()))
	}
	if s.InputRequests > 0 {
		attrs = append(attrs, attribute.Int64("fanout.input_requests", int64(s.InputRequests)))
	}
	if f, ok := recorder.FulfilmentTime(s, next); ok {
		attrs = append(attrs, attribute.Float64("fanout.fulfilment_ms", ms(f)))
	}
	if s.Stalled > 0 {
		attrs = append(attrs, attribute.Float64("fanout.stalled_ms", ms(s.Stalled)))
	}
	if s.Direction == recorder.Incoming && !s.Open() {
		attrs = append(attrs,
			attribute.Float64("fanout.handoff_ms", ms(s.HandoffTime())),
			attribute.Float64("fanout.queue_ms", ms(s.QueueTime())),
			attribute.Float64("fanout.serve_ms", ms(s.ServeTime())))
	}
	if !s.Open() {
		attrs = append(attrs, attribute.Float64("fanout.total_ms", ms(s.Total())))
	}
	failed := s.Status != recorder.StatusOK && !s.Open()
	if failed {
		attrs = append(attrs, attribute.String("error.type", status))
	}

	opts := []trace.SpanStartOption{trace.WithSpanKind(kind), trace.WithTimestamp(at(s.Received)), trace.WithAttributes(attrs...)}
	if l.ours.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: l.trace, SpanID: l.ours, TraceFlags: trace.FlagsSampled,
		})}))
	}
	_, span := p.tracer.Start(ctx, name, opts...)
	if s.Stalled > 0 {
		when := s.Received
		if s.Direction == recorder.Outgoing {
			when = s.Answered
		}
		span.AddEvent("stalled", trace.WithTimestamp(at(when)),
			trace.WithAttributes(attribute.Float64("fanout.stalled_ms", ms(s.Stalled))))
	}
	for _, f := range call.fulfilments {
		span.AddEvent("fulfilment", trace.WithTimestamp(at(f.at)), trace.WithAttributes(
			attribute.Int64("fanout.round", int64(f.round)), attribute.Float64("fanout.fulfilment_ms", ms(f.took))))
	}
	if s.Direction == recorder.Incoming {
		if s.Queued != recorder.Unset {
			span.AddEvent("queued", trace.WithTimestamp(at(s.Queued)))
		}
		if s.Serving != recorder.Unset {
			span.AddEvent("serving", trace.WithTimestamp(at(s.Serving)),
				trace.WithAttributes(attribute.Float64("fanout.queue_ms", ms(s.QueueTime()))))
		}
	}
	for _, e := range events {
		en := e.Method
		if en == "" {
			en = string(e.Kind)
		}
		ea := []attribute.KeyValue{attribute.String("fanout.event.kind", string(e.Kind))}
		if e.Text != "" {
			ea = append(ea, attribute.String("fanout.event.text", e.Text))
		}
		span.AddEvent(en, trace.WithTimestamp(at(e.At)), trace.WithAttributes(ea...))
	}
	if failed {
		msg := s.Error
		if msg == "" {
			msg = status
		}
		span.SetStatus(codes.Error, msg)
	}
	span.End(trace.WithTimestamp(at(end)))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
