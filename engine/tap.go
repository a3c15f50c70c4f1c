package engine

import (
	"context"
	"sync"
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
	// httpFailed is told, by the HTTP transports' tap, of a failure the
	// SDK does not take for the connection's end: an answer with a
	// status of 400 or more ([HTTPStatusError]), or a call's response
	// broken off before its answer ([streamBrokenError]).
	httpFailed(err error)
	// awaitsAnswer is asked as the SDK is handed the server request req:
	// true means the client's reader awaits req's answer, handing the
	// SDK nothing else until it is written (dispatch inline).
	awaitsAnswer(req *jsonrpc.Request) bool
	// mayHold says whether the client's reader may come to await an
	// answer (dispatch inline is chosen now): until it does, the tap
	// reads on the SDK's reader itself, without a goroutine of its own.
	mayHold() bool
}

// wireSource says where a message was read: on a connection the tap
// wraps, which can write answers of its own, or in an HTTP body.
type wireSource struct {
	stream    any  // the HTTP event stream it came on, nil otherwise
	canAnswer bool // the tap can write readVerdict.answer back
	// replyTo is the id of the client request whose HTTP response
	// carried the message (the POST's event stream); invalid on the
	// standalone event stream and on a connection.
	replyTo jsonrpc.ID
	// standalone: it came on an event stream the client opened with a
	// GET of its own (the session's standalone stream, or legacy SSE's
	// only one), which belongs to no call.
	standalone bool
}

// readVerdict is what to do with a message read off the wire.
type readVerdict struct {
	// deliver is the message to hand the SDK (possibly rewritten); nil
	// skips it.
	deliver jsonrpc.Message
	// answer, when set, is written back to the server in its place.
	answer *jsonrpc.Response
	// seen, when set, is called as the SDK is handed deliver; withheld
	// says whether it waited while the reader awaited an answer (see
	// [wireObserver.awaitsAnswer]).
	seen func(withheld bool)
}

// tappedTransport is a transport decorator, like the SDK's
// LoggingTransport: it wraps any transport and reports every message its
// connection reads and writes, with the time it happened, to obs.
type tappedTransport struct {
	inner mcp.Transport
	obs   wireObserver
	limit int64 // bytes of messages read but not yet handed on, at most (0: the default message limit)

	conn atomic.Pointer[tapConn] // the connection, once connected
}

func (t *tappedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	limit := t.limit
	if limit <= 0 {
		limit = DefaultMaxMessageSize
	}
	tc := &tapConn{inner: c, obs: t.obs, maxBytes: limit, wake: make(chan struct{})}
	t.conn.Store(tc)
	return tc, nil
}

// connected reports whether the transport has connected.
func (t *tappedTransport) connected() bool {
	return t.conn.Load() != nil
}

// closeInner closes the inner connection under the SDK's feet (to stop
// or reap a server), reporting it as closed.
func (t *tappedTransport) closeInner() {
	if c := t.conn.Load(); c != nil {
		c.shut()
		t.obs.closed(c.inner.Close())
	}
}

// maxHeld is how many messages read off the wire a [tapConn] holds
// before the SDK takes them; past it (or past its byte limit) it stops
// reading the connection.
const maxHeld = 1000

// tapConn is the connection as the SDK sees it: the transport's
// connection with every read and write reported to the observer.
//
// While the observer says no message may be held ([wireObserver.mayHold]),
// Read reads the inner connection itself and reports each message as it
// hands it on: the SDK's reader reads without pause, so that is when it
// arrived, and no goroutine stands between the two. From the first Read
// after holding becomes possible (dispatch switched to inline) for the
// rest of the connection, a goroutine reads the inner connection and reports each message to the
// observer as it arrives (its true arrival time); Read hands the SDK the
// messages to deliver, in order, from a queue. Normally the queue is
// drained as fast as the SDK reads. Under dispatch inline the observer
// says that the client's reader awaits the answer of a server request
// (see [wireObserver.awaitsAnswer]): from handing that request on until
// its answer is written, Read hands the SDK nothing, and the messages
// that waited meanwhile are reported as withheld when they are handed
// on. The queue holds at most [maxHeld] messages or maxBytes bytes; past
// that the goroutine stops reading the inner connection, and the server
// feels the back-pressure of a client that is not reading. A read error
// (the connection lost or closed) is handed on at once, even while the
// reader awaits an answer: the messages still held are then dropped,
// reported as withheld until then.
type tapConn struct {
	inner    mcp.Connection
	obs      wireObserver
	maxBytes int64

	start   sync.Once
	looping bool // Read hands on what readLoop queues (only the SDK's reader touches it)

	mu       sync.Mutex
	wake     chan struct{} // closed (and replaced) when anything below changes, if watched
	watched  bool          // someone waits on wake
	queue    []heldMessage
	bytes    int64      // the size of the messages in queue
	readErr  error      // reading the inner connection failed, after the queued messages
	awaiting bool       // the reader awaits the answer to awaitID
	awaitID  jsonrpc.ID // the server request whose answer it awaits
	isShut   bool       // closed: nothing more will be held back
}

// heldMessage is a message read off the wire, waiting for the SDK.
type heldMessage struct {
	v        readVerdict
	size     int64
	withheld bool // it waited while the reader awaited an answer
}

// changedLocked wakes whoever waits for the queue or the hold to change.
// With nobody waiting, as while messages stream in faster than the SDK
// takes them, there is no one to wake and no new channel to make.
func (c *tapConn) changedLocked() {
	if !c.watched {
		return
	}
	close(c.wake)
	c.wake, c.watched = make(chan struct{}), false
}

// watchLocked returns the channel closed at the next change.
func (c *tapConn) watchLocked() <-chan struct{} {
	c.watched = true
	return c.wake
}

// Read returns the next message the SDK should process: messages the
// observer skips or answers itself never reach the SDK (see
// [Session.messageRead] for which and why).
func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if !c.looping {
		if !c.obs.mayHold() {
			return c.readDirect(ctx)
		}
		c.looping = true
	}
	c.start.Do(func() { go c.readLoop(ctx) })
	for {
		c.mu.Lock()
		if len(c.queue) > 0 && !c.awaiting {
			m := c.queue[0]
			c.queue[0] = heldMessage{}
			c.queue = c.queue[1:]
			c.bytes -= m.size
			c.changedLocked()
			c.mu.Unlock()
			// Only this goroutine hands messages on, and the SDK cannot
			// answer req before it has it: the hold begins in time.
			if req, ok := m.v.deliver.(*jsonrpc.Request); ok && req.IsCall() && c.obs.awaitsAnswer(req) {
				c.mu.Lock()
				if !c.isShut {
					c.awaiting, c.awaitID = true, req.ID
				}
				c.mu.Unlock()
			}
			if m.v.seen != nil {
				m.v.seen(m.withheld)
			}
			return m.v.deliver, nil
		}
		if err := c.readErr; err != nil {
			// Held behind an answer the connection will not carry: the
			// client never sees them, but they were read, and withheld
			// until now.
			dropped := c.queue
			c.queue, c.bytes = nil, 0
			c.mu.Unlock()
			for _, m := range dropped {
				if m.v.seen != nil {
					m.v.seen(true)
				}
			}
			if ctx.Err() == nil {
				c.obs.readFailed(err)
			}
			return nil, err
		}
		wake := c.watchLocked()
		c.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// readDirect reads the inner connection on the SDK's reader until a
// message to hand on arrives, reporting each as it is read.
func (c *tapConn) readDirect(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.inner.Read(ctx)
		if err != nil {
			if ctx.Err() == nil && c.obs.unreadable(err, nil) {
				continue
			}
			if ctx.Err() == nil {
				c.obs.readFailed(err)
			}
			return nil, err
		}
		v := c.obs.messageRead(msg, wireSource{canAnswer: true})
		if v.answer != nil {
			go c.inner.Write(context.WithoutCancel(ctx), v.answer) // as readLoop does
		}
		if v.deliver == nil {
			continue
		}
		// Inline may have been chosen since mayHold was asked: the hold
		// then begins with this request, and the next Read queues.
		if req, ok := v.deliver.(*jsonrpc.Request); ok && req.IsCall() && c.obs.awaitsAnswer(req) {
			c.mu.Lock()
			if !c.isShut {
				c.awaiting, c.awaitID = true, req.ID
			}
			c.mu.Unlock()
			c.looping = true
		}
		if v.seen != nil {
			v.seen(false)
		}
		return v.deliver, nil
	}
}

// readLoop reads the inner connection until it fails, reporting each
// message at once and queueing the ones to hand the SDK.
func (c *tapConn) readLoop(ctx context.Context) {
	for {
		if !c.room(ctx) {
			return
		}
		msg, err := c.inner.Read(ctx)
		if err != nil {
			if ctx.Err() == nil && c.obs.unreadable(err, nil) {
				continue
			}
			c.mu.Lock()
			c.readErr = err
			c.changedLocked()
			c.mu.Unlock()
			return
		}
		v := c.obs.messageRead(msg, wireSource{canAnswer: true})
		if v.answer != nil {
			// Written aside so that a server not reading its input
			// cannot stop the reader; a failed write shows up on the
			// next read or write of the session.
			go c.inner.Write(context.WithoutCancel(ctx), v.answer)
		}
		if v.deliver == nil {
			continue
		}
		c.mu.Lock()
		c.queue = append(c.queue, heldMessage{v: v, size: messageSize(v.deliver)})
		c.bytes += c.queue[len(c.queue)-1].size
		c.changedLocked()
		c.mu.Unlock()
	}
}

// room waits until the queue has room for another message, or the
// connection is shut (a read then fails at once); false if ctx ended.
func (c *tapConn) room(ctx context.Context) bool {
	for {
		c.mu.Lock()
		if c.isShut || (len(c.queue) < maxHeld && c.bytes < c.maxBytes) {
			c.mu.Unlock()
			return true
		}
		wake := c.watchLocked()
		c.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return false
		}
	}
}

// messageSize is about how many bytes msg took on the wire.
func messageSize(msg jsonrpc.Message) int64 {
	const envelope = 64
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return int64(envelope + len(m.Method) + len(m.Params))
	case *jsonrpc.Response:
		n := envelope + len(m.Result)
		if m.Error != nil {
			n += len(m.Error.Error())
		}
		return int64(n)
	}
	return envelope
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.obs.writing(ctx, msg)
	err := c.inner.Write(ctx, msg)
	c.obs.written(ctx, msg, err)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answerWritten(resp.ID)
	}
	return err
}

// answerWritten ends the reader's wait when the answer it awaited was
// written (or failed to be): what was held meanwhile was withheld.
func (c *tapConn) answerWritten(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.awaiting || c.awaitID != id {
		return
	}
	c.awaiting = false
	for i := range c.queue {
		c.queue[i].withheld = true
	}
	c.changedLocked()
}

// shut stops holding anything back: the connection is closing.
func (c *tapConn) shut() {
	c.mu.Lock()
	c.isShut, c.awaiting = true, false
	c.changedLocked()
	c.mu.Unlock()
}

func (c *tapConn) Close() error {
	c.shut()
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
