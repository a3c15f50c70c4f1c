// Package timelinetest holds recordings built with fixed offsets, for the
// tests of the timeline and of the views built on it: the same recording
// drawn by a Gantt and shown by a window gives the same picture.
package timelinetest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

const ms = time.Millisecond

// Fixed is a recording built with fixed offsets: a tool call whose
// five sampling requests arrived together and were served one at a time
// (a staircase), an elicitation that failed under it, an orphan ping, a
// cancelled roots/list and a tools/list, with notifications.
func Fixed() *recorder.Snapshot {
	snap := &recorder.Snapshot{
		Meta: recorder.Meta{Title: "serial fan-out", Target: "demo", Created: time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)},
		Now:  2700 * ms, Version: 42,
	}
	add := func(s recorder.Span) *recorder.Span {
		s.ID = recorder.SpanID(len(snap.Spans) + 1)
		s.Kind = recorder.KindOf(s.Method)
		if s.Session == "" {
			s.Session = "s1"
		}
		p := s
		snap.Spans = append(snap.Spans, &p)
		return &p
	}
	add(recorder.Span{Direction: recorder.Outgoing, Method: "tools/call", Name: "fanout", RequestID: "1",
		Received: 0, Queued: 0, Serving: 0, Answered: 2560 * ms, Status: recorder.StatusOK,
		Params: json.RawMessage(`{"name":"fanout","arguments":{"n":5}}`), Result: json.RawMessage(`{"content":[{"type":"text","text":"5 answers"}]}`)})
	for i := range 5 {
		at := 10*ms + time.Duration(i)*ms
		serve := 10*ms + time.Duration(i)*500*ms
		add(recorder.Span{Direction: recorder.Incoming, Method: "sampling/createMessage", Parent: 1, RequestID: fmt.Sprint(i),
			Received: at, Queued: at, Serving: serve, Answered: serve + 500*ms, Status: recorder.StatusOK,
			Params: json.RawMessage(fmt.Sprintf(`{"messages":[{"role":"user","content":{"type":"text","text":"question %d"}}],"maxTokens":100}`, i)),
			Result: json.RawMessage(fmt.Sprintf(`{"model":"demo","role":"assistant","content":{"type":"text","text":"answer %d"}}`, i))})
	}
	add(recorder.Span{Direction: recorder.Incoming, Method: "ping", RequestID: "p1",
		Received: 700 * ms, Queued: 700 * ms, Serving: 700 * ms, Answered: 702 * ms, Status: recorder.StatusOK})
	add(recorder.Span{Direction: recorder.Incoming, Method: "elicitation/create", Parent: 1, RequestID: "5",
		Received: 1200 * ms, Queued: 1200 * ms, Serving: 1250 * ms, Answered: 1400 * ms, Status: recorder.StatusError, Error: "the user declined"})
	add(recorder.Span{Direction: recorder.Incoming, Method: "roots/list", RequestID: "6",
		Received: 1800 * ms, Queued: 1800 * ms, Serving: 1800 * ms, Answered: 2000 * ms, Status: recorder.StatusCancelled})
	add(recorder.Span{Direction: recorder.Outgoing, Method: "tools/list", RequestID: "2",
		Received: 2600 * ms, Queued: 2600 * ms, Serving: 2600 * ms, Answered: 2650 * ms, Status: recorder.StatusOK})
	for _, at := range []time.Duration{600, 1100, 1600, 2100} {
		snap.Events = append(snap.Events, recorder.Event{At: at * ms, Kind: recorder.EventProgress, Method: "notifications/progress", Span: 1})
	}
	snap.Events = append(snap.Events,
		recorder.Event{At: 300 * ms, Kind: recorder.EventLog, Method: "notifications/message", Text: "starting"},
		recorder.Event{At: 2000 * ms, Kind: recorder.EventCancelled, Method: "notifications/cancelled", Span: 9})
	return snap
}

// Fanout is n sampling requests of a tool call that arrived
// together and were served `slots` at a time, each taking serve.
func Fanout(n, slots int, serve time.Duration) *recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: fmt.Sprintf("%d requests, %d at a time", n, slots)}}
	waves := (n + slots - 1) / slots
	call := &recorder.Span{ID: 1, Direction: recorder.Outgoing, Method: "tools/call", Name: "fanout", Kind: recorder.KindTool,
		Received: 0, Queued: 0, Serving: 0, Answered: 20*ms + time.Duration(waves)*serve, Status: recorder.StatusOK}
	snap.Spans = append(snap.Spans, call)
	for i := range n {
		start := 10*ms + time.Duration(i/slots)*serve
		snap.Spans = append(snap.Spans, &recorder.Span{ID: recorder.SpanID(i + 2), Parent: 1, Direction: recorder.Incoming,
			Method: "sampling/createMessage", Kind: recorder.KindSampling,
			Received: 10 * ms, Queued: 10 * ms, Serving: start, Answered: start + serve, Status: recorder.StatusOK})
	}
	snap.Now = call.Answered
	return snap
}

// Big is n requests in tool calls of 10, overlapping in waves,
// for benchmarks.
func Big(n int) *recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "big", Created: time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)}}
	var id recorder.SpanID
	for len(snap.Spans) < n {
		id++
		callID := id
		t0 := time.Duration(len(snap.Spans)) * ms
		snap.Spans = append(snap.Spans, &recorder.Span{ID: id, Direction: recorder.Outgoing, Method: "tools/call", Kind: recorder.KindTool,
			Received: t0, Queued: t0, Serving: t0, Answered: t0 + 60*ms, Status: recorder.StatusOK})
		for j := 0; j < 9 && len(snap.Spans) < n; j++ {
			id++
			r := t0 + time.Duration(j)*ms
			st := recorder.StatusOK
			if j == 7 {
				st = recorder.StatusError
			}
			snap.Spans = append(snap.Spans, &recorder.Span{ID: id, Parent: callID, Direction: recorder.Incoming,
				Method: "sampling/createMessage", Kind: recorder.KindSampling,
				Received: r, Queued: r, Serving: r + time.Duration(j%3)*5*ms, Answered: r + 40*ms, Status: st})
		}
	}
	snap.Now = time.Duration(n)*ms + 100*ms
	return snap
}

// Rounds is a recording of both protocol eras, built by hand with
// fixed offsets.
//
// Session s1 (2026-07-28): tool call #1 takes three wire rounds. Round 1
// (#2) answers input_required with two sampling requests (#3 r1-0, #4
// r1-1), served one at a time; the client sends round 2 (#5) 50 ms after
// the second is answered. Round 2 asks for one elicitation (#6 r2-0);
// round 3 (#7) gets the result. The client's fulfilment time: 100 ms →
// 1150 ms after round 1, 1250 ms → 1500 ms after round 2.
//
// Session s2 (2025-11-25, dispatch inline): tool call #8 gets two sampling
// requests; while #9 is served, #10 is read off the wire but withheld from
// the client for 450 ms (stalled), and so is the response to tools/list
// #11 (300 ms) and a progress notification (250 ms).
func Rounds() *recorder.Snapshot {
	snap := &recorder.Snapshot{
		Meta: recorder.Meta{Title: "both eras", Target: "demo", Created: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)},
		Now:  2900 * ms, Version: 7,
	}
	add := func(s recorder.Span) {
		s.ID = recorder.SpanID(len(snap.Spans) + 1)
		if s.Kind == 0 {
			s.Kind = recorder.KindOf(s.Method)
		}
		if s.Status == recorder.StatusOpen {
			s.Status = recorder.StatusOK
		}
		if s.Direction == recorder.Outgoing {
			s.Queued, s.Serving = s.Received, s.Received
		}
		snap.Spans = append(snap.Spans, &s)
	}
	out, in := recorder.Outgoing, recorder.Incoming
	// session s1: a multi-round-trip call
	add(recorder.Span{Session: "s1", Direction: out, Method: "tools/call", Name: "fanout", RequestID: "1", Received: 0, Answered: 1600 * ms})
	add(recorder.Span{Session: "s1", Direction: out, Method: "tools/call", Name: "fanout", Kind: recorder.KindRound, Parent: 1, Round: 1, RequestID: "1",
		Received: 0, Answered: 100 * ms, Outcome: recorder.OutcomeInputRequired, InputRequests: 2})
	add(recorder.Span{Session: "s1", Direction: in, Method: "sampling/createMessage", Parent: 2, Round: 1, InputKey: "r1-0",
		Received: 100 * ms, Queued: 100 * ms, Serving: 100 * ms, Answered: 600 * ms})
	add(recorder.Span{Session: "s1", Direction: in, Method: "sampling/createMessage", Parent: 2, Round: 1, InputKey: "r1-1",
		Received: 100 * ms, Queued: 100 * ms, Serving: 600 * ms, Answered: 1100 * ms})
	add(recorder.Span{Session: "s1", Direction: out, Method: "tools/call", Name: "fanout", Kind: recorder.KindRound, Parent: 1, Round: 2, RequestID: "2",
		Received: 1150 * ms, Answered: 1250 * ms, Outcome: recorder.OutcomeInputRequired, InputRequests: 1})
	add(recorder.Span{Session: "s1", Direction: in, Method: "elicitation/create", Parent: 5, Round: 2, InputKey: "r2-0",
		Received: 1250 * ms, Queued: 1250 * ms, Serving: 1250 * ms, Answered: 1450 * ms})
	add(recorder.Span{Session: "s1", Direction: out, Method: "tools/call", Name: "fanout", Kind: recorder.KindRound, Parent: 1, Round: 3, RequestID: "3",
		Received: 1500 * ms, Answered: 1600 * ms, Outcome: recorder.OutcomeResult})
	// session s2: a 2025-era call under inline dispatch
	add(recorder.Span{Session: "s2", Direction: out, Method: "tools/call", Name: "slow", RequestID: "1", Received: 1700 * ms, Answered: 2800 * ms})
	add(recorder.Span{Session: "s2", Direction: in, Method: "sampling/createMessage", Parent: 8, RequestID: "0",
		Received: 1750 * ms, Queued: 1750 * ms, Serving: 1750 * ms, Answered: 2250 * ms})
	add(recorder.Span{Session: "s2", Direction: in, Method: "sampling/createMessage", Parent: 8, RequestID: "1", Stalled: 450 * ms,
		Received: 1800 * ms, Queued: 2250 * ms, Serving: 2250 * ms, Answered: 2750 * ms})
	add(recorder.Span{Session: "s2", Direction: out, Method: "tools/list", RequestID: "2", Stalled: 300 * ms,
		Received: 1900 * ms, Answered: 1950 * ms})
	snap.Events = append(snap.Events,
		recorder.Event{At: 2000 * ms, Session: "s2", Kind: recorder.EventProgress, Method: "notifications/progress", Span: 8, Stalled: 250 * ms})
	return snap
}
