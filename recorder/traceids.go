package recorder

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// TraceIDs derives the W3C trace and span IDs of a recording's spans from
// its creation time and the spans' IDs. The OTLP exports, the live OTLP
// push and the traceparent the engine puts in a request's _meta all use
// it, so that a span has one identity wherever it appears, and exporting
// the same recording twice gives the same IDs. The seed is Meta.Created
// alone (not the title, which may change after a request was sent).
type TraceIDs struct{ seed string }

// TraceIDsOf returns the IDs of the recording described by m.
func TraceIDsOf(m Meta) TraceIDs {
	return TraceIDs{seed: m.Created.UTC().Format(time.RFC3339Nano)}
}

func (t TraceIDs) hash(what string, id SpanID) [32]byte {
	var buf [80]byte // the seed is an RFC 3339 time: this holds it all, on the stack
	b := append(buf[:0], t.seed...)
	b = append(append(append(b, '/'), what...), '/')
	sum := sha256.Sum256(strconv.AppendInt(b, int64(id), 10))
	if sum[0] == 0 {
		sum[0] = 1 // an all-zero ID is invalid; a leading non-zero byte rules it out
	}
	return sum
}

// Trace returns the trace ID of the trace whose root is span root (a tool
// call, or a request with no parent).
func (t TraceIDs) Trace(root SpanID) [16]byte {
	sum := t.hash("trace", root)
	return [16]byte(sum[:16])
}

// Span returns the span ID of span id.
func (t TraceIDs) Span(id SpanID) [8]byte {
	sum := t.hash("span", id)
	return [8]byte(sum[:8])
}

// TraceHex and SpanHex are Trace and Span as lowercase hex, as OTLP/JSON
// and traceparent write them.
func (t TraceIDs) TraceHex(root SpanID) string { id := t.Trace(root); return hex.EncodeToString(id[:]) }

// SpanHex is [TraceIDs.Span] as lowercase hex.
func (t TraceIDs) SpanHex(id SpanID) string { s := t.Span(id); return hex.EncodeToString(s[:]) }

// Traceparent returns the W3C traceparent header value ("00-TRACE-SPAN-01")
// of span id in the trace rooted at root.
func (t TraceIDs) Traceparent(root, id SpanID) string {
	return FormatTraceparent(t.Trace(root), t.Span(id))
}

// FormatTraceparent writes a W3C traceparent ("00-TRACE-SPAN-01"), for a
// caller that has the trace ID already.
func FormatTraceparent(trace [16]byte, span [8]byte) string {
	var b [55]byte
	copy(b[:], "00-")
	hex.Encode(b[3:35], trace[:])
	b[35] = '-'
	hex.Encode(b[36:52], span[:])
	copy(b[52:], "-01")
	return string(b[:])
}

// ResourceAttributes are the OpenTelemetry resource attributes of the
// recording described by m, as key and value, in order: service.name,
// then service.version, fanout.title, fanout.target and fanout.server
// when known. The OTLP trace and metric exports and the live push all
// describe the run with them.
func ResourceAttributes(m Meta) [][2]string {
	attrs := [][2]string{{"service.name", "fanout-inspector"}}
	for _, kv := range [][2]string{
		{"service.version", m.Inspector}, {"fanout.title", m.Title},
		{"fanout.target", m.Target}, {"fanout.server", m.Server},
	} {
		if kv[1] != "" {
			attrs = append(attrs, kv)
		}
	}
	return attrs
}
