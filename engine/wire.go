package engine

import (
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wire is the session's view of what is pending on a tapped wire: server
// requests by id from their read to their answer's write, client
// requests by id from their write to their answer's read, and how the
// connection is doing. It only keeps books; the session's observer
// methods (receive.go, respond.go, call.go) act on them. Its lock is
// never held while anything else runs.
type wire struct {
	tapped *tappedTransport // nil over HTTP, where the tap is in the HTTP client

	mu        sync.Mutex
	in        map[string]*request
	answering map[*jsonrpc.Response]*request // answers being written
	out       map[jsonrpc.ID]*call
	readErr   error
	writeErr  bool // a write failed: the connection is going
	closeErr  error
	isClosed  bool

	protocolEvents int // protocol_error events recorded so far
}

func newWire() *wire {
	return &wire{in: make(map[string]*request), answering: make(map[*jsonrpc.Response]*request), out: make(map[jsonrpc.ID]*call)}
}

// pending returns the server request read with id key and not yet
// answered, or nil.
func (w *wire) pending(key string) *request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.in[key]
}

// track notes a server request read off the wire.
func (w *wire) track(key string, r *request) {
	w.mu.Lock()
	w.in[key] = r
	w.mu.Unlock()
}

// answer moves the request resp answers from pending to being answered
// and returns it (nil when no tracked request has that id).
func (w *wire) answer(resp *jsonrpc.Response) *request {
	key := idKey(resp.ID)
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.in[key]
	delete(w.in, key)
	if r != nil {
		w.answering[resp] = r
	}
	return r
}

// answered forgets an answer once written, returning its request.
func (w *wire) answered(resp *jsonrpc.Response) *request {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.answering[resp]
	delete(w.answering, resp)
	return r
}

// sent notes that the client wrote call c's request with id.
func (w *wire) sent(id jsonrpc.ID, c *call) {
	w.mu.Lock()
	w.out[id] = c
	c.ids = append(c.ids, id)
	w.mu.Unlock()
}

// reply returns the client call a response answers, forgetting its id.
func (w *wire) reply(id jsonrpc.ID) *call {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.out[id]
	delete(w.out, id)
	return c
}

// caller returns the client call written with id and not yet answered,
// or nil.
func (w *wire) caller(id jsonrpc.ID) *call {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out[id]
}

// forget drops a finished client call's ids, answered or not (a
// cancelled request's answer may never come).
func (w *wire) forget(c *call) {
	w.mu.Lock()
	for _, id := range c.ids {
		delete(w.out, id)
	}
	c.ids = nil
	w.mu.Unlock()
}

// reset forgets every request still tracked, once the connection is gone.
func (w *wire) reset() {
	w.mu.Lock()
	clear(w.in)
	clear(w.answering)
	clear(w.out)
	w.mu.Unlock()
}

// countProtocolEvent counts one more protocol event and returns the count.
func (w *wire) countProtocolEvent() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.protocolEvents++
	return w.protocolEvents
}

func (w *wire) fail(err error) {
	w.mu.Lock()
	if w.readErr == nil && !w.isClosed {
		w.readErr = err
	}
	w.mu.Unlock()
}

// writeFailed notes that a write failed, which on a connection the tap
// wraps means the server can no longer be reached: a call failing that
// way counts as a lost connection, not a failed call.
func (w *wire) writeFailed() {
	w.mu.Lock()
	w.writeErr = true
	w.mu.Unlock()
}

// wrapped reports whether the tap wraps the connection (so it sees read
// errors), rather than sitting in an HTTP client.
func (w *wire) wrapped() bool { return w.tapped != nil && w.tapped.connected() }

// broken reports whether reading or writing failed or the connection
// was closed.
func (w *wire) broken() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.readErr != nil || w.writeErr || w.isClosed
}

func (w *wire) markClosed(err error) {
	w.mu.Lock()
	w.isClosed = true
	if w.closeErr == nil {
		w.closeErr = err
	}
	w.mu.Unlock()
}

// failure is the first read error, if the connection broke while open.
func (w *wire) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.readErr != nil && !errors.Is(w.readErr, io.EOF) {
		return w.readErr
	}
	return nil
}

// closeInner closes the wrapped connection, if there is one.
func (w *wire) closeInner() {
	if w.tapped != nil {
		w.tapped.closeInner()
	}
}
