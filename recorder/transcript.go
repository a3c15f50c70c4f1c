package recorder

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// MessageType says what a line of a [Transcript] is.
type MessageType uint8

// The types of transcript lines. Requests, responses and notifications
// went over the wire; a call, an input request and an unanswered
// request are what the recording knows of a request beyond its wire
// messages; the rest are what happened beside the messages.
const (
	// MessageRequest is a JSON-RPC request, with its id.
	MessageRequest MessageType = iota + 1
	// MessageResponse is the answer to a request: a result or an error.
	MessageResponse
	// MessageNotification is a notification, from either side.
	MessageNotification
	// MessageCall is a multi-round-trip tools/call (protocol
	// 2026-07-28): the logical call its rounds, each a request and
	// response of its own, are grouped under. It is not itself a
	// message: its first round went out at the same time.
	MessageCall
	// MessageInput is an input request the server asked for in a
	// round's input_required result, fulfilled by the client; its answer
	// went to the server in the next round's params, not as a message.
	MessageInput
	// MessageUnanswered is a request that ended without an answer on
	// the wire: cancelled, timed out, or the connection was lost.
	MessageUnanswered
	// MessageProtocolError is something the server sent that broke the
	// protocol in a way the session survived.
	MessageProtocolError
	// MessageStderr is a line a stdio server wrote to its stderr.
	MessageStderr
	// MessageConnection is the connection being made, ended or lost.
	MessageConnection
)

var messageTypeNames = [...]string{"", "request", "response", "notification", "call", "input", "unanswered", "protocol_error", "stderr", "connection"}

// String returns the type's name ("request", "response" …).
func (t MessageType) String() string { return nameOf(messageTypeNames[:], t) }

// MarshalText returns the type's name.
func (t MessageType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Message is one line of a [Transcript]: a JSON-RPC message the client or
// the server wrote, at the time the inspector wrote or read it, or
// something that happened beside the messages. It points into the
// snapshot it was made from, which it keeps alive.
type Message struct {
	// At is when it happened, as an offset from the recording's start.
	At   time.Duration
	Type MessageType
	// Direction is who wrote it: [Outgoing] the client (to the server),
	// [Incoming] the server (to the client); 0 for a line that is not a
	// message (stderr, connection).
	Direction Direction
	// Depth is how far it is indented under the request it belongs to:
	// 1 for a round of a multi-round call, a request the server sent
	// during a call and its answer; 2 for an input request of a round.
	// A notification that belongs to a request (its event's Span: a
	// call's progress and log messages, a cancellation naming it, the
	// updates of a subscription) is one deeper than that request.
	Depth uint8
	// Span is the request a request, response, call, input or
	// unanswered line is about; nil for the others.
	Span *Span
	// Event is the event of a notification, a protocol error, a stderr
	// or a connection line; nil for the others.
	Event *Event
}

// SpanID returns the span the message is about: its request's, or the
// one its event refers to (a call's progress); 0 for none.
func (m *Message) SpanID() SpanID {
	switch {
	case m.Span != nil:
		return m.Span.ID
	case m.Event != nil:
		return m.Event.Span
	}
	return 0
}

// ID returns the JSON-RPC id of a request or its response as the span
// carries it ([Span.RequestID]); "" for the others.
func (m *Message) ID() string {
	switch m.Type {
	case MessageRequest, MessageResponse, MessageUnanswered:
		return m.Span.RequestID
	}
	return ""
}

// Method returns the method of the message, or of the request a
// response answers; "" for lines that are not messages.
func (m *Message) Method() string {
	switch {
	case m.Span != nil:
		return m.Span.Method
	case m.Event != nil:
		return m.Event.Method
	}
	return ""
}

// Class returns how a response or an unanswered request failed, or ""
// for a successful response and for the other lines.
func (m *Message) Class() ErrorClass {
	switch m.Type {
	case MessageResponse, MessageUnanswered, MessageInput:
		return ClassOf(m.Span)
	}
	return ""
}

// Failed reports whether the line is an error: a failed answer or
// request, a protocol error.
func (m *Message) Failed() bool { return m.Type == MessageProtocolError || m.Class() != "" }

// Transcript is the JSON-RPC transcript of a recording: every message the
// client and the server exchanged, both ways, in time order, each request
// paired with its response through the span they share, notifications
// inline, the rounds of a multi-round-trip call grouped under it, and the
// stderr lines, protocol errors and connection changes among them.
//
// Build it from a snapshot with [TranscriptOf], or keep one up to date
// with a live recording: [Transcript.Update] with each new snapshot
// looks again only at what changed (spans new or still open, events
// added), so that its cost follows what happened since, not the size of
// the recording; a snapshot of another recording, or one whose spans or
// events were thinned ([Recording.SetMaxSpans]), builds it again.
type Transcript struct {
	// Messages are the lines, in time order (ties in the order they
	// were recorded). Read them; do not change them.
	Messages []Message

	created time.Time
	spans   []*Span // the spans of the last snapshot
	events  []Event // the events of the last snapshot
	maxID   SpanID
	// partial are the spans whose lines are not all there yet: what
	// was added for each ([lineRequest], [lineCall]).
	partial map[SpanID]uint8
	batch   []Message
	// changed is the index of the first line changed in place since
	// the last merge ([Transcript.markCall]), or -1.
	changed int
}

// What a span in [Transcript.partial] has in the transcript so far.
const (
	lineRequest uint8 = 1 << iota // its request (or call) line
	lineCall                      // its rounds were seen: it is a call
	linePending                   // set for every span in partial
	// lineNoID: its request line was written before the span had its
	// JSON-RPC id (a request recorded as it was being sent); the line is
	// given the span again once it has one, or it would read without it
	lineNoID
)

// TranscriptOf returns the transcript of snap.
func TranscriptOf(snap *Snapshot) []Message {
	var t Transcript
	t.Update(snap)
	return t.Messages
}

// Update brings the transcript up to snap, a later snapshot of the same
// recording, and returns the index of the first message that is new or
// changed: len(Messages) when nothing changed, 0 when it was built
// again.
func (t *Transcript) Update(snap *Snapshot) int {
	if snap == nil {
		snap = &Snapshot{}
	}
	if !t.continues(snap) {
		*t = Transcript{Messages: t.Messages[:0], created: snap.Meta.Created, partial: map[SpanID]uint8{}}
		t.batch = make([]Message, 0, 2*len(snap.Spans)+len(snap.Events)) // about a request and a response each
	}
	t.changed = -1
	// the calls of several rounds among the spans to visit, known
	// before their calls are (a loaded recording has them ended)
	for i := len(t.spans); i < len(snap.Spans); i++ {
		if s := snap.Spans[i]; s.Kind == KindRound && s.Parent != 0 {
			t.markCall(s.Parent)
		}
	}
	for i, s := range snap.Spans {
		switch {
		case i < len(t.spans) && s == t.spans[i]:
			continue // the same span as before: nothing new
		case s.ID > t.maxID:
			t.maxID = s.ID
		case t.partial[s.ID] == 0:
			continue // ended and whole before; a later change is not a message
		}
		t.visit(s)
	}
	for i := len(t.events); i < len(snap.Events); i++ {
		t.event(snap, &snap.Events[i])
	}
	t.spans, t.events = snap.Spans, snap.Events
	return t.merge()
}

// continues reports whether snap is a later snapshot of the recording
// the transcript was made from, with nothing thinned out since.
func (t *Transcript) continues(snap *Snapshot) bool {
	if t.partial == nil || !snap.Meta.Created.Equal(t.created) ||
		len(snap.Spans) < len(t.spans) || len(snap.Events) < len(t.events) {
		return false
	}
	if len(t.events) > 0 && &snap.Events[0] != &t.events[0] {
		return false // the events were thinned into a new slice
	}
	if n := len(t.spans); n > 0 && snap.Spans[n-1].ID != t.spans[n-1].ID {
		return false // spans were thinned
	}
	return true
}

// visit adds the lines of s that are not in the transcript yet.
func (t *Transcript) visit(s *Span) {
	st := t.partial[s.ID]
	if s.Kind == KindRound && s.Parent != 0 {
		t.markCall(s.Parent)
	}
	if s.Round > 0 && s.RequestID == "" && s.Kind != KindRound {
		// an input request, fulfilled without a message of its own
		if s.Open() {
			t.partial[s.ID] = linePending // waits for its end
			return
		}
		t.add(Message{At: s.Received, Type: MessageInput, Direction: Incoming, Depth: spanDepth(s), Span: s})
		delete(t.partial, s.ID)
		return
	}
	depth := spanDepth(s)
	if st&lineRequest == 0 && s.Received != Unset {
		typ := MessageRequest
		if st&lineCall != 0 {
			typ = MessageCall
		}
		t.add(Message{At: s.Received, Type: typ, Direction: s.Direction, Depth: depth, Span: s})
		st |= lineRequest
		if s.RequestID == "" {
			st |= lineNoID
		}
	} else if st&lineNoID != 0 && s.RequestID != "" {
		t.renewRequestLine(s)
		st &^= lineNoID
	}
	if s.Open() {
		t.partial[s.ID] = st | linePending
		return
	}
	delete(t.partial, s.ID)
	if st&lineRequest == 0 || st&lineCall != 0 {
		return // never written; or a call, whose last round's response is the message
	}
	at := s.Answered
	if at == Unset {
		at = s.Received
	}
	answer := Message{At: at, Type: MessageResponse, Direction: Incoming, Depth: depth, Span: s}
	if s.Direction == Incoming {
		answer.Direction = Outgoing
	}
	switch s.Status {
	case StatusCancelled, StatusTimeout, StatusAborted:
		if s.ErrorCode == 0 && len(s.Result) == 0 {
			answer.Type, answer.Direction = MessageUnanswered, 0
		}
	}
	t.add(answer)
}

// renewRequestLine gives the request (or call) line of s the span as it
// is now, with the id it was sent with and when it was sent.
func (t *Transcript) renewRequestLine(s *Span) {
	for i := len(t.batch) - 1; i >= 0; i-- {
		if m := &t.batch[i]; (m.Type == MessageRequest || m.Type == MessageCall) && m.Span.ID == s.ID {
			m.Span, m.At = s, s.Received // the batch is put in time order as it is merged
			return
		}
	}
	for i := len(t.Messages) - 1; i >= 0; i-- {
		if m := &t.Messages[i]; (m.Type == MessageRequest || m.Type == MessageCall) && m.Span.ID == s.ID {
			if t.changed < 0 || i < t.changed {
				t.changed = i
			}
			if m.At == s.Received {
				m.Span = s
				return
			}
			// written to the wire later than it was begun: the line moves
			// to when it was sent, as a transcript made afresh has it
			line := *m
			line.Span, line.At = s, s.Received
			t.Messages = slices.Delete(t.Messages, i, i+1)
			t.add(line)
			return
		}
	}
}

// spanDepth is the depth of the request and response lines of s: 1 for
// a round of a call and for a request the server sent during a call, 2
// for an input request of a round, else 0.
func spanDepth(s *Span) uint8 {
	switch {
	case s.Round > 0 && s.RequestID == "" && s.Kind != KindRound:
		return 2
	case s.Kind == KindRound || s.Direction == Incoming && s.Parent != 0:
		return 1
	}
	return 0
}

// markCall turns the request line of the tool call id, added before its
// first round was recorded, into its call line.
func (t *Transcript) markCall(id SpanID) {
	st := t.partial[id]
	if st&lineCall != 0 {
		return
	}
	if st == 0 && id <= t.maxID {
		return // whole already, or not in the snapshot
	}
	t.partial[id] = st | lineCall
	if st&lineRequest == 0 {
		return
	}
	for i := len(t.batch) - 1; i >= 0; i-- {
		if m := &t.batch[i]; m.Type == MessageRequest && m.Span.ID == id {
			m.Type = MessageCall
			return
		}
	}
	for i := len(t.Messages) - 1; i >= 0; i-- {
		if m := &t.Messages[i]; m.Type == MessageRequest && m.Span.ID == id {
			m.Type = MessageCall
			if t.changed < 0 || i < t.changed {
				t.changed = i
			}
			return
		}
	}
}

// event adds the line of e, one of snap's events, if it is one.
func (t *Transcript) event(snap *Snapshot, e *Event) {
	m := Message{At: e.At, Event: e}
	switch {
	case e.Kind == EventStderr:
		m.Type = MessageStderr
	case e.Kind == EventProtocol:
		m.Type, m.Direction = MessageProtocolError, Incoming
	case e.Kind == EventConnection:
		m.Type = MessageConnection
	case e.Method != "":
		m.Type, m.Direction = MessageNotification, Incoming
		if e.Direction == Outgoing {
			m.Direction = Outgoing
		}
		if e.Span != 0 {
			// under the request it belongs to; one thinned out of the
			// snapshot was a request of its own, not a round
			m.Depth = 1
			if s := snap.SpanByID(e.Span); s != nil {
				m.Depth = spanDepth(s) + 1
			}
		}
	default:
		return // a note of the inspector's own, not a message
	}
	t.add(m)
}

// add queues m for the next merge.
func (t *Transcript) add(m Message) { t.batch = append(t.batch, m) }

// merge sorts the lines added since the last merge into the transcript
// and returns the index of the first one that moved, changed or is new.
func (t *Transcript) merge() int {
	first := t.mergeBatch()
	if t.changed >= 0 {
		first = min(first, t.changed)
	}
	return first
}

// mergeBatch is merge of the lines added, without the lines changed in
// place.
func (t *Transcript) mergeBatch() int {
	if len(t.batch) == 0 {
		return len(t.Messages)
	}
	batch := sortedByTime(t.batch)
	// the new lines fall at the end, save a few answered late
	first := sort.Search(len(t.Messages), func(i int) bool { return t.Messages[i].At > batch[0].At })
	if first == len(t.Messages) {
		t.Messages = append(t.Messages, batch...)
	} else {
		tail := append([]Message(nil), t.Messages[first:]...)
		out := t.Messages[:first]
		i, j := 0, 0
		for i < len(tail) || j < len(batch) {
			if j == len(batch) || i < len(tail) && tail[i].At <= batch[j].At {
				out = append(out, tail[i])
				i++
			} else {
				out = append(out, batch[j])
				j++
			}
		}
		t.Messages = out
	}
	clear(t.batch)
	t.batch = t.batch[:0]
	return first
}

// sortedByTime returns lines in time order, ties in the order they come:
// lines itself when they are in order already, else a sorted copy (the
// order is found on indices, which move faster than lines).
func sortedByTime(lines []Message) []Message {
	if slices.IsSortedFunc(lines, func(a, b Message) int { return cmp.Compare(a.At, b.At) }) {
		return lines
	}
	idx := make([]int32, len(lines))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmp.Compare(lines[a].At, lines[b].At); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make([]Message, len(lines))
	for i, j := range idx {
		out[i] = lines[j]
	}
	return out
}
