package engine

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireTap matches messages on the wire to spans: server requests by their
// id from read to response write, client requests by the outCall in the
// writer's context from write to response read.
type wireTap struct {
	s *Session

	mu        sync.Mutex
	conn      mcp.Connection
	in        map[string]*inEntry
	answering map[*jsonrpc.Response]*inEntry // answers being written
	out       map[jsonrpc.ID]*outCall
	readErr   error
	writeErr  bool // a write failed: the connection is going
	closeErr  error
	isClosed  bool

	protocolEvents int // protocol_error events recorded so far
}

func newWireTap(s *Session) *wireTap {
	return &wireTap{s: s, in: make(map[string]*inEntry), answering: make(map[*jsonrpc.Response]*inEntry), out: make(map[jsonrpc.ID]*outCall)}
}

// beforeWrite taps a message the client is about to write.
func (t *wireTap) beforeWrite(ctx context.Context, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			t.sendingRequest(ctx, m)
		}
	case *jsonrpc.Response:
		t.sendingResponse(m)
	}
}

func (t *wireTap) fail(err error) {
	t.mu.Lock()
	if t.readErr == nil && !t.isClosed {
		t.readErr = err
	}
	t.mu.Unlock()
}

// writeFailed notes that a write failed, which on a connection the tap
// wraps means the server can no longer be reached: a call failing that
// way counts as a lost connection, not a failed call.
func (t *wireTap) writeFailed() {
	t.mu.Lock()
	t.writeErr = true
	t.mu.Unlock()
}

// wrapped reports whether the tap wraps the connection (so it sees read
// errors), rather than sitting in an HTTP client.
func (t *wireTap) wrapped() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.conn != nil
}

// broken reports whether reading or writing failed or the connection
// was closed.
func (t *wireTap) broken() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.readErr != nil || t.writeErr || t.isClosed
}

func (t *wireTap) closed(err error) {
	t.mu.Lock()
	t.isClosed = true
	if t.closeErr == nil {
		t.closeErr = err
	}
	t.mu.Unlock()
}

// failure is the first read error, if the connection broke while open.
func (t *wireTap) failure() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.readErr != nil && !errors.Is(t.readErr, io.EOF) {
		return t.readErr
	}
	return nil
}

func (t *wireTap) closeInner() {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c != nil {
		err := c.Close()
		t.closed(err)
	}
}

// forget drops a finished client request's ids, answered or not (a
// cancelled request's answer may never come).
func (t *wireTap) forget(oc *outCall) {
	t.mu.Lock()
	for _, id := range oc.ids {
		delete(t.out, id)
	}
	oc.ids = nil
	t.mu.Unlock()
}

// reset forgets every request still tracked, once the connection is gone.
func (t *wireTap) reset() {
	t.mu.Lock()
	clear(t.in)
	clear(t.answering)
	clear(t.out)
	t.mu.Unlock()
}
