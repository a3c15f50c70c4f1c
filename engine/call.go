package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outKey is the context key of the outCall a client request belongs to.
type outKey struct{}

// outCall is a request the client sent, in flight.
type outCall struct {
	span   recorder.SpanID
	token  string       // tools/call: its progress token
	rounds atomic.Int32 // how many times it was written (once per multi-round-trip round)
	ids    []jsonrpc.ID // its ids on the wire, one per round (guarded by the tap's mu)
}

// sendingMiddleware records every request the client sends as an outgoing
// span, and gives each tool call a progress token so that the server's
// requests and progress can be tied to it.
func (s *Session) sendingMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		now := s.rec.Now()
		sp := recorder.NewSpan(s.name, recorder.Outgoing, method)
		sp.Received, sp.Queued, sp.Serving = now, now, now
		oc := &outCall{}
		if r, ok := req.GetParams().(*mcp.CallToolParams); ok && r != nil {
			p := *r
			sp.Name = p.Name
			meta := make(mcp.Meta, len(p.Meta)+1)
			for k, v := range p.Meta {
				meta[k] = v
			}
			if tok := tokenString(meta["progressToken"]); tok != "" {
				oc.token = tok
			} else {
				oc.token = fmt.Sprintf("fi-%s-%d", s.name, s.nextIndex("progress-token"))
				meta["progressToken"] = oc.token
			}
			p.Meta = meta
			req = &mcp.ClientRequest[mcp.Params]{Session: req.GetSession().(*mcp.ClientSession), Params: &p}
			sp.Parent = parentOf(ctx)
		}
		if b, err := json.Marshal(req.GetParams()); err == nil {
			sp.Params = recorder.CapPayload(b)
		}
		oc.span = s.rec.Begin(sp)
		if method == "tools/call" {
			s.callsMu.Lock()
			s.calls[oc] = struct{}{}
			s.tokens[oc.token] = oc
			s.callsMu.Unlock()
		}
		// Close must not wait for calls in flight: end them with it.
		ctx, stopLife := context.WithCancelCause(ctx)
		unhook := context.AfterFunc(s.life, func() { stopLife(context.Cause(s.life)) })
		callCtx := context.WithValue(ctx, outKey{}, oc)
		res, err := next(callCtx, method, req)
		if err == nil && method == "tools/call" {
			res, err = s.callRounds(callCtx, method, req, res, next)
		}
		unhook()
		if s.tap != nil {
			s.tap.forget(oc)
		}
		if method == "tools/call" {
			s.callsMu.Lock()
			delete(s.calls, oc)
			delete(s.tokens, oc.token)
			s.callsMu.Unlock()
		}
		status, errText := s.outcome(ctx, res, err)
		stopLife(nil)
		if status == recorder.StatusAborted && s.watching.Load() && !s.closing.Load() && s.waitDone(2*time.Second) && s.Err() != nil {
			errText = s.Err().Error() // why the connection was lost says more than the SDK's error
		}
		var result json.RawMessage
		if err == nil {
			if b, e := json.Marshal(res); e == nil {
				result = recorder.CapPayload(b)
			}
		}
		end := s.rec.Now()
		if status == recorder.StatusTimeout || status == recorder.StatusCancelled {
			// The SDK tells the server with notifications/cancelled.
			s.rec.AddEvent(recorder.Event{At: end, Session: s.name, Kind: recorder.EventCancelled,
				Method: "notifications/cancelled", Span: oc.span, Text: "the inspector gave up on " + method + ": " + errText})
		}
		if status == recorder.StatusOK || status == recorder.StatusError {
			// Answered as its response was read off the wire, when it was.
			if sp := s.rec.Span(oc.span); sp != nil && sp.Answered != recorder.Unset {
				end = sp.Answered
			}
		}
		s.rec.End(oc.span, end, recorder.Outcome{Status: status, Error: errText, Result: result})
		return res, err
	}
}

// outcome classifies the end of a client request.
func (s *Session) outcome(ctx context.Context, res mcp.Result, err error) (recorder.Status, string) {
	if err == nil {
		if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
			return recorder.StatusError, toolErrorText(r)
		}
		return recorder.StatusOK, ""
	}
	var lost *lostError
	switch {
	case errors.Is(context.Cause(ctx), errSessionClosed):
		return recorder.StatusAborted, "session closed"
	case errors.As(context.Cause(ctx), &lost):
		return recorder.StatusAborted, lost.Error()
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return recorder.StatusTimeout, err.Error()
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return recorder.StatusCancelled, err.Error()
	case errors.Is(err, mcp.ErrConnectionClosed) || s.isDone():
		return recorder.StatusAborted, err.Error()
	}
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) && s.connectionBroken(err) {
		return recorder.StatusAborted, err.Error()
	}
	return recorder.StatusError, err.Error()
}

// toolErrorText is the text of a tool result with isError set.
func toolErrorText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok && t.Text != "" {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "the tool reported an error (isError) without text"
	}
	return strings.Join(parts, "\n")
}

// parentOf returns the tool call a context belongs to, if any.
func parentOf(ctx context.Context) recorder.SpanID {
	if oc, ok := ctx.Value(outKey{}).(*outCall); ok {
		return oc.span
	}
	return 0
}

// parentByToken returns the tool call a server request belongs to: the
// call whose progress token the request echoes in its _meta, or else the
// only tool call in flight, or else none.
func (s *Session) parentByToken(token string) recorder.SpanID {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if token != "" {
		if oc, ok := s.tokens[token]; ok {
			return oc.span
		}
	}
	if len(s.calls) == 1 {
		for oc := range s.calls {
			return oc.span
		}
	}
	return 0
}

func (s *Session) callByToken(tok string) recorder.SpanID {
	if tok == "" {
		return 0
	}
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if oc, ok := s.tokens[tok]; ok {
		return oc.span
	}
	return 0
}

// sendingRequest times a client request as it goes out.
func (t *wireTap) sendingRequest(ctx context.Context, req *jsonrpc.Request) {
	oc, _ := ctx.Value(outKey{}).(*outCall)
	if oc == nil {
		return
	}
	t.mu.Lock()
	t.out[req.ID] = oc
	oc.ids = append(oc.ids, req.ID)
	t.mu.Unlock()
	round := oc.rounds.Add(1)
	now := t.s.rec.Now()
	key := idKey(req.ID)
	t.s.rec.Update(oc.span, func(sp *recorder.Span) {
		if round == 1 {
			sp.Received, sp.Queued, sp.Serving = now, now, now
		}
		sp.RequestID = key // the last round's id
	})
}
