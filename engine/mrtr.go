package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRounds bounds the rounds of one multi-round-trip tool call, as the
// SDK's own loop does.
const maxRounds = 10

// inputKey is the context key of the [inputRequest] a handler serves.
type inputKey struct{}

// inputRequest is one input request of a multi-round-trip round as the
// round's loop hands it to its handler: which round asked for it and
// under which key, the span of that round (its parent), when it was
// read off the wire (with the round's answer), and its arrival numbers
// (see [gate.arrive]), given in the order the server listed the round's
// input requests.
type inputRequest struct {
	round      int
	key        string
	parent     recorder.SpanID
	received   time.Duration
	seq, index int64
}

// callRounds runs the multi-round-trip loop of a tool call (protocol
// 2026-07-28, SEP-2322) in place of the SDK's, which is turned off: while
// the result asks for input, the input requests are served through the
// session's own handlers — sampling, elicitation and also roots/list,
// which the SDK's loop would answer without the session — each under the
// dispatch policy, in the order the server listed them, and recorded
// with its round and key; then the call is sent again with the answers.
// An input request that fails does not end the call: the retry tells the
// server (see [Session.fulfil]).
func (s *Session) callRounds(ctx context.Context, method string, req mcp.Request, res mcp.Result, next mcp.MethodHandler) (mcp.Result, error) {
	c, _ := ctx.Value(callKey{}).(*call)
	for round := 1; ; round++ {
		r, ok := res.(*mcp.CallToolResult)
		if !ok || !r.NeedsInput() {
			return res, nil
		}
		if round >= maxRounds {
			return nil, fmt.Errorf("multi-round-trip: the server still asked for input after %d rounds", maxRounds)
		}
		answers, err := s.fulfil(ctx, c, round, r.InputRequests)
		if err != nil {
			return nil, err
		}
		params, ok := req.GetParams().(*mcp.CallToolParams)
		if !ok || params == nil {
			return nil, fmt.Errorf("multi-round-trip: cannot retry a call with params of type %T", req.GetParams())
		}
		p := *params
		p.InputResponses, p.RequestState = answers, r.RequestState
		var retry mcp.Params = &p
		if c != nil {
			onWire := c.span
			if c.roundSpans {
				onWire = c.prepareRound(s.rec.Now())
			}
			retry, _ = withTraceparent(method, retry, s.traceparent(onWire))
		}
		req = &mcp.ClientRequest[mcp.Params]{Session: req.GetSession().(*mcp.ClientSession), Params: retry}
		if res, err = next(ctx, method, req); err != nil {
			return nil, err
		}
	}
}

// fulfil serves one round's input requests and collects their answers
// for the retry. They are handed to the dispatch gate one by one in the
// order the server wrote them in its result (the SDK decodes them into a
// map, which has no order; the wire tap kept the order), each once the
// one before it has reached the gate, so that serial and bounded
// dispatch serve them in that order.
//
// An input request that fails (an injected failure, its timeout, an
// error building the answer) does not end the call: an input response is
// a result, with no form for an error, so the retry carries what the
// protocol can say. A failed elicitation is answered "cancel" (the user
// gave no answer); a failed sampling or roots request is left out of
// inputResponses, which tells the server that it was not answered (the
// specification asks a server to ask again for what it still needs).
// Only the call itself ending (cancelled, timed out, the session closed)
// ends the round without a retry, with the call's error.
func (s *Session) fulfil(ctx context.Context, c *call, round int, requests mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	var (
		parent   recorder.SpanID
		received = recorder.Unset
		listed   []string
	)
	if c != nil {
		parent, received, listed = c.roundAnswered(round)
		if parent == 0 {
			parent = c.span
		}
	}
	if received == recorder.Unset {
		received = s.rec.Now()
	}
	keys := inListedOrder(requests, listed)
	type answer struct {
		res mcp.InputResponse
		err error
	}
	answers := make([]answer, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		ir := requests[key]
		in := &inputRequest{round: round, key: key, parent: parent, received: received}
		in.seq, in.index = s.gate.arrive(inputMethod(ir))
		reached, forget := s.gate.expect(in.seq)
		done := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done)
			defer forget()
			res, err := s.fulfilOne(context.WithValue(ctx, inputKey{}, in), ir)
			answers[i] = answer{res, err}
		}()
		select {
		case <-reached:
		case <-done:
		case <-ctx.Done():
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make(mcp.InputResponseMap, len(keys))
	for i, key := range keys {
		switch a := answers[i]; {
		case a.err == nil && a.res != nil:
			out[key] = a.res
		case inputMethod(requests[key]) == "elicitation/create":
			out[key] = &mcp.ElicitResult{Action: "cancel"}
		}
	}
	return out, nil
}

// inListedOrder returns the keys of requests in the order listed gives
// them (the order the server wrote them), then any listed missed, sorted.
func inListedOrder(requests mcp.InputRequestMap, listed []string) []string {
	keys := make([]string, 0, len(requests))
	seen := make(map[string]bool, len(requests))
	for _, k := range listed {
		if _, ok := requests[k]; ok && !seen[k] {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range requests {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// inputMethod is the method of an input request.
func inputMethod(ir mcp.InputRequest) string {
	switch ir.(type) {
	case *mcp.ElicitParams:
		return "elicitation/create"
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return "sampling/createMessage"
	case *mcp.ListRootsParams:
		return "roots/list"
	}
	return fmt.Sprintf("%T", ir)
}

// readAnswer reads a response to a tools/call round (see [wire.ReadAnswer]).
func readAnswer(resp *jsonrpc.Response) wire.Answer {
	if resp.Error != nil {
		var code int64
		if rpc := (*jsonrpc.Error)(nil); errors.As(resp.Error, &rpc) {
			code = rpc.Code
		}
		return wire.ReadAnswer(nil, code, resp.Error.Error(), true)
	}
	return wire.ReadAnswer(resp.Result, 0, "", false)
}

func (s *Session) fulfilOne(ctx context.Context, ir mcp.InputRequest) (mcp.InputResponse, error) {
	cs := s.cs
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		return s.elicit(ctx, &mcp.ElicitRequest{Session: cs, Params: p})
	case *mcp.CreateMessageParams:
		return s.createMessage(ctx, &mcp.CreateMessageRequest{Session: cs, Params: p})
	case *mcp.CreateMessageWithToolsParams:
		base, err := baseSampling(p)
		if err != nil {
			return nil, err
		}
		return s.createMessage(ctx, &mcp.CreateMessageRequest{Session: cs, Params: base})
	case *mcp.ListRootsParams:
		res, err := s.serve(ctx, "roots/list", p, func(_ context.Context, policy *AnswerPolicy, _ *request) (mcp.Result, error) {
			return &mcp.ListRootsResult{Roots: rootsOf(policy.Roots)}, nil
		})
		if err != nil {
			return nil, err
		}
		return res.(*mcp.ListRootsResult), nil
	}
	return nil, fmt.Errorf("the server asked for input of an unknown kind (%T)", ir)
}

// baseSampling turns a tool-enabled sampling request into a plain one:
// one content block per message.
func baseSampling(p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageParams, error) {
	out := &mcp.CreateMessageParams{
		Meta:             p.Meta,
		IncludeContext:   p.IncludeContext,
		MaxTokens:        p.MaxTokens,
		Metadata:         p.Metadata,
		ModelPreferences: p.ModelPreferences,
		StopSequences:    p.StopSequences,
		SystemPrompt:     p.SystemPrompt,
		Temperature:      p.Temperature,
	}
	for _, m := range p.Messages {
		if m == nil {
			continue
		}
		if len(m.Content) > 1 {
			return nil, fmt.Errorf("a sampling message with %d content blocks (tool use) is not supported", len(m.Content))
		}
		var c mcp.Content
		if len(m.Content) == 1 {
			c = m.Content[0]
		}
		out.Messages = append(out.Messages, &mcp.SamplingMessage{Role: m.Role, Content: c})
	}
	return out, nil
}
