package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// verdictBudget is the longest a case's dispatch alone may take (n
// requests served slots at a time, each for the mean latency); longer
// combinations are skipped, saying so.
const verdictBudget = 3 * time.Second

// TestVerdictTable runs fan-outs over dispatch × latency × n × transport
// and checks the verdict a user would read: concurrent is never called
// serialized, bounded or partial; bounded:K is called bounded (or
// concurrent when no request ever waited for a slot, which a 50 ms
// latency makes sure of); serial is called serialized (or, under 50 ms
// and with most requests never waiting, no fan-out); under 50 ms, any
// dispatch whose requests never waited nor overlapped may be called no
// fan-out (the server's sends trickled in). Where serve times are under
// the floor (no injected latency), "too-fast" is right too, and nothing
// contradicts the policy.
//
// The cases run one after another: they measure time, and the machine
// may have two cores. n = 5,000 and cases whose dispatch takes over a
// second are skipped with -short.
func TestVerdictTable(t *testing.T) {
	type transport struct {
		name   string
		target func(t *testing.T) Target
	}
	transports := []transport{
		{"in-process", func(*testing.T) Target { return Target{} }},
		{"stdio-ts", tsStdioTarget},
	}
	latencies := []string{"0", "1ms", "50ms", "uniform:1ms-20ms"}
	sizes := []int{5, 100, 5000}
	slotsFor := map[int]int{5: 2, 100: 10, 5000: 50} // K of bounded:K
	start := time.Now()
	ran := 0
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			target := tr.target(t)
			s := connectTarget(t, target, DefaultAnswerPolicy())
			for _, n := range sizes {
				for _, dispatch := range []string{"concurrent", "serial", fmt.Sprintf("bounded:%d", slotsFor[n])} {
					for _, latency := range latencies {
						t.Run(fmt.Sprintf("%s/%s/n=%d", dispatch, latency, n), func(t *testing.T) {
							policy, err := ParseDispatch(dispatch)
							if err != nil {
								t.Fatal(err)
							}
							model, err := ParseLatency(latency)
							if err != nil {
								t.Fatal(err)
							}
							slots := n
							if policy.Slots() > 0 {
								slots = min(n, policy.Slots())
							}
							busy := time.Duration((n+slots-1)/slots) * model.Mean()
							if busy > verdictBudget {
								t.Skipf("serving %d requests %d at a time for %v each takes %v, over the %v budget", n, slots, model.Mean(), busy, verdictBudget)
							}
							if testing.Short() && (n >= 5000 || busy > time.Second) {
								t.Skipf("heavy (%d requests, %v of serving): skipped with -short", n, busy)
							}
							ran++
							sum, snap := fanoutSummary(t, s, policy, model, n)
							checkVerdict(t, policy, model, n, sum, snap)
						})
					}
				}
			}
		})
	}
	t.Logf("%d cases in %v", ran, time.Since(start).Round(time.Millisecond))
}

// fanoutSummary runs one fan-out of n sampling requests on s under the
// given dispatch and latency, and returns the summary and snapshot of
// that run alone.
func fanoutSummary(t *testing.T, s *Session, dispatch DispatchPolicy, model LatencyModel, n int) (recorder.Summary, *recorder.Snapshot) {
	t.Helper()
	policy := DefaultAnswerPolicy()
	policy.Dispatch, policy.Latency = dispatch, model
	s.SetAnswerPolicy(policy)
	before := s.Recording().Snapshot()
	var last recorder.SpanID
	for _, sp := range before.Spans {
		last = max(last, sp.ID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := runCalls(ctx, s, testCalls{Tool: "fanout", Args: fanoutArgs(n, "sampling")})
	if err != nil || res.OK != 1 {
		t.Fatalf("fanout n=%d: %+v, %v", n, res, err)
	}
	snap := s.Recording().Snapshot()
	mine := *snap
	mine.Spans = slices.DeleteFunc(slices.Clone(snap.Spans), func(sp *recorder.Span) bool { return sp.ID <= last })
	sum := recorder.Summarize(&mine)
	if sum.ServerRequests.OK != n || sum.ToolCalls.OK != 1 {
		t.Fatalf("%d of %d requests answered ok, %d tool calls ok: %+v", sum.ServerRequests.OK, n, sum.ToolCalls.OK, sum.ServerRequests)
	}
	return sum, &mine
}

// checkVerdict checks what the user reads against what the policy did.
func checkVerdict(t *testing.T, policy DispatchPolicy, model LatencyModel, n int, sum recorder.Summary, snap *recorder.Snapshot) {
	t.Helper()
	waited := 0 // requests that waited at the gate for a slot
	for _, sp := range snap.Spans {
		if sp.Direction == recorder.Incoming && sp.Serving > sp.Queued {
			waited++
		}
	}
	t.Logf("%s (in flight ≤ %d, %d of %d waited at the gate; serve p50 %.3f ms, hand-off max %.1f ms)",
		sum.VerdictText, sum.PeakInFlight, waited, n, sum.ServeMS.P50, sum.HandoffMS.Max)
	fast := model.Mean() == 0 // no latency: serve times are microseconds
	var ok []string
	switch policy.Mode {
	case Concurrent:
		// By construction: no limit, so no request ever waits.
		if waited > 0 || sum.QueueMS.Max != 0 {
			t.Errorf("%d requests waited at the gate (queue max %v ms) under concurrent dispatch", waited, sum.QueueMS.Max)
		}
		ok = []string{recorder.VerdictConcurrent}
		if fast {
			ok = append(ok, recorder.VerdictTooFast, recorder.VerdictNoFanout)
		}
	case Serial:
		if sum.PeakInFlight > 1 {
			t.Errorf("%d served at once under serial dispatch", sum.PeakInFlight)
		}
		ok = []string{recorder.VerdictSerialized}
		switch {
		case fast:
			ok = append(ok, recorder.VerdictTooFast, recorder.VerdictNoFanout)
		case model.Mean() < 50*time.Millisecond && waited < n/2:
			// As under bounded: a server whose sends trickle in (a loaded
			// machine spread 5 over 77 ms) no faster than 1 ms serves
			// can leave them barely overlapping, which is no fan-out.
			ok = append(ok, recorder.VerdictNoFanout)
			t.Logf("only %d of %d requests waited for the one slot", waited, n)
		}
	case Bounded:
		k := policy.Slots()
		if sum.PeakInFlight > k {
			t.Errorf("%d served at once under bounded:%d", sum.PeakInFlight, k)
		}
		switch {
		case waited > 0:
			ok = []string{recorder.VerdictBounded}
		case model.Mean() >= 50*time.Millisecond:
			t.Errorf("no request waited under bounded:%d with %d requests sent at once and served for %v", k, n, model.Mean())
		default:
			// The server's sends trickled in no faster than k slots served
			// them: the limit never showed, and nothing waited.
			ok = []string{recorder.VerdictConcurrent}
			t.Logf("the limit of %d was never reached", k)
		}
		if fast {
			ok = append(ok, recorder.VerdictTooFast, recorder.VerdictConcurrent, recorder.VerdictNoFanout)
		}
	}
	if !fast && policy.Mode != Serial && waited == 0 && sum.PeakInFlight <= 1 && model.Mean() < 50*time.Millisecond {
		// Nothing waited and never two were served at once: each request
		// came after the one before was answered. The server's sends
		// trickled in (a loaded machine spread a stdio server's 5 over
		// more than their 1 ms serves), and there was no fan-out to judge
		// whatever the dispatch.
		ok = append(ok, recorder.VerdictNoFanout)
	}
	if !slices.Contains(ok, sum.Verdict) {
		t.Errorf("verdict %q, want one of %q: %s", sum.Verdict, ok, sum.VerdictText)
	}
	if !fast && sum.Verdict == recorder.VerdictTooFast {
		t.Errorf("called too fast with %v latency: %s", model, sum.VerdictText)
	}
}

// tsStdioTarget is the TypeScript SDK's fan-out server over stdio, or a
// skip when node or its dependencies are missing (see engine/interop).
func tsStdioTarget(t *testing.T) Target {
	dir, err := filepath.Abs(filepath.Join("interop", "testdata", "tsserver"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: install Node.js 18 or newer to run the verdict table over stdio to the TypeScript SDK server")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skipf("the TypeScript server's dependencies are not installed: run npm ci in %s (the interop tests do it)", dir)
	}
	return Target{Transport: TransportStdio, Command: "node '" + strings.ReplaceAll(filepath.Join(dir, "server.mjs"), "'", `'\''`) + "'"}
}

// TestSlotHandOverIsOneInstant checks that under serial dispatch each
// request ends at the very time the next is let in, over the wire and
// for multi-round-trip input requests (which never cross the wire): a
// recording never shows the slot free while a request waited for it.
func TestSlotHandOverIsOneInstant(t *testing.T) {
	for _, protocol := range []string{"", "2026-07-28"} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			policy := DefaultAnswerPolicy()
			policy.Dispatch = DispatchPolicy{Mode: Serial}
			policy.Latency = LatencyModel{Dist: Fixed, A: 5 * time.Millisecond}
			s := connectTarget(t, Target{Protocol: protocol}, policy)
			run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(5, "sampling")})
			spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
			if len(spans) != 5 {
				t.Fatalf("%d sampling spans, want 5", len(spans))
			}
			slices.SortFunc(spans, func(a, b *recorder.Span) int { return int(a.Serving - b.Serving) })
			for i := 1; i < len(spans); i++ {
				prev, next := spans[i-1], spans[i]
				if next.Queued < prev.Answered && next.Serving != prev.Answered {
					t.Errorf("span %d waited and was let in at %v, but span %d gave the slot back at %v", next.ID, next.Serving, prev.ID, prev.Answered)
				}
			}
			if sum := recorder.Summarize(s.Recording().Snapshot()); sum.Verdict != recorder.VerdictSerialized {
				t.Errorf("verdict %q: %s", sum.Verdict, sum.VerdictText)
			}
		})
	}
}
