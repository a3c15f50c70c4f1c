package recorder

import (
	"strings"
	"testing"
	"time"
)

// echoLoad is a load test: n echo calls, c at once, each taking d, in
// waves; the server sends nothing.
func echoLoad(n, c int, d time.Duration) *Snapshot {
	snap := &Snapshot{Meta: Meta{Title: "load"}}
	for i := range n {
		at := time.Duration(i/c) * d
		snap.Spans = append(snap.Spans, &Span{ID: SpanID(i + 1), Session: "s1", Direction: Outgoing, Method: "tools/call",
			Kind: KindTool, Name: "echo", Received: at, Queued: at, Serving: at, Answered: at + d, Status: StatusOK})
		snap.Now = at + d
	}
	return snap
}

func TestLoadVerdictSpeaksOfCalls(t *testing.T) {
	sum := Summarize(echoLoad(5000, 50, 10*time.Millisecond))
	if sum.Verdict != VerdictLoad {
		t.Fatalf("verdict %q (%s), want %q", sum.Verdict, sum.VerdictText, VerdictLoad)
	}
	// 100 waves of 10 ms: 5,000 calls in 1 s
	for _, want := range []string{"load: 5,000 calls", "up to 50 in flight", "5,000.0 calls/s", "p50 10.00 ms", "p99 10.00 ms"} {
		if !strings.Contains(sum.VerdictText, want) {
			t.Errorf("verdict text %q does not say %q", sum.VerdictText, want)
		}
	}
	if strings.Contains(sum.VerdictText, "no fan-out") {
		t.Errorf("a load test's verdict says %q", sum.VerdictText)
	}
	for key, want := range map[string]float64{"tool_calls.peak_in_flight": 50, "tool_calls.throughput_per_s": 5000, "tool_calls.duration_ms.p99": 10} {
		if got, ok := sum.Get(key); !ok || got != want {
			t.Errorf("%s = %v (%v), want %v", key, got, ok, want)
		}
	}
	// one call is not a load test
	if one := Summarize(echoLoad(1, 1, time.Millisecond)); one.Verdict != VerdictNoFanout {
		t.Errorf("one call: verdict %q, want %q", one.Verdict, VerdictNoFanout)
	}
	// serial calls say so
	if serial := Summarize(echoLoad(10, 1, time.Millisecond)); !strings.Contains(serial.VerdictText, "one at a time") {
		t.Errorf("serial calls: %q", serial.VerdictText)
	}
}

func TestCallSteps(t *testing.T) {
	steps := CallSteps(echoLoad(6, 3, time.Second))
	// back to back waves: the end of one and the start of the next are one step
	want := []Step{{0, 3, 3}, {time.Second, 3, 3}, {2 * time.Second, 0, 0}}
	if len(steps) != len(want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Errorf("step %d = %v, want %v", i, steps[i], want[i])
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -5000: "-5,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := thousands1(1999.96); got != "2,000.0" {
		t.Errorf("thousands1(1999.96) = %q", got)
	}
}
