// Package recorder holds the timeline of one run of Fanout Inspector: every
// JSON-RPC request as a [Span] with its phases, every notification as an
// [Event], in a thread-safe [Recording] that the engine appends to while
// readers take cheap [Snapshot]s without stopping it.
//
// Times are offsets from the recording's start ([Recording.Start]), taken
// from one monotonic clock, so that spans of one run can be compared to the
// microsecond whatever the wall clock does.
//
// A span of a request the server sent to the client (incoming) goes through
// four instants: Received (read off the wire), Queued (handed to the dispatch
// gate), Serving (the handler got its slot and started, injected latency
// included) and Answered (the response was written). A request the client
// sent (outgoing) has only Sent (stored in Received) and Answered.
//
// [Summarize] turns a snapshot into the figures and verdict a run is judged
// by; its call latencies come from HDR histograms ([Histogram],
// [LatenciesOf]) that hold at the tail, and [Series] gives the run second
// by second. A connection kept open holds several runs: [Recording.BeginRun] and
// [Recording.EndRun] mark each as a named [Run], and [Snapshot.Segment]
// gives the part of a snapshot one run made, to summarize on its own. [Save] and [Load] keep recordings as versioned JSON files; a
// [Journal] appends a live recording to disk as it grows so that a killed
// run still leaves it behind, and [LoadFile] reads journals too. The
// exports that open in other tools (Chrome trace, OTLP, CSV, charts, the
// HTML report) live in package recorder/export, so that the engine, which
// records, links no chart or HTML library.
//
// Over HTTP, each request a session makes is also kept as an [Exchange]
// (method, status, headers, bounded bodies, an event stream's events),
// its credentials masked as it enters ([Recording.AddExchange],
// [Snapshot].HTTP): the Network view of the traffic itself.
// [ExchangeLinks] pairs each exchange with the request it carried.
// docs/recording-format.md describes every format.
package recorder

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"
)

// SpanID identifies a span within one [Recording]. IDs start at 1; 0 means
// "no span" (for example a span without a parent).
type SpanID int64

// Direction says which side sent a request. It is one byte in memory
// and its name in JSON and text ([Direction.String]).
type Direction uint8

// The two directions of a request.
const (
	// Incoming is a request the server sent to the client (sampling,
	// elicitation, roots, ping): the inspector serves it.
	Incoming Direction = iota + 1
	// Outgoing is a request the client sent to the server (tools/call,
	// tools/list, initialize…).
	Outgoing
)

// Kind groups methods for colouring and counting. It is one byte in
// memory and its name in JSON and text ([Kind.String]); kinds compare
// in the order of their names.
type Kind uint8

// The kinds of request the inspector tells apart, in the order of their
// names. The zero Kind, named "", is a span whose kind was not set.
const (
	KindElicitation Kind = iota + 1
	KindOther
	KindPing
	KindRoots
	// KindRound is one wire round of a multi-round-trip tool call
	// (protocol 2026-07-28): a tools/call request with its own JSON-RPC
	// id, child of the logical call's [KindTool] span.
	KindRound
	KindSampling
	KindTool
)

// RoundOutcome is what the server answered a [KindRound] span. It is one
// byte in memory and its name in JSON and text; the zero value, named
// "", is a span that is not a round or has no answer yet.
type RoundOutcome uint8

// The outcomes of a [KindRound] span: what the server answered that
// round.
const (
	// OutcomeError: the server answered the round with a JSON-RPC error.
	OutcomeError RoundOutcome = iota + 1
	// OutcomeInputRequired: the server asked for input
	// (resultType "input_required"); Span.InputRequests says how many.
	OutcomeInputRequired
	// OutcomeResult: the server gave the call's final result.
	OutcomeResult
)

// KindOf returns the kind of a JSON-RPC method name.
func KindOf(method string) Kind {
	switch method {
	case "sampling/createMessage":
		return KindSampling
	case "elicitation/create":
		return KindElicitation
	case "roots/list":
		return KindRoots
	case "ping":
		return KindPing
	case "tools/call":
		return KindTool
	}
	return KindOther
}

// Status is how a span ended. The zero value, [StatusOpen], is a span still
// in flight. It is one byte in memory and its name in JSON and text
// ([Status.String]); statuses compare in the order of their names.
type Status uint8

// The statuses of a span, in the order of their names.
const (
	StatusOpen      Status = iota // named ""
	StatusAborted                 // the connection was lost first
	StatusCancelled               // the peer sent notifications/cancelled
	StatusError
	StatusOK
	StatusTimeout // the per-request or per-call timeout passed
)

// Span is one JSON-RPC request and its answer.
//
// Phase times are offsets from the recording's start. For an incoming
// request Received <= Queued <= Serving <= Answered; for an outgoing one
// Received is when it was sent and Queued and Serving equal it. A phase not
// reached yet has the value [Unset].
//
// The fields are laid out by size so that a span takes 256 bytes; JSON
// carries them in the order of the format ([Span.MarshalJSON]).
type Span struct {
	ID     SpanID `json:"id"`
	Parent SpanID `json:"parent,omitempty"`

	Session string `json:"session"`
	Method  string `json:"method"`
	// RequestID is the JSON-RPC id as it appeared on the wire.
	RequestID string `json:"request_id,omitempty"`
	// Name is the tool name of a tools/call, the URI of a resources/read,
	// the prompt name of a prompts/get.
	Name string `json:"name,omitempty"`
	// InputKey is the key under which the server asked for an input
	// request in an input_required result ("r1-0", "ask_name" …); empty
	// for requests sent on the wire.
	InputKey string `json:"input_key,omitempty"`
	// Unlinked says why an incoming request has no Parent although it
	// may have been caused by a tool call: several calls were in flight
	// and nothing in the request (a progress token in its _meta, the
	// HTTP response stream it arrived on) named one of them. Empty when
	// the request is linked, or when no call was in flight to link it to.
	Unlinked string `json:"unlinked,omitempty"`
	Error    string `json:"error,omitempty"`
	// ErrorCode is the JSON-RPC error code the answer carried, when it
	// was a JSON-RPC error; 0 otherwise.
	ErrorCode int64 `json:"error_code,omitempty"`

	// Stalled is how long a message read off the wire was withheld from
	// the client before it saw it (dispatch "inline", a client whose
	// receive loop awaits each request): for an incoming request the
	// time from Received until the client first saw it; for an outgoing
	// one, from Answered (the response read off the wire) until the
	// client saw the response. Zero when nothing was withheld.
	Stalled time.Duration `json:"stalled,omitempty"`
	// Intended is when an open-loop load test meant to send this tool
	// call (an offset like Received): arrivals follow a fixed schedule,
	// and a call sent late is still timed from its intended start, so
	// that a server slow to answer cannot hide its slowness by holding
	// the generator back (coordinated omission). 0 means the call was
	// sent when it was meant to be (every call outside an open loop).
	Intended time.Duration `json:"intended,omitempty"`

	Received time.Duration `json:"received"`
	Queued   time.Duration `json:"queued"`
	Serving  time.Duration `json:"serving"`
	Answered time.Duration `json:"answered"`

	// Params and Result are the request's params and the answer's result,
	// capped at [MaxPayload] bytes (a capped payload is replaced by a JSON
	// string that says so).
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`

	// Round is the multi-round-trip round (1, 2, …) of a request fulfilled
	// as an input request of a tool call; 0 for requests sent on the wire.
	Round int32 `json:"round,omitempty"`
	// InputRequests is how many input requests a [KindRound] span's
	// input_required result carried.
	InputRequests int32 `json:"input_requests,omitempty"`
	// InputTokens and OutputTokens are the token counts a model endpoint
	// reported for a sampling request it answered (sampling mode
	// "endpoint"); 0 when no model was asked.
	InputTokens  int32 `json:"input_tokens,omitempty"`
	OutputTokens int32 `json:"output_tokens,omitempty"`

	Direction Direction `json:"direction"`
	Kind      Kind      `json:"kind"`
	Status    Status    `json:"status"`
	// Outcome is what the server answered a [KindRound] span:
	// [OutcomeInputRequired], [OutcomeResult] or [OutcomeError].
	Outcome RoundOutcome `json:"outcome,omitempty"`
	// Duplicate marks a server request that reused the JSON-RPC id of a
	// request still pending on the same session: it is recorded on its
	// own, but a well-behaved server never sends one.
	Duplicate bool `json:"duplicate,omitempty"`
}

// Unset marks a phase that has not been reached.
const Unset time.Duration = -1

// MaxPayload is the most bytes of params or result kept per span.
const MaxPayload = 16 << 10

// Open reports whether the span has not been answered yet.
func (s *Span) Open() bool { return s.Status == StatusOpen }

// QueueTime is how long an incoming request waited at the dispatch gate
// for a slot (Queued to Serving). It is zero for outgoing spans and for
// spans that never waited.
func (s *Span) QueueTime() time.Duration {
	if s.Direction != Incoming || s.Queued == Unset || s.Serving == Unset {
		return 0
	}
	return s.Serving - s.Queued
}

// HandoffTime is how long an incoming request took from being read off
// the wire to reaching the dispatch gate (Received to Queued): the SDK
// handing it to a handler, not the client's queue, nor the time it was
// withheld from the client (Stalled). Zero for outgoing spans and before
// the request reached the gate.
func (s *Span) HandoffTime() time.Duration {
	if s.Direction != Incoming || s.Received == Unset || s.Queued == Unset {
		return 0
	}
	return max(s.Queued-s.Received-s.Stalled, 0)
}

// ServeTime is how long the handler ran (incoming) or how long the server
// took to answer (outgoing), up to Answered. Open spans give 0.
func (s *Span) ServeTime() time.Duration {
	if s.Answered == Unset || s.Serving == Unset {
		return 0
	}
	return s.Answered - s.Serving
}

// Total is Answered - Received, or 0 while the span is open.
func (s *Span) Total() time.Duration {
	if s.Answered == Unset {
		return 0
	}
	return s.Answered - s.Received
}

// CapPayload returns b, or a JSON string saying how large it was when it is
// longer than [MaxPayload]. Invalid UTF-8 (which a server may send inside
// JSON strings) is replaced by U+FFFD, one per invalid sequence, so that
// a recording is always valid UTF-8 JSON.
func CapPayload(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	size := len(b)
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	if len(b) <= MaxPayload {
		return json.RawMessage(append([]byte(nil), b...))
	}
	msg, _ := json.Marshal(map[string]any{"truncated": true, "bytes": size, "head": string(b[:512])})
	return msg
}

// EventKind says what an instant [Event] was.
type EventKind string

// The kinds of instant events.
const (
	EventProgress    EventKind = "progress"     // notifications/progress
	EventLog         EventKind = "log"          // notifications/message
	EventListChanged EventKind = "list_changed" // notifications/*/list_changed
	EventCancelled   EventKind = "cancelled"    // notifications/cancelled
	EventStderr      EventKind = "stderr"       // a line the server process wrote to stderr
	EventConnection  EventKind = "connection"   // connected, disconnected, lost
	EventOther       EventKind = "other"        // any other notification
	// EventDropped is an open-loop arrival that was not sent because
	// --max-in-flight calls were outstanding; At is its intended start.
	EventDropped EventKind = "dropped"
)

// EventProtocol is something the server sent that breaks the protocol in
// a way the session survives: a response without a usable id, invalid
// UTF-8. Its Text says what and what the inspector did about it.
const EventProtocol EventKind = "protocol_error"

// Event is an instant: a notification or something that happened to the
// connection.
type Event struct {
	At      time.Duration `json:"at"`
	Session string        `json:"session"`
	Kind    EventKind     `json:"kind"`
	// Method is the notification's method, if it was one.
	Method string `json:"method,omitempty"`
	// Direction is who sent a notification: [Outgoing] for one the
	// client sent, [Incoming] or 0 (in recordings made before it was
	// kept) for one the server sent.
	Direction Direction `json:"direction,omitempty"`
	// Span is the span the event refers to (the call a progress token
	// belongs to, the request a cancellation names), or 0.
	Span SpanID          `json:"span,omitempty"`
	Text string          `json:"text,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
	// Level and Logger are a log message's level and logger name (kind
	// [EventLog]); see [LogOf] for the message itself.
	Level  string `json:"level,omitempty"`
	Logger string `json:"logger,omitempty"`
	// Stalled is how long the notification was withheld from the client
	// after it was read off the wire (dispatch "inline"), or 0.
	Stalled time.Duration `json:"stalled,omitempty"`
}
