// Package engine is Fanout Inspector's MCP client: it connects to a server
// ([Connect] with a [Target]), answers the server's requests to the client
// (sampling, elicitation, roots, ping) with configurable [Callbacks] —
// latency models, a dispatch policy, failures, timeouts, manual answers —
// calls the server's tools ([Session.Run] with a [Workload]), and records
// everything into a [recorder.Recording].
//
// # How a server request is timed
//
// A server request's span goes through four instants. Received: the
// session's connection is wrapped (the wire tap), so the request is timed
// as it is read off the wire, before the SDK dispatches it. Queued: its
// handler was entered. Serving: the dispatch gate let it in (serial and
// bounded dispatch are a first-come-first-served ticket queue, so the
// reader keeps reading while requests wait). Answered: its response was
// written to the wire. The handler cannot see the JSON-RPC id (the SDK
// does not pass it), so the tap hands it over in the params' _meta under
// a private key that the handler removes; the recorded params are those
// read off the wire.
//
// # Parents
//
// A server request's Parent is the tool call that caused it when that can
// be known: the call whose progress token (every tool call gets one) the
// request echoes in its _meta; or, failing that, the only tool call in
// flight on the session; or, for requests a tool asked for in its result
// (multi round-trip, protocol 2026-07-28), the call whose result asked,
// with Round set to the round.
//
// # Multi round-trip
//
// The SDK's own retry loop is kept: it calls the session's handlers
// directly with the tool call's context, so those requests go through the
// same dispatch, latency and recording; the handler recognises them by
// that context. roots/list asked for that way is answered by the SDK from
// the roots list the session keeps in step with [Callbacks.Roots], without
// latency or a span.
//
// # Transports
//
// The demo server (in process) and stdio are tapped by wrapping the
// transport's connection. Streamable HTTP and legacy SSE are tapped one
// layer lower, in the HTTP client: each POST body is a message written,
// each response body (one JSON message or an event stream) carries the
// messages read. Wrapping their connection instead would hide an
// SDK-internal hook of the streamable connection, which then would never
// open its server-to-client event stream.
package engine
