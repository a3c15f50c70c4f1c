package engine

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tappedTransport wraps a transport so that every message it carries
// passes through the session's wire tap.
type tappedTransport struct {
	inner mcp.Transport
	tap   *wireTap
}

func (t *tappedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.tap.mu.Lock()
	t.tap.conn = c
	t.tap.mu.Unlock()
	return &tapConn{inner: c, tap: t.tap}, nil
}

// tapConn is the session's connection as the SDK sees it: the
// transport's connection with every read and write timed.
type tapConn struct {
	inner mcp.Connection
	tap   *wireTap
}

// Read returns the next message the SDK should process. Two kinds of
// message from a misbehaving server are handled here and never reach the
// SDK, which would otherwise end the session or confuse two requests:
//
//   - A response without a usable id (id null or missing). JSON-RPC uses
//     id null for an error the server could not tie to a request (its
//     parse-error report); no request of ours can be matched to it. The
//     SDK's connection rejects the message while decoding it, but its
//     reader goes on to the next message: the tap records a protocol
//     event and reads on instead of tearing the session down.
//   - A request reusing the id of a request still pending. MCP forbids
//     reusing an id within a session; handing it to the SDK would collide
//     with the first. The tap records it as its own span (Duplicate) and
//     answers it with an Invalid Request error itself.
func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.inner.Read(ctx)
		if err != nil {
			if ctx.Err() == nil && isIDlessResponse(err) {
				c.tap.protocolError(idlessText, nil)
				continue
			}
			if ctx.Err() == nil {
				c.tap.fail(err)
				c.tap.s.lose()
			}
			return nil, err
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if resp := c.tap.refuseDuplicate(req); resp != nil {
				// Written aside so that a server not reading its input
				// cannot stop the reader; a failed write shows up on the
				// next read or write of the session.
				go c.inner.Write(context.WithoutCancel(ctx), resp)
				continue
			}
		}
		c.tap.read(msg)
		return msg, nil
	}
}

// idlessText says what the tap did with a response that had no usable id.
const idlessText = "the server sent a response without a usable id (id null or missing), which matches no request: " +
	"recorded and skipped, the session goes on. JSON-RPC allows id null only for an error the server could not tie to a request, such as a parse error"

// isIDlessResponse reports whether err is the SDK's connection refusing
// one message that is a response without a valid id, after which it can
// read on. Other decoding errors (text that is not JSON, a frame too
// large) end its reader, so they are not recognised here.
func isIDlessResponse(err error) bool {
	werr, ok := err.(*jsonrpc.Error) // returned as it is by the SDK's decoder
	return ok && werr.Code == jsonrpc.CodeInvalidRequest && werr.Message == "invalid request"
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.tap.beforeWrite(ctx, msg)
	err := c.inner.Write(ctx, msg)
	c.tap.afterWrite(msg, err)
	if err != nil && ctx.Err() == nil {
		c.tap.writeFailed()
	}
	return err
}

func (c *tapConn) Close() error {
	err := c.inner.Close()
	c.tap.closed(err)
	return err
}

func (c *tapConn) SessionID() string { return c.inner.SessionID() }
