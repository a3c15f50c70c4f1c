package demo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect a plain client to the demo server in process and let it fan out
// three sampling requests, which the client answers with the prompt it got.
func ExampleNewServer() {
	ctx := context.Background()
	clientSide, serverSide := mcp.NewInMemoryTransports()
	ss, err := demo.NewServer().Connect(ctx, serverSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "example"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := req.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Model: "echo", Role: "assistant", Content: &mcp.TextContent{Text: "answer to " + prompt}}, nil
		},
	})
	cs, err := client.Connect(ctx, clientSide, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": 3, "kind": "sampling"}})
	if err != nil {
		log.Fatal(err)
	}
	out := res.StructuredContent.(map[string]any)
	for _, r := range out["replies"].([]any) {
		fmt.Println(r.(map[string]any)["text"])
	}
	// Output:
	// answer to Request 1 of 3: say hello.
	// answer to Request 2 of 3: say hello.
	// answer to Request 3 of 3: say hello.
}
