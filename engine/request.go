package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// request is one server request the client serves, from the moment it is
// read off the wire (or, for a request that did not come over a tapped
// wire, reaches its handler) until its answer is written. It owns the
// request's life: its phases (received → queued → serving → answered),
// its dispatch slot (taken by [request.queue], given back by
// [request.end]) and its outcome, and it is the only writer of its span.
// The steps are its methods, each in the file of its step: receive.go
// (read off the wire), queue.go (the dispatch gate), serve.go (latency
// and building the answer), respond.go (writing the answer).
type request struct {
	rec  *recorder.Recording
	gate *gate

	span     recorder.SpanID
	index    int64 // 1-based arrival index among requests of its method
	seq      int64 // arrival order across methods, for the dispatch gate
	received time.Duration
	wire     bool   // its answer is written through the tap (see respond.go)
	stream   any    // the HTTP event stream it came on, if any
	params   []byte // its params as they came, when stream is set

	// Set by the handler before it returns, read when the answer is
	// written (same goroutine, after).
	settled   bool
	outcome   recorder.Outcome // as the handler saw it (no result)
	holdsSlot bool             // its dispatch slot is given back by end
}

// newRequest begins the span sp describes (its method, arrival time,
// params and parent) for a request that arrives now: it takes the next
// arrival numbers of the dispatch gate. wire says its answer is written
// through the tap (see respond.go).
func (s *Session) newRequest(sp recorder.Span, wire bool) *request {
	seq, index := s.gate.arrive(sp.Method)
	return s.beginRequest(sp, wire, seq, index)
}

// beginRequest begins the span of a request numbered already (seq and
// index as [gate.arrive] gives them).
func (s *Session) beginRequest(sp recorder.Span, wire bool, seq, index int64) *request {
	r := &request{rec: s.rec, gate: &s.gate, received: sp.Received, wire: wire, seq: seq, index: index}
	r.span = s.rec.Begin(sp)
	return r
}

// requestFor returns the request being served: the one made when it was
// read off the wire, or a new one when it did not come over a tapped
// wire (a multi-round-trip input request, or an untapped transport).
func (s *Session) requestFor(ctx context.Context, method string, params mcp.Params, now time.Duration) *request {
	meta := metaOf(params)
	if s.wire != nil {
		if r := s.claim(meta); r != nil {
			return r
		}
	}
	sp := recorder.NewSpan(s.name, recorder.Incoming, method)
	sp.Received = now
	if b, err := json.Marshal(params); err == nil && !isNullJSON(b) {
		sp.Params = recorder.CapPayload(b)
	}
	if in, ok := ctx.Value(inputKey{}).(*inputRequest); ok {
		// Asked for inside a tool call's result (multi round-trip): the
		// round that asked is the parent, numbered by the round's loop
		// in the order the server listed its input requests.
		sp.Parent, sp.Round, sp.InputKey, sp.Received = in.parent, int32(in.round), in.key, in.received
		return s.beginRequest(sp, false, in.seq, in.index)
	}
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		sp.Parent = c.span
	} else {
		var tok string
		if meta != nil {
			tok = wire.TokenString((*meta)["progressToken"])
		}
		trace, hasTrace := metaTrace(meta)
		sp.Parent, sp.Unlinked = s.calls.Link(wire.Clue{Token: tok, Trace: trace, HasTrace: hasTrace})
	}
	// No arrival sequence from the wire: it arrives as it enters.
	return s.newRequest(sp, false)
}

func isNullJSON(b []byte) bool { return bytes.Equal(b, []byte("null")) }

// settle records how serving the request ended. A request read off a
// tapped wire ends when its answer is written (see respond.go); others
// end now.
func (r *request) settle(status recorder.Status, errText string, res mcp.Result) {
	if r.wire {
		r.settled, r.outcome = true, recorder.Outcome{Status: status, Error: errText}
		return
	}
	o := recorder.Outcome{Status: status, Error: errText}
	if res != nil {
		if b, err := json.Marshal(res); err == nil {
			o.Result = recorder.CapPayload(b)
		}
	}
	r.end(r.rec.Now(), o)
}

// end ends the request at at with outcome o, giving its dispatch slot
// back: it ends as the next request is let in.
func (r *request) end(at time.Duration, o recorder.Outcome) {
	if r.holdsSlot {
		r.holdsSlot = false
		at = max(at, r.gate.release())
	}
	r.rec.End(r.span, at, o)
}

// stopped records a request whose context ended before it was answered
// and returns the error to answer it with. timeout is the request
// timeout it was served under.
func (r *request) stopped(ctx context.Context, timeout time.Duration) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errRequestTimeout):
		msg := fmt.Sprintf("fanout-inspector: no answer within the request timeout (%v)", timeout)
		r.settle(recorder.StatusTimeout, msg, nil)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	case errors.Is(cause, errSessionClosed):
		r.settle(recorder.StatusAborted, "session closed", nil)
	case errors.As(cause, new(*ConnectionLostError)):
		r.settle(recorder.StatusAborted, cause.Error(), nil)
	case ctx.Value(inputKey{}) != nil:
		// An input request of a multi-round-trip call whose call ended
		// (cancelled, timed out) while it was being served.
		r.settle(recorder.StatusCancelled, fmt.Sprintf("cancelled: the tool call that asked for it ended first (%v)", cause), nil)
	case errors.Is(cause, context.Canceled):
		// The SDK cancels a request's context with no cause when the
		// server sends notifications/cancelled for it.
		r.settle(recorder.StatusCancelled, "cancelled by the server", nil)
	default:
		r.settle(recorder.StatusAborted, fmt.Sprintf("the connection ended first (%v)", cause), nil)
	}
	return ctx.Err()
}
