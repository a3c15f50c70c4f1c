package engine

import (
	"errors"
	"io"
	"sync"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireState is the session's view of what is pending on a tapped wire: server
// requests by id from their read to their answer's write, client
// requests by id from their write to their answer's read, and how the
// connection is doing. It only keeps books; the session's observer
// methods (receive.go, respond.go, call.go) act on them. Its lock is
// never held while anything else runs.
type wireState struct {
	tapped *tappedTransport // nil over HTTP, where the tap is in the HTTP client

	mu        sync.Mutex
	in        map[string]*request
	answering map[*jsonrpc.Response]*request // answers being written
	out       *wire.Pending[*call]           // client requests by id key (the wire model pairs their answers)
	readErr   error
	writeErr  bool // a write failed: the connection is going
	closeErr  error
	isClosed  bool
	refusal   *HTTPStatusError // the last HTTP answer of 400 or more

	protocolEvents wire.ProtocolEvents // protocol_error events recorded so far
	cancelNoted    map[string]bool     // ids whose cancellation a call recorded (clientnotify.go)
	// endedSpans are the spans of the client requests answered or
	// forgotten, by id key, for a cancellation the client writes after
	// its request ended (the listen's); bounded like cancelNoted
	// (clientnotify.go)
	endedSpans map[string]recorder.SpanID
}

func newWireState() *wireState {
	return &wireState{in: make(map[string]*request), answering: make(map[*jsonrpc.Response]*request), out: wire.NewPending[*call]()}
}

// pending returns the server request read with id key and not yet
// answered, or nil.
func (w *wireState) pending(key string) *request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.in[key]
}

// track notes a server request read off the wire.
func (w *wireState) track(key string, r *request) {
	w.mu.Lock()
	w.in[key] = r
	w.mu.Unlock()
}

// answer moves the request resp answers from pending to being answered
// and returns it (nil when no tracked request has that id).
func (w *wireState) answer(resp *jsonrpc.Response) *request {
	key := wire.KeyOf(resp.ID)
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
func (w *wireState) answered(resp *jsonrpc.Response) *request {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.answering[resp]
	delete(w.answering, resp)
	return r
}

// sent notes that the client wrote call c's request with id key.
func (w *wireState) sent(key string, c *call) {
	w.mu.Lock()
	w.out.Open(key, c)
	c.ids = append(c.ids, key)
	w.mu.Unlock()
}

// reply pairs a response to id key with the client call it answers
// (see [wire.Pending.Answer]), forgetting its id; the call is nil
// unless it pairs as [wire.Answers].
func (w *wireState) reply(key string, refusal bool) (*call, wire.Pairing) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, pairing := w.out.Answer(key, refusal)
	if c != nil {
		w.noteEnded(key, c.span)
	}
	return c, pairing
}

// caller returns the client call written with id key and not yet
// answered, or nil.
func (w *wireState) caller(key string) *call {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, _ := w.out.Get(key)
	return c
}

// forget drops a finished client call's ids, answered or not (a
// cancelled request's answer may never come; if it does, it is late).
func (w *wireState) forget(c *call) {
	w.mu.Lock()
	for _, key := range c.ids {
		if o, ok := w.out.Get(key); ok && o == c {
			w.out.Drop(key)
			w.noteEnded(key, c.span)
		}
	}
	c.ids = nil
	w.mu.Unlock()
}

// reset forgets every request still tracked, once the connection is gone.
func (w *wireState) reset() {
	w.mu.Lock()
	clear(w.in)
	clear(w.answering)
	clear(w.endedSpans)
	w.out.Clear()
	w.mu.Unlock()
}

func (w *wireState) fail(err error) {
	w.mu.Lock()
	if w.readErr == nil && !w.isClosed {
		w.readErr = err
	}
	w.mu.Unlock()
}

// refused notes an HTTP answer with a status of 400 or more.
func (w *wireState) refused(status *HTTPStatusError) {
	w.mu.Lock()
	w.refusal = status
	w.mu.Unlock()
}

// refusedWith returns the last HTTP answer with a status of 400 or more,
// or nil.
func (w *wireState) refusedWith() *HTTPStatusError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refusal
}

// writeFailed notes that a write failed, which on a connection the tap
// wraps means the server can no longer be reached: a call failing that
// way counts as a lost connection, not a failed call.
func (w *wireState) writeFailed() {
	w.mu.Lock()
	w.writeErr = true
	w.mu.Unlock()
}

// wrapped reports whether the tap wraps the connection (so it sees read
// errors), rather than sitting in an HTTP client.
func (w *wireState) wrapped() bool { return w.tapped != nil && w.tapped.connected() }

// broken reports whether reading or writing failed or the connection
// was closed.
func (w *wireState) broken() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.readErr != nil || w.writeErr || w.isClosed
}

func (w *wireState) markClosed(err error) {
	w.mu.Lock()
	w.isClosed = true
	if w.closeErr == nil {
		w.closeErr = err
	}
	w.mu.Unlock()
}

// failure is the first read error, if the connection broke while open.
func (w *wireState) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.readErr != nil && !errors.Is(w.readErr, io.EOF) {
		return w.readErr
	}
	return nil
}

// closeInner closes the wrapped connection, if there is one.
func (w *wireState) closeInner() {
	if w.tapped != nil {
		w.tapped.closeInner()
	}
}
