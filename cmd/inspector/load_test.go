package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestRunOpenLoop: --rate 200 --duration 2s on the demo's echo makes
// 400 calls at 200 per second, none dropped, and --assert sees the new
// keys.
func TestRunOpenLoop(t *testing.T) {
	r := inspector(t, "run", "--tool", "echo", "--args", `{"text":"x"}`, "--rate", "200", "--duration", "2s", "--json",
		"--assert", "dropped==0", "--assert", "sessions==1", "--assert", "tool_calls.total==400")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	s := summaryOf(t, r)
	if got := s.ToolCalls.ThroughputPerS; got < 190 || got > 210 {
		t.Errorf("throughput_per_s %.1f, want within 5%% of 200", got)
	}
}

// TestRunMaxInFlight: a slow tool at 50 calls/s with one call
// outstanding at most drops most arrivals, and says so.
func TestRunMaxInFlight(t *testing.T) {
	args := []string{"run", "--tool", "slow", "--args", `{"ms":100,"steps":1}`, "--rate", "50", "--duration", "1s", "--max-in-flight", "1"}
	r := inspector(t, append(args, "--json")...)
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	s := summaryOf(t, r)
	if s.Dropped < 30 || s.Dropped+s.ToolCalls.Total != 50 {
		t.Errorf("dropped %d, tool calls %d: want most of the 50 arrivals dropped", s.Dropped, s.ToolCalls.Total)
	}
	r = inspector(t, append(args, "--assert", "dropped==0")...)
	if r.code != exitAssertion || !strings.Contains(r.stderr, "assertion failed: dropped==0") {
		t.Errorf("--assert dropped==0: exit %d, want %d\nstderr: %s", r.code, exitAssertion, r.stderr)
	}
	if !strings.Contains(r.stdout, "dropped (--max-in-flight outstanding)") {
		t.Errorf("the text summary does not say how many were dropped:\n%s", r.stdout)
	}
}

// TestRunSessions: --sessions 3 spreads the calls over three demo
// servers, and the recording holds the three sessions.
func TestRunSessions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.json")
	r := inspector(t, "run", "--sessions", "3", "--tool", "fanout", "--args", `{"n":2}`, "--calls", "6", "--concurrency", "3", "--record", file, "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if s := summaryOf(t, r); s.Sessions != 3 || s.ServerRequests.Total != 12 {
		t.Errorf("sessions %d, server requests %d; want 3 and 12", s.Sessions, s.ServerRequests.Total)
	}
	snap, err := recorder.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, sp := range snap.Spans {
		if sp.Kind == recorder.KindTool {
			calls[sp.Session]++
		}
	}
	if len(calls) != 3 || calls["s1"] != 2 || calls["s2"] != 2 || calls["s3"] != 2 {
		t.Errorf("tool calls by session %v, want 2 on each of s1, s2, s3", calls)
	}
}

// TestRunSessionsHTTP: --sessions 2 over streamable HTTP to
// inspector demo-server --http.
func TestRunSessionsHTTP(t *testing.T) {
	url := startDemoHTTP(t)
	r := inspector(t, "run", "--url", url, "--sessions", "2", "--tool", "fanout", "--args", `{"n":2}`,
		"--rate", "20", "--duration", "1s", "--latency", "20ms", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if s := summaryOf(t, r); s.Sessions != 2 || s.ToolCalls.OK != 20 || s.ServerRequests.OK != 40 {
		t.Errorf("sessions %d, calls ok %d, server requests ok %d; want 2, 20 and 40", s.Sessions, s.ToolCalls.OK, s.ServerRequests.OK)
	}
}

// startDemoHTTP starts inspector demo-server --http on a free port and
// returns its URL; it is stopped when the test ends.
func startDemoHTTP(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(inspectorBin, "demo-server", "--http", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case url := <-lines:
		return url
	case <-time.After(20 * time.Second):
		t.Fatal("demo-server --http printed no URL")
	}
	return ""
}

// TestRunDuration: a closed loop with --duration stops starting calls
// on time.
func TestRunDuration(t *testing.T) {
	r := inspector(t, "run", "--tool", "slow", "--args", `{"ms":50,"steps":1}`, "--concurrency", "2", "--duration", "500ms", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	s := summaryOf(t, r)
	if s.ElapsedMS < 450 || s.ElapsedMS > 1200 {
		t.Errorf("elapsed_ms %.0f, want about 500 and the last calls' 50", s.ElapsedMS)
	}
	if s.ToolCalls.Total < 10 || s.ToolCalls.PeakInFlight != 2 {
		t.Errorf("%d calls, peak in flight %d; want about 20 and 2", s.ToolCalls.Total, s.ToolCalls.PeakInFlight)
	}
}

// TestRunStages: a rate ramp to 100 calls/s over 1 s makes about 50
// calls, most of them late in the ramp.
func TestRunStages(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ramp.json")
	r := inspector(t, "run", "--tool", "echo", "--stages", "1s:100", "--record", file, "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if s := summaryOf(t, r); s.ToolCalls.Total < 45 || s.ToolCalls.Total > 55 {
		t.Errorf("%d calls, want about 50", s.ToolCalls.Total)
	}
	snap, err := recorder.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var first, second int
	var t0 time.Duration = -1
	for _, sp := range snap.Spans {
		if sp.Kind != recorder.KindTool {
			continue
		}
		if t0 < 0 {
			t0 = sp.Received
		}
		if sp.Received-t0 < 500*time.Millisecond {
			first++
		} else {
			second++
		}
	}
	if second < 2*first {
		t.Errorf("calls in the ramp's halves %d and %d: want about 3 times as many in the second", first, second)
	}
}

// TestLoadUsageErrors: shapes of load that do not go together are
// refused before connecting, naming the flags.
func TestLoadUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "10"}, "--rate: an open loop needs --duration"},
		{[]string{"--calls", "5", "--duration", "1s"}, "--calls and --duration"},
		{[]string{"--calls", "5", "--rate", "5", "--duration", "1s"}, "--calls and --rate: an open loop makes rate × duration calls; leave out --calls"},
		{[]string{"--rate", "5", "--duration", "1s", "--concurrency", "2"}, "--max-in-flight"},
		{[]string{"--max-in-flight", "2", "--calls", "3"}, "--max-in-flight: bounds an open loop"},
		{[]string{"--sessions", "0"}, "--sessions 0"},
		{[]string{"--sessions", "1001"}, "--sessions 1001: want 1 to 1000"},
		{[]string{"--rate", "5e6", "--duration", "1s"}, "at most 1000000 calls per second"},
		{[]string{"--rate", "-5", "--duration", "1s"}, "--rate -5"},
		{[]string{"--rate", "0", "--duration", "1s"}, "--rate 0"},
		{[]string{"--duration", "-1s"}, "--duration -1s"},
		{[]string{"--max-in-flight", "-1", "--rate", "5", "--duration", "1s"}, "--max-in-flight -1"},
		{[]string{"--stages", "10s"}, "--stages: stage 1"},
		{[]string{"--stages", "10s:5", "--rate", "5"}, "--stages and --rate"},
		{[]string{"--stages", "10s:5", "--duration", "5s"}, "--stages and --duration"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := inspector(t, append([]string{"run", "--tool", "echo"}, tc.args...)...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, exitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, r.stderr)
			}
		})
	}
}
