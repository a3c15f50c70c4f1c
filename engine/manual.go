package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

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

	model string // default model of a sampling answer

	mu      sync.Mutex
	ended   bool
	result  mcp.Result
	refusal *jsonrpc.Error // a sampling request refused
	done    chan struct{}
}

// AnswerSampling answers a sampling request with text from model ("" =
// the callbacks' model).
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
func (s *Session) waitManual(ctx context.Context, cb *AnswerPolicy, e *request, method string, params any, message string, schema json.RawMessage) (mcp.Result, error) {
	s.hooks.mu.Lock()
	f := s.hooks.manual
	s.hooks.mu.Unlock()
	if f == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("fanout-inspector: %s is set to be answered by hand, but nobody is attached to answer", method)}
	}
	p := &PendingRequest{Span: e.span, Method: method, Message: message, Schema: schema, model: cb.SamplingModel, done: make(chan struct{})}
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
		_, sampling := r.(*mcp.CreateMessageResult)
		_, elicit := r.(*mcp.ElicitResult)
		if (method == "sampling/createMessage" && !sampling) || (method == "elicitation/create" && !elicit) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("fanout-inspector: the answer given by hand does not fit a %s request", method)}
		}
		return r, nil
	case <-ctx.Done():
		p.end()
		return nil, ctx.Err()
	}
}
