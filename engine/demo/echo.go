package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoArgs are the arguments of the echo tool.
type EchoArgs struct {
	Text string `json:"text"`
}

// EchoResult is the structured result of the echo tool.
type EchoResult struct {
	Text string `json:"text"`
}

// echoTool answers echo, the tool load tests call thousands of times a
// second. The SDK's typed tools check each call's arguments by decoding
// them into a map, validating that against the schema and decoding them
// again, and check the output the same way: at 2,000 calls a second
// against the in-process demo, that was a ninth of the app's CPU time,
// taken from drawing the run. Echo reads the arguments it expects, an
// object with at most a "text" string, with encoding/json alone (the
// object's raw values, then the string), and sends anything else
// through the schema for the error the typed tool gave.
type echoTool struct {
	schema *jsonschema.Resolved
}

// addEcho registers the echo tool on srv, with the input schema
// echoSchema and the output schema of [EchoResult].
func addEcho(srv *mcp.Server) {
	var in jsonschema.Schema
	if err := json.Unmarshal([]byte(echoSchema), &in); err != nil {
		panic(fmt.Sprintf("demo: echo's input schema: %v", err))
	}
	resolved, err := in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("demo: echo's input schema: %v", err))
	}
	out, err := jsonschema.For[EchoResult](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("demo: echo's output schema: %v", err))
	}
	e := &echoTool{schema: resolved}
	srv.AddTool(&mcp.Tool{
		Name:         "echo",
		Title:        "Echo",
		Description:  "Answers at once with the text it was given.",
		InputSchema:  json.RawMessage(echoSchema),
		OutputSchema: out,
	}, e.handle)
}

func (e *echoTool) handle(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := e.text(req.Params.Arguments)
	if err != nil {
		var res mcp.CallToolResult
		res.SetError(fmt.Errorf("validating \"arguments\": %v", err))
		return &res, nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: EchoResult{Text: text},
	}, nil
}

// text returns the "text" argument of raw ("" when there is none), or
// why raw does not match the schema.
func (e *echoTool) text(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil // no arguments: the typed tool read them as {}
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) == nil {
		v, ok := fields["text"]
		switch {
		case len(fields) == 0:
			return "", nil
		case len(fields) == 1 && ok && len(v) > 0 && v[0] == '"':
			var s string
			if json.Unmarshal(v, &s) == nil {
				return s, nil
			}
		}
	}
	// Not what echo expects: the schema says why.
	var value any
	if err := json.Unmarshal(raw, &value); err != nil {
		return "", fmt.Errorf("unmarshaling arguments: %w", err)
	}
	if err := e.schema.Validate(value); err != nil {
		return "", err
	}
	return "", fmt.Errorf("unexpected arguments %s", raw)
}
