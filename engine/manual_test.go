package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// waitingOf runs fanout with kind on s in the background and returns the
// n requests handed to a person, and the run's end.
func waitingOf(t *testing.T, s *Session, kind string, n int) ([]*PendingRequest, <-chan error) {
	t.Helper()
	pending := make(chan *PendingRequest, n)
	s.SetManualHandler(func(p *PendingRequest) { pending <- p })
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := runCalls(ctx, s, testCalls{Tool: "fanout", Args: json.RawMessage(`{"n":` + string(rune('0'+n)) + `,"kind":"` + kind + `"}`)})
		done <- err
	}()
	var out []*PendingRequest
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case p := <-pending:
			out = append(out, p)
		case <-timeout:
			t.Fatalf("%d of %d requests reached the manual handler", len(out), n)
		}
	}
	return out, done
}

// TestPolicyChangeReleasesWaiting: requests waiting for a person are
// answered by the new policy when it no longer leaves them to one, and
// only those.
func TestPolicyChangeReleasesWaiting(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Elicitation = ElicitManual
	s := connectDemo(t, policy)
	waiting, done := waitingOf(t, s, "elicitation", 4)
	policy.SamplingManual = true // a change that still leaves elicitation to a person
	s.SetAnswerPolicy(policy)
	for _, p := range waiting {
		select {
		case <-p.Done():
			t.Fatalf("span %d stopped waiting on a change that keeps elicitation manual", p.Span)
		default:
		}
	}
	policy.Elicitation = ElicitDecline
	s.SetAnswerPolicy(policy)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, sp := range spansOf(s.Recording().Snapshot(), "elicitation/create") {
		if sp.Status != recorder.StatusOK || !strings.Contains(string(sp.Result), `"decline"`) {
			t.Errorf("span %d: %s %s, want declined by the new policy", sp.ID, sp.Status, sp.Result)
		}
	}
}

// TestWithdrawAndAcceptDefault: a withdrawn request ends cancelled with
// its reason; AcceptDefault answers as the accept policy would.
func TestWithdrawAndAcceptDefault(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.SamplingManual = true
	policy.RequestTimeout = time.Minute
	s := connectDemo(t, policy)
	waiting, done := waitingOf(t, s, "sampling", 2)
	for _, p := range waiting {
		if p.Deadline.IsZero() || time.Until(p.Deadline) < 50*time.Second || p.Since.IsZero() {
			t.Errorf("span %d: deadline %v since %v, want the minute's request timeout ahead", p.Span, p.Deadline, p.Since)
		}
	}
	waiting[0].Withdraw("cancelled: the run was stopped")
	waiting[1].AcceptDefault()
	<-done
	byID := map[recorder.SpanID]*recorder.Span{}
	for _, sp := range spansOf(s.Recording().Snapshot(), "sampling/createMessage") {
		byID[sp.ID] = sp
	}
	if sp := byID[waiting[0].Span]; sp == nil || sp.Status != recorder.StatusCancelled || sp.Error != "cancelled: the run was stopped" {
		t.Errorf("withdrawn span: %+v, want cancelled with the reason", sp)
	}
	if sp := byID[waiting[1].Span]; sp == nil || sp.Status != recorder.StatusOK || !strings.Contains(string(sp.Result), "reply ") {
		t.Errorf("accepted span: %+v, want the reply template's answer", sp)
	}
}
