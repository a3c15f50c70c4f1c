package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
)

// Side says which peer wrote a message.
type Side int

// The two peers of a proxy.
const (
	// FromClient is a message the client wrote, on its way to the server.
	FromClient Side = iota
	// FromServer is a message the server wrote, on its way to the client.
	FromServer
)

func (s Side) String() string {
	if s == FromClient {
		return "client"
	}
	return "server"
}

// Session is the session name the proxy's spans and events carry.
const Session = "proxy"

// Stream says which HTTP stream a message the server wrote came on: the
// response to the client request with id key Request (see [wire.Key]),
// or, when Standalone, an event stream the client opened with a GET of
// its own, which belongs to no call. The zero Stream is stdio's one
// stream, or a response that belongs to nothing the proxy knows.
type Stream struct {
	Request    string
	Standalone bool
}

// Book turns the messages crossing a proxy into a recording, with the
// model of the client mode (package internal/wire decides for both):
// every request both ways is a span, a notification is an event, a
// server request made during a tool call is that call's child when
// something links it, and the rounds of a multi-round-trip call
// (protocol 2026-07-28) are one logical call.
//
// The proxy sees the wire only. For a server request, Received is when
// the proxy read it from the server and Answered when the client's
// answer passed back; the client is a black box, so the whole wait is
// recorded as waiting at the client: Queued = Received, and Serving is
// left unset, so it ends equal to Answered; how much of the wait was
// the client's work is an estimate made from the answers, apart.
// For a client request, Received is when it was sent and Answered when
// the server's answer came back, as in client mode.
//
// Book never fails: what it cannot read it records as a protocol event
// and forgets. It is safe for concurrent use (the two directions of a
// proxy are read on two goroutines).
type Book struct {
	rec   *recorder.Recording
	calls *wire.Calls // tool calls in flight, for linking

	protocolEvents wire.ProtocolEvents // protocol_error events so far, capped

	mu       sync.Mutex
	protocol string
	client   *wire.Pending[*pending] // requests the client sent
	server   *wire.Pending[*pending] // requests the server sent
	states   map[string]*call        // requestState of a call awaiting its retry
}

// pending is a request waiting for its answer.
type pending struct {
	span   recorder.SpanID
	method string
	call   *call // the tool call a tools/call request is a round of
	done   bool  // ended already (cancelled): a late answer is dropped
}

// call is one logical tool call: one span over all its rounds.
type call struct {
	wire.Call
	name   string
	rounds int
	round  recorder.SpanID // the open round span, or 0 on a one-shot call
	fulfil recorder.SpanID // the input requests being fulfilled in the client, or 0
	state  string          // the requestState the retry will carry
}

// NewBook returns a Book recording into rec. It marks the recording as a
// proxy's (Meta.Mode "proxy").
func NewBook(rec *recorder.Recording) *Book {
	rec.SetMeta(func(m *recorder.Meta) { m.Mode = recorder.ModeProxy })
	return &Book{
		rec: rec, calls: wire.NewCalls(),
		client: wire.NewPending[*pending](), server: wire.NewPending[*pending](),
		states: map[string]*call{},
	}
}

// SetProtocol tells the book the protocol version in force, when the
// transport says it (the MCP-Protocol-Version header of streamable HTTP);
// over stdio the book reads it from the initialize exchange.
func (b *Book) SetProtocol(v string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.setProtocolLocked(v)
}

func (b *Book) setProtocolLocked(v string) {
	if v == "" || v == b.protocol {
		return
	}
	b.protocol = v
	b.rec.SetMeta(func(m *recorder.Meta) { m.Protocol = v })
}

// message is one JSON-RPC message as the book reads it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Message records raw, one message (or batch) that side wrote, read at
// offset at. via says, for a message the server sent over HTTP, which
// stream it came on. When raw is one request, Message returns its id key
// (the HTTP proxy names the response stream by it), so the body is parsed
// once; otherwise "".
func (b *Book) Message(from Side, raw []byte, at time.Duration, via Stream) (request string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(raw, &batch); err != nil {
			b.garbage(from, raw, at, err)
			return ""
		}
		for _, m := range batch {
			b.one(from, m, at, via)
		}
		return ""
	}
	return b.one(from, raw, at, via)
}

func (b *Book) one(from Side, raw []byte, at time.Duration, via Stream) (request string) {
	var m message
	if err := parseMessage(raw, &m); err != nil {
		b.garbage(from, raw, at, err)
		return ""
	}
	id := wire.Key(m.ID)
	switch {
	case m.Method != "" && id != "":
		b.request(from, id, &m, at, via)
		return id
	case m.Method != "":
		b.notification(from, &m, at, via)
	case m.Result != nil || m.Error != nil:
		if id == "" {
			b.protocolEventData(at, wire.IdlessText(from.String())+"; passed on unchanged", raw)
			return ""
		}
		b.response(from, id, &m, at)
	default:
		b.protocolEvent(at, fmt.Sprintf("the %s wrote a JSON message that is neither a request, a notification nor a response (%s); passed on unchanged", from, head(raw)))
	}
	return ""
}

func (b *Book) garbage(from Side, raw []byte, at time.Duration, err error) {
	b.protocolEvent(at, fmt.Sprintf("the %s wrote a line that is not JSON (%v): %s; passed on unchanged", from, err, head(raw)))
}

func (b *Book) protocolEvent(at time.Duration, text string) {
	b.protocolEventData(at, text, nil)
}

// protocolEventData records a protocol event with the message it is
// about (when that is JSON), up to [wire.MaxProtocolEvents], as the
// engine does: then one event says the rest were not recorded.
func (b *Book) protocolEventData(at time.Duration, text string, raw []byte) {
	ev := recorder.Event{At: at, Session: Session, Kind: recorder.EventProtocol, Text: text}
	switch keep, summary := b.protocolEvents.Next(); {
	case summary != "":
		ev.Text = summary
	case !keep:
		return
	case raw != nil && json.Valid(raw):
		ev.Data = recorder.CapPayload(raw)
	}
	b.rec.AddEvent(ev)
}

// head is the start of a message for an error text.
func head(raw []byte) string {
	const n = 120
	if len(raw) > n {
		return strconv.Quote(string(raw[:n])) + fmt.Sprintf("… (%d bytes)", len(raw))
	}
	return strconv.Quote(string(raw))
}

func (b *Book) request(from Side, id string, m *message, at time.Duration, via Stream) {
	b.mu.Lock()
	defer b.mu.Unlock()
	book, dir := b.client, recorder.Outgoing
	if from == FromServer {
		book, dir = b.server, recorder.Incoming
	}
	sp := recorder.NewSpan(Session, dir, m.Method)
	sp.RequestID = id
	sp.Received, sp.Queued = at, at
	sp.Params = recorder.CapPayload(m.Params)
	md := wire.ReadParams(m.Params)
	if dir == recorder.Incoming {
		sp.Parent, sp.Unlinked = b.link(md, via)
	}
	if old, ok := book.Get(id); ok && old.done {
		book.Take(id) // cancelled: its id is free again
	}
	if _, ok := book.Get(id); ok {
		book.Open(id, nil) // counted as a duplicate; the first stays
		// The id of a request still pending: recorded on its own, its
		// refusal (an Invalid Request error with the id) told apart
		// from the first request's answer by the wire model.
		wire.RecordDuplicate(b.rec, sp, at, wire.DuplicateText(id))
		return
	}
	var p *pending
	switch {
	case dir == recorder.Incoming:
		p = &pending{span: b.rec.Begin(sp), method: m.Method}
	case m.Method == "tools/call":
		b.setProtocolLocked(md.Protocol) // requests name it from 2026-07-28 on
		sp.Serving = at                  // the server's work starts as it is sent
		p = b.toolCall(sp, md, at)
	default:
		b.setProtocolLocked(md.Protocol)
		sp.Serving = at
		p = &pending{span: b.rec.Begin(sp), method: m.Method}
	}
	book.Open(id, p)
}

// toolCall begins a tools/call the client sent: a new logical call, or
// the next round of one awaiting its retry.
func (b *Book) toolCall(sp recorder.Span, md wire.Params, at time.Duration) *pending {
	sp.Name = md.Name
	if c := b.states[md.RequestState]; md.RequestState != "" && c != nil {
		delete(b.states, md.RequestState)
		if c.fulfil != 0 {
			b.rec.End(c.fulfil, at, recorder.Outcome{Status: recorder.StatusOK})
			c.fulfil = 0
		}
		c.rounds++
		sp.Kind, sp.Parent, sp.Round = recorder.KindRound, c.Span, int32(c.rounds)
		c.round = b.rec.Begin(sp)
		return &pending{span: c.round, method: sp.Method, call: c}
	}
	c := &call{name: md.Name}
	c.Token, c.Trace, c.HasTrace = md.Token, md.Trace, md.HasTrace
	c.Span = b.rec.Begin(sp)
	b.calls.Add(&c.Call)
	if !wire.RoundsEra(b.protocol) {
		return &pending{span: c.Span, method: sp.Method, call: c}
	}
	c.rounds = 1
	r := sp
	r.Kind, r.Parent, r.Round = recorder.KindRound, c.Span, 1
	c.round = b.rec.Begin(r)
	return &pending{span: c.round, method: sp.Method, call: c}
}

// link finds the tool call a server request belongs to (see
// [wire.Calls.Link]): the stream it came on is the call's, or the
// request's, whose POST it answers. Called with b.mu held.
func (b *Book) link(md wire.Params, via Stream) (recorder.SpanID, string) {
	var stream recorder.SpanID
	if p, ok := b.client.Get(via.Request); via.Request != "" && ok && p != nil {
		stream = p.span
		if p.call != nil {
			stream = p.call.Span
		}
	}
	return b.calls.Link(wire.ClueOf(md, stream, via.Standalone))
}

// setup is what an initialize (or server/discover) result says of the
// server.
type setup struct {
	ProtocolVersion string     `json:"protocolVersion"`
	ServerInfo      serverInfo `json:"serverInfo"`
	Meta            struct {
		ServerInfo serverInfo `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func (b *Book) response(from Side, id string, m *message, at time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	book := b.client // a server's answer answers a client request
	if from == FromClient {
		book = b.server
	}
	p, pairing := book.Answer(id, m.Error != nil && wire.IsRefusal(m.Error.Code))
	switch {
	case pairing == wire.RefusesDuplicate:
		return // the duplicate's span ended as it came
	case pairing != wire.Answers:
		b.protocolEvent(at, wire.AnswerText(from.String(), id, pairing)+"; passed on unchanged")
		return
	case p == nil || p.done:
		return // cancelled: ended already
	}
	o := recorder.Outcome{Status: recorder.StatusOK, Result: recorder.CapPayload(m.Result)}
	if m.Error != nil {
		o = recorder.Outcome{Status: recorder.StatusError, Error: m.Error.Message, Code: m.Error.Code}
	}
	if (p.method == "initialize" || p.method == "server/discover") && m.Result != nil {
		var sh setup
		_ = json.Unmarshal(m.Result, &sh)
		if p.method == "initialize" {
			b.setProtocolLocked(sh.ProtocolVersion)
		}
		info := sh.ServerInfo
		if info.Name == "" {
			info = sh.Meta.ServerInfo
		}
		if info.Name != "" {
			b.rec.SetMeta(func(meta *recorder.Meta) {
				meta.Server = strings.TrimSpace(info.Name + " " + info.Version)
			})
		}
	}
	if p.call == nil {
		b.rec.End(p.span, at, o)
		return
	}
	var sh wire.Shape
	if m.Result != nil && (wire.MayAskInput(m.Result) || bytes.Contains(m.Result, []byte(`"isError"`))) {
		sh = wire.ReadShape(m.Result)
	}
	b.callAnswered(p, sh, o, at)
}

// callAnswered ends the round (or one-shot call) p with what the server
// answered, and the logical call when that was its last round.
func (b *Book) callAnswered(p *pending, sh wire.Shape, o recorder.Outcome, at time.Duration) {
	c := p.call
	if o.Status == recorder.StatusOK && sh.InputRequired() {
		if c.round == 0 { // a call not known to be multi-round-trip until now
			c.rounds = 1
			r := *b.rec.Span(c.Span)
			r.ID, r.Kind, r.Parent, r.Round = 0, recorder.KindRound, c.Span, 1
			c.round = b.rec.Begin(r)
		}
		n := len(sh.Keys)
		b.rec.Update(c.round, func(s *recorder.Span) {
			s.Outcome, s.InputRequests = recorder.OutcomeInputRequired, int32(n)
		})
		b.rec.End(c.round, at, o)
		b.fulfilment(c, sh, at)
		return
	}
	if o.Status == recorder.StatusOK && sh.IsError {
		o.Status, o.Error = recorder.StatusError, sh.ErrorText()
	}
	if c.round != 0 {
		outcome := recorder.OutcomeResult
		if o.Status == recorder.StatusError {
			outcome = recorder.OutcomeError
		}
		b.rec.Update(c.round, func(s *recorder.Span) { s.Outcome = outcome })
		b.rec.End(c.round, at, o)
	}
	b.rec.End(c.Span, at, o)
	b.forget(c)
}

// fulfilment records the time a round's input requests spend inside the
// client, from the input_required answer to the retry: they never cross
// the wire, so it is one span for them all, a child of the round.
func (b *Book) fulfilment(c *call, sh wire.Shape, at time.Duration) {
	method := "input requests"
	if len(sh.Methods) > 0 && !slices.ContainsFunc(sh.Methods, func(m string) bool { return m != sh.Methods[0] }) {
		method = sh.Methods[0]
	}
	sp := recorder.NewSpan(Session, recorder.Incoming, method)
	sp.Kind = recorder.KindOf(method)
	sp.Parent, sp.Round, sp.InputRequests = c.round, int32(c.rounds), int32(len(sh.Keys))
	sp.InputKey = strings.Join(slices.Sorted(slices.Values(sh.Keys)), ",")
	sp.Received, sp.Queued = at, at
	c.fulfil = b.rec.Begin(sp)
	c.state = sh.RequestState
	b.states[sh.RequestState] = c
}

// forget drops a finished logical call from the books.
func (b *Book) forget(c *call) {
	b.calls.Remove(&c.Call)
	if c.state != "" && b.states[c.state] == c {
		delete(b.states, c.state)
	}
}

func (b *Book) notification(from Side, m *message, at time.Duration, via Stream) {
	ev := recorder.Event{At: at, Session: Session, Method: m.Method, Kind: recorder.EventOther,
		Data: recorder.CapPayload(m.Params)}
	n := wire.ReadNotification(from.String(), m.Method, m.Params)
	ev.Kind, ev.Text, ev.Level, ev.Logger = n.Kind, n.Text, n.Level, n.Logger
	if from == FromClient {
		ev.Direction = recorder.Outgoing
	}
	switch {
	case n.Kind == recorder.EventLog && from == FromServer:
		// A server log message belongs to the call it names, whose
		// stream carried it, or the only one in flight, as a server
		// request does (see link), read under the book's lock like
		// a request's link.
		b.mu.Lock()
		ev.Span, _ = b.link(wire.ReadParams(m.Params), via)
		b.mu.Unlock()
	case n.Token != "":
		ev.Span = b.calls.ByToken(n.Token)
	case n.Kind == recorder.EventCancelled:
		ev.Span = b.cancelled(from, n.Cancels, at, ev.Text)
	}
	b.rec.AddEvent(ev)
}

// cancelled ends the request from cancelled (and the tool call it is a
// round of), if it is still pending, and returns its span. Its late
// answer, if one comes, is dropped.
func (b *Book) cancelled(from Side, id string, at time.Duration, why string) recorder.SpanID {
	b.mu.Lock()
	defer b.mu.Unlock()
	book := b.client // the client cancels a request it sent
	if from == FromServer {
		book = b.server
	}
	pd, ok := book.Get(id)
	if !ok || pd == nil || pd.done {
		return 0
	}
	pd.done = true
	o := recorder.Outcome{Status: recorder.StatusCancelled, Error: why}
	b.rec.End(pd.span, at, o)
	if pd.call != nil {
		if pd.span != pd.call.Span {
			b.rec.End(pd.call.Span, at, o)
		}
		b.forget(pd.call)
	}
	return pd.span
}

// Close ends what is still pending at offset at with reason (the server
// exited, the client went away), so that no span stays open, and records
// the reason as a connection event.
func (b *Book) Close(at time.Duration, reason string) {
	b.rec.AddEvent(recorder.Event{At: at, Session: Session, Kind: recorder.EventConnection, Text: reason})
	b.rec.AbortOpen(at, reason)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.client.Clear()
	b.server.Clear()
	b.calls.Clear()
	clear(b.states)
}

// Abandon ends the request the client sent with id key id, if it is
// still pending, at offset at with reason: its answer will never come
// (over HTTP, the server could not be reached, or the response stream
// carrying the answer broke). The tool call it is a round of ends too.
func (b *Book) Abandon(id string, at time.Duration, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.client.Take(id)
	if !ok || p == nil || p.done {
		return
	}
	o := recorder.Outcome{Status: recorder.StatusAborted, Error: reason}
	b.rec.End(p.span, at, o)
	if p.call != nil {
		if p.span != p.call.Span {
			b.rec.End(p.call.Span, at, o)
		}
		b.forget(p.call)
	}
}
