package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// roundOf returns round n's span of call, failing the test without one.
func roundOf(t *testing.T, snap *recorder.Snapshot, call *recorder.Span, n int) *recorder.Span {
	t.Helper()
	for _, s := range snap.Spans {
		if s.Kind == recorder.KindRound && s.Parent == call.ID && int(s.Round) == n {
			return s
		}
	}
	t.Fatalf("call %d has no round %d span", call.ID, n)
	return nil
}

// roundsArgs are the fanout tool's arguments for n requests per round.
func roundsArgs(n, rounds int, kind string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"n": n, "rounds": rounds, "kind": kind})
	return b
}

// TestRoundSpans checks the recording of a two-round call on protocol
// 2026-07-28: one logical call span carrying the first round's id, one
// round span per wire request with its own id, wire times and outcome,
// each input request the child of the round that asked for it with its
// key; and no round spans on a 2025-11-25 session.
func TestRoundSpans(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: ms(30)}
	s := connectTarget(t, Target{Protocol: "2026-07-28"}, policy)
	if res := run(t, s, testCalls{Tool: "fanout", Args: roundsArgs(3, 2, "sampling")}); res.OK != 1 {
		t.Fatalf("run %+v", res)
	}
	snap := s.Recording().Snapshot()
	calls := spansOf(snap, "tools/call")
	var call *recorder.Span
	var rounds []*recorder.Span
	for _, sp := range calls {
		switch sp.Kind {
		case recorder.KindTool:
			if call != nil {
				t.Fatalf("two logical call spans (%d, %d) for one call", call.ID, sp.ID)
			}
			call = sp
		case recorder.KindRound:
			rounds = append(rounds, sp)
		}
	}
	if call == nil || len(rounds) != 3 {
		t.Fatalf("call %v and %d round spans, want one call and 3 rounds", call, len(rounds))
	}
	ids := map[string]bool{}
	for i, r := range rounds {
		outcome, inputs := recorder.OutcomeInputRequired, 3
		if i == 2 {
			outcome, inputs = recorder.OutcomeResult, 0
		}
		if int(r.Round) != i+1 || r.Parent != call.ID || r.Outcome != outcome || int(r.InputRequests) != inputs || r.Status != recorder.StatusOK || r.Name != "fanout" {
			t.Errorf("round span %d: round %d parent %d outcome %q inputs %d status %q name %q; want round %d of call %d, %q, %d inputs, ok, fanout",
				r.ID, r.Round, r.Parent, r.Outcome, r.InputRequests, r.Status, r.Name, i+1, call.ID, outcome, inputs)
		}
		if r.RequestID == "" || ids[r.RequestID] {
			t.Errorf("round %d has id %q: each round is its own wire request", r.Round, r.RequestID)
		}
		ids[r.RequestID] = true
		if r.Answered < r.Received {
			t.Errorf("round %d answered at %v before it was sent at %v", r.Round, r.Answered, r.Received)
		}
		if i > 0 && r.Received < rounds[i-1].Answered {
			t.Errorf("round %d sent at %v, before round %d's answer was read at %v", r.Round, r.Received, i, rounds[i-1].Answered)
		}
	}
	if call.RequestID != rounds[0].RequestID || call.Received != rounds[0].Received || call.Answered != rounds[2].Answered {
		t.Errorf("call: id %q sent %v answered %v; want the first round's id %q and send %v, the last round's answer %v",
			call.RequestID, call.Received, call.Answered, rounds[0].RequestID, rounds[0].Received, rounds[2].Answered)
	}
	if !strings.Contains(string(rounds[1].Params), `"inputResponses"`) || !strings.Contains(string(rounds[0].Result), `"input_required"`) {
		t.Errorf("round 2's params %s should carry the answers, round 1's result %s the input_required", rounds[1].Params, rounds[0].Result)
	}
	for _, sp := range spansOf(snap, "sampling/createMessage") {
		parent := rounds[sp.Round-1]
		want := fmt.Sprintf("r%d-", sp.Round)
		if sp.Parent != parent.ID || !strings.HasPrefix(sp.InputKey, want) || sp.RequestID != "" || sp.Received != parent.Answered {
			t.Errorf("input request %d: parent %d key %q id %q received %v; want parent %d (round %d), key %s…, no id, received %v with the round's answer",
				sp.ID, sp.Parent, sp.InputKey, sp.RequestID, sp.Received, parent.ID, sp.Round, want, parent.Answered)
		}
	}

	old := connectTarget(t, Target{Protocol: "2025-11-25"}, policy)
	run(t, old, testCalls{Tool: "fanout", Args: roundsArgs(3, 2, "sampling")})
	for _, sp := range old.Recording().Snapshot().Spans {
		if sp.Kind == recorder.KindRound {
			t.Errorf("a 2025-11-25 session recorded round span %d: rounds exist only with multi round-trip", sp.ID)
		}
	}
}

// TestInputRequestsServedInListedOrder checks that serial and bounded
// dispatch serve a round's input requests in the order the server wrote
// them (r1-0, r1-1, …), not in Go map order.
func TestInputRequestsServedInListedOrder(t *testing.T) {
	const n = 7
	for _, d := range []DispatchPolicy{{Mode: Serial}, {Mode: Bounded, Limit: 2}} {
		t.Run(d.String(), func(t *testing.T) {
			policy := DefaultAnswerPolicy()
			policy.Dispatch = d
			policy.Latency = LatencyModel{Dist: Fixed, A: ms(15)}
			s := connectTarget(t, Target{Protocol: "2026-07-28"}, policy)
			if res := run(t, s, testCalls{Tool: "fanout", Args: roundsArgs(n, 2, "sampling")}); res.OK != 1 {
				t.Fatalf("run %+v", res)
			}
			spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
			for round := 1; round <= 2; round++ {
				var inRound []*recorder.Span
				for _, sp := range spans {
					if int(sp.Round) == round {
						inRound = append(inRound, sp)
					}
				}
				slices.SortStableFunc(inRound, func(a, b *recorder.Span) int { return int(a.Serving - b.Serving) })
				var got, want []string
				for i, sp := range inRound {
					got = append(got, sp.InputKey)
					want = append(want, fmt.Sprintf("r%d-%d", round, i))
				}
				if !slices.Equal(got, want) {
					t.Errorf("round %d served in the order %v, want the server's order %v", round, got, want)
				}
			}
		})
	}
}

// TestInputRequestFailureRetries checks that an input request that fails
// does not end the call: the retry is sent, with a failed elicitation
// answered "cancel" and a failed sampling or roots request left out, so
// that the server learns what happened and gives its own answer.
func TestInputRequestFailureRetries(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.FailRate = 1
	s := connectTarget(t, Target{Protocol: "2026-07-28"}, policy)
	run(t, s, testCalls{Tool: "fanout", Args: roundsArgs(3, 1, "mixed")})
	snap := s.Recording().Snapshot()
	call := spansOf(snap, "tools/call")[0]
	for _, sp := range snap.Spans {
		if sp.Direction == recorder.Incoming && sp.Status != recorder.StatusError {
			t.Errorf("input request %d (%s) status %q, want the injected error", sp.ID, sp.Method, sp.Status)
		}
	}
	retry := roundOf(t, snap, call, 2)
	var params struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   string                     `json:"requestState"`
	}
	if err := json.Unmarshal(retry.Params, &params); err != nil {
		t.Fatalf("retry params %s: %v", retry.Params, err)
	}
	if params.RequestState == "" || len(params.InputResponses) != 1 || !strings.Contains(string(params.InputResponses["r1-1"]), `"cancel"`) {
		t.Errorf("retry params %s: want the request state and only r1-1 (the elicitation) answered cancel", retry.Params)
	}
	// The server's own account: two not answered, the elicitation cancelled.
	result := string(call.Result)
	if call.Status != recorder.StatusError || retry.Outcome != recorder.OutcomeResult ||
		strings.Count(result, "not answered in the retry") < 2 || !strings.Contains(result, "r1-1: cancel") {
		t.Errorf("call %q outcome of the retry %q, result %s; want the server's final result saying r1-0 and r1-2 were not answered and r1-1 was cancelled",
			call.Status, retry.Outcome, result)
	}
}
