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
// AnswerPolicy.RequestTimeout.
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
			return s.serve(ctx, method, req.GetParams(), func(ctx context.Context, policy *AnswerPolicy, _ *request) (mcp.Result, error) {
				return &mcp.ListRootsResult{Roots: rootsOf(policy.Roots)}, nil
			})
		case "ping":
			return s.serve(ctx, method, req.GetParams(), func(ctx context.Context, _ *AnswerPolicy, _ *request) (mcp.Result, error) {
				return next(ctx, method, req)
			})
		}
		if s.wire == nil && strings.HasPrefix(method, "notifications/") {
			if b, err := json.Marshal(req.GetParams()); err == nil {
				s.notification(method, b)
			}
		}
		return next(ctx, method, req)
	}
}

// answerFunc builds the answer to one request once its latency has passed.
type answerFunc func(ctx context.Context, policy *AnswerPolicy, e *request) (mcp.Result, error)

// serve runs one server request through the session: find or make the
// request, wait for a dispatch slot (queued), wait its latency and build
// its answer (serving), and settle how it ended. A context cancelled by
// the server, the request timeout or the connection ending stops the
// wait at once.
func (s *Session) serve(ctx context.Context, method string, params mcp.Params, answer answerFunc) (mcp.Result, error) {
	entered := s.rec.Now()
	policy := s.current()
	r := s.requestFor(ctx, method, params, entered)
	r.enter(entered)

	// Neither Close nor a lost connection waits for latencies, queues or
	// people: end the wait at once.
	ctx, stopLife := context.WithCancelCause(ctx)
	defer stopLife(nil)
	unhook := context.AfterFunc(s.life.ctx, func() { stopLife(context.Cause(s.life.ctx)) })
	defer unhook()

	if policy.RequestTimeout > 0 {
		left := policy.RequestTimeout - (entered - r.received)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, max(left, 0), errRequestTimeout)
		defer cancel()
	}
	if err := r.queue(ctx, entered); err != nil {
		return nil, r.stopped(ctx, policy.RequestTimeout)
	}

	d := drawFor(&policy, method, r.index)
	if d.latency > 0 {
		t := time.NewTimer(d.latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, r.stopped(ctx, policy.RequestTimeout)
		}
	}
	if d.fail {
		err := &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("fanout-inspector: injected failure (fail rate %g)", policy.FailRate)}
		r.settle(recorder.StatusError, err.Message, nil)
		return nil, err
	}
	res, err := answer(ctx, &policy, r)
	if err != nil {
		if w := (*withdrawn)(nil); errors.As(err, &w) { // first: its reason is the real one
			r.settle(recorder.StatusCancelled, w.reason, nil)
			return nil, w.rpc()
		}
		if ctx.Err() != nil {
			return nil, r.stopped(ctx, policy.RequestTimeout)
		}
		r.settle(recorder.StatusError, err.Error(), nil)
		return nil, err
	}
	r.settle(recorder.StatusOK, "", res)
	return res, nil
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
