package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PendingRequest is a server request waiting for a person's answer
// (manual sampling or elicitation). The time it waits is its serving
// phase on the timeline, like any latency. Answer it once with the method
// that fits it; later answers are ignored.
type PendingRequest struct {
	Span   recorder.SpanID
	Method string          // "sampling/createMessage" or "elicitation/create"
	Params json.RawMessage // the request's params as received
	// Message is the elicitation's message, or the sampling request's last
	// user message.
	Message string
	// Schema is the elicitation's requested schema.
	Schema json.RawMessage
	// Since is when the request began waiting for a person.
	Since time.Time
	// Deadline is when the request stops waiting by itself (the request
	// timeout the inspector applies), or zero when it waits for ever.
	Deadline time.Time

	model  string                                         // default model of a sampling answer
	auto   func(policy *AnswerPolicy) (mcp.Result, error) // the answer that policy gives it
	policy func() AnswerPolicy                            // the session's policy now

	mu      sync.Mutex
	ended   bool
	result  mcp.Result
	refusal error // a sampling request refused, or the request withdrawn
	done    chan struct{}
}

// AcceptDefault answers the request as the policy "accept" would: a
// sampling request with the reply template of the answer policy, an
// elicitation accepted with content built from its schema.
func (p *PendingRequest) AcceptDefault() {
	policy := p.policy()
	policy.SamplingManual, policy.Elicitation = false, ElicitAccept
	p.answerWith(p.auto(&policy))
}

// Withdraw ends the wait without a person's answer: the server gets a
// JSON-RPC error and the span ends cancelled, with reason as its error.
// Use it when what asked for the request went away (the run was stopped).
func (p *PendingRequest) Withdraw(reason string) {
	p.answerWith(nil, &withdrawn{reason: reason})
}

// answerWith ends the wait with the answer r or the error err.
func (p *PendingRequest) answerWith(r mcp.Result, err error) {
	if err != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.ended {
			return
		}
		p.ended, p.refusal = true, err
		close(p.done)
		return
	}
	p.answer(r)
}

// withdrawn is the error of a request withdrawn from a person: serve
// ends its span cancelled with reason.
type withdrawn struct{ reason string }

func (w *withdrawn) Error() string { return "fanout-inspector: " + w.reason }

// rpc is the error the server gets.
func (w *withdrawn) rpc() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: w.Error()}
}

// releaseWaiting answers, with the policy's own answer, the requests
// waiting for a person that policy no longer leaves to a person: switching
// elicitation from manual to accept answers the waiting elicitations.
func (s *Session) releaseWaiting(policy AnswerPolicy) {
	s.hooks.mu.Lock()
	var release []*PendingRequest
	for p := range s.hooks.waiting {
		switch {
		case p.Method == "sampling/createMessage" && !policy.SamplingManual,
			p.Method == "elicitation/create" && policy.Elicitation != ElicitManual:
			release = append(release, p)
		}
	}
	s.hooks.mu.Unlock()
	for _, p := range release {
		p.answerWith(p.auto(&policy))
	}
}

// AnswerSampling answers a sampling request with text from model ("" =
// the answer policy's model).
func (p *PendingRequest) AnswerSampling(text, model string) {
	if model == "" {
		model = p.model
	}
	p.answer(&mcp.CreateMessageResult{Content: &mcp.TextContent{Text: text}, Model: model, Role: "assistant", StopReason: "endTurn"})
}

// Accept accepts an elicitation with content.
func (p *PendingRequest) Accept(content map[string]any) {
	p.answer(&mcp.ElicitResult{Action: "accept", Content: content})
}

// Refusal messages of a sampling request turned down by hand, sent as
// JSON-RPC errors with code [CodeSamplingRefused].
const (
	SamplingRejected  = "user rejected the sampling request"
	SamplingCancelled = "cancelled by the user"
)

// CodeSamplingRefused is the JSON-RPC error code with which a client
// refuses a sampling request, as MCP clients do when the user turns one
// down.
const CodeSamplingRefused = -1

// Decline declines an elicitation (action "decline"), or refuses a
// sampling request: the server gets the JSON-RPC error -1 "user rejected
// the sampling request", and the span ends with that error.
func (p *PendingRequest) Decline() {
	if p.Method == "sampling/createMessage" {
		p.refuse(SamplingRejected)
		return
	}
	p.answer(&mcp.ElicitResult{Action: "decline"})
}

// Cancel cancels an elicitation (action "cancel"), or refuses a sampling
// request with the JSON-RPC error -1 "cancelled by the user".
func (p *PendingRequest) Cancel() {
	if p.Method == "sampling/createMessage" {
		p.refuse(SamplingCancelled)
		return
	}
	p.answer(&mcp.ElicitResult{Action: "cancel"})
}

func (p *PendingRequest) refuse(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended, p.refusal = true, &jsonrpc.Error{Code: CodeSamplingRefused, Message: msg}
	close(p.done)
}

// Done is closed once the request is answered, or when it stopped
// waiting because the server cancelled it, it timed out or the connection
// ended.
func (p *PendingRequest) Done() <-chan struct{} { return p.done }

func (p *PendingRequest) answer(r mcp.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended, p.result = true, r
	close(p.done)
}

func (p *PendingRequest) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ended {
		p.ended = true
		close(p.done)
	}
}

// waitManual hands a request to the manual handler and waits for its
// answer.
//
// auto is the answer a policy that does not wait for a person gives it:
// [PendingRequest.AcceptDefault] and a policy change use it.
func (s *Session) waitManual(ctx context.Context, policy *AnswerPolicy, e *request, method string, params any, message string, schema json.RawMessage, auto func(*AnswerPolicy) (mcp.Result, error)) (mcp.Result, error) {
	s.hooks.mu.Lock()
	f := s.hooks.manual
	s.hooks.mu.Unlock()
	if f == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("fanout-inspector: %s is set to be answered by hand, but nobody is attached to answer", method)}
	}
	p := &PendingRequest{Span: e.span, Method: method, Message: message, Schema: schema, Since: time.Now(),
		model: policy.SamplingModel, auto: auto, policy: s.current, done: make(chan struct{})}
	p.Deadline, _ = ctx.Deadline()
	if b, err := json.Marshal(params); err == nil {
		p.Params = b
	}
	s.hooks.mu.Lock()
	if s.isDone() {
		s.hooks.mu.Unlock()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "fanout-inspector: the session has ended"}
	}
	if s.hooks.waiting == nil {
		s.hooks.waiting = make(map[*PendingRequest]struct{})
	}
	s.hooks.waiting[p] = struct{}{}
	s.hooks.mu.Unlock()
	defer func() {
		s.hooks.mu.Lock()
		delete(s.hooks.waiting, p)
		s.hooks.mu.Unlock()
	}()
	go f(p)
	select {
	case <-p.done:
		p.mu.Lock()
		r, refusal := p.result, p.refusal
		p.mu.Unlock()
		if refusal != nil {
			return nil, refusal
		}
		if r == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("fanout-inspector: the %s request was given no answer", method)}
		}
		_, sampling := r.(*mcp.CreateMessageResult)
		_, elicit := r.(*mcp.ElicitResult)
		if (method == "sampling/createMessage" && !sampling) || (method == "elicitation/create" && !elicit) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("fanout-inspector: the answer given by hand does not fit a %s request", method)}
		}
		return r, nil
	case <-ctx.Done():
		p.mu.Lock()
		w, _ := p.refusal.(*withdrawn) // withdrawn as the server cancelled: the withdrawal says why
		p.mu.Unlock()
		if w != nil {
			return nil, w
		}
		p.end()
		return nil, ctx.Err()
	}
}
