// Package engine is Fanout Inspector's MCP client session: it connects to
// a server ([Connect] with a [Target], or several sessions at once with
// [ConnectGroup] and [Widen]), answers the server's requests to the
// client (sampling, elicitation, roots, ping) with a configurable
// [AnswerPolicy] — latency models, a [DispatchPolicy], failures,
// timeouts, manual answers — calls the server's tools one call at a time
// ([Session.CallTool]), and records everything, on the wire and off it,
// into a [recorder.Recording].
//
// Load generation is not here: package engine/load runs a workload (a
// closed, ramped or open loop of calls) over one or more sessions,
// through [Session.CallTool] and [Session.CheckOpen] only.
//
// # How the code is laid out
//
// One object owns the life of one request, and the files are named after
// the steps of that life:
//
//   - request.go: [request], one server request from its read to its
//     answer. It carries its phases, its dispatch slot and its outcome,
//     and is the only writer of its span: it ends it once, through
//     [recorder.Recording.End], whichever path ends it.
//   - receive.go: reading off the wire. A server request gets its request
//     and span, a notification becomes an event (notify.go), a response
//     ends the wait of the call it answers; duplicates and unreadable
//     messages are recorded here.
//   - queue.go: the request waits at the dispatch gate (dispatch.go) and
//     takes its slot; the slot goes back when the request ends.
//   - serve.go: the request's latency and building its answer (answer.go
//     builds sampling and elicitation answers, endpoint.go asks a model
//     behind a chat-completions API for them ([SamplingEndpoint]),
//     manual.go waits for a person, mrtr.go runs a multi-round-trip
//     call's rounds).
//   - respond.go: writing the answer ends the request.
//   - call.go: [call], one request the client sends (a tools/call with all
//     its rounds) from send to answer, and the registry of tool calls in
//     flight.
//   - tap.go, httptap.go: the wire tap. A transport decorator (for a
//     connection, or in the HTTP client) that knows nothing of the
//     session: like the SDK's LoggingTransport it only reports what it
//     read and wrote, as it happened, to a wireObserver, which the session
//     implements. wire.go keeps the session's books of what is pending
//     on the wire; package internal/wire, which the proxy feeds too,
//     decides how a server request is linked to its call, how an answer
//     pairs with a request (a duplicate's refusal, a second answer, an
//     unknown id), how a round's answer reads, and the words for each.
//   - session.go (connecting), group.go and widen.go (several sessions
//     into one recording), policy.go (the [AnswerPolicy] in force),
//     hooks.go (the user's callbacks), life.go (how a session ends),
//     toolcall.go ([Session.CallTool], the one call a load generator
//     makes, and whether its error means the connection is lost).
//   - catalog.go, content.go, subscribe.go: what a server offers besides
//     tools. Every page of its resources, templates and prompts
//     ([Session.ListResources], bounded), a read or a get with its
//     contents ([Session.ReadResource], [Session.GetPrompt],
//     [ExpandTemplate]), and subscriptions on both eras
//     ([Session.Subscribe]): a resources/subscribe up to 2025-11-25, a
//     subscriptions/listen kept open as a span from 2026-07-28, each
//     update an event on it.
//
// # How a server request is timed
//
// A server request's span goes through four instants. Received: the
// request is timed by the wire tap (see Transports) as it is read, before
// the SDK dispatches it; the span is created then, with the params as
// they arrived, its JSON-RPC id and its arrival index. Queued: its
// handler reached the dispatch gate. Serving: the gate let it in (under
// serial and bounded dispatch a freed slot goes to the waiting request
// that was read off the wire first, whatever order the SDK's goroutines
// reached the gate in; the reader keeps reading while requests wait; a
// slot free when a request reaches the gate is taken at once, the gate
// never holds one for a request still on its way). Answered: its response
// is being written; the dispatch slot is held until then, so that serial
// really is one at a time end to end. A phase a request never reached
// starts at its end: a request given up on while queued was queued, not
// served, until then.
//
// The SDK does not give a handler its request's JSON-RPC id, and starts
// handlers on goroutines in an order that need not be the order of
// arrival, so matching a handler to a wire read by method and order
// would be a guess. Instead the tap adds the id to the request's
// params._meta under a private key ("fanout-inspector/wire-id") as it
// reads it; the handler reads the id back (and deletes the key before
// anything else sees it), which names the span exactly. The response is
// matched to the span by its id when it is written. Requests that do not
// come over the wire (multi round-trip input requests) get their span
// when the handler starts.
//
// Each request's latency and injected failure are drawn from a random
// source seeded with the seed, the method and the request's arrival index
// among requests of that method, so the same seed gives the same values
// however the requests overlap.
//
// # Parents
//
// A server request's Parent is the tool call that caused it when that can
// be known, decided when the request is read: the call whose progress
// token (the session gives every tool call one) the request echoes in its
// params._meta; failing that, the one call in flight whose trace the
// W3C traceparent in the request's _meta names (a server propagating the
// trace context the session sends, see tracecontext.go); failing that,
// over streamable HTTP, the call whose
// response stream the request arrived on (a server sends the requests a
// call makes on the event stream of the POST that carried it; the HTTP
// tap tells the session which POST a body answers, see [wireSource]);
// failing that, the only tool call in flight on the session; otherwise
// none (0), and with calls in flight the span's Unlinked says why: with
// several in flight and nothing to tell them apart, any choice would be
// a guess. A request a tool asked for in its result (multi round-trip,
// protocol 2026-07-28) has for certain the round span of the call that
// asked for it as its parent, its Round says which round that was and
// its InputKey its key in the result.
//
// # Multi round-trip
//
// On protocol 2026-07-28 (SEP-2322) a server asks for sampling,
// elicitation and roots inside a tool call's result (input_required), and
// the client retries the call with the answers, each time as a new wire
// request with a new JSON-RPC id. The session turns the SDK's own retry
// loop off and runs it itself (mrtr.go): the SDK's loop would answer
// roots/list from the client's root list without passing through any
// handler of ours, so roots would get no latency, no dispatch and no
// span. The call (call.go) is one span, the logical call, with the first
// round's id; on such a session each wire request of it is a child span
// of kind round with its own id, timed by the tap as it is written and
// as its answer is read, and ended with what the server answered
// (input_required with n input requests, the result, or an error).
//
// A round's input requests are served through the same handlers as
// requests sent on the wire (dispatch gate, latency, failures, manual
// answers), each a child of the round that asked for it, with its round
// and key; their Received is when the round's answer was read off the
// wire. The SDK decodes them into a map, which forgets the order the
// server wrote them in, so the tap reads that order from the raw result,
// and the loop hands them to the gate one by one in it: serial and
// bounded dispatch serve them as the server listed them. An input
// request that fails does not end the call: a failed elicitation is
// answered "cancel" and a failed sampling or roots request is left out
// of the retry (an input response is a result and has no form for an
// error), so that the server learns of it. At most 10 rounds.
//
// # Dispatch inline
//
// Serial, bounded and concurrent dispatch are the gate's (dispatch.go);
// the client keeps reading meanwhile. Inline is a client whose receive
// loop awaits each request (the Python SDK up to v1.29), and that is the
// tap's: [tapConn] reads the connection on a goroutine of its own and
// reports each message at once, so Received and event times stay true,
// but while the SDK holds a server request under inline (the session
// says so through [wireObserver.awaitsAnswer]) it hands the SDK nothing
// more until that request's answer is written. Each message that waited
// is reported as withheld when handed on (readVerdict.seen), and the
// session records how long as Stalled: on the request (from Received),
// on the client call whose response waited (from Answered), on the
// notification's event (from At; the event is recorded when handed on,
// with At as read). What the tap holds is bounded; past it it stops
// reading, pushing back on the server. Over HTTP there is no single
// receive loop to stall: inline is refused there ([ErrInlineOverHTTP]).
//
// # Transports
//
// The demo server (in process) and stdio are tapped by wrapping the
// transport's connection. The demo server is reached over the pair of
// internal/inproc: each message crosses as the bytes the SDK writes and
// is decoded once, where the SDK's in-memory pipe decodes it three
// times, each with a 32 KiB buffer of its own. Streamable HTTP and legacy SSE are tapped one
// layer lower, in the HTTP client: each POST body is a message written,
// each response body (one JSON message or an event stream) carries the
// messages read. Wrapping their connection instead would hide an
// SDK-internal hook of the streamable connection, which then would never
// open its server-to-client event stream.
package engine
