package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// The binaries the end-to-end tests run, built once by TestMain.
var (
	inspectorBin   string
	crashServerBin string
)

func TestMain(m *testing.M) {
	// A machine that pushes to a collector by default (OTEL_EXPORTER_OTLP_*
	// set) must not make every run of these tests push too: the tests
	// that push set their own.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") {
			os.Unsetenv(k)
		}
	}
	dir, err := os.MkdirTemp("", "inspector-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	inspectorBin = filepath.Join(dir, "inspector")
	crashServerBin = filepath.Join(dir, "crashserver")
	for _, b := range []struct{ out, pkg string }{{inspectorBin, "."}, {crashServerBin, "./testdata/crashserver"}} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", b.pkg, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a run of the inspector binary gave.
type result struct {
	code           int
	stdout, stderr string
}

// inspector runs the binary with args and returns its exit code and output.
func inspector(t *testing.T, args ...string) result {
	t.Helper()
	return inspectorIn(t, "", nil, args...)
}

// inspectorEnv is [inspector] with extra environment variables.
func inspectorEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return inspectorIn(t, "", env, args...)
}

// inspectorIn runs the binary in dir (the test's own folder when "") with
// env added, within a minute, and fails the test if it panicked.
func inspectorIn(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, inspectorBin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("inspector %q: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("inspector %q did not finish within a minute\nstderr: %s", args, r.stderr)
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("inspector %q panicked:\n%s", args, r.stderr)
	}
	return r
}

func summaryOf(t *testing.T, r result) recorder.Summary {
	t.Helper()
	var s recorder.Summary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("--json output is not a summary: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return s
}

// TestSeedScenario is the product's reason to exist: 5 sampling requests
// of 500 ms fanned out by the demo server take about 500 ms when served
// concurrently and about 2.5 s when served one at a time — over the
// in-process demo (on both protocol eras) and over stdio to a demo-server
// subprocess.
func TestSeedScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end timing test")
	}
	targets := []struct {
		name string
		args []string
	}{
		{"demo", []string{"--demo"}},
		{"stdio", []string{"--stdio", inspectorBin + " demo-server", "--tool", "fanout"}},
		// On 2026-07-28 the requests come as input_required rounds of the
		// call (multi round-trip) instead of requests on the wire: the
		// dispatch policy must hold all the same.
		{"demo 2026-07-28", []string{"--demo", "--protocol", "latest"}},
	}
	cases := []struct {
		dispatch string
		peak     int
		// elapsed bounds in ms
		min, max float64
		verdict  string
	}{
		{"serial", 1, 2400, 6000, "serialized"},
		{"concurrent", 5, 450, 1000, "concurrent"},
		{"bounded:2", 2, 1400, 4000, "bounded"},
	}
	for _, tg := range targets {
		for _, tc := range cases {
			t.Run(tg.name+"/"+tc.dispatch, func(t *testing.T) {
				t.Parallel()
				args := append([]string{"run"}, tg.args...)
				args = append(args, "--dispatch", tc.dispatch, "--latency", "500ms", "--json")
				r := inspector(t, args...)
				if r.code != exitOK {
					t.Fatalf("exit %d, want 0\nstderr: %s", r.code, r.stderr)
				}
				s := summaryOf(t, r)
				if s.PeakInFlight != tc.peak {
					t.Errorf("peak_in_flight = %d, want %d", s.PeakInFlight, tc.peak)
				}
				if s.PeakPending != 5 {
					t.Errorf("peak_pending = %d, want 5 (all five requests arrive together)", s.PeakPending)
				}
				if s.ElapsedMS < tc.min || s.ElapsedMS > tc.max {
					t.Errorf("elapsed_ms = %.0f, want between %.0f and %.0f", s.ElapsedMS, tc.min, tc.max)
				}
				if s.ToolCalls.Total != 1 || s.ToolCalls.OK != 1 || s.ServerRequests.ByMethod["sampling/createMessage"] != 5 {
					t.Errorf("tool_calls %+v, by_method %v; want 1 ok call and 5 sampling requests", s.ToolCalls, s.ServerRequests.ByMethod)
				}
				if s.Verdict != tc.verdict {
					t.Errorf("verdict %q (%s), want %q", s.Verdict, s.VerdictText, tc.verdict)
				}
			})
		}
	}
}

// TestAssertExitCodes checks --assert: a holding assertion exits 0, a
// failing one 3 naming it and the actual value, a malformed one 2.
func TestAssertExitCodes(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"holds", []string{"--latency", "100ms", "--assert", "peak_in_flight>=5", "--assert", "tool_calls.failed==0", "--assert", "server_requests.by_method.sampling/createMessage>=5"}, exitOK, ""},
		{"fails", []string{"--dispatch", "serial", "--latency", "50ms", "--assert", "peak_in_flight>=5"}, exitAssertion, "assertion failed: peak_in_flight>=5 (peak_in_flight is 1)"},
		{"fails elapsed", []string{"--dispatch", "serial", "--latency", "100ms", "--assert", "elapsed_ms<=100"}, exitAssertion, "assertion failed: elapsed_ms<=100 (elapsed_ms is "},
		{"call tail holds", []string{"--latency", "50ms", "--assert", "call_ms.p99<5000", "--assert", "call_ms.p99_9<5000", "--assert", "call_ms.p50>=50"}, exitOK, ""},
		{"per method", []string{"--latency", "50ms", "--assert", "by_method_ms.sampling/createMessage.serve_ms.p99>=50", "--assert", "by_method_ms.tools/call.count==1"}, exitOK, ""},
		{"per method fails", []string{"--latency", "50ms", "--assert", "by_method_ms.sampling/createMessage.serve_ms.p99_9<1"}, exitAssertion, "assertion failed: by_method_ms.sampling/createMessage.serve_ms.p99_9<1 (by_method_ms.sampling/createMessage.serve_ms.p99_9 is "},
		{"per method unknown", []string{"--assert", "by_method_ms.tools/call.call_ms.p97<1"}, exitUsage, `unknown key "by_method_ms.tools/call.call_ms.p97"`},
		{"call tail fails", []string{"--latency", "50ms", "--assert", "call_ms.p99<1"}, exitAssertion, "assertion failed: call_ms.p99<1 (call_ms.p99 is "},
		{"no operator", []string{"--assert", "peak_in_flight 5"}, exitUsage, "no comparison"},
		{"unknown key", []string{"--assert", "peak>=5"}, exitUsage, `unknown key "peak"`},
		{"not a number", []string{"--assert", "peak_in_flight>=five"}, exitUsage, `"five" is not a number`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := inspector(t, append([]string{"run"}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.message) {
				t.Errorf("stderr does not say %q:\n%s", tc.message, r.stderr)
			}
		})
	}
}

// TestUsageErrors checks that a bad flag exits 2 and names the flag.
func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "-bogus"},
		{[]string{"--dispatch", "sometimes"}, "--dispatch"},
		{[]string{"--dispatch", "bounded:0"}, "--dispatch"},
		{[]string{"--url", "http://127.0.0.1:9/mcp", "--tool", "t", "--dispatch", "inline"}, "dispatch inline works over the demo and stdio transports only"},
		{[]string{"--sse", "http://127.0.0.1:9/sse", "--tool", "t", "--dispatch", "inline"}, "use serial there"},
		{[]string{"--latency", "fast"}, "--latency"},
		{[]string{"--sampling-latency", "uniform:9ms"}, "--sampling-latency"},
		{[]string{"--elicitation", "maybe"}, "--elicitation"},
		{[]string{"--fail-rate", "2"}, "--fail-rate"},
		{[]string{"--fail-rate", "NaN"}, "--fail-rate NaN"},
		{[]string{"--fail-rate", "-0.1"}, "--fail-rate -0.1"},
		{[]string{"--protocol", ""}, "--protocol is empty"},
		{[]string{"--protocol", " "}, "--protocol is empty"},
		{[]string{"--sampling-reply", "hi {{.Nope}}"}, "can't evaluate field Nope"},
		{[]string{"--elicitation", "maybe"}, "accept, decline, cancel or manual"},
		{[]string{"--roots", "not a uri"}, "--roots"},
		{[]string{"--sampling-reply", "{{.Index"}, "--sampling-reply"},
		{[]string{"--protocol", "1999-01-01"}, "--protocol"},
		{[]string{"--url", "ftp://x/y", "--tool", "t"}, "--url"},
		{[]string{"--url", "http://127.0.0.1:9/mcp", "--stdio", "x"}, "--stdio and --url"},
		{[]string{"--env", "A=1"}, "--env"},
		{[]string{"--url", ""}, "--url is empty"},
		{[]string{"--header", "X: y"}, "--header"},
		{[]string{"--stdio", "'unbalanced"}, "--stdio"},
		{[]string{"--calls", "0"}, "--calls"},
		{[]string{"--chart", "pie"}, "--chart"},
		{[]string{"--args", "[1,2]"}, "--args"},
		{[]string{"--elicitation", "manual"}, "inspector gui --elicitation manual"},
		{[]string{"stray"}, `unexpected argument "stray"`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := inspector(t, append([]string{"run"}, tc.args...)...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, exitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr does not name %q:\n%s", tc.want, r.stderr)
			}
		})
	}
}

// closedPort returns a local address nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestConnectionFailures checks that servers that cannot be reached, die
// or talk nonsense end the run with exit 1 and a reason, never a panic,
// and that --record still saves what was recorded.
func TestConnectionFailures(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		message string
		aborted bool // the recording must hold aborted spans
	}{
		{"unreachable url", []string{"--url", "http://" + closedPort(t) + "/mcp", "--tool", "fanout"}, "cannot connect to http:", false},
		{"missing command", []string{"--stdio", "/nonexistent/mcp-server --flag", "--tool", "fanout"}, "cannot connect to stdio:", false},
		{"server exits mid fan-out", []string{"--stdio", crashServerBin + " -mode crash", "--tool", "fanout", "--latency", "2s"}, "lost during the run", true},
		{"garbage before initialize", []string{"--stdio", crashServerBin + " -mode garbage-start", "--tool", "fanout"}, "not JSON-RPC", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := filepath.Join(t.TempDir(), "run.json")
			r := inspector(t, append(append([]string{"run"}, tc.args...), "--record", rec)...)
			if r.code != exitFailure {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, exitFailure, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.message) {
				t.Errorf("stderr does not say %q:\n%s", tc.message, r.stderr)
			}
			snap, err := recorder.LoadFile(rec)
			if err != nil {
				t.Fatalf("--record was not saved after the failure: %v", err)
			}
			if !tc.aborted {
				return
			}
			aborted := 0
			for _, s := range snap.Spans {
				if s.Status == recorder.StatusAborted {
					aborted++
				}
				if s.Open() {
					t.Errorf("span %d (%s) is still open in the saved recording", s.ID, s.Method)
				}
			}
			if aborted < 5 {
				t.Errorf("%d aborted spans in the recording, want the 5 sampling requests (and the call) aborted", aborted)
			}
		})
	}
}

// TestGarbageMidRun checks a server that writes non-JSON to stdout in the
// middle of a call: the run ends with exit 1 and says what the server did
// wrong, never a panic or a hang.
func TestGarbageMidRun(t *testing.T) {
	r := inspector(t, "run", "--stdio", crashServerBin+" -mode garbage", "--tool", "fanout", "--call-timeout", "10s")
	if r.code != exitFailure {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "not JSON-RPC") {
		t.Errorf("stderr does not say the server sent something that is not JSON-RPC:\n%s", r.stderr)
	}
}

// TestRunOutputs checks the recording and the exports a run writes.
func TestRunOutputs(t *testing.T) {
	dir := t.TempDir()
	file := func(n string) string { return filepath.Join(dir, n) }
	if err := os.WriteFile(file("args.json"), []byte(`{"n": 3, "kind": "elicitation"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := inspector(t, "run", "--args", "@"+file("args.json"), "--calls", "2", "--concurrency", "2", "--dispatch", "bounded:4",
		"--record", file("run.json"), "--trace", file("trace.json"), "--otlp", file("otlp.json"), "--csv", file("run.csv"),
		"--png", file("chart.png"), "--svg", file("gantt.svg"), "--chart", "gantt", "--width", "800", "--height", "400", "--html", file("report.html"),
		"--journal", file("journal.jsonl"))
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{"tool calls", "2 total, 2 ok, 0 failed", "elicitation/create", "6", "peak in flight", "verdict"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, name := range []string{"run.json", "journal.jsonl"} {
		snap, err := recorder.LoadFile(file(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		for _, s := range snap.Spans {
			if s.Method == "elicitation/create" && s.Status == recorder.StatusOK {
				n++
			}
		}
		if n != 6 {
			t.Errorf("%s holds %d answered elicitations, want 6", name, n)
		}
		if name != "run.json" {
			continue // a journal keeps no runs
		}
		// the run is a named segment holding the calls, not the setup
		if len(snap.Runs) != 1 || snap.Runs[0].Label() != "Run 1 · fanout · bounded 4" || snap.Runs[0].Open() {
			t.Errorf("run.json's runs are %+v, want one ended run named Run 1 · fanout · bounded 4", snap.Runs)
		} else if seg := snap.Segment(snap.Runs[0]); recorder.Summarize(seg).ToolCalls.Total != 2 || len(seg.Spans) >= len(snap.Spans) {
			t.Errorf("run 1 holds %d of %d spans and %d tool calls, want the 2 calls and their requests without the setup",
				len(seg.Spans), len(snap.Spans), recorder.Summarize(seg).ToolCalls.Total)
		}
	}
	for _, name := range []string{"trace.json", "otlp.json"} {
		b, err := os.ReadFile(file(name))
		if err != nil || !json.Valid(b) {
			t.Errorf("%s: not written as JSON (%v)", name, err)
		}
	}
	for name, magic := range map[string]string{"chart.png": "\x89PNG", "gantt.svg": "<svg", "report.html": "<html"} {
		b, err := os.ReadFile(file(name))
		if err != nil || !strings.Contains(string(b[:min(len(b), 512)]), magic) {
			t.Errorf("%s: want a file starting with %q (%v)", name, magic, err)
		}
	}
	if b, err := os.ReadFile(file("run.csv")); err != nil || strings.Count(string(b), "\n") < 7 {
		t.Errorf("run.csv: want a header and a row per request, got %q (%v)", b, err)
	}
}

func TestListTools(t *testing.T) {
	r := inspector(t, "run", "--list-tools")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	for _, tool := range []string{"fanout", "echo", "slow"} {
		if !strings.Contains(r.stdout, tool) {
			t.Errorf("--list-tools lacks %s:\n%s", tool, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "peak in flight") {
		t.Errorf("--list-tools without --tool must not run a tool:\n%s", r.stdout)
	}
}

// TestInterrupt checks Ctrl-C and SIGTERM mid-run: the run stops at once,
// exits 130 and still saves the recording.
func TestInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			rec := filepath.Join(t.TempDir(), "run.json")
			code, stderr := interruptAfter(t, time.Second, sig, "run", "--tool", "slow", "--args", `{"ms":20000,"steps":20}`, "--record", rec)
			if code != exitInterrupted {
				t.Errorf("after %v: exit %d, want %d\nstderr: %s", sig, code, exitInterrupted, stderr)
			}
			if !strings.Contains(stderr, "interrupted") {
				t.Errorf("stderr does not say the run was interrupted:\n%s", stderr)
			}
			snap, err := recorder.LoadFile(rec)
			if err != nil {
				t.Fatalf("no recording after %v: %v", sig, err)
			}
			for _, s := range snap.Spans {
				if s.Method == "tools/call" && s.Open() {
					t.Errorf("the interrupted call is still open in the recording")
				}
			}
		})
	}
	// A signal while connecting (a server that never answers initialize)
	// gets the same code: scripts tell an interrupt from a failure.
	t.Run("while connecting", func(t *testing.T) {
		t.Parallel()
		code, stderr := interruptAfter(t, time.Second, syscall.SIGINT, "run", "--stdio", "sleep 60", "--tool", "t")
		if code != exitInterrupted {
			t.Errorf("exit %d, want %d\nstderr: %s", code, exitInterrupted, stderr)
		}
	})
}

// interruptAfter starts the inspector with args, sends it sig after d and
// returns its exit code and stderr; it fails the test if the inspector
// does not stop within 10 s of the signal.
func interruptAfter(t *testing.T, d time.Duration, sig syscall.Signal, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(inspectorBin, args...)
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), errb.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, errb.String()
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("inspector %q did not stop within 10 s of %v\nstderr: %s", args, sig, errb.String())
		return 0, ""
	}
}

func TestListToolsJSON(t *testing.T) {
	r := inspector(t, "run", "--list-tools", "--json")
	var out struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("exit %d, stdout not the tools as JSON:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	names := map[string]bool{}
	for _, tool := range out.Tools {
		names[tool.Name] = tool.InputSchema["type"] == "object"
	}
	if !names["fanout"] || !names["echo"] || !names["slow"] {
		t.Errorf("tools %v, want fanout, echo and slow with object input schemas", names)
	}
}

// TestFailedCallsAreCounted checks a failing tool call is reported, not fatal.
func TestFailedCallsAreCounted(t *testing.T) {
	r := inspector(t, "run", "--fail-rate", "1", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr: %s", r.code, r.stderr)
	}
	s := summaryOf(t, r)
	if s.ToolCalls.Failed != 1 || s.ServerRequests.Failed != 5 {
		t.Errorf("tool_calls %+v server_requests %+v, want the call and its 5 requests failed", s.ToolCalls, s.ServerRequests)
	}
}

// TestDemoServerHTTP runs demo-server --http, connects run --url to the URL
// it prints, and stops it with an interrupt.
func TestDemoServerHTTP(t *testing.T) {
	cmd := exec.Command(inspectorBin, "demo-server", "--http", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var url string
	select {
	case url = <-lines:
	case <-time.After(20 * time.Second):
		t.Fatal("demo-server --http printed no URL")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("demo-server printed %q, want its endpoint URL", url)
	}
	r := inspector(t, "run", "--url", url, "--tool", "fanout", "--latency", "200ms", "--json")
	if r.code != exitOK {
		t.Fatalf("run --url %s: exit %d\nstderr: %s", url, r.code, r.stderr)
	}
	if s := summaryOf(t, r); s.PeakInFlight != 5 {
		t.Errorf("peak_in_flight over HTTP = %d, want 5", s.PeakInFlight)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("demo-server after Ctrl-C: %v\nstderr: %s", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("demo-server did not stop on SIGINT")
	}
}

// TestDemoServerStdioEOF checks demo-server exits cleanly when stdin closes.
func TestDemoServerStdioEOF(t *testing.T) {
	cmd := exec.Command(inspectorBin, "demo-server")
	cmd.Stdin = strings.NewReader("")
	var out strings.Builder
	cmd.Stdout = &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("demo-server on closed stdin: %v", err)
		}
		if out.Len() != 0 {
			t.Errorf("demo-server wrote %q to stdout, which is reserved for JSON-RPC", out.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("demo-server did not exit when stdin closed")
	}
}

// TestOutputPathsCheckedBeforeTheRun checks that a bad output path is
// refused before connecting (exit 2, naming the flag and the path), not
// after the run, when the run would be lost. The server address is a closed
// port: had the inspector tried to connect first, it would exit 1.
func TestOutputPathsCheckedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	aFile := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such-folder", "out")
	cases := []struct {
		name, flag, path, want string
	}{
		{"missing folder", "--record", missing, "does not exist"},
		{"a folder", "--csv", dir, "that is a folder"},
		{"parent is a file", "--html", filepath.Join(aFile, "report.html"), "is not a folder"},
		{"png in missing folder", "--png", missing, "does not exist"},
		{"svg is a folder", "--svg", dir, "that is a folder"},
		{"trace in missing folder", "--trace", missing, "does not exist"},
		{"otlp in missing folder", "--otlp", missing, "does not exist"},
		{"journal in missing folder", "--journal", missing, "does not exist"},
	}
	url := "http://" + closedPort(t) + "/mcp"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := inspector(t, "run", "--url", url, "--tool", "t", tc.flag, tc.path)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d (refused before connecting)\nstderr: %s", r.code, exitUsage, r.stderr)
			}
			for _, want := range []string{tc.flag + " " + tc.path, tc.want} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
				}
			}
		})
	}
	t.Run("two flags, one file", func(t *testing.T) {
		out := filepath.Join(dir, "same")
		r := inspector(t, "run", "--url", url, "--tool", "t", "--csv", out, "--html", out)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--html "+out+": --csv writes that file too") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("read-only folder", func(t *testing.T) {
		if os.Getuid() == 0 {
			t.Skip("root writes in read-only folders")
		}
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		r := inspector(t, "run", "--url", url, "--tool", "t", "--record", filepath.Join(ro, "run.json"))
		if r.code != exitUsage || !strings.Contains(r.stderr, "cannot write in the folder") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("a good path is left alone", func(t *testing.T) {
		out := filepath.Join(dir, "run.json")
		r := inspector(t, "run", "--record", out, "--csv", filepath.Join(dir, "run.csv"))
		if r.code != exitOK {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".inspector-write-check") {
				t.Errorf("the write check left %s behind", e.Name())
			}
		}
	})
}

// TestHTTPServerDiesMidCall: a streamable HTTP server (a Go SDK server in
// a process of its own) that exits in the middle of a fan-out ends the
// run as a stdio server's death does: exit 1, a message that says the
// connection was lost and what to check, the sampling requests aborted,
// and --record saved.
func TestHTTPServerDiesMidCall(t *testing.T) {
	srv := exec.Command(crashServerBin, "-mode", "crash", "-http")
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var url string
	select {
	case url = <-lines:
	case <-time.After(20 * time.Second):
		t.Fatal("crashserver -http printed no URL")
	}
	rec := filepath.Join(t.TempDir(), "run.json")
	r := inspector(t, "run", "--url", url, "--tool", "fanout", "--latency", "5s", "--record", rec)
	if r.code != exitFailure {
		t.Fatalf("exit %d, want %d (as for a stdio server that dies)\nstdout: %s\nstderr: %s", r.code, exitFailure, r.stdout, r.stderr)
	}
	for _, want := range []string{"was lost during the run", "broke off a call before answering it", "check that the server is still running"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	snap, err := recorder.LoadFile(rec)
	if err != nil {
		t.Fatalf("--record was not saved after the server died: %v", err)
	}
	aborted := 0
	for _, s := range snap.Spans {
		if s.Status == recorder.StatusAborted {
			aborted++
		}
	}
	if aborted < 5 {
		t.Errorf("%d aborted spans in the recording, want the 5 sampling requests the dead server left open", aborted)
	}
}
