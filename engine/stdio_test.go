package engine

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveTestServer runs the test binary as a stdio MCP server in one of a
// few misbehaving modes:
//
//   - "fanout-exit": a fanout tool that sends 5 sampling requests, then
//     the process exits with status 1 after 300ms, mid-fan-out;
//   - "garbage": writes a non-JSON line to stdout before serving;
//   - "garbage-later": the fanout tool writes a non-JSON line to stdout;
//   - "stderr": writes two lines to stderr, then serves an echo tool.
func serveTestServer(mode string) {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "engine-test-" + mode, Version: "0.0.1"}, nil)
	switch mode {
	case "garbage":
		fmt.Println("hello from a server that logs to stdout")
	case "stderr":
		fmt.Fprintln(os.Stderr, "starting up")
		fmt.Fprintln(os.Stderr, "ready")
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "fanout"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if mode == "garbage-later" {
			os.Stdout.Write([]byte("progress: 50% done\n"))
		}
		if mode == "fanout-exit" {
			go func() {
				time.Sleep(300 * time.Millisecond)
				fmt.Fprintln(os.Stderr, "crashing on purpose")
				os.Exit(1)
			}()
		}
		done := make(chan error, 5)
		for range 5 {
			go func() {
				_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
					MaxTokens: 10,
					Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}},
				})
				done <- err
			}()
		}
		for range 5 {
			if err := <-done; err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
