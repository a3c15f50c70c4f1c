package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireKey is the _meta key under which the wire tap hands a server
// request's JSON-RPC id to the handler that serves it.
//
// The SDK gives handlers the request's params but not its id, and starts
// handlers on goroutines whose order is not the order of arrival, so a
// handler cannot be matched to the message read off the wire by order.
// The tap therefore adds this key to the params' _meta as it reads the
// request (after recording the params as they arrived), and the handler
// reads the id back and removes the key before anything else sees it.
const wireKey = "fanout-inspector/wire-id"

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

// inEntry is a server request being served: created when it is read (or
// when its handler starts, if it did not come over a tapped wire).
type inEntry struct {
	span     recorder.SpanID
	index    int64
	seq      int64 // arrival order across methods, for the dispatch gate
	received time.Duration
	wire     bool   // its response is written through the tap
	stream   any    // the HTTP event stream it came on, if any
	params   []byte // its params as they came, when stream is set

	// Set by the handler before it returns, read when the response is
	// written (same goroutine, after).
	handled   bool
	holdsSlot bool // its dispatch slot is released when the answer is written (off the wire: by finish)
	status    recorder.Status
	errText   string
}

// idKey is a JSON-RPC id as it appears on the wire: 7 or "abc".
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}

// read taps a message the client is about to process: a server request
// gets its span (and the wire key in its _meta), a notification becomes
// an event, a response ends the wait of the client request it answers.
func (t *wireTap) read(msg jsonrpc.Message) { t.readFrom(msg, nil) }

// readFrom is read for a message that came on an HTTP event stream
// (stream identifies the stream; nil for a connection the tap wraps). A
// request whose id is still pending is a replay when it comes again with
// the same params on another stream (the server replays its events after
// the client reconnects): the first span is kept. Otherwise it is a
// duplicate (see [wireTap.duplicate]).
func (t *wireTap) readFrom(msg jsonrpc.Message, stream any) {
	s := t.s
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsCall() {
			t.noteInvalidUTF8(0, m.Method, "", m.Params)
			s.notification(m.Method, m.Params)
			return
		}
		key := idKey(m.ID)
		t.mu.Lock()
		first, seen := t.in[key]
		t.mu.Unlock()
		if seen {
			if stream != nil && first.stream != nil && first.stream != stream && bytes.Equal(first.params, m.Params) {
				return // a replay: the SDK refuses it, the first is being served
			}
			// The SDK refuses it with an Invalid Request error of id
			// null, not tied to the first request.
			t.duplicate(m, duplicateText(key)+"; the client SDK answered it with JSON-RPC error -32600 (id null), it was not served")
			return
		}
		now := s.rec.Now()
		sp := recorder.NewSpan(s.name, recorder.Incoming, m.Method)
		sp.RequestID = key
		sp.Received = now
		sp.Params = recorder.CapPayload(m.Params)
		sp.Parent = s.parentByToken(progressToken(m.Params))
		e := &inEntry{index: s.nextIndex(m.Method), seq: s.gate.next(), received: now, wire: true}
		if stream != nil {
			e.stream, e.params = stream, m.Params
		}
		e.span = s.rec.Begin(sp)
		t.mu.Lock()
		t.in[key] = e
		t.mu.Unlock()
		t.noteInvalidUTF8(e.span, m.Method, key, m.Params)
		m.Params = injectMeta(m.Params, key)
	case *jsonrpc.Response:
		t.mu.Lock()
		oc := t.out[m.ID]
		delete(t.out, m.ID)
		t.mu.Unlock()
		if oc != nil {
			now := s.rec.Now()
			s.rec.Update(oc.span, func(sp *recorder.Span) {
				sp.Answered = now
				if sp.RequestID == "" {
					sp.RequestID = idKey(m.ID)
				}
			})
		}
	}
}

// duplicateText says what was wrong with a request that reused the id of
// one still pending.
func duplicateText(key string) string {
	return fmt.Sprintf("duplicate request id %s while it is still pending (a request id must not be reused within a session)", key)
}

// refuseDuplicate records a server request that reuses the id of a
// request still pending and returns the answer to write for it: an
// Invalid Request error with the same id (the protocol's answer to a
// request that is not valid, tied to the id it came with). The first
// request is served as usual. It returns nil for a request whose id is
// free.
func (t *wireTap) refuseDuplicate(req *jsonrpc.Request) *jsonrpc.Response {
	key := idKey(req.ID)
	t.mu.Lock()
	_, pending := t.in[key]
	t.mu.Unlock()
	if !pending {
		return nil
	}
	t.duplicate(req, duplicateText(key)+"; answered with JSON-RPC error -32600 and not served")
	return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidRequest,
		Message: "fanout-inspector: " + duplicateText(key),
	}}
}

// duplicate records a request that reused a pending request's id as a
// span of its own, ended at once with an error saying so.
func (t *wireTap) duplicate(req *jsonrpc.Request, text string) {
	s := t.s
	now := s.rec.Now()
	sp := recorder.NewSpan(s.name, recorder.Incoming, req.Method)
	sp.RequestID = idKey(req.ID)
	sp.Duplicate = true
	sp.Received = now
	sp.Params = recorder.CapPayload(req.Params)
	sp.Parent = s.parentByToken(progressToken(req.Params))
	id := s.rec.Begin(sp)
	s.rec.Update(id, func(sp *recorder.Span) {
		sp.Queued, sp.Serving, sp.Answered = now, now, now
		sp.Status, sp.Error = recorder.StatusError, text
	})
	t.noteInvalidUTF8(id, req.Method, sp.RequestID, req.Params)
}

// protocolError records something the server sent that breaks the
// protocol but that the session survives. raw, when known, is the
// message as it arrived (capped).
func (t *wireTap) protocolError(text string, raw []byte) {
	ev := recorder.Event{Kind: recorder.EventProtocol, Text: text}
	if json.Valid(raw) {
		ev.Data = recorder.CapPayload(raw)
	}
	t.addProtocolEvent(ev)
}

// maxProtocolEvents is how many protocol_error events a session records;
// a server that keeps misbehaving cannot grow the recording without end.
const maxProtocolEvents = 1000

// addProtocolEvent records ev, up to maxProtocolEvents per session, and
// then one event saying that the rest were not recorded.
func (t *wireTap) addProtocolEvent(ev recorder.Event) {
	t.mu.Lock()
	t.protocolEvents++
	n := t.protocolEvents
	t.mu.Unlock()
	switch {
	case n == maxProtocolEvents+1:
		ev.Text = fmt.Sprintf("more protocol errors from the server: only the first %d are recorded", maxProtocolEvents)
		ev.Method, ev.Span, ev.Data = "", 0, nil
	case n > maxProtocolEvents:
		return
	}
	s := t.s
	ev.At, ev.Session = s.rec.Now(), s.name
	s.rec.AddEvent(ev)
	s.emitLog(ev)
}

// noteInvalidUTF8 records a protocol event when params the server sent
// are not valid UTF-8 (JSON text must be): the recording keeps them with
// each invalid sequence replaced by U+FFFD (see [recorder.CapPayload]).
func (t *wireTap) noteInvalidUTF8(span recorder.SpanID, method, key string, params []byte) {
	if utf8.Valid(params) {
		return
	}
	n := 0
	for b := params; len(b) > 0; {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			n++
		}
		b = b[size:]
	}
	what := "the params of " + method
	if key != "" {
		what += " (id " + key + ")"
	}
	t.addProtocolEvent(recorder.Event{Kind: recorder.EventProtocol, Method: method, Span: span,
		Text: fmt.Sprintf("invalid UTF-8 in %s: %d invalid byte(s) replaced with U+FFFD in the recording", what, n)})
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

// sendingRequest times a client request as it goes out.
func (t *wireTap) sendingRequest(ctx context.Context, req *jsonrpc.Request) {
	oc, _ := ctx.Value(outKey{}).(*outCall)
	if oc == nil {
		return
	}
	t.mu.Lock()
	t.out[req.ID] = oc
	oc.ids = append(oc.ids, req.ID)
	t.mu.Unlock()
	round := oc.rounds.Add(1)
	now := t.s.rec.Now()
	key := idKey(req.ID)
	t.s.rec.Update(oc.span, func(sp *recorder.Span) {
		if round == 1 {
			sp.Received, sp.Queued, sp.Serving = now, now, now
		}
		sp.RequestID = key // the last round's id
	})
}

// sendingResponse ends the span of the server request being answered.
// It runs just before the answer is written, so that the span has ended
// by the time the server can react to the answer.
func (t *wireTap) sendingResponse(resp *jsonrpc.Response) {
	key := idKey(resp.ID)
	t.mu.Lock()
	e := t.in[key]
	delete(t.in, key)
	if e != nil {
		t.answering[resp] = e
	}
	t.mu.Unlock()
	if e == nil {
		return
	}
	now := t.s.rec.Now()
	if e.holdsSlot {
		now = max(now, t.s.gate.release()) // ends as the next request is let in
	}
	o := recorder.Outcome{Status: recorder.StatusOK}
	switch {
	case e.handled && (e.status != recorder.StatusOK || resp.Error == nil):
		o.Status, o.Error = e.status, e.errText
	case resp.Error != nil:
		// Also an answer the handler built but the SDK refused to
		// send, such as elicitation content the schema rejects.
		o.Status, o.Error = recorder.StatusError, resp.Error.Error()
	}
	if resp.Error == nil {
		o.Result = recorder.CapPayload(resp.Result)
	}
	t.s.rec.End(e.span, now, o)
}

// afterWrite marks an answer that could not be written as aborted.
func (t *wireTap) afterWrite(msg jsonrpc.Message, err error) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	t.mu.Lock()
	e := t.answering[resp]
	delete(t.answering, resp)
	t.mu.Unlock()
	if e == nil || err == nil {
		return
	}
	t.s.rec.Update(e.span, func(sp *recorder.Span) {
		if sp.Status == recorder.StatusOK {
			sp.Status, sp.Error = recorder.StatusAborted, "the answer could not be sent: "+err.Error()
		}
	})
}

// claim returns the entry the tap made for the request whose params carry
// the wire key, removing the key; nil if there is none.
func (t *wireTap) claim(meta *mcp.Meta) *inEntry {
	if meta == nil || *meta == nil {
		return nil
	}
	v, ok := (*meta)[wireKey]
	if !ok {
		return nil
	}
	delete(*meta, wireKey)
	if len(*meta) == 0 {
		*meta = nil
	}
	key, _ := v.(string)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.in[key]
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

// progressToken returns params._meta.progressToken as a string, or "".
func progressToken(params json.RawMessage) string {
	if !bytes.Contains(params, []byte(`"progressToken"`)) {
		return ""
	}
	var p struct {
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
		ProgressToken any `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	tok := p.Meta.ProgressToken
	if tok == nil {
		tok = p.ProgressToken // notifications/progress carries it at the top
	}
	return tokenString(tok)
}

func tokenString(tok any) string {
	switch v := tok.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case json.Number:
		return v.String()
	}
	return ""
}

// injectMeta returns params with _meta[wireKey] = key added. Params
// without a _meta get it spliced in as text; others are decoded and
// re-encoded.
func injectMeta(params json.RawMessage, key string) json.RawMessage {
	quoted, _ := json.Marshal(key)
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage(`{"_meta":{"` + wireKey + `":` + string(quoted) + `}}`)
	}
	if trimmed[0] != '{' {
		return params // not an object: leave it for the SDK to reject
	}
	if !bytes.Contains(trimmed, []byte(`"_meta"`)) {
		var b bytes.Buffer
		b.Grow(len(trimmed) + len(wireKey) + len(quoted) + 16)
		b.WriteString(`{"_meta":{"` + wireKey + `":`)
		b.Write(quoted)
		b.WriteString(`}`)
		rest := bytes.TrimSpace(trimmed[1:])
		if len(rest) > 0 && rest[0] != '}' {
			b.WriteByte(',')
		}
		b.Write(rest)
		return b.Bytes()
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(trimmed, &obj) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if raw, ok := obj["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params
	}
	if meta == nil {
		meta = make(map[string]json.RawMessage, 1)
	}
	meta[wireKey] = quoted
	obj["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(obj)
	if err != nil {
		return params
	}
	return out
}
