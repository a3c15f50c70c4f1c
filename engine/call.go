package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callKey is the context key of the call a client request belongs to.
type callKey struct{}

// call is one request the client sends (a tools/call, with all its
// multi-round-trip rounds, or any other request) from the moment it is
// sent until its answer is read: it owns the request's outgoing span and
// is the only writer of it.
type call struct {
	rec     *recorder.Recording
	span    recorder.SpanID
	session string
	name    string // tools/call: the tool's name
	// linked is the call as the wire model links server requests to it
	// (tools/call): its span, its progress token, and the trace ID its
	// traceparent carries, which a server that propagates trace context
	// sends back.
	linked wire.Call
	// roundSpans: each wire request of the call gets a [recorder.KindRound]
	// span of its own (a tools/call on a multi-round-trip session).
	roundSpans bool

	// params are the call's params, recorded as its first round is
	// written (as they went on the wire), or when it ends unwritten.
	params mcp.Params

	mu       sync.Mutex
	rounds   []*round      // its wire requests, in the order they were written
	answered time.Duration // when its last answer was read off the wire (Unset: not yet)
	result   []byte        // the result of its last answer, as read off the wire

	ids []string // its id keys on the wire, one per round (kept by the session's wire)
	// next is the span of its next round, begun before it is written
	// (see prepareRound), 0 when none is waiting to be written.
	next recorder.SpanID
	// listen is set on a subscriptions/listen for resources, whose
	// answer ends its stream (subscribe.go).
	listen *listenEnd
}

// round is one wire request of a call: a multi-round-trip tool call is
// written once per round, each time with a new JSON-RPC id.
type round struct {
	n    int             // 1, 2, …
	id   string          // its JSON-RPC id as on the wire
	span recorder.SpanID // its round span, 0 without one
	// answered is when its answer was read off the wire (Unset: not yet).
	answered time.Duration
	// keys are the keys of the input requests its answer asked for, in
	// the order the server wrote them.
	keys []string
}

// sendingMiddleware records every request the client sends as an outgoing
// span, and gives each tool call a progress token so that the server's
// requests and progress can be tied to it.
func (s *Session) sendingMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		c, req := s.newCall(ctx, method, req)
		if method == "tools/call" {
			s.calls.Add(&c.linked)
		}
		// Close must not wait for calls in flight: end them with it.
		ctx, stopLife := context.WithCancelCause(ctx)
		unhook := context.AfterFunc(s.life.ctx, func() { stopLife(context.Cause(s.life.ctx)) })
		callCtx := context.WithValue(ctx, callKey{}, c)
		res, err := next(callCtx, method, req)
		if err == nil && method == "tools/call" {
			res, err = s.callRounds(callCtx, method, req, res, next)
		}
		if err == nil && c.listen != nil {
			// The SDK does not wait for a listen's answer: its stream
			// lasts until it is answered or cancelled (subscribe.go).
			go s.listening(ctx, c, func() { unhook(); stopLife(nil) })
			return res, nil
		}
		unhook()
		var ids []string
		if s.wire != nil {
			ids = s.wire.idsOf(c)
			s.wire.forget(c)
		}
		if method == "tools/call" {
			s.calls.Remove(&c.linked)
		}
		status, errText := s.outcome(ctx, res, err)
		stopLife(nil)
		if status == recorder.StatusAborted && s.life.up.Load() && !s.life.closing.Load() && s.waitDone(2*time.Second) && s.Err() != nil {
			errText = s.Err().Error() // why the connection was lost says more than the SDK's error
		}
		o := recorder.Outcome{Status: status, Error: errText}
		if rpc := (*jsonrpc.Error)(nil); errors.As(err, &rpc) && status == recorder.StatusError {
			o.Code = rpc.Code
		}
		if err == nil {
			o.Result = c.recordedResult(res)
		}
		end := s.rec.Now()
		if status == recorder.StatusTimeout || status == recorder.StatusCancelled {
			// The SDK tells the server with notifications/cancelled,
			// recorded here with the call's span rather than as written.
			s.wire.noteCancels(ids)
			s.rec.AddEvent(recorder.Event{At: end, Session: s.name, Kind: recorder.EventCancelled, Direction: recorder.Outgoing,
				Method: "notifications/cancelled", Span: c.span, Text: "the inspector gave up on " + method + ": " + errText})
		}
		var before *recorder.Span
		if _, timed := ctx.Value(callTimesKey{}).(*callTimes); timed {
			before = s.rec.Span(c.span) // a copy while open: a sampled store may drop it once ended
		}
		noteCallTime(ctx, before, c.end(end, o))
		return res, err
	}
}

// newCall begins the span of a request the client is about to send. A
// tool call gets a progress token in its _meta and the tool call it was
// made for, if any, as its parent. Every request gets the traceparent of
// the span it is written as (see tracecontext.go), so req is rewritten
// once the span exists.
func (s *Session) newCall(ctx context.Context, method string, req mcp.Request) (*call, mcp.Request) {
	now := s.rec.Now()
	sp := recorder.NewSpan(s.name, recorder.Outgoing, method)
	sp.Received, sp.Queued, sp.Serving = now, now, now
	c := &call{rec: s.rec, session: s.name, answered: recorder.Unset}
	params := req.GetParams()
	var ownMeta mcp.Meta
	if r, ok := params.(*mcp.CallToolParams); ok && r != nil {
		p := *r
		sp.Name = p.Name
		c.name = p.Name
		c.roundSpans = s.multiRoundTrip()
		meta := make(mcp.Meta, len(p.Meta)+2)
		for k, v := range p.Meta {
			meta[k] = v
		}
		if tok := wire.TokenString(meta["progressToken"]); tok != "" {
			c.linked.Token = tok
		} else {
			c.linked.Token = "fi-" + s.name + "-" + strconv.FormatInt(s.callSeq.Add(1), 10)
			meta["progressToken"] = c.linked.Token
		}
		p.Meta, ownMeta = meta, meta
		params = &p
		sp.Parent = parentOf(ctx)
	}
	switch p := params.(type) { // what the request is for, in its span's name
	case *mcp.ReadResourceParams:
		if p != nil {
			sp.Name = p.URI
		}
	case *mcp.GetPromptParams:
		if p != nil {
			sp.Name = p.Name
		}
	case *mcp.SubscribeParams, *mcp.UnsubscribeParams, *mcp.SubscriptionsListenParams:
		sp.Name = subscribedURI(p)
	}
	if at, ok := ctx.Value(intendedKey{}).(time.Time); ok {
		sp.Intended = max(at.Sub(s.rec.Start()), 1) // 0 would mean "not set"
	}
	c.span = s.rec.Begin(sp)
	c.linked.Span = c.span
	s.subs.begin(c, params)
	// A round's span is a child of the call's, so both are in one trace:
	// its root is found, and its ID hashed, once a request.
	trace := s.traceIDs.Trace(s.traceRoot(c.span))
	if c.linked.Token != "" {
		c.linked.Trace, c.linked.HasTrace = trace, true
	}
	onWire := c.span
	if c.roundSpans {
		onWire = c.prepareRound(now)
	}
	tp := recorder.FormatTraceparent(trace, s.traceIDs.Span(onWire))
	if ownMeta != nil { // a tool call's params and _meta are copies already
		ownMeta[metaTraceparent] = tp
	} else if p, ok := withTraceparent(method, params, tp); ok {
		params = p
	}
	if p, ok := s.withLogLevel(method, params); ok {
		params = p
	}
	if params != req.GetParams() {
		req = &mcp.ClientRequest[mcp.Params]{Session: req.GetSession().(*mcp.ClientSession), Params: params}
	}
	c.params = params
	return c, req
}

// recordedResult is the call's result as recorded: as the server wrote
// it, or, when no answer was read off the wire, as the SDK returned it.
func (c *call) recordedResult(res mcp.Result) json.RawMessage {
	c.mu.Lock()
	raw := c.result
	c.mu.Unlock()
	if raw != nil {
		return recorder.CapPayload(raw)
	}
	if b, err := json.Marshal(res); err == nil {
		return recorder.CapPayload(b)
	}
	return nil
}

// prepareRound begins the span of the call's next round before it is
// written (now), so that the round's traceparent can name it; [call.sending]
// times it as it goes out. It returns the span.
func (c *call) prepareRound(now time.Duration) recorder.SpanID {
	c.mu.Lock()
	n := len(c.rounds) + 1
	c.mu.Unlock()
	sp := recorder.NewSpan(c.session, recorder.Outgoing, "tools/call")
	sp.Kind, sp.Name, sp.Parent, sp.Round = recorder.KindRound, c.name, c.span, int32(n)
	sp.Received, sp.Queued, sp.Serving = now, now, now
	id := c.rec.Begin(sp)
	c.mu.Lock()
	c.next = id
	c.mu.Unlock()
	return id
}

// sending times the call as a round of it is written with id key and
// params at now: it was sent when its first round was, and carries its
// first round's id. On a multi-round-trip session the round has a
// [recorder.KindRound] span of its own, begun by [call.prepareRound].
func (c *call) sending(key string, params json.RawMessage, now time.Duration) {
	c.mu.Lock()
	r := &round{n: len(c.rounds) + 1, id: key, answered: recorder.Unset, span: c.next}
	c.rounds = append(c.rounds, r)
	c.next = 0
	c.mu.Unlock()
	if r.n == 1 {
		c.rec.Update(c.span, func(sp *recorder.Span) {
			sp.Received, sp.Queued, sp.Serving = now, now, now
			sp.RequestID = key
			sp.Params = recorder.CapPayload(params)
		})
	}
	if !c.roundSpans {
		return
	}
	if r.span != 0 {
		c.rec.Update(r.span, func(sp *recorder.Span) {
			sp.Received, sp.Queued, sp.Serving = now, now, now
			sp.Round, sp.RequestID = int32(r.n), key
			sp.Params = recorder.CapPayload(params)
		})
		return
	}
	sp := recorder.NewSpan(c.session, recorder.Outgoing, "tools/call")
	sp.Kind, sp.Name, sp.Parent, sp.Round, sp.RequestID = recorder.KindRound, c.name, c.span, int32(r.n), key
	sp.Received, sp.Queued, sp.Serving = now, now, now
	sp.Params = recorder.CapPayload(params)
	id := c.rec.Begin(sp)
	c.mu.Lock()
	r.span = id
	c.mu.Unlock()
}

// replied notes that resp, an answer to the call, was read off the wire
// at now: it ends the round it answers, with what the server answered
// and, for input_required, the keys of the input requests in the order
// the server wrote them.
func (c *call) replied(resp *jsonrpc.Response, now time.Duration) {
	key := wire.KeyOf(resp.ID)
	var a wire.Answer
	if c.roundSpans || resp.Error == nil && wire.MayAskInput(resp.Result) {
		// Only a round span, or a round asking for input, needs the
		// answer read: the call's own span gets the SDK's result.
		a = readAnswer(resp)
	}
	c.mu.Lock()
	c.answered = now
	c.result = nil
	if resp.Error == nil {
		c.result = resp.Result
	}
	var span recorder.SpanID
	for _, r := range c.rounds {
		if r.id == key {
			r.answered, r.keys = now, a.Shape.Keys
			span = r.span
		}
	}
	c.mu.Unlock()
	c.rec.Update(c.span, func(sp *recorder.Span) { sp.Answered = now })
	if c.listen != nil {
		c.listen.answered(resp.Error)
	}
	if span == 0 {
		return
	}
	c.rec.Update(span, func(sp *recorder.Span) {
		sp.Outcome = a.Round
		sp.InputRequests = int32(len(a.Shape.Keys))
	})
	c.rec.End(span, now, a.Outcome)
}

// roundSpan returns the round span of the call's wire request with the
// given id, or 0 when it has none.
func (c *call) roundSpan(id string) recorder.SpanID {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.rounds {
		if r.id == id {
			return r.span
		}
	}
	return 0
}

// roundAnswered returns the round span of the call's nth round (0 when
// it has none), when its answer was read off the wire (Unset if not),
// and the keys of the input requests it asked for in the server's order.
func (c *call) roundAnswered(n int) (recorder.SpanID, time.Duration, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n < 1 || n > len(c.rounds) {
		return 0, recorder.Unset, nil
	}
	r := c.rounds[n-1]
	return r.span, r.answered, r.keys
}

// end ends the call at end with outcome o: an answer (ok or error) as it
// was read off the wire, when it was. A round still waiting for its
// answer ends with it, the same way. It returns when the call ended.
func (c *call) end(end time.Duration, o recorder.Outcome) time.Duration {
	c.mu.Lock()
	unwritten := len(c.rounds) == 0
	answered := c.answered
	var open []recorder.SpanID
	for _, r := range c.rounds {
		if r.span != 0 && r.answered == recorder.Unset {
			open = append(open, r.span)
		}
	}
	if c.next != 0 { // begun, but the call ended before it was written
		open = append(open, c.next)
	}
	c.mu.Unlock()
	if answered != recorder.Unset && (o.Status == recorder.StatusOK || o.Status == recorder.StatusError) {
		end = answered
	}
	for _, id := range open {
		c.rec.End(id, end, recorder.Outcome{Status: o.Status, Error: o.Error, Code: o.Code})
	}
	if unwritten && c.params != nil {
		if b, err := json.Marshal(c.params); err == nil {
			c.rec.Update(c.span, func(sp *recorder.Span) { sp.Params = recorder.CapPayload(b) })
		}
	}
	c.rec.End(c.span, end, o)
	return end
}

// multiRoundTrip reports whether the session speaks a protocol with
// multi-round-trip requests (2026-07-28 and later), where a tool call's
// wire requests are recorded as rounds.
func (s *Session) multiRoundTrip() bool {
	return wire.RoundsEra(s.info.Protocol)
}

// outcome classifies the end of a client request.
func (s *Session) outcome(ctx context.Context, res mcp.Result, err error) (recorder.Status, string) {
	if err == nil {
		if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
			return recorder.StatusError, toolErrorText(r)
		}
		return recorder.StatusOK, ""
	}
	var lost *ConnectionLostError
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
	return wire.ToolErrorText(parts)
}

// parentOf returns the tool call a context belongs to, if any.
func parentOf(ctx context.Context) recorder.SpanID {
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		return c.span
	}
	return 0
}
