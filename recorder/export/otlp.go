package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// OTLP span kinds and status codes.
const (
	otlpKindServer  = 2
	otlpKindClient  = 3
	otlpStatusError = 2
)

// otlpAttr is one attribute of an OTLP span, event or resource: a string,
// an integer or a double.
type otlpAttr struct {
	key  string
	kind byte // 's', 'i' or 'd'
	s    string
	i    int64
	d    float64
}

// otlpResource is the recording's resource, as every OTLP export gives it
// ([recorder.ResourceAttributes]).
func otlpResource(m recorder.Meta) []otlpAttr {
	var attrs []otlpAttr
	for _, kv := range recorder.ResourceAttributes(m) {
		attrs = append(attrs, otlpString(kv[0], kv[1]))
	}
	return attrs
}

func otlpString(k, v string) otlpAttr         { return otlpAttr{key: k, kind: 's', s: v} }
func otlpInt(k string, v int64) otlpAttr      { return otlpAttr{key: k, kind: 'i', i: v} }
func otlpDouble(k string, v float64) otlpAttr { return otlpAttr{key: k, kind: 'd', d: v} }
func otlpEventAttr(k, v string) []otlpAttr    { return []otlpAttr{otlpString(k, v)} }
func otlpQueueAttr(queueMS float64) []otlpAttr {
	return []otlpAttr{otlpDouble("fanout.queue_ms", queueMS)}
}

// appendOTLPAttrs renders attributes as an OTLP/JSON KeyValue list.
func appendOTLPAttrs(b []byte, attrs []otlpAttr) []byte {
	b = append(b, '[')
	for i, a := range attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendJSONString(b, a.key)
		switch a.kind {
		case 's':
			b = append(b, `,"value":{"stringValue":`...)
			b = appendJSONString(b, a.s)
		case 'i':
			b = append(b, `,"value":{"intValue":"`...)
			b = strconv.AppendInt(b, a.i, 10)
			b = append(b, '"')
		default:
			b = append(b, `,"value":{"doubleValue":`...)
			b = appendJSONFloat(b, a.d)
		}
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// appendJSONFloat writes v as encoding/json would.
func appendJSONFloat(b []byte, v float64) []byte {
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) || math.IsNaN(v) || math.IsInf(v, 0) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return append(b, '0') // JSON has no NaN or infinity
		}
		out, _ := json.Marshal(v)
		return append(b, out...)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// WriteOTLP writes snap as OTLP/JSON traces (an ExportTraceServiceRequest)
// that Jaeger's "Upload JSON" and any OTLP/HTTP JSON receiver accept.
//
// Each tool call is the root of a trace whose children are the
// server→client requests it caused; every other request without a parent
// is a trace of its own. Outgoing requests are CLIENT spans, incoming ones
// SERVER spans. Attributes follow the OpenTelemetry MCP semantic
// conventions (mcp.method.name, mcp.session.id, mcp.protocol.version,
// jsonrpc.request.id, gen_ai.tool.name, gen_ai.operation.name,
// error.type) plus fanout.* attributes for the phases (fanout.queue_ms,
// fanout.serve_ms, fanout.status); the "queued" and "serving" phase
// starts and the span's notifications are span events. A server request
// whose _meta carries a W3C traceparent of one of the recording's traces
// (the inspector's own, propagated by the server) has the server's span
// it names as its parent, and its recorded parent as a link. Times are
// Meta.Created plus the offsets. IDs are hex, derived from Meta.Created
// and span IDs, so the same recording always exports the same IDs.
//
// The JSON is rendered by hand, one span a line (a recording of 100,000
// requests exports in well under a second).
func WriteOTLP(w io.Writer, snap *recorder.Snapshot) error {
	if snap == nil {
		snap = &recorder.Snapshot{}
	}
	ot := newOTLPTraces(snap)
	bw := bufio.NewWriterSize(w, 64<<10)
	b := ot.appendHeader(nil)
	bw.Write(b)
	first := true
	for _, s := range snap.Spans {
		if s.Received == recorder.Unset {
			continue
		}
		b = b[:0]
		if !first {
			b = append(b, ',')
		}
		first = false
		b = ot.appendSpan(b, s)
		if _, err := bw.Write(b); err != nil {
			return fmt.Errorf("write otlp: %w", err)
		}
	}
	bw.WriteString("\n]}]}]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write otlp: %w", err)
	}
	return nil
}

// otlpEvent is one span event of an OTLP span.
type otlpEvent struct {
	at    time.Duration
	name  string
	attrs []otlpAttr
}

// otlpTraces holds what the OTLP export of one recording looks up per span.
type otlpTraces struct {
	snap        *recorder.Snapshot
	ids         recorder.TraceIDs
	byID        map[recorder.SpanID]*recorder.Span
	traceOf     map[recorder.SpanID]string // root → trace ID
	remote      map[recorder.SpanID]remoteParent
	next        map[recorder.SpanID]*recorder.Span
	fulfilments map[recorder.SpanID][]*recorder.Span // call → its rounds followed by a retry
	hasRounds   map[recorder.SpanID]bool
	sessionless bool // sessions of protocol 2026-07-28 and later have no session id
	events      map[recorder.SpanID][]recorder.Event
	attr        []otlpAttr  // reused per span
	evs         []otlpEvent // reused per span
}

// newOTLPTraces indexes snap's spans, rounds, remote parents and events.
func newOTLPTraces(snap *recorder.Snapshot) *otlpTraces {
	ot := &otlpTraces{
		snap:        snap,
		ids:         recorder.TraceIDsOf(snap.Meta),
		byID:        make(map[recorder.SpanID]*recorder.Span, len(snap.Spans)),
		traceOf:     map[recorder.SpanID]string{},
		sessionless: snap.Meta.Protocol >= "2026-07-28",
		events:      map[recorder.SpanID][]recorder.Event{},
	}
	for _, s := range snap.Spans {
		ot.byID[s.ID] = s
	}
	ot.remote = remoteParents(snap, ot.ids, ot.root)
	ot.findRounds()
	for _, e := range snap.Events {
		// an event after its span ended (the client's cancellation of a
		// request already answered) is no event of the span: a span's
		// events fall within it, and the live push (otlppush) has sent
		// the span by then
		if s, ok := ot.byID[e.Span]; ok && e.Span != 0 && (s.Open() || e.At <= s.Answered) {
			ot.events[e.Span] = append(ot.events[e.Span], e)
		}
	}
	return ot
}

// root follows parents up to the top; a missing or cyclic parent stops
// the walk.
func (ot *otlpTraces) root(s *recorder.Span) recorder.SpanID {
	id := s.ID
	for hops := 0; hops < 64; hops++ {
		p, ok := ot.byID[ot.byID[id].Parent]
		if !ok {
			break
		}
		id = p.ID
	}
	return id
}

// findRounds notes the calls that have rounds and the rounds after which
// the client fulfilled input. A multi-round-trip call is not one JSON-RPC
// request: its rounds carry the ids, and its events say when the client
// fulfilled each.
func (ot *otlpTraces) findRounds() {
	ot.next = recorder.NextRounds(ot.snap)
	ot.fulfilments = map[recorder.SpanID][]*recorder.Span{}
	ot.hasRounds = map[recorder.SpanID]bool{}
	for _, s := range ot.snap.Spans {
		if s.Kind != recorder.KindRound {
			continue
		}
		ot.hasRounds[s.Parent] = true
		if _, ok := recorder.FulfilmentTime(s, ot.next[s.ID]); ok {
			ot.fulfilments[s.Parent] = append(ot.fulfilments[s.Parent], s)
		}
	}
}

// appendTime renders the time d after the recording's creation as OTLP's
// quoted nanoseconds.
func (ot *otlpTraces) appendTime(b []byte, d time.Duration) []byte {
	b = append(b, '"')
	b = strconv.AppendUint(b, otlpNanos(ot.snap.Meta.Created, d), 10)
	return append(b, '"')
}

// appendHeader renders the resource and the instrumentation scope, up to
// the opening of the span list.
func (ot *otlpTraces) appendHeader(b []byte) []byte {
	b = append(b, `{"resourceSpans":[{"resource":{"attributes":`...)
	b = appendOTLPAttrs(b, otlpResource(ot.snap.Meta))
	b = append(b, `},"scopeSpans":[{"scope":{"name":"github.com/fanout-inspector/inspector/recorder"`...)
	if ot.snap.Meta.Inspector != "" {
		b = append(b, `,"version":`...)
		b = appendJSONString(b, ot.snap.Meta.Inspector)
	}
	return append(b, `},"spans":[`...)
}

// spanStatus is the fanout.status of s: its status, or "open".
func spanStatus(s *recorder.Span) string {
	if s.Open() {
		return "open"
	}
	return s.Status.String()
}

// spanFailed reports whether s ended with an error status.
func spanFailed(s *recorder.Span) bool {
	return s.Status != recorder.StatusOK && !s.Open()
}

// appendSpan renders s as one line of the span list.
func (ot *otlpTraces) appendSpan(b []byte, s *recorder.Span) []byte {
	end := max(recorder.SpanEnd(ot.snap, s), s.Received) // never before the start
	name := s.Method
	if s.Name != "" {
		name += " " + s.Name
	}
	kind := otlpKindServer
	if s.Direction == recorder.Outgoing {
		kind = otlpKindClient
	}
	b = ot.appendIDs(b, s)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"kind":`...)
	b = strconv.AppendInt(b, int64(kind), 10)
	b = append(b, `,"startTimeUnixNano":`...)
	b = ot.appendTime(b, s.Received)
	b = append(b, `,"endTimeUnixNano":`...)
	b = ot.appendTime(b, end)
	b = append(b, `,"attributes":`...)
	b = appendOTLPAttrs(b, ot.spanAttrs(s))
	b = ot.appendEvents(b, ot.spanEvents(s))
	return appendOTLPStatus(b, s)
}

// appendIDs renders the opening of s with its trace, span and parent IDs,
// and the link to its recorded parent when the server's span is its
// parent.
func (ot *otlpTraces) appendIDs(b []byte, s *recorder.Span) []byte {
	r := ot.root(s)
	trace, ok := ot.traceOf[r]
	if !ok {
		trace = ot.ids.TraceHex(r)
		ot.traceOf[r] = trace
	}
	rp, fromServer := ot.remote[s.ID]
	if fromServer {
		trace = rp.trace
	}
	b = append(b, "\n{\"traceId\":\""...)
	b = append(b, trace...)
	b = append(b, `","spanId":"`...)
	b = append(b, ot.ids.SpanHex(s.ID)...)
	b = append(b, '"')
	_, ourParent := ot.byID[s.Parent]
	ourParent = ourParent && s.Parent != 0 && s.Parent != s.ID
	switch {
	case fromServer:
		// The server's span, which the server exports, is the
		// parent; ours (the tool call) is linked.
		b = append(b, `,"parentSpanId":"`...)
		b = append(b, rp.span...)
		b = append(b, '"')
		if p := ot.ids.SpanHex(s.Parent); ourParent && p != rp.span {
			b = append(b, `,"links":[{"traceId":"`...)
			b = append(b, ot.ids.TraceHex(r)...)
			b = append(b, `","spanId":"`...)
			b = append(b, p...)
			b = append(b, `"}]`...)
		}
	case ourParent:
		b = append(b, `,"parentSpanId":"`...)
		b = append(b, ot.ids.SpanHex(s.Parent)...)
		b = append(b, '"')
	}
	return b
}

// spanAttrs returns the attributes of s: the MCP and GenAI conventions'
// ones, then the fanout.* phases and outcome, then error.type.
func (ot *otlpTraces) spanAttrs(s *recorder.Span) []otlpAttr {
	status := spanStatus(s)
	attr := append(ot.attr[:0], otlpString("mcp.method.name", s.Method))
	if s.Session != "" {
		if ot.sessionless {
			attr = append(attr, otlpString("fanout.session", s.Session))
		} else {
			attr = append(attr, otlpString("mcp.session.id", s.Session))
		}
	}
	if ot.snap.Meta.Protocol != "" {
		attr = append(attr, otlpString("mcp.protocol.version", ot.snap.Meta.Protocol))
	}
	if s.RequestID != "" && !ot.hasRounds[s.ID] {
		attr = append(attr, otlpString("jsonrpc.request.id", s.RequestID))
	}
	if s.Kind == recorder.KindTool {
		attr = append(attr, otlpString("gen_ai.operation.name", "execute_tool"))
	}
	if (s.Kind == recorder.KindTool || s.Kind == recorder.KindRound) && s.Name != "" {
		attr = append(attr, otlpString("gen_ai.tool.name", s.Name))
	}
	attr = append(attr,
		otlpString("fanout.direction", s.Direction.String()),
		otlpString("fanout.kind", s.Kind.String()),
		otlpString("fanout.status", status),
		otlpInt("fanout.span_id", int64(s.ID)))
	if s.Round > 0 {
		attr = append(attr, otlpInt("fanout.round", int64(s.Round)))
	}
	if s.InputKey != "" {
		attr = append(attr, otlpString("fanout.input_key", s.InputKey))
	}
	if s.Outcome != 0 {
		attr = append(attr, otlpString("fanout.outcome", s.Outcome.String()))
	}
	if s.InputRequests > 0 {
		attr = append(attr, otlpInt("fanout.input_requests", int64(s.InputRequests)))
	}
	if f, ok := recorder.FulfilmentTime(s, ot.next[s.ID]); ok {
		attr = append(attr, otlpDouble("fanout.fulfilment_ms", ms(f)))
	}
	if s.Stalled > 0 {
		attr = append(attr, otlpDouble("fanout.stalled_ms", ms(s.Stalled)))
	}
	if s.InputTokens > 0 || s.OutputTokens > 0 { // answered by a model endpoint
		attr = append(attr, otlpInt("gen_ai.usage.input_tokens", int64(s.InputTokens)),
			otlpInt("gen_ai.usage.output_tokens", int64(s.OutputTokens)))
	}
	if s.Direction == recorder.Incoming && !s.Open() {
		attr = append(attr,
			otlpDouble("fanout.handoff_ms", ms(s.HandoffTime())),
			otlpDouble("fanout.queue_ms", ms(s.QueueTime())),
			otlpDouble("fanout.serve_ms", ms(s.ServeTime())))
	}
	if !s.Open() {
		attr = append(attr, otlpDouble("fanout.total_ms", ms(s.Total())))
	}
	if spanFailed(s) {
		attr = append(attr, otlpString("error.type", status))
	}
	ot.attr = attr
	return attr
}

// spanEvents returns the span events of s: its stall, its rounds'
// fulfilments, its queued and serving phase starts, its notifications.
func (ot *otlpTraces) spanEvents(s *recorder.Span) []otlpEvent {
	evs := ot.evs[:0]
	if s.Stalled > 0 {
		at := s.Received
		if s.Direction == recorder.Outgoing {
			at = s.Answered
		}
		evs = append(evs, otlpEvent{at: at, name: "stalled", attrs: []otlpAttr{otlpDouble("fanout.stalled_ms", ms(s.Stalled))}})
	}
	for _, r := range ot.fulfilments[s.ID] {
		f, _ := recorder.FulfilmentTime(r, ot.next[r.ID])
		evs = append(evs, otlpEvent{at: r.Answered, name: "fulfilment", attrs: []otlpAttr{
			otlpInt("fanout.round", int64(r.Round)), otlpDouble("fanout.fulfilment_ms", ms(f))}})
	}
	if s.Direction == recorder.Incoming {
		if s.Queued != recorder.Unset {
			evs = append(evs, otlpEvent{at: s.Queued, name: "queued"})
		}
		if s.Serving != recorder.Unset {
			evs = append(evs, otlpEvent{at: s.Serving, name: "serving", attrs: otlpQueueAttr(ms(s.QueueTime()))})
		}
	}
	for _, e := range ot.events[s.ID] {
		en := e.Method
		if en == "" {
			en = string(e.Kind)
		}
		ev := otlpEvent{at: e.At, name: en, attrs: otlpEventAttr("fanout.event.kind", string(e.Kind))}
		if e.Text != "" {
			ev.attrs = append(ev.attrs, otlpString("fanout.event.text", e.Text))
		}
		evs = append(evs, ev)
	}
	ot.evs = evs
	return evs
}

// appendEvents renders a span's events list, or nothing when it has none.
func (ot *otlpTraces) appendEvents(b []byte, evs []otlpEvent) []byte {
	if len(evs) == 0 {
		return b
	}
	b = append(b, `,"events":[`...)
	for i, ev := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"timeUnixNano":`...)
		b = ot.appendTime(b, ev.at)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, ev.name)
		if len(ev.attrs) > 0 {
			b = append(b, `,"attributes":`...)
			b = appendOTLPAttrs(b, ev.attrs)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendOTLPStatus renders the status of s, an error with its message if
// it failed, and closes the span.
func appendOTLPStatus(b []byte, s *recorder.Span) []byte {
	b = append(b, `,"status":{`...)
	if spanFailed(s) {
		msg := s.Error
		if msg == "" {
			msg = spanStatus(s)
		}
		b = append(b, `"code":`...)
		b = strconv.AppendInt(b, otlpStatusError, 10)
		b = append(b, `,"message":`...)
		b = appendJSONString(b, msg)
	}
	return append(b, "}}"...)
}

// otlpNanos is the time d after created in nanoseconds since 1970, as
// OTLP's unsigned fields want it: clamped to 0 .. MaxInt64, so that a zero
// or far-off created time, or a huge offset from a crafted file, never
// wraps around to a negative or overflowed number.
func otlpNanos(created time.Time, d time.Duration) uint64 {
	t := created.Add(d) // time.Time spans far more than int64 nanoseconds
	switch {
	case t.Before(time.Unix(0, 0)):
		return 0
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return uint64(t.UnixNano())
}
