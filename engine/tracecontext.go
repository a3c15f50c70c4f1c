package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Trace context on the wire (SEP-414): every request the session sends
// carries the W3C traceparent of its own span in its params' _meta, under
// the unprefixed key "traceparent", with the trace and span IDs the
// recording's exports give that span ([recorder.TraceIDs]): the trace of
// its top ancestor (the tool call it belongs to, or itself), and its own
// span ID. A server that propagates it starts its own spans as children
// of ours, and the requests it sends back carry its span as their parent
// (the OTLP export reads that from the recorded params).
//
// The span is begun before the request is written, so that its ID is
// known; a multi-round-trip tool call's rounds each carry the ID of their
// own round span (see [call.prepareRound]). The request's other _meta
// keys, the caller's included, are kept; a traceparent the caller set is
// replaced by ours, which is the one the exports can join the server's
// spans to. A caller's tracestate is kept as it is: the inspector has
// none of its own.

// metaTraceparent is the _meta key of the W3C traceparent (SEP-414).
const metaTraceparent = "traceparent"

// traceparent returns the W3C traceparent of span id: in the trace of
// its top ancestor (see [Session.traceRoot]).
func (s *Session) traceparent(id recorder.SpanID) string {
	return s.traceIDs.Traceparent(s.traceRoot(id), id)
}

// traceRoot returns the top ancestor of span id, whose trace it is in,
// as the OTLP export walks it.
func (s *Session) traceRoot(id recorder.SpanID) recorder.SpanID {
	root := id
	for hops := 0; hops < 64; hops++ {
		parent, ok := s.rec.ParentOf(root)
		if !ok || parent == 0 || parent == root {
			break
		}
		if _, ok := s.rec.ParentOf(parent); !ok {
			break
		}
		root = parent
	}
	return root
}

// metaTrace returns the trace ID of the traceparent in a _meta the SDK
// decoded, when it is a valid one (package internal/wire reads it from
// params as they come off the wire).
func metaTrace(meta *mcp.Meta) (trace [16]byte, ok bool) {
	if meta == nil {
		return trace, false
	}
	tp, _ := (*meta)[metaTraceparent].(string)
	if tp == "" {
		return trace, false
	}
	trace, _, err := recorder.ParseTraceparent(tp)
	return trace, err == nil
}

// withTraceparent returns a copy of the params p of a request of method
// with tp as its _meta traceparent, keeping its other _meta keys; p
// itself (the caller's) is not changed. Requests sent without params
// (ping, the list methods) get params of their own to carry it; ok is
// false when there is nowhere to put it.
func withTraceparent(method string, p mcp.Params, tp string) (out mcp.Params, ok bool) {
	return withMeta(method, p, metaTraceparent, tp)
}

// withMeta returns a copy of the params p of a request of method with key
// set to value in their _meta, or p and false when method has no params
// to copy (see copyParams).
func withMeta(method string, p mcp.Params, key string, value any) (out mcp.Params, ok bool) {
	out = copyParams(method, p)
	if out == nil {
		return p, false
	}
	old := out.GetMeta()
	meta := make(map[string]any, len(old)+1)
	maps.Copy(meta, old)
	meta[key] = value
	out.SetMeta(meta)
	return out, true
}

// copyParams returns a shallow copy of p, or for no params the empty
// params of method, or nil when it has none.
func copyParams(method string, p mcp.Params) mcp.Params {
	v := reflect.ValueOf(p)
	if p == nil || v.Kind() != reflect.Pointer || v.IsNil() {
		return emptyParams(method)
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	out, _ := cp.Interface().(mcp.Params)
	return out
}

// emptyParams returns the params of a request of method that may be sent
// without any, or nil.
func emptyParams(method string) mcp.Params {
	switch method {
	case "ping":
		return &mcp.PingParams{}
	case "tools/list":
		return &mcp.ListToolsParams{}
	case "prompts/list":
		return &mcp.ListPromptsParams{}
	case "resources/list":
		return &mcp.ListResourcesParams{}
	case "resources/templates/list":
		return &mcp.ListResourceTemplatesParams{}
	}
	return nil
}

// noteTraceparent records a protocol event when a server request's
// params carry a traceparent in _meta that is not a W3C traceparent: the
// server's trace propagation is broken (the exports ignore it, as the
// W3C recommendation tells a receiver to). A request without one is
// fine: trace context is optional.
func (s *Session) noteTraceparent(span recorder.SpanID, method, key string, params json.RawMessage) {
	tc, ok := recorder.TraceContextOf(params)
	if !ok {
		return
	}
	if _, _, err := recorder.ParseTraceparent(tc.Traceparent); err != nil {
		s.addProtocolEvent(recorder.Event{Kind: recorder.EventProtocol, Method: method, Span: span,
			Text: fmt.Sprintf("the params of %s (id %s) carry a malformed trace context in _meta, ignored for tracing: %v", method, key, err)})
	}
}
