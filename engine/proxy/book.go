package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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

// Book turns the messages crossing a proxy into a recording, with the
// model of the client mode: every request both ways is a span, a
// notification is an event, a server request made during a tool call is
// that call's child when something links it, and the rounds of a
// multi-round-trip call (protocol 2026-07-28) are one logical call.
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
	rec *recorder.Recording

	mu       sync.Mutex
	protocol string
	client   map[string]*pending // requests the client sent, by id key
	server   map[string]*pending // requests the server sent, by id key
	tokens   map[string]*call    // progress token of a tool call in flight
	states   map[string]*call    // requestState of a call awaiting its retry
	calls    map[*call]struct{}  // tool calls in flight
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
	span   recorder.SpanID
	name   string
	token  string
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
		rec:    rec,
		client: map[string]*pending{}, server: map[string]*pending{},
		tokens: map[string]*call{}, states: map[string]*call{}, calls: map[*call]struct{}{},
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

// roundsEra reports whether tool calls are multi-round-trip calls: on
// protocol 2026-07-28 and later every tools/call is round 1 of a logical
// call (version strings are dates, so they compare as strings).
func (b *Book) roundsEra() bool { return b.protocol >= "2026-07-28" }

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
// offset at. via names, for a message the server sent on the HTTP
// response stream of a client request, that request's id key (see
// [IDKey]); "" otherwise.
func (b *Book) Message(from Side, raw []byte, at time.Duration, via string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	if raw[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(raw, &batch); err != nil {
			b.garbage(from, raw, at, err)
			return
		}
		for _, m := range batch {
			b.one(from, m, at, via)
		}
		return
	}
	b.one(from, raw, at, via)
}

func (b *Book) one(from Side, raw []byte, at time.Duration, via string) {
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		b.garbage(from, raw, at, err)
		return
	}
	id := IDKey(m.ID)
	switch {
	case m.Method != "" && id != "":
		b.request(from, id, &m, at, via)
	case m.Method != "":
		b.notification(from, &m, at)
	case id != "" && (m.Result != nil || m.Error != nil):
		b.response(from, id, &m, at)
	default:
		b.protocolEvent(at, fmt.Sprintf("the %s wrote a JSON message that is neither a request, a notification nor a response with an id (%s); passed on unchanged", from, head(raw)))
	}
}

// IDKey is the text of a JSON-RPC id as spans carry it: a string id
// quoted, a number as written; "" for no id or null.
func IDKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return strconv.Quote(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return ""
	}
	return n.String()
}

func (b *Book) garbage(from Side, raw []byte, at time.Duration, err error) {
	b.protocolEvent(at, fmt.Sprintf("the %s wrote a line that is not JSON (%v): %s; passed on unchanged", from, err, head(raw)))
}

func (b *Book) protocolEvent(at time.Duration, text string) {
	b.rec.AddEvent(recorder.Event{At: at, Session: Session, Kind: recorder.EventProtocol, Text: text})
}

// head is the start of a message for an error text.
func head(raw []byte) string {
	const n = 120
	if len(raw) > n {
		return strconv.Quote(string(raw[:n])) + fmt.Sprintf("… (%d bytes)", len(raw))
	}
	return strconv.Quote(string(raw))
}

// meta is what the book reads from a request's params.
type meta struct {
	Name         string `json:"name"`
	RequestState string `json:"requestState"`
	Meta         struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		// Protocol is the version a 2026-07-28 request names itself.
		Protocol string `json:"io.modelcontextprotocol/protocolVersion"`
	} `json:"_meta"`
}

func readMeta(params json.RawMessage) meta {
	var m meta
	_ = json.Unmarshal(params, &m)
	return m
}

func (b *Book) request(from Side, id string, m *message, at time.Duration, via string) {
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
	if old, ok := book[id]; ok && !old.done {
		// The id of a request still pending: recorded on its own, the
		// peer's answer cannot be told apart.
		sp.Duplicate = true
		sp.Serving = at
		b.rec.End(b.rec.Begin(sp), at, recorder.Outcome{Status: recorder.StatusError,
			Error: fmt.Sprintf("the %s reused id %s of a request still pending", from, id)})
		return
	}
	md := readMeta(m.Params)
	if dir == recorder.Outgoing {
		b.setProtocolLocked(md.Meta.Protocol) // requests name it from 2026-07-28 on
		sp.Serving = at                       // the server's work starts as it is sent
		if m.Method == "tools/call" {
			book[id] = b.toolCall(sp, md, at)
			return
		}
		book[id] = &pending{span: b.rec.Begin(sp), method: m.Method}
		return
	}
	sp.Parent, sp.Unlinked = b.link(md, via)
	book[id] = &pending{span: b.rec.Begin(sp), method: m.Method}
}

// toolCall begins a tools/call the client sent: a new logical call, or
// the next round of one awaiting its retry.
func (b *Book) toolCall(sp recorder.Span, md meta, at time.Duration) *pending {
	sp.Name = md.Name
	if c := b.states[md.RequestState]; md.RequestState != "" && c != nil {
		delete(b.states, md.RequestState)
		if c.fulfil != 0 {
			b.rec.End(c.fulfil, at, recorder.Outcome{Status: recorder.StatusOK})
			c.fulfil = 0
		}
		c.rounds++
		sp.Kind, sp.Parent, sp.Round = recorder.KindRound, c.span, int32(c.rounds)
		c.round = b.rec.Begin(sp)
		return &pending{span: c.round, method: sp.Method, call: c}
	}
	c := &call{name: md.Name, token: tokenKey(md.Meta.ProgressToken)}
	c.span = b.rec.Begin(sp)
	b.calls[c] = struct{}{}
	if c.token != "" {
		b.tokens[c.token] = c
	}
	if !b.roundsEra() {
		return &pending{span: c.span, method: sp.Method, call: c}
	}
	c.rounds = 1
	r := sp
	r.Kind, r.Parent, r.Round = recorder.KindRound, c.span, 1
	c.round = b.rec.Begin(r)
	return &pending{span: c.round, method: sp.Method, call: c}
}

func tokenKey(raw json.RawMessage) string { return IDKey(raw) }

// link finds the tool call a server request belongs to: by the progress
// token it carries, by the HTTP response stream it came on, or as the
// only call in flight. With several in flight and nothing to tell them
// apart it says why it did not guess.
func (b *Book) link(md meta, via string) (recorder.SpanID, string) {
	if c := b.tokens[tokenKey(md.Meta.ProgressToken)]; c != nil {
		return c.span, ""
	}
	if p := b.client[via]; via != "" && p != nil && p.call != nil {
		return p.call.span, ""
	}
	switch len(b.calls) {
	case 0:
		return 0, ""
	case 1:
		for c := range b.calls {
			return c.span, ""
		}
	}
	return 0, fmt.Sprintf("%d tool calls were in flight and the request carried no progress token of theirs (and did not come on a call's HTTP response stream)", len(b.calls))
}

// shape is what a tools/call result says about the call's progress.
type shape struct {
	ResultType    string                     `json:"resultType"`
	IsError       bool                       `json:"isError"`
	RequestState  string                     `json:"requestState"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	Content       []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
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
	p := book[id]
	if p == nil {
		b.protocolEvent(at, fmt.Sprintf("the %s answered id %s, which no pending request of the other side has; passed on unchanged", from, id))
		return
	}
	delete(book, id)
	if p.done {
		return // cancelled: ended already
	}
	o := recorder.Outcome{Status: recorder.StatusOK, Result: recorder.CapPayload(m.Result)}
	if m.Error != nil {
		o = recorder.Outcome{Status: recorder.StatusError, Error: fmt.Sprintf("%s (code %d)", m.Error.Message, m.Error.Code)}
	}
	var sh shape
	if m.Result != nil {
		_ = json.Unmarshal(m.Result, &sh)
	}
	if p.method == "initialize" || p.method == "server/discover" {
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
	b.callAnswered(p, sh, o, at)
}

// callAnswered ends the round (or one-shot call) p with what the server
// answered, and the logical call when that was its last round.
func (b *Book) callAnswered(p *pending, sh shape, o recorder.Outcome, at time.Duration) {
	c := p.call
	if o.Status == recorder.StatusOK && sh.ResultType == "input_required" {
		if c.round == 0 { // a call not known to be multi-round-trip until now
			c.rounds = 1
			r := *b.rec.Span(c.span)
			r.ID, r.Kind, r.Parent, r.Round = 0, recorder.KindRound, c.span, 1
			c.round = b.rec.Begin(r)
		}
		n := len(sh.InputRequests)
		b.rec.Update(c.round, func(s *recorder.Span) {
			s.Outcome, s.InputRequests = recorder.OutcomeInputRequired, int32(n)
		})
		b.rec.End(c.round, at, o)
		b.fulfilment(c, sh, at)
		return
	}
	if o.Status == recorder.StatusOK && sh.IsError {
		o.Status, o.Error = recorder.StatusError, errorText(sh)
	}
	if c.round != 0 {
		outcome := recorder.OutcomeResult
		if o.Status == recorder.StatusError {
			outcome = recorder.OutcomeError
		}
		b.rec.Update(c.round, func(s *recorder.Span) { s.Outcome = outcome })
		b.rec.End(c.round, at, o)
	}
	b.rec.End(c.span, at, o)
	b.forget(c)
}

// fulfilment records the time a round's input requests spend inside the
// client, from the input_required answer to the retry: they never cross
// the wire, so it is one span for them all, a child of the round.
func (b *Book) fulfilment(c *call, sh shape, at time.Duration) {
	methods := map[string]int{}
	for _, v := range sh.InputRequests {
		var r struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(v, &r)
		methods[r.Method]++
	}
	method := "input requests"
	if len(methods) == 1 {
		for m := range methods {
			method = m
		}
	}
	sp := recorder.NewSpan(Session, recorder.Incoming, method)
	sp.Kind = recorder.KindOf(method)
	sp.Parent, sp.Round, sp.InputRequests = c.round, int32(c.rounds), int32(len(sh.InputRequests))
	sp.InputKey = strings.Join(slices.Sorted(maps.Keys(sh.InputRequests)), ",")
	sp.Received, sp.Queued = at, at
	c.fulfil = b.rec.Begin(sp)
	c.state = sh.RequestState
	b.states[sh.RequestState] = c
}

func errorText(sh shape) string {
	var texts []string
	for _, c := range sh.Content {
		if c.Type == "text" && c.Text != "" {
			texts = append(texts, c.Text)
		}
	}
	if len(texts) == 0 {
		return "the tool reported an error (isError) without text"
	}
	return strings.Join(texts, "\n")
}

// forget drops a finished logical call from the books.
func (b *Book) forget(c *call) {
	delete(b.calls, c)
	if c.token != "" && b.tokens[c.token] == c {
		delete(b.tokens, c.token)
	}
	if c.state != "" && b.states[c.state] == c {
		delete(b.states, c.state)
	}
}

func (b *Book) notification(from Side, m *message, at time.Duration) {
	ev := recorder.Event{At: at, Session: Session, Method: m.Method, Kind: recorder.EventOther,
		Data: recorder.CapPayload(m.Params)}
	var p struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Progress      float64         `json:"progress"`
		Total         float64         `json:"total"`
		Message       string          `json:"message"`
		RequestID     json.RawMessage `json:"requestId"`
		Reason        string          `json:"reason"`
		Level         string          `json:"level"`
		Data          json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(m.Params, &p)
	b.mu.Lock()
	switch {
	case m.Method == "notifications/progress":
		ev.Kind = recorder.EventProgress
		if c := b.tokens[tokenKey(p.ProgressToken)]; c != nil {
			ev.Span = c.span
		}
		ev.Text = strings.TrimSpace(fmt.Sprintf("%g/%g %s", p.Progress, p.Total, p.Message))
	case m.Method == "notifications/cancelled":
		ev.Kind = recorder.EventCancelled
		book := b.client // the client cancels a request it sent
		if from == FromServer {
			book = b.server
		}
		id := IDKey(p.RequestID)
		ev.Text = fmt.Sprintf("the %s cancelled its request %s", from, id)
		if p.Reason != "" {
			ev.Text += ": " + p.Reason
		}
		if pd := book[id]; pd != nil && !pd.done {
			ev.Span = pd.span
			pd.done = true
			b.rec.End(pd.span, at, recorder.Outcome{Status: recorder.StatusCancelled, Error: ev.Text})
			if pd.call != nil {
				if pd.span != pd.call.span {
					b.rec.End(pd.call.span, at, recorder.Outcome{Status: recorder.StatusCancelled, Error: ev.Text})
				}
				b.forget(pd.call)
			}
		}
	case m.Method == "notifications/message":
		ev.Kind = recorder.EventLog
		ev.Text = strings.TrimSpace(p.Level + " " + string(p.Data))
	case strings.HasSuffix(m.Method, "/list_changed"):
		ev.Kind = recorder.EventListChanged
	}
	b.mu.Unlock()
	b.rec.AddEvent(ev)
}

// Close ends what is still pending at offset at with reason (the server
// exited, the client went away), so that no span stays open, and records
// the reason as a connection event.
func (b *Book) Close(at time.Duration, reason string) {
	b.rec.AddEvent(recorder.Event{At: at, Session: Session, Kind: recorder.EventConnection, Text: reason})
	b.rec.AbortOpen(at, reason)
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.client)
	clear(b.server)
	clear(b.tokens)
	clear(b.states)
	clear(b.calls)
}

// Abandon ends the request the client sent with id key id, if it is
// still pending, at offset at with reason: its answer will never come
// (over HTTP, the server could not be reached, or the response stream
// carrying the answer broke). The tool call it is a round of ends too.
func (b *Book) Abandon(id string, at time.Duration, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.client[id]
	if p == nil {
		return
	}
	delete(b.client, id)
	if p.done {
		return
	}
	o := recorder.Outcome{Status: recorder.StatusAborted, Error: reason}
	b.rec.End(p.span, at, o)
	if p.call != nil {
		if p.span != p.call.span {
			b.rec.End(p.call.span, at, o)
		}
		b.forget(p.call)
	}
}
