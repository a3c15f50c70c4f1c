package main

import (
	"testing"
)

// TestRoundsScenario runs the multi-round-trip fan-out of issue 8 as a
// user would: 5 input requests × 2 rounds of 300 ms on protocol
// 2026-07-28, in process and over stdio to a demo-server subprocess. The
// summary must count one logical call made of 3 wire requests, 2 of them
// answered input_required; serial dispatch serves one at a time (10 ×
// 300 ms), concurrent all five of a round at once (2 × 300 ms).
func TestRoundsScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end timing test")
	}
	targets := []struct {
		name string
		args []string
	}{
		{"demo", []string{"--demo"}},
		{"stdio", []string{"--stdio", inspectorBin + " demo-server"}},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			elapsed := map[string]float64{}
			for _, tc := range []struct {
				dispatch string
				peak     int
			}{{"serial", 1}, {"concurrent", 5}} {
				args := append([]string{"run"}, tg.args...)
				args = append(args, "--protocol", "latest", "--tool", "fanout", "--args", `{"n":5,"rounds":2}`,
					"--latency", "300ms", "--dispatch", tc.dispatch, "--json")
				r := inspector(t, args...)
				if r.code != exitOK {
					t.Fatalf("%s: exit %d, want 0\nstderr: %s", tc.dispatch, r.code, r.stderr)
				}
				s := summaryOf(t, r)
				c := s.ToolCalls
				if c.Total != 1 || c.OK != 1 || c.Requests != 3 || c.InputRounds != 2 {
					t.Errorf("%s: tool_calls total %d ok %d requests %d input_rounds %d; want 1 call, ok, of 3 wire requests, 2 input_required",
						tc.dispatch, c.Total, c.OK, c.Requests, c.InputRounds)
				}
				if s.PeakInFlight != tc.peak || s.ServerRequests.ByMethod["sampling/createMessage"] != 10 {
					t.Errorf("%s: peak_in_flight %d, %v; want peak %d and 10 sampling input requests",
						tc.dispatch, s.PeakInFlight, s.ServerRequests.ByMethod, tc.peak)
				}
				elapsed[tc.dispatch] = s.ElapsedMS
				t.Logf("%s: elapsed %.0f ms, peak %d, verdict: %s", tc.dispatch, s.ElapsedMS, s.PeakInFlight, s.VerdictText)
			}
			// Latencies never end early: ten served one at a time take at
			// least 10 × 300 ms, less a little for the clock's grain.
			if elapsed["serial"] < 2900 {
				t.Errorf("serial: elapsed %.0f ms, want at least 2900 (10 × 300 ms one at a time)", elapsed["serial"])
			}
			// Two rounds of five at once: about 600 ms, a third of serial
			// at most even on a loaded machine.
			if elapsed["concurrent"] < 580 || elapsed["concurrent"] > elapsed["serial"]/3 {
				t.Errorf("concurrent: elapsed %.0f ms, want about 600 (two rounds of 300 ms), under a third of serial's %.0f",
					elapsed["concurrent"], elapsed["serial"])
			}
		})
	}
}
