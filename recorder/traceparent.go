package recorder

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// TraceContext is the W3C trace context a request carries in its params'
// _meta under the unprefixed keys "traceparent" and "tracestate", as
// SEP-414 puts it on MCP requests.
type TraceContext struct {
	Traceparent string
	Tracestate  string
}

// TraceContextOf reads the trace context from a request's params as they
// were recorded ([Span.Params]); found is false when its _meta has no
// traceparent (a string). The value is not checked: see
// [ParseTraceparent].
func TraceContextOf(params json.RawMessage) (tc TraceContext, found bool) {
	if !bytes.Contains(params, []byte(`"traceparent"`)) {
		return TraceContext{}, false
	}
	var p struct {
		Meta struct {
			Traceparent any `json:"traceparent"`
			Tracestate  any `json:"tracestate"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return TraceContext{}, false
	}
	tc.Traceparent, found = p.Meta.Traceparent.(string)
	tc.Tracestate, _ = p.Meta.Tracestate.(string)
	if !found && p.Meta.Traceparent != nil {
		// Present but not a string: a value ParseTraceparent refuses.
		b, _ := json.Marshal(p.Meta.Traceparent)
		return TraceContext{Traceparent: string(b)}, true
	}
	return tc, found
}

// ParseTraceparent reads a W3C traceparent value
// ("00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>") as the Trace
// Context recommendation defines it: lowercase hex, neither ID all zeros,
// version ff refused; a later version may add fields after a dash, which
// are ignored. The error says what is wrong with it.
func ParseTraceparent(v string) (trace [16]byte, span [8]byte, err error) {
	const size = 55 // 2 + 1 + 32 + 1 + 16 + 1 + 2
	bad := func(why string) error {
		return fmt.Errorf("traceparent %q is not a W3C traceparent (version-traceid-parentid-flags, lowercase hex): %s", clip(v, 80), why)
	}
	if len(v) < size {
		return trace, span, bad(fmt.Sprintf("%d characters, want %d", len(v), size))
	}
	if v[2] != '-' || v[35] != '-' || v[52] != '-' {
		return trace, span, bad("the fields are not 2, 32, 16 and 2 hex digits separated by dashes")
	}
	for i := 0; i < size; i++ {
		if c := v[i]; c != '-' && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return trace, span, bad(fmt.Sprintf("%q at position %d is not a lowercase hex digit", c, i+1))
		}
	}
	switch version := v[:2]; {
	case version == "ff":
		return trace, span, bad("version ff is invalid")
	case version == "00" && len(v) != size:
		return trace, span, bad(fmt.Sprintf("version 00 has exactly %d characters, this has %d", size, len(v)))
	case len(v) > size && v[size] != '-':
		return trace, span, bad("the flags are not followed by a dash")
	}
	hex.Decode(trace[:], []byte(v[3:35]))
	hex.Decode(span[:], []byte(v[36:52]))
	if trace == ([16]byte{}) {
		return trace, span, bad("the trace id is all zeros")
	}
	if span == ([8]byte{}) {
		return trace, span, bad("the parent id is all zeros")
	}
	return trace, span, nil
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// TraceIDs returns the [TraceIDs] of the recording: those its exports
// will give its spans, known before a request is sent.
func (r *Recording) TraceIDs() TraceIDs {
	r.mu.Lock()
	defer r.mu.Unlock()
	return TraceIDsOf(r.meta)
}
