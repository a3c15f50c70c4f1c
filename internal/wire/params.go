package wire

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/fanout-inspector/inspector/recorder"
	sjson "github.com/segmentio/encoding/json"
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
// with a tokenizer in one pass that allocates nothing for params without
// escapes, as it runs on every message the engine or the proxy sees;
// a member given twice counts as its last, as a decoder keeps it.
func ReadParams(raw json.RawMessage) Params {
	var out Params
	if len(raw) == 0 || raw[0] != '{' || !mayHoldParams(raw) {
		return out
	}
	var (
		t           sjson.Tokenizer
		key         member // the member whose value comes next
		inMeta      bool   // between the braces of the top-level _meta
		topToken    any
		metaToken   any
		traceparent string
	)
	t.Reset(raw)
	for t.Next() {
		if t.Delim == ':' || t.Delim == ',' {
			continue
		}
		if t.IsKey {
			key = noMember
			switch {
			case t.Depth == 1:
				key = topMember(t.String())
			case inMeta && t.Depth == 2:
				key = metaMember(t.String())
			}
			continue
		}
		switch {
		case t.Delim == '{' && key == memberMeta:
			inMeta = true
		case t.Delim == '}' && inMeta && t.Depth == 1:
			inMeta = false
		}
		switch key {
		case memberName:
			out.Name, _ = scalar(&t).(string)
		case memberRequestState:
			out.RequestState, _ = scalar(&t).(string)
		case memberToken:
			topToken = scalar(&t)
		case memberMetaToken:
			metaToken = scalar(&t)
		case memberTraceparent:
			traceparent, _ = scalar(&t).(string)
		case memberProtocol:
			out.Protocol, _ = scalar(&t).(string)
		}
		key = noMember
	}
	if t.Err != nil {
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

// member is a member of params that ReadParams reads.
type member int

const (
	noMember member = iota
	memberName
	memberRequestState
	memberToken
	memberMeta
	memberMetaToken
	memberTraceparent
	memberProtocol
)

// topMember is the member a top-level name names (the switch on a
// converted name allocates nothing).
func topMember(name []byte) member {
	switch string(name) {
	case "name":
		return memberName
	case "requestState":
		return memberRequestState
	case "progressToken":
		return memberToken
	case "_meta":
		return memberMeta
	}
	return noMember
}

// metaMember is the member a name inside the top-level _meta names.
func metaMember(name []byte) member {
	switch string(name) {
	case "progressToken":
		return memberMetaToken
	case "traceparent":
		return memberTraceparent
	case "io.modelcontextprotocol/protocolVersion":
		return memberProtocol
	}
	return noMember
}

// scalar is the string or number t is on (a number as a float64, as a
// decoder into any gives it), nil for anything else.
func scalar(t *sjson.Tokenizer) any {
	switch {
	case t.Delim != 0:
		return nil
	case len(t.Value) > 0 && t.Value[0] == '"':
		return string(t.String())
	case t.Kind().Class() == sjson.Num:
		f, err := strconv.ParseFloat(string(t.Value), 64)
		if err != nil {
			return nil
		}
		return f
	}
	return nil
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
