package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"text/template"
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

func (s *Session) isDone() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
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

// entryFor returns the entry of the request being served: the one the
// wire tap made when it read the request, or a new span when the request
// did not come over a tapped wire (a multi-round-trip input request, or
// an untapped transport).
func (s *Session) entryFor(ctx context.Context, method string, params mcp.Params, now time.Duration) *inEntry {
	meta := metaOf(params)
	if s.tap != nil {
		if e := s.tap.claim(meta); e != nil {
			return e
		}
	}
	sp := recorder.NewSpan(s.name, recorder.Incoming, method)
	sp.Received = now
	if b, err := json.Marshal(params); err == nil && !isNullJSON(b) {
		sp.Params = recorder.CapPayload(b)
	}
	if oc, ok := ctx.Value(outKey{}).(*outCall); ok {
		// Asked for inside a tool call's result (multi round-trip): the
		// call is the parent, the round is how many times it was sent.
		sp.Parent = oc.span
		sp.Round, _ = ctx.Value(roundKey{}).(int)
	} else {
		var tok string
		if meta != nil {
			tok = tokenString((*meta)["progressToken"])
		}
		sp.Parent = s.parentByToken(tok)
	}
	// No arrival sequence from the wire: it arrives as it enters.
	e := &inEntry{index: s.nextIndex(method), seq: s.gate.next(), received: now}
	e.span = s.rec.Begin(sp)
	return e
}

func isNullJSON(b []byte) bool { return bytes.Equal(b, []byte("null")) }

// finish records how a request ended. For a request read off a tapped
// wire, the span ends when its response is written; otherwise now.
func (s *Session) finish(e *inEntry, status recorder.Status, errText string, res mcp.Result) {
	if e.wire {
		e.handled, e.status, e.errText = true, status, errText
		return
	}
	var result json.RawMessage
	if res != nil {
		if b, err := json.Marshal(res); err == nil {
			result = recorder.CapPayload(b)
		}
	}
	now := s.rec.Now()
	if e.holdsSlot {
		e.holdsSlot = false
		now = max(now, s.gate.release()) // ends as the next request is let in
	}
	s.rec.End(e.span, now, recorder.Outcome{Status: status, Error: errText, Result: result})
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

// createMessage answers sampling/createMessage.
func (s *Session) createMessage(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	res, err := s.serve(ctx, "sampling/createMessage", req.Params, func(ctx context.Context, cb *Callbacks, e *inEntry) (mcp.Result, error) {
		last := lastUserMessage(req.Params)
		if cb.SamplingManual {
			return s.waitManual(ctx, cb, e, "sampling/createMessage", req.Params, last, nil)
		}
		if cb.reply == nil {
			_, err := parseReply(cb.SamplingReply)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "fanout-inspector: " + err.Error()}
		}
		text, err := renderReply(cb.reply, e.index, last, cb.SamplingModel)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "fanout-inspector: " + err.Error()}
		}
		return &mcp.CreateMessageResult{
			Content:    &mcp.TextContent{Text: text},
			Model:      cb.SamplingModel,
			Role:       "assistant",
			StopReason: cb.StopReason,
		}, nil
	})
	if err != nil {
		return nil, err
	}
	r, ok := res.(*mcp.CreateMessageResult)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "fanout-inspector: the manual answer was not a sampling answer"}
	}
	return r, nil
}

// elicit answers elicitation/create.
func (s *Session) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	res, err := s.serve(ctx, "elicitation/create", req.Params, func(ctx context.Context, cb *Callbacks, e *inEntry) (mcp.Result, error) {
		p := req.Params
		var schema json.RawMessage
		if p != nil && p.RequestedSchema != nil {
			schema, _ = json.Marshal(p.RequestedSchema)
		}
		switch cb.Elicitation {
		case ElicitDecline:
			return &mcp.ElicitResult{Action: "decline"}, nil
		case ElicitCancel:
			return &mcp.ElicitResult{Action: "cancel"}, nil
		case ElicitManual:
			var msg string
			if p != nil {
				msg = p.Message
			}
			return s.waitManual(ctx, cb, e, "elicitation/create", p, msg, schema)
		}
		if p != nil && p.Mode == "url" {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
		content, err := ElicitationContent(schema)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "fanout-inspector: " + err.Error()}
		}
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	})
	if err != nil {
		return nil, err
	}
	r, ok := res.(*mcp.ElicitResult)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "fanout-inspector: the manual answer was not an elicitation answer"}
	}
	return r, nil
}

// replyData is what the sampling reply template sees.
type replyData struct {
	Index           int64
	LastUserMessage string
	Model           string
}

func parseReply(text string) (*template.Template, error) {
	t, err := template.New("reply").Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("sampling reply template: %v (fields: {{.Index}}, {{.LastUserMessage}}, {{.Model}})", err)
	}
	return t, nil
}

func renderReply(t *template.Template, index int64, last, model string) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, replyData{Index: index, LastUserMessage: last, Model: model}); err != nil {
		return "", fmt.Errorf("sampling reply template: %v", err)
	}
	return b.String(), nil
}

// lastUserMessage is the text of the last user message of a sampling
// request.
func lastUserMessage(p *mcp.CreateMessageParams) string {
	if p == nil {
		return ""
	}
	for i := len(p.Messages) - 1; i >= 0; i-- {
		m := p.Messages[i]
		if m == nil || m.Role != "user" {
			continue
		}
		if t, ok := m.Content.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// notification records a notification the server sent as an instant
// event, and hands logs and tool-list changes to the session's callbacks.
func (s *Session) notification(method string, params json.RawMessage) {
	ev := recorder.Event{At: s.rec.Now(), Session: s.name, Method: method, Data: recorder.CapPayload(params)}
	switch {
	case method == "notifications/progress":
		ev.Kind = recorder.EventProgress
		var p mcp.ProgressNotificationParams
		if json.Unmarshal(params, &p) == nil {
			ev.Span = s.callByToken(tokenString(p.ProgressToken))
			ev.Text = progressText(&p)
		}
	case method == "notifications/message":
		ev.Kind = recorder.EventLog
		var p mcp.LoggingMessageParams
		if json.Unmarshal(params, &p) == nil {
			ev.Text = logText(&p)
		}
	case method == "notifications/cancelled":
		ev.Kind = recorder.EventCancelled
		var p mcp.CancelledParams
		if json.Unmarshal(params, &p) == nil {
			ev.Text = p.Reason
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && s.tap != nil {
				s.tap.mu.Lock()
				if e := s.tap.in[idKey(id)]; e != nil {
					ev.Span = e.span
				}
				s.tap.mu.Unlock()
			}
		}
	case strings.HasSuffix(method, "/list_changed"):
		ev.Kind = recorder.EventListChanged
		ev.Text = strings.TrimSuffix(strings.TrimPrefix(method, "notifications/"), "/list_changed") + " changed"
	default:
		ev.Kind = recorder.EventOther
	}
	s.rec.AddEvent(ev)
	if ev.Kind == recorder.EventLog {
		s.emitLog(ev)
	}
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

func progressText(p *mcp.ProgressNotificationParams) string {
	var b strings.Builder
	if p.Total > 0 {
		fmt.Fprintf(&b, "%g/%g", p.Progress, p.Total)
	} else {
		fmt.Fprintf(&b, "%g", p.Progress)
	}
	if p.Message != "" {
		b.WriteString(" " + p.Message)
	}
	return b.String()
}

func logText(p *mcp.LoggingMessageParams) string {
	var data string
	switch v := p.Data.(type) {
	case string:
		data = v
	default:
		b, _ := json.Marshal(v)
		data = string(b)
	}
	prefix := string(p.Level)
	if p.Logger != "" {
		prefix += " " + p.Logger
	}
	return prefix + ": " + data
}
