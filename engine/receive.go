package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
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
