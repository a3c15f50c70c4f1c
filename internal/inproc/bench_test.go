package inproc

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMessage writes an echo call's request on one end and reads it
// on the other, then its response back: over the pair, and over the
// SDK's in-memory transports for comparison (go test -bench Message
// -benchmem ./internal/inproc).
func BenchmarkMessage(b *testing.B) {
	for _, tc := range []struct {
		name string
		pair func() (mcp.Transport, mcp.Transport)
	}{
		{"pair", Pair},
		{"sdk-in-memory", func() (mcp.Transport, mcp.Transport) {
			a, c := mcp.NewInMemoryTransports()
			return a, c
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ta, tb := tc.pair()
			a, err := ta.Connect(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			c, err := tb.Connect(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			defer c.Close()
			id, err := jsonrpc.MakeID(float64(1))
			if err != nil {
				b.Fatal(err)
			}
			req := &jsonrpc.Request{ID: id, Method: "tools/call",
				Params: []byte(`{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":"c-1"}}`)}
			resp := &jsonrpc.Response{ID: id, Result: []byte(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"text":"x"}}`)}
			// The SDK's pipe is synchronous: each write waits for a
			// reader, so the reads run beside the writes.
			read := func(conn mcp.Connection, done chan<- error) {
				_, err := conn.Read(b.Context())
				done <- err
			}
			b.ReportAllocs()
			for b.Loop() {
				done := make(chan error, 2)
				go read(c, done)
				if err := a.Write(b.Context(), req); err != nil {
					b.Fatal(err)
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				go read(a, done)
				if err := c.Write(b.Context(), resp); err != nil {
					b.Fatal(err)
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
