package recorder

import (
	"strings"
	"testing"
	"time"
)

// TestProxySummary: a proxy recording's summary speaks of the client,
// says that its concurrency is estimated, and keeps pending exact.
func TestProxySummary(t *testing.T) {
	for _, c := range []struct {
		recv, ans    []int
		verdict      string
		words        string
		peak, peakPd int
	}{
		{[]int{0, 1, 1, 2, 2}, []int{503, 1001, 1507, 2004, 2510}, VerdictSerialized, "your client served 5 requests one at a time — 2.51 s, 5.0× one request (0.50 s)", 1, 5},
		{[]int{0, 1, 1, 2, 2}, []int{503, 501, 507, 504, 510}, VerdictConcurrent, "your client overlapped all 5 requests pending at once", 5, 5},
		{[]int{0, 1, 1, 2, 2, 3}, []int{502, 505, 1003, 1009, 1504, 1510}, VerdictBounded, "your client served at most 2 of the 6 requests pending at once", 2, 6},
	} {
		sum := Summarize(proxySnap(c.recv, c.ans))
		if sum.Verdict != c.verdict || !strings.Contains(sum.VerdictText, c.words) || !strings.Contains(sum.VerdictText, "estimated from when its answers came back") {
			t.Errorf("verdict %s %q, want %s with %q and the estimate's note", sum.Verdict, sum.VerdictText, c.verdict, c.words)
		}
		if !sum.Estimated || sum.PeakInFlight != c.peak || sum.PeakPending != c.peakPd {
			t.Errorf("%s: estimated %v, peaks %d/%d, want true, %d/%d", c.verdict, sum.Estimated, sum.PeakInFlight, sum.PeakPending, c.peak, c.peakPd)
		}
	}
}

// fulfilmentSnap is a proxy recording of a 2026-07-28 call whose rounds
// asked for sizes[i] input requests, fulfilled in took[i] ms each.
func fulfilmentSnap(sizes, took []int) *Snapshot {
	snap := &Snapshot{Meta: Meta{Mode: ModeProxy}}
	add := func(s Span) *Span {
		s.ID = SpanID(len(snap.Spans) + 1)
		snap.Spans = append(snap.Spans, &s)
		return &s
	}
	d := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	call := NewSpan("proxy", Outgoing, "tools/call")
	call.Received, call.Queued, call.Serving, call.Status = 0, 0, 0, StatusOK
	c := add(call)
	at := 0
	for i, n := range sizes {
		r := NewSpan("proxy", Outgoing, "tools/call")
		r.Kind, r.Parent, r.Round, r.Outcome, r.InputRequests = KindRound, c.ID, int32(i+1), OutcomeInputRequired, int32(n)
		r.Received, r.Queued, r.Serving, r.Answered, r.Status = d(at), d(at), d(at), d(at+2), StatusOK
		round := add(r)
		f := NewSpan("proxy", Incoming, "sampling/createMessage")
		f.Parent, f.Round, f.InputRequests = round.ID, int32(i+1), int32(n)
		f.Received, f.Queued, f.Serving, f.Answered, f.Status = d(at+2), d(at+2), d(at+2+took[i]), d(at+2+took[i]), StatusOK
		add(f)
		at += 2 + took[i]
	}
	c.Answered = d(at + 2)
	snap.Now = d(at + 2)
	return snap
}

// TestProxySummaryRounds: input requests fulfilled inside the client are
// reported round by round; alone they cannot be judged, and with a
// one-request round to compare with they are, as the probe does.
func TestProxySummaryRounds(t *testing.T) {
	sum := Summarize(fulfilmentSnap([]int{5}, []int{2500}))
	if sum.Verdict != VerdictUnseen || !strings.Contains(sum.VerdictText, "round 1: 5 input requests fulfilled inside your client in 2.50 s") ||
		!strings.Contains(sum.VerdictText, "cannot be seen") || sum.ServerRequests.Total != 0 || len(sum.Fulfilments) != 1 {
		t.Errorf("one round of 5: %s %q, %d server requests, %+v", sum.Verdict, sum.VerdictText, sum.ServerRequests.Total, sum.Fulfilments)
	}
	for _, c := range []struct {
		took    int
		verdict string
	}{{2500, VerdictSerialized}, {520, VerdictConcurrent}, {1300, VerdictBounded}} {
		sum := Summarize(fulfilmentSnap([]int{1, 5}, []int{500, c.took}))
		if sum.Verdict != c.verdict || !strings.Contains(sum.VerdictText, "a round of 5 input requests took") {
			t.Errorf("rounds of 1 and 5 taking 500 and %d ms: %s %q, want %s", c.took, sum.Verdict, sum.VerdictText, c.verdict)
		}
	}
}
