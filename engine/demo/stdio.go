package demo

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DrainTimeout is how long [ServeStdio] goes on serving the requests in
// progress after its input closed, before it gives up on them.
const DrainTimeout = 10 * time.Second

// ServeStdio serves a new demo server over stdin and stdout until the
// client closes stdin or ctx is done. Nothing else may write to stdout.
//
// When stdin closes while requests are in progress (a slow tool call, say)
// it finishes them and writes their answers first, for up to
// [DrainTimeout]; a client that writes its requests and closes its end
// still gets every answer. When ctx is done it stops at once.
func ServeStdio(ctx context.Context) error {
	return serveDraining(ctx, &mcp.StdioTransport{}, DrainTimeout)
}

func serveDraining(ctx context.Context, t mcp.Transport, grace time.Duration) error {
	err := NewServer().Run(ctx, &drainingTransport{inner: t, grace: grace})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

// drainingTransport holds back the end of the client's input until the
// requests read before it are answered (or grace has passed), so that the
// SDK, which cancels every request in progress when its input ends, lets
// them finish.
type drainingTransport struct {
	inner mcp.Transport
	grace time.Duration
}

func (t *drainingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainingConn{Connection: c, grace: t.grace, pending: make(map[jsonrpc.ID]struct{}), answered: make(chan struct{}, 1)}, nil
}

// drainingConn counts the client's requests from when they are read to
// when their answer has been written.
type drainingConn struct {
	mcp.Connection
	grace time.Duration

	mu       sync.Mutex
	pending  map[jsonrpc.ID]struct{}
	answered chan struct{} // signalled after an answer is written
}

func (c *drainingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if errors.Is(err, io.EOF) {
		c.drain(ctx)
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID] = struct{}{}
		c.mu.Unlock()
	}
	return msg, err
}

func (c *drainingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// drain waits until every request read has been answered, grace has
// passed or ctx is done. The SDK reads on one goroutine, so every request
// read before the end of input has been counted by now.
func (c *drainingConn) drain(ctx context.Context) {
	deadline := time.NewTimer(c.grace)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
