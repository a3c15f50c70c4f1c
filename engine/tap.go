package engine

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireObserver is told what a tapped wire carries, as it happens: the
// [tappedTransport] (a connection) and the [tapRoundTripper] (the HTTP
// transports) report to it and know nothing else of their user. The
// session implements it (receive.go, respond.go, call.go).
type wireObserver interface {
	// messageRead is told of each message as it is read off the wire,
	// before the client's SDK sees it, and says what to do with it.
	messageRead(msg jsonrpc.Message, from wireSource) readVerdict
	// unreadable is told of a message the SDK's decoder refused; it
	// reports whether to skip it and read on (raw is the message, when
	// known).
	unreadable(err error, raw []byte) (skip bool)
	// readFailed is told that reading failed for good: the connection
	// is lost, or the server sent more than a limit allows.
	readFailed(err error)
	// writing is told of a message about to be written, with the
	// writer's context; written, of the outcome of writing it.
	writing(ctx context.Context, msg jsonrpc.Message)
	written(ctx context.Context, msg jsonrpc.Message, err error)
	// closed is told that the connection was closed.
	closed(err error)
}

// wireSource says where a message was read: on a connection the tap
// wraps, which can write answers of its own, or in an HTTP body.
type wireSource struct {
	stream    any  // the HTTP event stream it came on, nil otherwise
	canAnswer bool // the tap can write readVerdict.answer back
}

// readVerdict is what to do with a message read off the wire.
type readVerdict struct {
	// deliver is the message to hand the SDK (possibly rewritten); nil
	// skips it.
	deliver jsonrpc.Message
	// answer, when set, is written back to the server in its place.
	answer *jsonrpc.Response
}

// tappedTransport is a transport decorator, like the SDK's
// LoggingTransport: it wraps any transport and reports every message its
// connection reads and writes, with the time it happened, to obs.
type tappedTransport struct {
	inner mcp.Transport
	obs   wireObserver

	conn atomic.Pointer[mcp.Connection] // the inner connection, once connected
}

func (t *tappedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn.Store(&c)
	return &tapConn{inner: c, obs: t.obs}, nil
}

// connected reports whether the transport has connected.
func (t *tappedTransport) connected() bool {
	return t.conn.Load() != nil
}

// closeInner closes the inner connection under the SDK's feet (to stop
// or reap a server), reporting it as closed.
func (t *tappedTransport) closeInner() {
	if c := t.conn.Load(); c != nil {
		t.obs.closed((*c).Close())
	}
}

// tapConn is the connection as the SDK sees it: the transport's
// connection with every read and write reported to the observer.
//
// Reading is the one place to change for a client that stops handing
// messages to its SDK while it serves a request (an inline dispatch):
// a goroutine would read the inner connection and report each message
// at once (its true arrival time), and Read would hand the SDK the
// delivered messages from a queue only when the observer lets it.
type tapConn struct {
	inner mcp.Connection
	obs   wireObserver
}

// Read returns the next message the SDK should process: messages the
// observer skips or answers itself never reach the SDK (see
// [Session.messageRead] for which and why).
func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.inner.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				if c.obs.unreadable(err, nil) {
					continue
				}
				c.obs.readFailed(err)
			}
			return nil, err
		}
		v := c.obs.messageRead(msg, wireSource{canAnswer: true})
		if v.answer != nil {
			// Written aside so that a server not reading its input
			// cannot stop the reader; a failed write shows up on the
			// next read or write of the session.
			go c.inner.Write(context.WithoutCancel(ctx), v.answer)
		}
		if v.deliver != nil {
			return v.deliver, nil
		}
	}
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.obs.writing(ctx, msg)
	err := c.inner.Write(ctx, msg)
	c.obs.written(ctx, msg, err)
	return err
}

func (c *tapConn) Close() error {
	err := c.inner.Close()
	c.obs.closed(err)
	return err
}

func (c *tapConn) SessionID() string { return c.inner.SessionID() }

// isIDlessResponse reports whether err is the SDK's connection refusing
// one message that is a response without a valid id, after which it can
// read on. Other decoding errors (text that is not JSON, a frame too
// large) end its reader, so they are not recognised here.
func isIDlessResponse(err error) bool {
	werr, ok := err.(*jsonrpc.Error) // returned as it is by the SDK's decoder
	return ok && werr.Code == jsonrpc.CodeInvalidRequest && werr.Message == "invalid request"
}
