package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/fanout-inspector/inspector/internal/wire"
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

// messageRead is the session's part of the wire tap (see [wireObserver])
// for a message just read off the wire: a server request gets its
// request and span (and the wire key in its _meta), a notification
// becomes an event, a response ends the wait of the client call it
// answers. Two kinds of message from a misbehaving server never reach
// the SDK when the tap can answer for itself: a request reusing the id
// of a request still pending (MCP forbids it; handing it on would
// collide with the first) is recorded as its own span (Duplicate) and
// answered with an Invalid Request error. Over HTTP the SDK gets it and
// refuses it; a request whose id is still pending is a replay when it
// comes again with the same params on another event stream (the server
// replays its events after the client reconnects): the first span is
// kept.
func (s *Session) messageRead(msg jsonrpc.Message, from wireSource) readVerdict {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsCall() {
			s.noteInvalidUTF8(0, m.Method, "", m.Params)
			ev := s.notificationEvent(m.Method, m.Params, from)
			return readVerdict{deliver: msg, seen: func(withheld bool) { s.notificationSeen(ev, withheld) }}
		}
		key := wire.KeyOf(m.ID)
		if first := s.wire.pending(key); first != nil {
			if from.stream != nil && first.stream != nil && first.stream != from.stream && bytes.Equal(first.params, m.Params) {
				return readVerdict{} // a replay of the first, which is being served: skipped
			}
			if from.canAnswer {
				return readVerdict{answer: s.refuseDuplicate(m, from, key)}
			}
			// The SDK refuses it with an Invalid Request error of id
			// null, not tied to the first request.
			s.duplicate(m, from, wire.DuplicateText(key)+"; the client SDK answered it with JSON-RPC error -32600 (id null), it was not served")
			return readVerdict{deliver: msg}
		}
		r := s.receive(m, key, from)
		return readVerdict{deliver: msg, seen: func(withheld bool) { s.requestSeen(r, withheld) }}
	case *jsonrpc.Response:
		key := wire.KeyOf(m.ID)
		c, pairing := s.wire.reply(key, isRefusal(m))
		switch pairing {
		case wire.Answers:
			if c != nil {
				c.replied(m, s.rec.Now())
				return readVerdict{deliver: msg, seen: func(withheld bool) { s.responseSeen(c, key, withheld) }}
			}
		case wire.AnswersAgain, wire.AnswersNothing:
			s.protocolError(wire.AnswerText("server", key, pairing), nil)
		}
	}
	return readVerdict{deliver: msg}
}

// receive begins the request read off the wire as req (id key) and hands
// its id to its handler in its params' _meta (see [wireKey]).
func (s *Session) receive(req *jsonrpc.Request, key string, from wireSource) *request {
	sp := recorder.NewSpan(s.name, recorder.Incoming, req.Method)
	sp.RequestID = key
	sp.Received = s.rec.Now()
	sp.Params = recorder.CapPayload(req.Params)
	sp.Parent, sp.Unlinked = s.link(req.Params, from)
	r := s.newRequest(sp, true)
	if from.stream != nil {
		r.stream, r.params = from.stream, req.Params
	}
	s.wire.track(key, r)
	s.noteInvalidUTF8(r.span, req.Method, key, req.Params)
	s.noteTraceparent(r.span, req.Method, key, req.Params)
	req.Params = injectMeta(req.Params, key)
	return r
}

// link returns the tool call a server request read off the wire
// belongs to, or why it cannot tell (see [wire.Calls.Link]): by the
// progress token in its params' _meta, by the trace its traceparent
// names, by the HTTP response stream it came on, or as the only call in
// flight.
func (s *Session) link(params json.RawMessage, from wireSource) (recorder.SpanID, string) {
	var onStream recorder.SpanID
	if from.replyTo.IsValid() {
		if c := s.wire.caller(wire.KeyOf(from.replyTo)); c != nil {
			onStream = c.span
		}
	}
	return s.calls.Link(wire.ClueOf(wire.ReadParams(params), onStream, from.standalone))
}

// unreadable records a response without a usable id (id null or
// missing) and says to read on. JSON-RPC uses id null for an error the
// server could not tie to a request (its parse-error report); no request
// of ours can be matched to it. The SDK's decoder refuses the message
// but could go on to the next one: the tap records a protocol event and
// reads on instead of letting it tear the session down. Other decoding
// errors are left to the SDK.
func (s *Session) unreadable(err error, raw []byte) bool {
	if !isIDlessResponse(err) {
		return false
	}
	s.protocolError(wire.IdlessText("server"), raw)
	return true
}

// readFailed notes that reading failed and ends the session at once (see
// [Session.lose]); a limit met in the HTTP client ends it, or the
// connecting, from aside (see [Session.overLimit]).
func (s *Session) readFailed(err error) {
	s.wire.fail(err)
	if s.wire.tapped == nil {
		s.overLimit(err)
		return
	}
	s.lose()
}

// httpFailed is the session's part of the HTTP tap for a failure the
// SDK does not end the session on. An HTTP status is kept for the
// connect error ([ConnectError.Status]). A call's response stream broken
// off before its answer, once the session is up, means the server
// stopped or crashed mid-call: the session ends as lost at once, before the SDK hands the call its
// error, so that the call's error and [Session.Err] say so.
func (s *Session) httpFailed(err error) {
	var status *HTTPStatusError
	if errors.As(err, &status) {
		s.wire.refused(status)
		return
	}
	if !s.life.up.Load() {
		return // while connecting, the SDK's error goes back to Connect
	}
	s.wire.fail(err)
	s.lose()
	go s.cs.Close() // lose cannot close an HTTP connection itself
}

// refuseDuplicate records a server request that reuses the id of a
// request still pending and returns the answer to write for it: an
// Invalid Request error with the same id (the protocol's answer to a
// request that is not valid, tied to the id it came with). The first
// request is served as usual.
func (s *Session) refuseDuplicate(req *jsonrpc.Request, from wireSource, key string) *jsonrpc.Response {
	s.duplicate(req, from, wire.DuplicateRefused(key))
	return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidRequest,
		Message: "fanout-inspector: " + wire.DuplicateText(key),
	}}
}

// duplicate records a request that reused a pending request's id as a
// span of its own, ended at once with an error saying so.
func (s *Session) duplicate(req *jsonrpc.Request, from wireSource, text string) {
	sp := recorder.NewSpan(s.name, recorder.Incoming, req.Method)
	sp.RequestID = wire.KeyOf(req.ID)
	sp.Params = recorder.CapPayload(req.Params)
	sp.Parent, sp.Unlinked = s.link(req.Params, from)
	id := wire.RecordDuplicate(s.rec, sp, s.rec.Now(), text)
	s.noteInvalidUTF8(id, req.Method, sp.RequestID, req.Params)
}

// protocolError records something the server sent that breaks the
// protocol but that the session survives. raw, when known, is the
// message as it arrived (capped).
func (s *Session) protocolError(text string, raw []byte) {
	ev := recorder.Event{Kind: recorder.EventProtocol, Text: text}
	if json.Valid(raw) {
		ev.Data = recorder.CapPayload(raw)
	}
	s.addProtocolEvent(ev)
}

// addProtocolEvent records ev, up to [wire.MaxProtocolEvents] per
// session, and then one event saying that the rest were not recorded.
func (s *Session) addProtocolEvent(ev recorder.Event) {
	keep, summary := s.wire.protocolEvents.Next()
	switch {
	case summary != "":
		ev.Text = summary
		ev.Method, ev.Span, ev.Data = "", 0, nil
	case !keep:
		return
	}
	ev.At, ev.Session = s.rec.Now(), s.name
	s.rec.AddEvent(ev)
	s.emitLog(ev)
}

// noteInvalidUTF8 records a protocol event when params the server sent
// are not valid UTF-8 (JSON text must be): the recording keeps them with
// each invalid sequence replaced by U+FFFD (see [recorder.CapPayload]).
func (s *Session) noteInvalidUTF8(span recorder.SpanID, method, key string, params []byte) {
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
	s.addProtocolEvent(recorder.Event{Kind: recorder.EventProtocol, Method: method, Span: span,
		Text: fmt.Sprintf("invalid UTF-8 in %s: %d invalid byte(s) replaced with U+FFFD in the recording", what, n)})
}

// claim returns the request made as it was read off the wire, for the
// handler whose params carry the wire key, removing the key; nil if there
// is none.
func (s *Session) claim(meta *mcp.Meta) *request {
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
	return s.wire.pending(key)
}

// injectMeta returns params with _meta[wireKey] = key added, spliced in
// as text: params without a _meta get one at the front, a _meta object
// gets the key as its first member (the last _meta when the server sent
// several, as a decoder keeps the last), a null _meta becomes an object.
// Params that are not an object, or whose _meta is neither, are returned
// as they are, for the SDK to reject. Decoding the params and encoding
// them again, as this did before, was the largest part of the engine's
// own work on a zero-latency fan-out.
func injectMeta(params json.RawMessage, key string) json.RawMessage {
	quoted, _ := json.Marshal(key)
	member := `"` + wireKey + `":` + string(quoted)
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage(`{"_meta":{` + member + `}}`)
	}
	if trimmed[0] != '{' {
		return params
	}
	at, value, ok := metaValue(trimmed)
	if !ok {
		return params // not valid JSON: the SDK will say so
	}
	var b bytes.Buffer
	b.Grow(len(trimmed) + len(member) + 16)
	switch {
	case at < 0: // no _meta
		b.WriteString(`{"_meta":{` + member + `}`)
		if rest := bytes.TrimSpace(trimmed[1:]); len(rest) > 0 && rest[0] != '}' {
			b.WriteByte(',')
		}
		b.Write(trimmed[1:])
	case value[0] == '{':
		b.Write(trimmed[:at+1])
		b.WriteString(member)
		if rest := bytes.TrimSpace(value[1:]); len(rest) > 0 && rest[0] != '}' {
			b.WriteByte(',')
		}
		b.Write(trimmed[at+1:])
	case string(value) == "null":
		b.Write(trimmed[:at])
		b.WriteString(`{` + member + `}`)
		b.Write(trimmed[at+len(value):])
	default:
		return params
	}
	return b.Bytes()
}

// metaValue finds the value of the last top-level "_meta" member of obj,
// a JSON object: its offset in obj (-1 when there is none) and its text.
// ok is false when obj is not valid JSON.
func metaValue(obj []byte) (at int, value []byte, ok bool) {
	at = -1
	ok = wire.Members(obj, func(name, v []byte, i int) bool {
		if string(name) == "_meta" {
			at, value = i, v
		}
		return true
	})
	return at, value, ok
}

// isRefusal reports whether resp is an Invalid Request error, the answer
// that refuses a request reusing a pending id.
func isRefusal(resp *jsonrpc.Response) bool {
	var rpc *jsonrpc.Error
	return resp.Error != nil && errors.As(resp.Error, &rpc) && wire.IsRefusal(rpc.Code)
}
