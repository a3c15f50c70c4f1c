package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRounds bounds the rounds of one multi-round-trip tool call, as the
// SDK's own loop does.
const maxRounds = 10

// roundKey is the context key of the multi-round-trip round an input
// request is served in.
type roundKey struct{}

// callRounds runs the multi-round-trip loop of a tool call (protocol
// 2026-07-28, SEP-2322) in place of the SDK's, which is turned off: while
// the result asks for input, the input requests are served through the
// session's own handlers — sampling, elicitation and also roots/list,
// which the SDK's loop would answer without the session — concurrently,
// each under the dispatch policy and recorded with its Round, and the
// call is sent again with the answers.
func (s *Session) callRounds(ctx context.Context, method string, req mcp.Request, res mcp.Result, next mcp.MethodHandler) (mcp.Result, error) {
	for round := 1; ; round++ {
		r, ok := res.(*mcp.CallToolResult)
		if !ok || !r.NeedsInput() {
			return res, nil
		}
		if round >= maxRounds {
			return nil, fmt.Errorf("multi-round-trip: the server still asked for input after %d rounds", maxRounds)
		}
		answers, err := s.fulfil(context.WithValue(ctx, roundKey{}, round), r.InputRequests)
		if err != nil {
			return nil, err
		}
		params, ok := req.GetParams().(*mcp.CallToolParams)
		if !ok || params == nil {
			return nil, fmt.Errorf("multi-round-trip: cannot retry a call with params of type %T", req.GetParams())
		}
		p := *params
		p.InputResponses, p.RequestState = answers, r.RequestState
		req = &mcp.ClientRequest[mcp.Params]{Session: req.GetSession().(*mcp.ClientSession), Params: &p}
		if res, err = next(ctx, method, req); err != nil {
			return nil, err
		}
	}
}

// fulfil serves one round's input requests at once and collects their
// answers; the first failure ends the round.
func (s *Session) fulfil(ctx context.Context, requests mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
		answers  = make(mcp.InputResponseMap, len(requests))
	)
	for key, ir := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := s.fulfilOne(ctx, ir)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("multi-round-trip: answering input request %q: %w", key, err)
					cancel()
				}
				return
			}
			answers[key] = a
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return answers, nil
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
		res, err := s.serve(ctx, "roots/list", p, func(_ context.Context, cb *AnswerPolicy, _ *request) (mcp.Result, error) {
			return &mcp.ListRootsResult{Roots: rootsOf(cb.Roots)}, nil
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
