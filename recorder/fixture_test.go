package recorder

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixedCreated is the wall-clock start of every fixture recording.
var fixedCreated = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func msd(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// fixedSnapshot is a small recording with fixed times: a tool call that
// fans out four sampling requests and one elicitation, served one at a
// time (the last one fails), a roots/list on its own, a tool call still
// open, and a few notifications.
func fixedSnapshot() *Snapshot {
	spans := []*Span{{
		ID: 1, Session: "s1", Direction: Outgoing, Method: "tools/call", Kind: KindTool, RequestID: "3", Name: "fan_out",
		Received: msd(0), Queued: msd(0), Serving: msd(0), Answered: msd(2520), Status: StatusOK,
		Params: json.RawMessage(`{"name":"fan_out","arguments":{"n":5,"note":"<a & b>"}}`),
		Result: json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`),
	}}
	for i := range 5 {
		method := "sampling/createMessage"
		status, errText := StatusOK, ""
		if i == 4 {
			method, status, errText = "elicitation/create", StatusError, "user declined"
		}
		recv := msd(10 + 0.1*float64(i))
		spans = append(spans, &Span{
			ID: SpanID(i + 2), Parent: 1, Session: "s1", Direction: Incoming, Method: method, Kind: KindOf(method),
			RequestID: string(rune('0' + i)),
			Received:  recv, Queued: recv + msd(0.02), Serving: msd(10.05 + 500*float64(i)), Answered: msd(10.05 + 500*float64(i+1)),
			Status: status, Error: errText,
			Params: json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}`),
		})
	}
	spans = append(spans,
		&Span{ID: 7, Session: "s1", Direction: Incoming, Method: "roots/list", Kind: KindRoots, RequestID: "9",
			Received: msd(2600), Queued: msd(2600.01), Serving: msd(2600.05), Answered: msd(2601), Status: StatusOK,
			Result: json.RawMessage(`{"roots":[]}`)},
		&Span{ID: 8, Session: "s1", Direction: Outgoing, Method: "tools/call", Kind: KindTool, RequestID: "4", Name: "slow",
			Received: msd(2700), Queued: msd(2700), Serving: msd(2700), Answered: Unset},
	)
	return &Snapshot{
		Meta: Meta{Title: "fixture", Created: fixedCreated, Target: "demo", Protocol: "2025-11-25",
			Server: "demo 1.0", Config: json.RawMessage(`{"policy":"serial"}`), Inspector: "test"},
		Spans: spans,
		Events: []Event{
			{At: 0, Session: "s1", Kind: EventConnection, Text: "connected"},
			{At: msd(500), Session: "s1", Kind: EventProgress, Method: "notifications/progress", Span: 1, Text: "1/5",
				Data: json.RawMessage(`{"progress":1,"total":5}`)},
			{At: msd(1200), Session: "s1", Kind: EventLog, Method: "notifications/message", Text: "halfway"},
		},
		Version: 1,
		Now:     msd(3000),
	}
}

// oneRequestSnapshot holds a single finished sampling request.
func oneRequestSnapshot() *Snapshot {
	return &Snapshot{
		Meta: Meta{Created: fixedCreated},
		Spans: []*Span{{ID: 1, Session: "s", Direction: Incoming, Method: "sampling/createMessage", Kind: KindSampling,
			Received: msd(1), Queued: msd(1), Serving: msd(1), Answered: msd(501), Status: StatusOK}},
		Events:  []Event{},
		Version: 1,
		Now:     msd(501),
	}
}

// emptySnapshot holds nothing at all.
func emptySnapshot() *Snapshot {
	return &Snapshot{Meta: Meta{Created: fixedCreated}, Spans: []*Span{}, Events: []Event{}, Version: 1}
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		failed := filepath.Join("testdata", "failed", name)
		os.MkdirAll(filepath.Dir(failed), 0o755)
		os.WriteFile(failed, got, 0o644)
		t.Errorf("%s differs from the golden file; got written to %s (run go test -update if the change is intended)", name, failed)
	}
}

// loadSnapshot is a load-test recording of n spans: tool calls one after
// another, each fanning out up to 9 sampling, elicitation or roots
// requests served two at a time, with seeded random latencies.
func loadSnapshot(n int, seed uint64) *Snapshot {
	rng := rand.New(rand.NewPCG(seed, seed))
	snap := &Snapshot{Meta: Meta{Title: "load", Created: fixedCreated}, Version: 1}
	at := time.Duration(0)
	methods := []string{"sampling/createMessage", "elicitation/create", "roots/list"}
	for len(snap.Spans) < n {
		call := &Span{ID: SpanID(len(snap.Spans) + 1), Session: "load", Direction: Outgoing, Method: "tools/call",
			Kind: KindTool, Name: "fan_out", Received: at, Queued: at, Serving: at, Status: StatusOK}
		snap.Spans = append(snap.Spans, call)
		slots := [2]time.Duration{at, at}
		end := at
		for k := 0; k < 1+rng.IntN(9) && len(snap.Spans) < n; k++ {
			m := methods[rng.IntN(len(methods))]
			recv := at + time.Duration(rng.IntN(200))*time.Microsecond
			slot := 0
			if slots[1] < slots[0] {
				slot = 1
			}
			start := max(recv, slots[slot])
			done := start + time.Duration(1+rng.IntN(20))*time.Millisecond
			slots[slot] = done
			end = max(end, done)
			st := StatusOK
			if rng.IntN(50) == 0 {
				st = StatusError
			}
			snap.Spans = append(snap.Spans, &Span{ID: SpanID(len(snap.Spans) + 1), Parent: call.ID, Session: "load",
				Direction: Incoming, Method: m, Kind: KindOf(m), Received: recv, Queued: recv, Serving: start,
				Answered: done, Status: st})
		}
		call.Answered = end + time.Millisecond
		snap.Events = append(snap.Events, Event{At: at, Session: "load", Kind: EventProgress, Span: call.ID})
		at = call.Answered + time.Duration(rng.IntN(3))*time.Millisecond
	}
	snap.Now = at
	return snap
}

// roundsSnapshot is a multi-round-trip tool call (protocol 2026-07-28)
// with fixed times: round 1 asks for three sampling requests, served one
// at a time (300 ms each); the client retries 5 ms after the last is
// answered; round 2 asks for two, served at once; round 3 gives the
// result. The fulfilment times are 905 ms and 305 ms. A progress
// notification and round 1's second request were withheld from the
// client (dispatch inline) for 40 and 120 ms.
func roundsSnapshot() *Snapshot {
	call := &Span{ID: 1, Session: "s1", Direction: Outgoing, Method: "tools/call", Kind: KindTool, RequestID: "2", Name: "fanout",
		Received: msd(0), Queued: msd(0), Serving: msd(0), Answered: msd(1230), Status: StatusOK}
	round := func(id SpanID, n int32, reqID string, sent, answered float64, outcome RoundOutcome, inputs int32) *Span {
		return &Span{ID: id, Parent: 1, Session: "s1", Direction: Outgoing, Method: "tools/call", Kind: KindRound, RequestID: reqID,
			Name: "fanout", Round: n, Outcome: outcome, InputRequests: inputs,
			Received: msd(sent), Queued: msd(sent), Serving: msd(sent), Answered: msd(answered), Status: StatusOK}
	}
	input := func(id, parent SpanID, n int32, key string, recv, serving, answered float64) *Span {
		return &Span{ID: id, Parent: parent, Session: "s1", Direction: Incoming, Method: "sampling/createMessage", Kind: KindSampling,
			Round: n, InputKey: key, Received: msd(recv), Queued: msd(recv), Serving: msd(serving), Answered: msd(answered), Status: StatusOK}
	}
	spans := []*Span{call,
		round(2, 1, "2", 0, 5, OutcomeInputRequired, 3),
		input(3, 2, 1, "r1-0", 5, 5, 305),
		input(4, 2, 1, "r1-1", 5, 305, 605),
		input(5, 2, 1, "r1-2", 5, 605, 905),
		round(6, 2, "3", 910, 915, OutcomeInputRequired, 2),
		input(7, 6, 2, "r2-0", 915, 915, 1215),
		input(8, 6, 2, "r2-1", 915, 915, 1215),
		round(9, 3, "4", 1220, 1230, OutcomeResult, 0),
	}
	spans[3].Stalled, spans[3].Queued = msd(120), msd(125) // seen by the client 120 ms late
	return &Snapshot{
		Meta:  Meta{Title: "rounds", Created: fixedCreated, Target: "demo", Protocol: "2026-07-28", Server: "demo 1.0", Inspector: "test"},
		Spans: spans,
		Events: []Event{
			{At: msd(400), Session: "s1", Kind: EventProgress, Method: "notifications/progress", Span: 1, Text: "1/5", Stalled: msd(40)},
		},
		Version: 1,
		Now:     msd(1230),
	}
}
