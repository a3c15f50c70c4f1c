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
	ids := recorder.TraceIDsOf(snap.Meta)
	byID := make(map[recorder.SpanID]*recorder.Span, len(snap.Spans))
	for _, s := range snap.Spans {
		byID[s.ID] = s
	}
	// root follows parents up to the top; a missing or cyclic parent
	// stops the walk.
	root := func(s *recorder.Span) recorder.SpanID {
		id := s.ID
		for hops := 0; hops < 64; hops++ {
			p, ok := byID[byID[id].Parent]
			if !ok {
				break
			}
			id = p.ID
		}
		return id
	}
	traceOf := map[recorder.SpanID]string{} // root → trace ID
	remote := remoteParents(snap, ids, root)
	// A multi-round-trip call is not one JSON-RPC request: its rounds
	// carry the ids, and its events say when the client fulfilled each.
	next := recorder.NextRounds(snap)
	fulfilments := map[recorder.SpanID][]*recorder.Span{} // call → its rounds followed by a retry
	hasRounds := map[recorder.SpanID]bool{}
	for _, s := range snap.Spans {
		if s.Kind != recorder.KindRound {
			continue
		}
		hasRounds[s.Parent] = true
		if _, ok := recorder.FulfilmentTime(s, next[s.ID]); ok {
			fulfilments[s.Parent] = append(fulfilments[s.Parent], s)
		}
	}
	// Sessions of protocol 2026-07-28 and later have no session id.
	sessionless := snap.Meta.Protocol >= "2026-07-28"
	events := map[recorder.SpanID][]recorder.Event{}
	for _, e := range snap.Events {
		if _, ok := byID[e.Span]; ok && e.Span != 0 {
			events[e.Span] = append(events[e.Span], e)
		}
	}
	appendTime := func(b []byte, d time.Duration) []byte {
		b = append(b, '"')
		b = strconv.AppendUint(b, otlpNanos(snap.Meta.Created, d), 10)
		return append(b, '"')
	}

	resource := otlpResource(snap.Meta)
	bw := bufio.NewWriterSize(w, 64<<10)
	b := []byte(`{"resourceSpans":[{"resource":{"attributes":`)
	b = appendOTLPAttrs(b, resource)
	b = append(b, `},"scopeSpans":[{"scope":{"name":"github.com/fanout-inspector/inspector/recorder"`...)
	if snap.Meta.Inspector != "" {
		b = append(b, `,"version":`...)
		b = appendJSONString(b, snap.Meta.Inspector)
	}
	b = append(b, `},"spans":[`...)
	bw.Write(b)

	type otlpEvent struct {
		at    time.Duration
		name  string
		attrs []otlpAttr
	}
	var attr []otlpAttr
	var evs []otlpEvent
	first := true
	for _, s := range snap.Spans {
		if s.Received == recorder.Unset {
			continue
		}
		end := max(recorder.SpanEnd(snap, s), s.Received) // never before the start
		r := root(s)
		trace, ok := traceOf[r]
		if !ok {
			trace = ids.TraceHex(r)
			traceOf[r] = trace
		}
		rp, fromServer := remote[s.ID]
		if fromServer {
			trace = rp.trace
		}
		name := s.Method
		if s.Name != "" {
			name += " " + s.Name
		}
		kind := otlpKindServer
		if s.Direction == recorder.Outgoing {
			kind = otlpKindClient
		}
		status := s.Status.String()
		if s.Open() {
			status = "open"
		}

		attr = append(attr[:0], otlpString("mcp.method.name", s.Method))
		if s.Session != "" {
			if sessionless {
				attr = append(attr, otlpString("fanout.session", s.Session))
			} else {
				attr = append(attr, otlpString("mcp.session.id", s.Session))
			}
		}
		if snap.Meta.Protocol != "" {
			attr = append(attr, otlpString("mcp.protocol.version", snap.Meta.Protocol))
		}
		if s.RequestID != "" && !hasRounds[s.ID] {
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
		if f, ok := recorder.FulfilmentTime(s, next[s.ID]); ok {
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
		failed := s.Status != recorder.StatusOK && !s.Open()
		if failed {
			attr = append(attr, otlpString("error.type", status))
		}

		evs = evs[:0]
		if s.Stalled > 0 {
			at := s.Received
			if s.Direction == recorder.Outgoing {
				at = s.Answered
			}
			evs = append(evs, otlpEvent{at: at, name: "stalled", attrs: []otlpAttr{otlpDouble("fanout.stalled_ms", ms(s.Stalled))}})
		}
		for _, r := range fulfilments[s.ID] {
			f, _ := recorder.FulfilmentTime(r, next[r.ID])
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
		for _, e := range events[s.ID] {
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

		b = b[:0]
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, "\n{\"traceId\":\""...)
		b = append(b, trace...)
		b = append(b, `","spanId":"`...)
		b = append(b, ids.SpanHex(s.ID)...)
		b = append(b, '"')
		_, ourParent := byID[s.Parent]
		ourParent = ourParent && s.Parent != 0 && s.Parent != s.ID
		switch {
		case fromServer:
			// The server's span, which the server exports, is the
			// parent; ours (the tool call) is linked.
			b = append(b, `,"parentSpanId":"`...)
			b = append(b, rp.span...)
			b = append(b, '"')
			if p := ids.SpanHex(s.Parent); ourParent && p != rp.span {
				b = append(b, `,"links":[{"traceId":"`...)
				b = append(b, ids.TraceHex(r)...)
				b = append(b, `","spanId":"`...)
				b = append(b, p...)
				b = append(b, `"}]`...)
			}
		case ourParent:
			b = append(b, `,"parentSpanId":"`...)
			b = append(b, ids.SpanHex(s.Parent)...)
			b = append(b, '"')
		}
		b = append(b, `,"name":`...)
		b = appendJSONString(b, name)
		b = append(b, `,"kind":`...)
		b = strconv.AppendInt(b, int64(kind), 10)
		b = append(b, `,"startTimeUnixNano":`...)
		b = appendTime(b, s.Received)
		b = append(b, `,"endTimeUnixNano":`...)
		b = appendTime(b, end)
		b = append(b, `,"attributes":`...)
		b = appendOTLPAttrs(b, attr)
		if len(evs) > 0 {
			b = append(b, `,"events":[`...)
			for i, ev := range evs {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"timeUnixNano":`...)
				b = appendTime(b, ev.at)
				b = append(b, `,"name":`...)
				b = appendJSONString(b, ev.name)
				if len(ev.attrs) > 0 {
					b = append(b, `,"attributes":`...)
					b = appendOTLPAttrs(b, ev.attrs)
				}
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, `,"status":{`...)
		if failed {
			msg := s.Error
			if msg == "" {
				msg = status
			}
			b = append(b, `"code":`...)
			b = strconv.AppendInt(b, otlpStatusError, 10)
			b = append(b, `,"message":`...)
			b = appendJSONString(b, msg)
		}
		b = append(b, "}}"...)
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
