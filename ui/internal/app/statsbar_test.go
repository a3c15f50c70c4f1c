package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

func TestStatsBar(t *testing.T) {
	test.NewTempApp(t)
	tests := []struct {
		name       string
		sum        recorder.Summary
		want       []string
		importance widget.Importance
	}{
		{"serialized", recorder.Summary{
			PeakInFlight: 1, PeakPending: 5, ElapsedMS: 2510,
			ServeMS: recorder.Percentiles{P50: 500, P99: 502}, QueueMS: recorder.Percentiles{P50: 1000, P99: 2004.5},
			ServerRequests: recorder.RequestCounts{Total: 5}, ToolCalls: recorder.CallCounts{Total: 1, Failed: 1},
			Verdict: recorder.VerdictSerialized, VerdictText: "serialized: 5 requests arrived together and were served one at a time",
		}, []string{
			"peak in flight 1", "peak pending 5", "elapsed 2.51 s", "serve p50 500 ms · p99 502 ms",
			"queue p50 1.00 s · p99 2.00 s", "5 server requests (0 failed)", "1 tool calls (1 failed)",
			"\nserialized: 5 requests arrived together and were served one at a time",
		}, widget.DangerImportance},
		{"concurrent", recorder.Summary{PeakInFlight: 5, PeakPending: 5, ElapsedMS: 0.4, Verdict: recorder.VerdictConcurrent},
			[]string{"peak in flight 5", "elapsed 400 µs", "\nconcurrent"}, widget.SuccessImportance},
		{"sampling from a model endpoint", recorder.Summary{PeakInFlight: 5, PeakPending: 5, ElapsedMS: 230, Verdict: recorder.VerdictConcurrent,
			ServerRequests: recorder.RequestCounts{Total: 5, InputTokens: 120, OutputTokens: 30}},
			[]string{"5 server requests (0 failed)   tokens 120 in · 30 out"}, widget.SuccessImportance},
		{"load", recorder.Summary{ElapsedMS: 4960, ToolCalls: recorder.CallCounts{Total: 5000, OK: 5000, PeakInFlight: 50,
			ThroughputPerS: 1008.1}, CallMS: recorder.TailPercentiles{P50: 31, P95: 120.4, P99: 267.6}, Verdict: recorder.VerdictLoad},
			[]string{"calls in flight ≤ 50", "throughput 1008.1 calls/s", "elapsed 4.96 s", "call p50 31.0 ms · p95 120 ms · p99 268 ms", "5000 tool calls (0 failed, 0% errors)"},
			widget.MediumImportance},
		{"open loop that fell behind", recorder.Summary{ElapsedMS: 3000, ToolCalls: recorder.CallCounts{Total: 3000, OK: 2988, Failed: 12,
			PeakInFlight: 128, ThroughputPerS: 1000}, LateStarts: 1163, Dropped: 40, Verdict: recorder.VerdictLoad},
			[]string{"3000 tool calls (12 failed, 0.4% errors)", "1163 late starts (over 1ms after their time)", "40 arrivals dropped (max in flight)"},
			widget.MediumImportance},
		{"proxy", recorder.Summary{PeakInFlight: 1, PeakPending: 5, ElapsedMS: 2504, Estimated: true,
			ServeMS: recorder.Percentiles{P50: 451, P99: 451}, ServerRequests: recorder.RequestCounts{Total: 5},
			ToolCalls: recorder.CallCounts{Total: 1}, Verdict: recorder.VerdictSerialized, VerdictText: "serialized: your client served 5 requests one at a time"},
			[]string{"peak in flight 1 (estimated)", "pending at the client 5", "work p50 451 ms · p99 451 ms (estimated)", "\nserialized: your client"},
			widget.DangerImportance},
		{"sampled", recorder.Summary{PeakInFlight: 1, PeakPending: 5, ElapsedMS: 2510, ServerRequests: recorder.RequestCounts{Total: 5},
			ToolCalls: recorder.CallCounts{Total: 1}, Verdict: recorder.VerdictConcurrent,
			Sampled: &recorder.SampledSpans{Spans: 1_000_000, Kept: 100_000, Note: "kept 100,000 of 1,000,000 spans; statistics are exact"}},
			[]string{"1 tool calls (0 failed)   kept 100,000 of 1,000,000 spans; statistics are exact"}, widget.SuccessImportance},
		{"nothing yet", recorder.Summary{}, []string{"\nNothing has run yet: choose a tool under Workload and press Run (Ctrl+R)"}, widget.MediumImportance},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStatsBar()
			s.setSummary(tt.sum)
			for _, w := range tt.want {
				if !strings.Contains(s.Text(), w) {
					t.Errorf("stats bar does not show %q:\n%s", w, s.Text())
				}
			}
			shown := ""
			for _, l := range s.numberParts {
				if l.Visible() {
					shown += l.Text + "\n"
				}
			}
			if tt.sum.Sampled != nil && !strings.HasSuffix(shown, tt.sum.Sampled.Note+"\n") {
				t.Errorf("the last figure shown is not what was sampled:\n%s", shown)
			}
			if tt.name == "nothing yet" && strings.Contains(s.Text(), "peak in flight") {
				t.Errorf("before anything ran the stats read like a result:\n%s", s.Text())
			}
			if s.verdict.Importance != tt.importance {
				t.Errorf("verdict importance = %v, want %v", s.verdict.Importance, tt.importance)
			}
		})
	}
}

// TestStatsBarFoldsRounds: a verdict that describes three rounds one by
// one shows the first on one line and unfolds the other two, a line each.
func TestStatsBarFoldsRounds(t *testing.T) {
	test.NewTempApp(t)
	rounds := []string{"round 1: 5 requests served one at a time", "round 2: 5 requests served one at a time", "round 3: 2 requests served at once"}
	sum := recorder.Summary{PeakInFlight: 1, PeakPending: 5, ElapsedMS: 5000, ServerRequests: recorder.RequestCounts{Total: 12},
		ToolCalls: recorder.CallCounts{Total: 1}, Verdict: recorder.VerdictSerialized,
		VerdictText: "serialized: " + strings.Join(rounds, "; ") + " (the run was cut short)", VerdictRounds: rounds}
	s := newStatsBar()
	test.NewTempWindow(t, s)
	s.setSummary(sum)
	if got, want := s.verdict.Text, "serialized: round 1: 5 requests served one at a time …"; got != want || s.more.Text != "▸ 2 more" || !s.more.Visible() {
		t.Errorf("folded: %q with %q, want %q with ▸ 2 more", got, s.more.Text, want)
	}
	test.Tap(s.more)
	want := "serialized: round 1: 5 requests served one at a time\nround 2: 5 requests served one at a time\nround 3: 2 requests served at once (the run was cut short)"
	if got := s.verdict.Text; got != want || s.more.Text != "▾ fold" {
		t.Errorf("unfolded: %q with %q, want %q", got, s.more.Text, want)
	}
	if s.VerdictText() != sum.VerdictText {
		t.Errorf("the full text kept is %q", s.VerdictText())
	}
	s.setSummary(recorder.Summary{PeakInFlight: 5, ElapsedMS: 500, Verdict: recorder.VerdictConcurrent, VerdictText: "concurrent: all 5 at once"})
	if s.more.Visible() || s.verdict.Text != "concurrent: all 5 at once" {
		t.Errorf("a one-part verdict: %q, button shown %v", s.verdict.Text, s.more.Visible())
	}
}
