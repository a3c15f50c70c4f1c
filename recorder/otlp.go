package recorder

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"time"
)

// The JSON shapes of OTLP/JSON traces (opentelemetry-proto's
// ExportTraceServiceRequest in its JSON mapping: camelCase names, 64-bit
// integers as strings, trace and span IDs as hex).
type (
	otlpResource struct {
		Attributes []otlpKeyValue `json:"attributes"`
	}
	otlpScope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	otlpSpan struct {
		TraceID           string         `json:"traceId"`
		SpanID            string         `json:"spanId"`
		ParentSpanID      string         `json:"parentSpanId,omitempty"`
		Name              string         `json:"name"`
		Kind              int            `json:"kind"`
		StartTimeUnixNano string         `json:"startTimeUnixNano"`
		EndTimeUnixNano   string         `json:"endTimeUnixNano"`
		Attributes        []otlpKeyValue `json:"attributes"`
		Events            []otlpEvent    `json:"events,omitempty"`
		Status            otlpStatus     `json:"status"`
	}
	otlpEvent struct {
		TimeUnixNano string         `json:"timeUnixNano"`
		Name         string         `json:"name"`
		Attributes   []otlpKeyValue `json:"attributes,omitempty"`
	}
	otlpStatus struct {
		Code    int    `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}
	otlpKeyValue struct {
		Key   string    `json:"key"`
		Value otlpValue `json:"value"`
	}
	otlpValue struct {
		StringValue *string  `json:"stringValue,omitempty"`
		IntValue    *string  `json:"intValue,omitempty"`
		DoubleValue *float64 `json:"doubleValue,omitempty"`
	}
)

// OTLP span kinds and status codes.
const (
	otlpKindServer  = 2
	otlpKindClient  = 3
	otlpStatusError = 2
)

func otlpString(k, v string) otlpKeyValue { return otlpKeyValue{k, otlpValue{StringValue: &v}} }
func otlpInt(k string, v int64) otlpKeyValue {
	s := strconv.FormatInt(v, 10)
	return otlpKeyValue{k, otlpValue{IntValue: &s}}
}
func otlpDouble(k string, v float64) otlpKeyValue { return otlpKeyValue{k, otlpValue{DoubleValue: &v}} }

// otlpIDs derives trace and span IDs from the recording's creation time and
// a span ID, so that exporting the same recording twice gives the same
// IDs and two recordings do not collide.
type otlpIDs struct{ seed string }

func (o otlpIDs) hash(what string, id SpanID, n int) string {
	sum := sha256.Sum256([]byte(o.seed + "/" + what + "/" + strconv.FormatInt(int64(id), 10)))
	if sum[0] == 0 {
		sum[0] = 1 // an all-zero ID is invalid; a leading non-zero byte rules it out
	}
	return hex.EncodeToString(sum[:n])
}
func (o otlpIDs) trace(root SpanID) string { return o.hash("trace", root, 16) }
func (o otlpIDs) span(id SpanID) string    { return o.hash("span", id, 8) }

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
// starts and the span's notifications are span events. Times are
// Meta.Created plus the offsets. IDs are hex, derived from Meta.Created
// and span IDs, so the same recording always exports the same IDs.
func WriteOTLP(w io.Writer, snap *Snapshot) error {
	if snap == nil {
		snap = &Snapshot{}
	}
	ids := otlpIDs{seed: snap.Meta.Created.UTC().Format(time.RFC3339Nano) + "/" + snap.Meta.Title}
	byID := make(map[SpanID]*Span, len(snap.Spans))
	for _, s := range snap.Spans {
		byID[s.ID] = s
	}
	// root follows parents up to the top; a missing or cyclic parent
	// stops the walk.
	root := func(s *Span) SpanID {
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
	events := map[SpanID][]Event{}
	for _, e := range snap.Events {
		if _, ok := byID[e.Span]; ok && e.Span != 0 {
			events[e.Span] = append(events[e.Span], e)
		}
	}
	base := snap.Meta.Created.UnixNano()
	at := func(d time.Duration) string { return strconv.FormatInt(base+int64(d), 10) }

	spans := make([]otlpSpan, 0, len(snap.Spans))
	for _, s := range snap.Spans {
		if s.Received == Unset {
			continue
		}
		end := max(spanEnd(snap, s), s.Received) // never before the start
		o := otlpSpan{
			TraceID:           ids.trace(root(s)),
			SpanID:            ids.span(s.ID),
			Name:              s.Method,
			Kind:              otlpKindServer,
			StartTimeUnixNano: at(s.Received),
			EndTimeUnixNano:   at(end),
		}
		if s.Direction == Outgoing {
			o.Kind = otlpKindClient
		}
		if _, ok := byID[s.Parent]; ok && s.Parent != 0 && s.Parent != s.ID {
			o.ParentSpanID = ids.span(s.Parent)
		}
		if s.Name != "" {
			o.Name += " " + s.Name
		}
		attr := []otlpKeyValue{otlpString("mcp.method.name", s.Method)}
		if s.Session != "" {
			attr = append(attr, otlpString("mcp.session.id", s.Session))
		}
		if snap.Meta.Protocol != "" {
			attr = append(attr, otlpString("mcp.protocol.version", snap.Meta.Protocol))
		}
		if s.RequestID != "" {
			attr = append(attr, otlpString("jsonrpc.request.id", s.RequestID))
		}
		if s.Kind == KindTool {
			attr = append(attr, otlpString("gen_ai.operation.name", "execute_tool"))
			if s.Name != "" {
				attr = append(attr, otlpString("gen_ai.tool.name", s.Name))
			}
		}
		status := string(s.Status)
		if s.Open() {
			status = "open"
		}
		attr = append(attr,
			otlpString("fanout.direction", string(s.Direction)),
			otlpString("fanout.kind", string(s.Kind)),
			otlpString("fanout.status", status),
			otlpInt("fanout.span_id", int64(s.ID)))
		if s.Round > 0 {
			attr = append(attr, otlpInt("fanout.round", int64(s.Round)))
		}
		if s.Direction == Incoming && !s.Open() {
			attr = append(attr,
				otlpDouble("fanout.queue_ms", ms(s.QueueTime())),
				otlpDouble("fanout.serve_ms", ms(s.ServeTime())))
		}
		if !s.Open() {
			attr = append(attr, otlpDouble("fanout.total_ms", ms(s.Total())))
		}
		if s.Status != StatusOK && !s.Open() {
			attr = append(attr, otlpString("error.type", status))
			o.Status = otlpStatus{Code: otlpStatusError, Message: s.Error}
			if o.Status.Message == "" {
				o.Status.Message = status
			}
		}
		o.Attributes = attr
		if s.Direction == Incoming {
			if s.Queued != Unset {
				o.Events = append(o.Events, otlpEvent{TimeUnixNano: at(s.Queued), Name: "queued"})
			}
			if s.Serving != Unset {
				o.Events = append(o.Events, otlpEvent{TimeUnixNano: at(s.Serving), Name: "serving",
					Attributes: []otlpKeyValue{otlpDouble("fanout.queue_ms", ms(s.QueueTime()))}})
			}
		}
		for _, e := range events[s.ID] {
			name := e.Method
			if name == "" {
				name = string(e.Kind)
			}
			ev := otlpEvent{TimeUnixNano: at(e.At), Name: name, Attributes: []otlpKeyValue{otlpString("fanout.event.kind", string(e.Kind))}}
			if e.Text != "" {
				ev.Attributes = append(ev.Attributes, otlpString("fanout.event.text", e.Text))
			}
			o.Events = append(o.Events, ev)
		}
		spans = append(spans, o)
	}

	resource := []otlpKeyValue{otlpString("service.name", "fanout-inspector")}
	if snap.Meta.Inspector != "" {
		resource = append(resource, otlpString("service.version", snap.Meta.Inspector))
	}
	if snap.Meta.Title != "" {
		resource = append(resource, otlpString("fanout.title", snap.Meta.Title))
	}
	if snap.Meta.Target != "" {
		resource = append(resource, otlpString("fanout.target", snap.Meta.Target))
	}
	if snap.Meta.Server != "" {
		resource = append(resource, otlpString("fanout.server", snap.Meta.Server))
	}
	// Written piece by piece, one span a line, so that a large recording
	// is never held twice in memory.
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := newLineEncoder(bw)
	bw.WriteString(`{"resourceSpans":[{"resource":`)
	if err := enc.encode(otlpResource{Attributes: resource}); err != nil {
		return fmt.Errorf("write otlp: %w", err)
	}
	bw.WriteString(`,"scopeSpans":[{"scope":`)
	enc.encode(otlpScope{Name: "github.com/fanout-inspector/inspector/recorder", Version: snap.Meta.Inspector})
	bw.WriteString(`,"spans":[`)
	for i := range spans {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		if err := enc.encode(&spans[i]); err != nil {
			return fmt.Errorf("write otlp: span %s: %w", spans[i].Name, err)
		}
	}
	bw.WriteString("\n]}]}]}")
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write otlp: %w", err)
	}
	return nil
}
