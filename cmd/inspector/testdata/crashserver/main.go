// Command crashserver is a misbehaving MCP server for the inspector's
// tests. It is a real Go SDK server over stdio whose fanout tool sends n
// sampling requests to the client and then, depending on -mode:
//
//	crash    exits (status 3) 200 ms into the fan-out, before any answer
//	garbage  writes lines that are not JSON-RPC to stdout and keeps going
//
// With -mode garbage-start it writes garbage before even reading the
// initialize request.
//
// With -http it serves streamable HTTP on a free loopback port instead of
// stdio, and prints the endpoint's URL as its first line on stdout; in
// crash mode the whole process exits mid fan-out, as a server that is
// killed or crashes does.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type args struct {
	N int `json:"n,omitempty"`
}

func main() {
	mode := flag.String("mode", "crash", "crash, garbage or garbage-start")
	overHTTP := flag.Bool("http", false, "serve streamable HTTP on a free loopback port (its URL printed on stdout) instead of stdio")
	flag.Parse()
	if *mode == "garbage-start" {
		fmt.Println("Hello! I am not an MCP server, I print whatever I like.")
		fmt.Println("{\"jsonrpc\": \"2.0\", \"oops\"")
		time.Sleep(10 * time.Second)
		return
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "crashserver", Version: "0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "fanout"}, func(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		if in.N == 0 {
			in.N = 5
		}
		for i := range in.N {
			go req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{
				Role: "user", Content: &mcp.TextContent{Text: fmt.Sprint("request ", i+1)},
			}}})
		}
		time.Sleep(200 * time.Millisecond)
		switch *mode {
		case "crash":
			fmt.Fprintln(os.Stderr, "crashserver: exiting in the middle of the fan-out")
			os.Exit(3)
		case "garbage":
			os.Stdout.WriteString("this is not JSON-RPC\n")
			time.Sleep(5 * time.Second)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	if *overHTTP {
		serveHTTP(srv)
		return
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "crashserver:", err)
		os.Exit(1)
	}
}

// serveHTTP serves srv over streamable HTTP on a free loopback port and
// prints its URL.
func serveHTTP(srv *mcp.Server) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashserver:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/mcp\n", l.Addr())
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if err := http.Serve(l, h); err != nil {
		fmt.Fprintln(os.Stderr, "crashserver:", err)
		os.Exit(1)
	}
}
