package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errRequestTimeout is the cause of a request context that ran out of
// Callbacks.RequestTimeout.
var errRequestTimeout = errors.New("request timeout passed")

// errSessionClosed is the cause of a request context ended by Close.
var errSessionClosed = errors.New("session closed")

// receivingMiddleware serves roots/list and ping through the same
// dispatch, latency and recording as sampling and elicitation (the SDK has
// no handler option for them), and records notifications when the
// transport is not tapped.
func (s *Session) receivingMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "roots/list":
			return s.serve(ctx, method, req.GetParams(), func(ctx context.Context, cb *Callbacks, _ *inEntry) (mcp.Result, error) {
				return &mcp.ListRootsResult{Roots: rootsOf(cb.Roots)}, nil
			})
		case "ping":
			return s.serve(ctx, method, req.GetParams(), func(ctx context.Context, _ *Callbacks, _ *inEntry) (mcp.Result, error) {
				return next(ctx, method, req)
			})
		}
		if s.tap == nil && strings.HasPrefix(method, "notifications/") {
			if b, err := json.Marshal(req.GetParams()); err == nil {
				s.notification(method, b)
			}
		}
		return next(ctx, method, req)
	}
}

// answerFunc builds the answer to one request once its latency has passed.
type answerFunc func(ctx context.Context, cb *Callbacks, e *inEntry) (mcp.Result, error)

// serve runs one server request through the session: find or make its
// span, wait for a dispatch slot (queued), wait its latency and build its
// answer (serving), and record how it ended. A context cancelled by the
// server, the request timeout or the connection ending stops the wait at
// once.
func (s *Session) serve(ctx context.Context, method string, params mcp.Params, answer answerFunc) (mcp.Result, error) {
	entered := s.rec.Now()
	cb := s.current()
	e := s.entryFor(ctx, method, params, entered)
	s.rec.Update(e.span, func(sp *recorder.Span) { sp.Queued = entered })

	// Neither Close nor a lost connection waits for latencies, queues or
	// people: end the wait at once.
	ctx, stopLife := context.WithCancelCause(ctx)
	defer stopLife(nil)
	unhook := context.AfterFunc(s.life, func() { stopLife(context.Cause(s.life)) })
	defer unhook()

	if cb.RequestTimeout > 0 {
		left := cb.RequestTimeout - (entered - e.received)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, max(left, 0), errRequestTimeout)
		defer cancel()
	}
	queued, serving, err := s.gate.acquire(ctx, e.seq)
	if err != nil {
		return nil, s.stopped(ctx, e)
	}
	// The slot is held until the answer is on the wire, so that under
	// serial dispatch the next request starts after this one's answer
	// was written, not merely built; finish (or the wire tap, as the
	// answer is written) gives it back.
	e.holdsSlot = true
	s.rec.Update(e.span, func(sp *recorder.Span) {
		// The gate's stamps: queued from the moment it could be chosen.
		sp.Queued = max(queued, entered)
		sp.Serving = max(serving, sp.Queued)
	})

	d := drawFor(&cb, method, e.index)
	if d.latency > 0 {
		t := time.NewTimer(d.latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, s.stopped(ctx, e)
		}
	}
	if d.fail {
		err := &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("fanout-inspector: injected failure (fail rate %g)", cb.FailRate)}
		s.finish(e, recorder.StatusError, err.Message, nil)
		return nil, err
	}
	res, err := answer(ctx, &cb, e)
	if err != nil {
		if ctx.Err() != nil {
			return nil, s.stopped(ctx, e)
		}
		s.finish(e, recorder.StatusError, err.Error(), nil)
		return nil, err
	}
	s.finish(e, recorder.StatusOK, "", res)
	return res, nil
}

// stopped records a request whose context ended before it was answered
// and returns the error to answer it with.
func (s *Session) stopped(ctx context.Context, e *inEntry) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errRequestTimeout):
		cb := s.current()
		msg := fmt.Sprintf("fanout-inspector: no answer within the request timeout (%v)", cb.RequestTimeout)
		s.finish(e, recorder.StatusTimeout, msg, nil)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	case errors.Is(cause, errSessionClosed):
		s.finish(e, recorder.StatusAborted, "session closed", nil)
	case errors.As(cause, new(*lostError)):
		s.finish(e, recorder.StatusAborted, cause.Error(), nil)
	case errors.Is(cause, context.Canceled) && !e.wire && parentOf(ctx) != 0:
		// An input request of a multi-round-trip call: the SDK gives up
		// on the round's other requests when one fails.
		s.finish(e, recorder.StatusCancelled, "cancelled: the tool call that asked for it gave up on this round", nil)
	case errors.Is(cause, context.Canceled):
		// The SDK cancels a request's context with no cause when the
		// server sends notifications/cancelled for it.
		s.finish(e, recorder.StatusCancelled, "cancelled by the server", nil)
	default:
		s.finish(e, recorder.StatusAborted, fmt.Sprintf("the connection ended first (%v)", cause), nil)
	}
	return ctx.Err()
}

// metaOf returns a pointer to the _meta of the params of a request the
// inspector serves, or nil.
func metaOf(p mcp.Params) *mcp.Meta {
	switch v := p.(type) {
	case *mcp.CreateMessageParams:
		if v != nil {
			return &v.Meta
		}
	case *mcp.CreateMessageWithToolsParams:
		if v != nil {
			return &v.Meta
		}
	case *mcp.ElicitParams:
		if v != nil {
			return &v.Meta
		}
	case *mcp.ListRootsParams:
		if v != nil {
			return &v.Meta
		}
	case *mcp.PingParams:
		if v != nil {
			return &v.Meta
		}
	}
	return nil
}
