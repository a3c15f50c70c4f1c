package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveTestServer runs the test binary as a stdio MCP server in one of a
// few misbehaving modes:
//
//   - "fanout-exit": a fanout tool that sends 5 sampling requests, then
//     the process exits with status 1 after 300ms, mid-fan-out;
//   - "fanout-exit-helper": the same, but first it starts a helper
//     process that keeps the server's stderr open for 8s after the server
//     itself is gone (as a server started through a wrapper may);
//   - "garbage": writes a non-JSON line to stdout before serving;
//   - "garbage-later": the fanout tool writes a non-JSON line to stdout;
//   - "garbage-mid": the fanout tool writes a non-JSON line to stdout
//     300ms after sending its 5 sampling requests, and the process then
//     takes 10s to exit once its stdin closes (a slow shutdown);
//   - "stderr": writes two lines to stderr, then serves an echo tool;
//   - "demo": the demo server; "tokenless": see [tokenlessServer];
//   - "sleep": no server: sleeps 8s (the helper of "fanout-exit-helper").
func serveTestServer(mode string) {
	ctx := context.Background()
	if mode == "sleep" {
		time.Sleep(8 * time.Second)
		return
	}
	if mode == "hostile" {
		serveHostile() // protocol_test.go
		return
	}
	if mode == "demo" || mode == "tokenless" {
		serveLinking(mode) // linking_test.go
		return
	}
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
		switch mode {
		case "garbage-later":
			os.Stdout.Write([]byte("progress: 50% done\n"))
		case "garbage-mid":
			go func() {
				time.Sleep(300 * time.Millisecond)
				os.Stdout.Write([]byte("progress: 50% done\n"))
			}()
		case "fanout-exit-helper":
			helper := exec.Command(os.Args[0], "-test.run=^$")
			helper.Env = append(os.Environ(), "ENGINE_TEST_SERVER=sleep")
			helper.Stderr = os.Stderr // holds the server's stderr open
			if err := helper.Start(); err != nil {
				return nil, nil, err
			}
			fallthrough
		case "fanout-exit":
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
	err := srv.Run(ctx, &mcp.StdioTransport{})
	if mode == "garbage-mid" {
		time.Sleep(10 * time.Second)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
