package recorder

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ExchangeLinks links a recording's HTTP exchanges with the requests
// ([Span]s) whose messages they carried, both ways: the POST that
// carried a request or an answer, and the event of a stream that
// carried a request of the server's or a response to the client's.
// A message is matched to its span by who sent the request, its
// JSON-RPC id, its method and session, and, when several spans share an
// id (a connection made again, a multi-round call and its first round),
// by time. [Message.HTTPStatus] finds the POST of a request the same
// way.
//
// Keep one up to date with [ExchangeLinks.Update]: it looks again only
// at the spans new or changed since the last snapshot and the exchanges
// new or grown since the last log, so that a look-up costs a few map
// reads whatever the size of the recording. The zero value is ready to
// use; it is not safe for concurrent use.
type ExchangeLinks struct {
	snap    *Snapshot
	created time.Time
	spans   []*Span                 // the spans of the last snapshot
	byKey   map[wireKey][]*Span     // spans with a JSON-RPC id
	log     *HTTPLog                // the last log
	seen    map[ExchangeID]*carrier // what was read of each exchange
	byMsg   map[wireKey][]carried   // what the exchanges carried
}

// wireKey names a request on the wire: who sent it and its id.
type wireKey struct {
	dir Direction
	id  string
}

// carried is a message with an id that an exchange carried: a request,
// or the answer to one.
type carried struct {
	key      wireKey
	exchange ExchangeID
	session  string // the exchange's; "" matches any
	at       time.Duration
	answer   bool   // a response, not the request
	method   string // a request's method; "" for a response
}

// carrier is how much of an exchange has been read for its messages.
type carrier struct {
	x        *Exchange
	request  bool // its request body
	response bool // its response body
	events   int  // its first events
	messages []carried
}

// Update brings the links up to snap's spans and log's exchanges (the
// recording's [Recording.HTTP], or snap.HTTP), a later snapshot of the
// same recording, or another one (then they are made again).
func (l *ExchangeLinks) Update(snap *Snapshot, log *HTTPLog) {
	if snap == nil {
		snap = &Snapshot{}
	}
	if !l.continues(snap) {
		*l = ExchangeLinks{created: snap.Meta.Created, byKey: map[wireKey][]*Span{}}
	}
	for i, s := range snap.Spans {
		if i < len(l.spans) && s == l.spans[i] {
			continue // the same span as before
		}
		l.addSpan(s)
	}
	l.snap, l.spans = snap, snap.Spans
	l.updateExchanges(log)
}

// continues reports whether snap is a later snapshot of the recording
// the links were made from, with no span thinned out since.
func (l *ExchangeLinks) continues(snap *Snapshot) bool {
	if l.byKey == nil || !snap.Meta.Created.Equal(l.created) || len(snap.Spans) < len(l.spans) {
		return false
	}
	n := len(l.spans)
	return n == 0 || snap.Spans[n-1].ID == l.spans[n-1].ID
}

// addSpan indexes s by its id, in place of an older copy of it.
func (l *ExchangeLinks) addSpan(s *Span) {
	if s.RequestID == "" || s.InputKey != "" {
		return // not sent on the wire (yet)
	}
	k := wireKey{s.Direction, s.RequestID}
	list := l.byKey[k]
	for i, old := range list {
		if old.ID == s.ID {
			list[i] = s
			return
		}
	}
	l.byKey[k] = append(list, s)
}

// updateExchanges reads what is new in log: exchanges added, and those
// whose response body or events arrived since.
func (l *ExchangeLinks) updateExchanges(log *HTTPLog) {
	if log == l.log && log != nil {
		return
	}
	kept := 0
	if log != nil {
		for _, x := range log.Exchanges {
			if l.seen[x.ID] != nil {
				kept++
			}
		}
	}
	l.log = log
	if log == nil {
		l.seen, l.byMsg = nil, nil
		return
	}
	if kept < len(l.seen) {
		l.forgetDropped(log)
	}
	if l.seen == nil {
		l.seen, l.byMsg = map[ExchangeID]*carrier{}, map[wireKey][]carried{}
	}
	for _, x := range log.Exchanges {
		c := l.seen[x.ID]
		if c == nil {
			c = &carrier{}
			l.seen[x.ID] = c
		}
		if c.x == x {
			continue
		}
		c.x = x
		n := len(c.messages)
		c.read()
		for _, m := range c.messages[n:] {
			l.byMsg[m.key] = append(l.byMsg[m.key], m)
		}
	}
}

// forgetDropped forgets the exchanges no longer in log.
func (l *ExchangeLinks) forgetDropped(log *HTTPLog) {
	in := make(map[ExchangeID]bool, len(log.Exchanges))
	for _, x := range log.Exchanges {
		in[x.ID] = true
	}
	for id, c := range l.seen {
		if in[id] {
			continue
		}
		delete(l.seen, id)
		for _, m := range c.messages {
			list := slices.DeleteFunc(l.byMsg[m.key], func(o carried) bool { return o.exchange == id })
			if len(list) == 0 {
				delete(l.byMsg, m.key)
			} else {
				l.byMsg[m.key] = list
			}
		}
	}
}

// read adds the messages of c.x that were not read yet.
func (c *carrier) read() {
	x := c.x
	if !c.request {
		c.request = true
		c.add(x.RequestBody, x.Sent, true)
	}
	if !c.response && !x.Open() {
		c.response = true
		at := x.Responded
		if at == Unset {
			at = x.Ended
		}
		c.add(x.ResponseBody, at, false)
	}
	for _, e := range x.Events[min(c.events, len(x.Events)):] {
		c.add(e.Data, e.At, false)
	}
	c.events = len(x.Events)
}

// add adds the messages with an id in text, a body or an event's data,
// written by the client when sent is set, else by the server.
func (c *carrier) add(text string, at time.Duration, sent bool) {
	eachMessage(text, func(id, method string, answer bool) {
		m := carried{exchange: c.x.ID, session: c.x.Session, at: at, answer: answer, method: method}
		// a request the client sent, or the server's answer to one,
		// is about an outgoing span; the others an incoming one
		m.key = wireKey{Incoming, id}
		if sent != answer {
			m.key.dir = Outgoing
		}
		c.messages = append(c.messages, m)
	})
}

// Span returns the request the exchange x carried: the one of its
// request body, else of the first of its events that carried one; 0
// when none is in the recording.
func (l *ExchangeLinks) Span(x ExchangeID) SpanID {
	c := l.seen[x]
	if c == nil {
		return 0
	}
	for _, m := range c.messages {
		if s := l.spanOf(m); s != nil {
			return s.ID
		}
	}
	return 0
}

// spanOf returns the span m is about, or nil.
func (l *ExchangeLinks) spanOf(m carried) *Span {
	var best *Span
	var bestGap time.Duration
	for _, s := range l.byKey[m.key] {
		if !m.names(s) {
			continue
		}
		gap := absDuration(m.at - m.timeOf(s))
		// a round rather than its call: the round is the message
		if best == nil || gap < bestGap || gap == bestGap && s.Kind == KindRound {
			best, bestGap = s, gap
		}
	}
	return best
}

// Exchange returns the exchange that carried the request id: the POST
// of a request the client sent, the stream of one the server sent; else
// the one that carried its answer; 0 when none is kept.
func (l *ExchangeLinks) Exchange(id SpanID) ExchangeID {
	s := l.snap.SpanByID(id)
	if s == nil || s.RequestID == "" {
		return 0
	}
	var best *carried
	var bestGap time.Duration
	list := l.byMsg[wireKey{s.Direction, s.RequestID}]
	for i, m := range list {
		if !m.names(s) {
			continue
		}
		gap := absDuration(m.at - m.timeOf(s))
		if best != nil && (!best.answer || m.answer) && (best.answer != m.answer || gap >= bestGap) {
			continue // not better than best
		}
		// only a message whose own request is s (or s's call or
		// round): not another request of the same id, its exchange
		// dropped
		if o := l.spanOf(m); o == nil || o.ID != s.ID && o.Parent != s.ID && s.Parent != o.ID {
			continue
		}
		best, bestGap = &list[i], gap
	}
	if best == nil {
		return 0
	}
	return best.exchange
}

// names reports whether the message m is s's request or answer, when
// their ids and directions are the same: the method and the session
// agree.
func (m carried) names(s *Span) bool {
	return (m.method == "" || m.method == s.Method) && (m.session == "" || m.session == s.Session) && s.InputKey == ""
}

// timeOf is when s's message of m's kind went over the wire.
func (m carried) timeOf(s *Span) time.Duration {
	if m.answer && s.Answered != Unset {
		return s.Answered
	}
	return s.Received
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// postedRequest returns the request the POST x carried in its body, or
// false for another exchange.
func postedRequest(x *Exchange) (m carried, ok bool) {
	if x.Method != "POST" || x.RPC == "" || x.RPC == "response" || x.RPC == "batch" {
		return m, false
	}
	eachMessage(x.RequestBody, func(id, method string, answer bool) {
		if !ok && !answer {
			m = carried{key: wireKey{Outgoing, id}, exchange: x.ID, session: x.Session, at: x.Sent, method: method}
			ok = true
		}
	})
	return m, ok
}

// wireMessage is what the links read of a JSON-RPC message.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// eachMessage calls f with the id, the method (a request's) and whether
// it is an answer, of each request or response in text: one JSON-RPC
// message or a batch of them. Notifications and text that is not
// JSON-RPC are skipped; a body cut at [MaxExchangeBody] still gives the
// id and method written before the cut.
func eachMessage(text string, f func(id, method string, answer bool)) {
	body := bytes.TrimSpace([]byte(text))
	if len(body) == 0 {
		return
	}
	one := func(m wireMessage) {
		id := idKey(m.ID)
		switch {
		case id == "":
		case m.Method != "":
			f(id, m.Method, false)
		case m.Result != nil || m.Error != nil:
			f(id, "", true)
		}
	}
	if body[0] == '[' {
		var batch []wireMessage
		if json.Unmarshal(body, &batch) == nil {
			for _, m := range batch {
				one(m)
			}
		}
		return
	}
	var m wireMessage
	if json.Unmarshal(body, &m) != nil {
		m = headOf(body)
	}
	one(m)
}

// headOf reads the members of a JSON object cut short up to the first
// one that is not a plain value: enough for the id and method of a
// request whose params were cut.
func headOf(body []byte) (m wireMessage) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return m
	}
	for {
		k, err := d.Token()
		name, isName := k.(string)
		if err != nil || !isName {
			return m
		}
		var raw json.RawMessage
		switch name {
		case "result", "error":
			// present is enough; its value may be the part cut
			return wireMessage{ID: m.ID, Result: json.RawMessage("null")}
		case "params":
			return m
		}
		if err := d.Decode(&raw); err != nil {
			return m
		}
		switch name {
		case "id":
			m.ID = raw
		case "method":
			_ = json.Unmarshal(raw, &m.Method)
		}
	}
}

// idKey returns a JSON-RPC id as a span keeps it ([Span.RequestID]): a
// number's digits, a string quoted; "" for none.
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return strconv.Quote(s)
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return strings.TrimSpace(string(raw))
}
