package wire

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/fanout-inspector/inspector/recorder"
)

// Params is what the wire model reads from a request's or a
// notification's params.
type Params struct {
	// Name is a tools/call's tool.
	Name string
	// RequestState is the state a multi-round-trip retry carries back.
	RequestState string
	// Token is the progress token: in _meta for a request, at the top
	// for notifications/progress ("" for none).
	Token string
	// Trace is the trace ID of the traceparent in _meta, when HasTrace.
	Trace    [16]byte
	HasTrace bool
	// Protocol is the version a 2026-07-28 request names itself in _meta.
	Protocol string
}

// ReadParams reads raw, a message's params. What it cannot read it
// leaves empty: the wire model never fails on a peer's params. It reads
// the members in one pass ([Members]); a member given twice counts as
// its last, as a decoder keeps it.
func ReadParams(raw json.RawMessage) Params {
	var out Params
	if len(raw) == 0 || raw[0] != '{' || !mayHoldParams(raw) {
		return out
	}
	var topToken, metaToken any
	var traceparent string
	inMeta := func(name, value []byte, _ int) bool {
		switch string(name) { // a switch on a converted name allocates nothing
		case "progressToken":
			metaToken = scalar(value)
		case "traceparent":
			traceparent, _ = String(value)
		case "io.modelcontextprotocol/protocolVersion":
			out.Protocol, _ = String(value)
		}
		return true
	}
	ok := Members(raw, func(name, value []byte, _ int) bool {
		switch string(name) {
		case "name":
			out.Name, _ = String(value)
		case "requestState":
			out.RequestState, _ = String(value)
		case "progressToken":
			topToken = scalar(value)
		case "_meta":
			if value[0] == '{' {
				Members(value, inMeta)
			}
		}
		return true
	})
	if !ok {
		return Params{}
	}
	tok := metaToken
	if tok == nil {
		tok = topToken
	}
	out.Token = TokenString(tok)
	if traceparent != "" {
		if trace, _, err := recorder.ParseTraceparent(traceparent); err == nil {
			out.Trace, out.HasTrace = trace, true
		}
	}
	return out
}

// Token returns the progress token of raw params ("" for none), reading
// only when they can hold one.
func Token(raw json.RawMessage) string {
	if !bytes.Contains(raw, []byte(`"progressToken"`)) {
		return ""
	}
	return ReadParams(raw).Token
}

// TokenString is a progress token as the wire model keys it: a string
// as it is, a number as written.
func TokenString(tok any) string {
	switch v := tok.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case json.Number:
		return v.String()
	}
	return ""
}

// paramKeys are the keys ReadParams reads; params holding none of them
// (most server requests without a _meta) are not decoded at all.
var paramKeys = [][]byte{[]byte(`"progressToken"`), []byte(`"traceparent"`), []byte(`"name"`),
	[]byte(`"requestState"`), []byte(`protocolVersion"`)}

func mayHoldParams(raw []byte) bool {
	for _, k := range paramKeys {
		if bytes.Contains(raw, k) {
			return true
		}
	}
	return false
}
