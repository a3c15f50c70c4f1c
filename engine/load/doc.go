// Package load generates load on an MCP server: it runs a [Workload], a
// series of calls of one tool or a mix of weighted operations (tool
// calls, resource reads, prompt gets: [Operation]), over one or more
// sessions of package engine that share a recording, and counts the
// outcomes ([Run], [RunResult], [Progress]; a mix's per operation in
// [RunResult].Operations).
//
// A workload is one of three loops:
//
//   - a closed loop: Concurrency callers, each calling again when its
//     last call is answered, for Calls calls or for Duration;
//   - a ramped closed loop: the number of callers follows the stages
//     ([Stage], [RampConcurrency]);
//   - an open loop: calls start on a schedule whatever the answers do,
//     Rate per second for Duration or along rate stages ([RampRate]); a
//     call sent late is timed from when it was meant to start, and with
//     MaxInFlight calls outstanding an arrival is dropped, not delayed.
//
// [Workload.Validate] judges a workload's shape, and [Run] calls it
// first. Its error is a [*WorkloadError] that names the fields at fault,
// so that a face can word it with its own names for them
// ([WorkloadError.Explain]; the command names its flags).
// [ParseStages] reads stages written as DURATION:TARGET,....
//
// The package drives sessions only through engine's exported API: each
// call is [engine.Session.CallTool] (or, in a mix, [engine.Session.Send]
// of the operation picked), which records it as a span with the server
// requests it causes as children. The calls go to the sessions in
// turn (round robin); a session whose connection is lost stops the run.
//
// # How the code is laid out
//
//   - workload.go: [Workload], its validation, [Progress] and
//     [RunResult].
//   - load.go: [Run] and the three loops, how a call's outcome is
//     counted, and why a run stopped early.
//   - mix.go: [Operation], a mix's validation, the seeded pick of each
//     call's operation and each operation's counts and HDR times.
//   - stages.go: [Stage], [ParseStages], and an open loop's schedule of
//     arrivals along a ramp.
//   - wait.go, sleep_linux.go: an open loop's clock, which wakes shortly
//     before each arrival and sleeps out the rest precisely.
//   - gcroom.go: the heap reserve every run holds so that the garbage
//     collector runs less often.
package load
