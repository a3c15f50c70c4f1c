package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

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

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.inner.Read(ctx)
	if err != nil {
		if ctx.Err() == nil {
			c.tap.fail(err)
			c.tap.s.lose()
		}
		return nil, err
	}
	c.tap.read(msg)
	return msg, nil
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
	wire     bool // its response is written through the tap

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
func (t *wireTap) read(msg jsonrpc.Message) {
	s := t.s
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsCall() {
			s.notification(m.Method, m.Params)
			return
		}
		key := idKey(m.ID)
		t.mu.Lock()
		_, seen := t.in[key]
		t.mu.Unlock()
		if seen {
			// The same request again (an event stream replayed after a
			// reconnect): keep the first span.
			m.Params = injectMeta(m.Params, key)
			return
		}
		now := s.rec.Now()
		sp := recorder.NewSpan(s.name, recorder.Incoming, m.Method)
		sp.RequestID = key
		sp.Received = now
		sp.Params = recorder.CapPayload(m.Params)
		sp.Parent = s.parentByToken(progressToken(m.Params))
		e := &inEntry{index: s.nextIndex(m.Method), seq: s.gate.next(), received: now, wire: true}
		e.span = s.rec.Begin(sp)
		t.mu.Lock()
		t.in[key] = e
		t.mu.Unlock()
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
	t.s.rec.Update(e.span, func(sp *recorder.Span) {
		if !sp.Open() {
			return
		}
		if sp.Queued == recorder.Unset {
			sp.Queued = sp.Received
		}
		if sp.Serving == recorder.Unset {
			sp.Serving = sp.Queued
		}
		sp.Answered = now
		switch {
		case e.handled && (e.status != recorder.StatusOK || resp.Error == nil):
			sp.Status, sp.Error = e.status, e.errText
		case resp.Error != nil:
			// Also an answer the handler built but the SDK refused to
			// send, such as elicitation content the schema rejects.
			sp.Status, sp.Error = recorder.StatusError, resp.Error.Error()
		default:
			sp.Status = recorder.StatusOK
		}
		if resp.Error == nil {
			sp.Result = recorder.CapPayload(resp.Result)
		}
	})
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
