package demo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// typedEcho is a server with echo written as the SDK's typed tool, with
// the input schema the demo lists for its echo: the SDK checks arguments
// and output through their schemas, and the demo's echo must answer
// every call as it does.
func typedEcho(t *testing.T, demoCS *mcp.ClientSession) *mcp.ClientSession {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", InputSchema: listedEcho(t, demoCS).InputSchema},
		func(_ context.Context, _ *mcp.CallToolRequest, in demo.EchoArgs) (*mcp.CallToolResult, demo.EchoResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, demo.EchoResult{Text: in.Text}, nil
		})
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestEchoAnswersAsTheTypedTool calls echo on the demo and on the typed
// tool with the same arguments, good and bad, and compares what the
// results say (content, structured content, error or not) as they came
// over the wire. Arguments that are not an object are an error in both,
// in other words: the typed tool names its JSON decoder's complaint,
// echo the schema's.
func TestEchoAnswersAsTheTypedTool(t *testing.T) {
	demoCS := connect(t, &client{}, "2025-11-25")
	typedCS := typedEcho(t, demoCS)
	type answer struct {
		Content           []mcp.Content
		StructuredContent any
		IsError           bool
	}
	call := func(cs *mcp.ClientSession, args string) (string, answer) {
		p := &mcp.CallToolParams{Name: "echo"}
		if args != "" {
			p.Arguments = json.RawMessage(args)
		}
		res, err := cs.CallTool(context.Background(), p)
		if err != nil {
			t.Fatalf("echo %s: %v", args, err)
		}
		a := answer{res.Content, res.StructuredContent, res.IsError}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), a
	}
	for _, args := range []string{
		``, `null`, `{}`, ` {"text": "hi there"} `, `{"text":""}`, `{"text":"caf\u00e9 \"quoted\""}`,
		`{"text":"a","text":"b"}`,
		`{"text":5}`, `{"text":null}`, `{"TEXT":"x"}`, `{"text":"x","other":1}`, `{"other":1}`, `{"text":["x"]}`,
	} {
		got, _ := call(demoCS, args)
		want, _ := call(typedCS, args)
		if got != want {
			t.Errorf("echo %s:\n got  %s\n want %s", args, got, want)
		}
	}
	for _, args := range []string{`[]`, `"text"`, `5`} {
		got, a := call(demoCS, args)
		if !a.IsError || !strings.Contains(got, `validating \"arguments\": validating root: type: `) {
			t.Errorf("echo %s: %s, want an error that says the arguments are not an object", args, got)
		}
	}
}

// listedEcho is the echo tool as tools/list shows it on cs.
func listedEcho(t *testing.T, cs *mcp.ClientSession) *mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "echo" {
			return tool
		}
	}
	t.Fatal("tools/list has no echo")
	return nil
}

// TestEchoListsItsSchemas checks that tools/list shows echo's input
// schema and the output schema of demo.EchoResult.
func TestEchoListsItsSchemas(t *testing.T) {
	tool := listedEcho(t, connect(t, &client{}, "2025-11-25"))
	in, _ := json.Marshal(tool.InputSchema)
	out, _ := json.Marshal(tool.OutputSchema)
	if want := `{"additionalProperties":false,"properties":{"text":{"description":"what to send back","type":"string"}},"type":"object"}`; string(in) != want {
		t.Errorf("input schema %s, want %s", in, want)
	}
	if want := `{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}`; string(out) != want {
		t.Errorf("output schema %s, want %s", out, want)
	}
}
