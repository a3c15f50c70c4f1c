package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// createMessage answers sampling/createMessage.
func (s *Session) createMessage(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	res, err := s.serve(ctx, "sampling/createMessage", req.Params, func(ctx context.Context, policy *AnswerPolicy, e *request) (mcp.Result, error) {
		last := lastUserMessage(req.Params)
		auto := func(policy *AnswerPolicy) (mcp.Result, error) {
			if policy.endpoint != nil {
				return s.sampleFromEndpoint(ctx, policy, e, req.Params)
			}
			return autoSampling(policy, e, last)
		}
		if policy.SamplingManual {
			return s.waitManual(ctx, policy, e, "sampling/createMessage", req.Params, last, nil, auto)
		}
		return auto(policy)
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

// autoSampling is the sampling answer that policy gives.
func autoSampling(policy *AnswerPolicy, e *request, last string) (mcp.Result, error) {
	if policy.reply == nil {
		_, err := parseReply(policy.SamplingReply)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "fanout-inspector: " + err.Error()}
	}
	text, err := renderReply(policy.reply, e.index, last, policy.SamplingModel)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "fanout-inspector: " + err.Error()}
	}
	return &mcp.CreateMessageResult{
		Content:    &mcp.TextContent{Text: text},
		Model:      policy.SamplingModel,
		Role:       "assistant",
		StopReason: policy.StopReason,
	}, nil
}

// elicit answers elicitation/create.
func (s *Session) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	res, err := s.serve(ctx, "elicitation/create", req.Params, func(ctx context.Context, policy *AnswerPolicy, e *request) (mcp.Result, error) {
		p := req.Params
		var schema json.RawMessage
		if p != nil && p.RequestedSchema != nil {
			schema, _ = json.Marshal(p.RequestedSchema)
		}
		if policy.Elicitation == ElicitManual {
			var msg string
			if p != nil {
				msg = p.Message
			}
			return s.waitManual(ctx, policy, e, "elicitation/create", p, msg, schema, func(policy *AnswerPolicy) (mcp.Result, error) {
				return autoElicit(policy, p, schema)
			})
		}
		return autoElicit(policy, p, schema)
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

// autoElicit is the elicitation answer that policy gives (accept when it
// leaves the request to a person).
func autoElicit(policy *AnswerPolicy, p *mcp.ElicitParams, schema json.RawMessage) (mcp.Result, error) {
	switch policy.Elicitation {
	case ElicitDecline:
		return &mcp.ElicitResult{Action: "decline"}, nil
	case ElicitCancel:
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	if p != nil && p.Mode == "url" {
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
	content, err := ElicitationContent(schema)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "fanout-inspector: " + err.Error()}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
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
