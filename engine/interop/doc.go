// Package interop checks Fanout Inspector's engine against real MCP peers
// built with other SDKs. It holds only tests and benchmarks:
//
//   - a fan-out server built with the official TypeScript SDK
//     (testdata/tsserver/server.mjs), driven over stdio and streamable
//     HTTP, for sampling and elicitation, under concurrent and serial
//     dispatch; and its traceparent and traced_sampling tools, which
//     check that the trace context the engine sends in _meta is the one
//     the OTLP export gives the call, and that a server's own span
//     becomes the parent of the sampling request it sends;
//   - a multi-round-trip fan-out server built with the TypeScript SDK v2
//     (testdata/tsserver-v2/server.mjs, protocol 2026-07-28), whose tool
//     answers with input_required rounds and reports how long it waited
//     for each retry, driven over stdio and streamable HTTP; and the SDK
//     v2's own client (testdata/tsserver-v2/client.mjs) measured beside
//     the engine against it, as a reference;
//   - benchmarks of the engine's overhead (requests per second through the
//     engine and its recorder against a bare Go SDK client) and of its
//     timing fidelity (100 concurrent requests of 200 ms).
//
// The TypeScript tests need node and npm; they run `npm ci` in
// testdata/tsserver or testdata/tsserver-v2 when its node_modules folder
// is missing. Without node
// on PATH they are skipped, except in CI (CI=true), where they fail.
//
//	go test ./engine/interop/
//	go test -run '^$' -bench . ./engine/interop/
package interop
