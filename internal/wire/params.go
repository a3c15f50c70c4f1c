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
// leaves empty: the wire model never fails on a peer's params.
func ReadParams(raw json.RawMessage) Params {
	var out Params
	if len(raw) == 0 || raw[0] != '{' || !mayHoldParams(raw) {
		return out
	}
	var p struct {
		Name          string `json:"name"`
		RequestState  string `json:"requestState"`
		ProgressToken any    `json:"progressToken"`
		Meta          struct {
			ProgressToken any    `json:"progressToken"`
			Traceparent   any    `json:"traceparent"`
			Protocol      string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return out
	}
	out.Name, out.RequestState, out.Protocol = p.Name, p.RequestState, p.Meta.Protocol
	tok := p.Meta.ProgressToken
	if tok == nil {
		tok = p.ProgressToken
	}
	out.Token = TokenString(tok)
	if tp, ok := p.Meta.Traceparent.(string); ok && tp != "" {
		if trace, _, err := recorder.ParseTraceparent(tp); err == nil {
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
