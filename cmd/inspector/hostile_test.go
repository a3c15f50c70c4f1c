//go:build linux

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// Hostile servers against the inspector binary: each run must end (or,
// for a stderr flood, go on) within a time bound, with a peak RSS under
// 200 MB and a message that names the limit it met. (The same servers
// are met in-process, with allocation bounds, in engine/hostile_test.go.)

// maxRSS is the peak resident memory a run against a hostile server may
// reach.
const maxRSS = 200 << 20

// hostileRun is a run of the inspector binary against a hostile server.
type hostileRun struct {
	result
	took   time.Duration
	maxRSS int64 // bytes, the process's peak resident set
	killed bool  // it did not end within the watchdog's time
}

// runHostile runs the inspector with args, kills it after watchdog, and
// reports its peak RSS. signal, when non-nil, is sent after signalAfter.
func runHostile(t *testing.T, watchdog time.Duration, sig os.Signal, signalWhen func(pid int) bool, args ...string) hostileRun {
	t.Helper()
	return runHostileIn(t, "", nil, nil, watchdog, sig, signalWhen, args...)
}

// runHostileIn is [runHostile] in folder dir ("" for the test's own)
// with env added to the environment and stdin as standard input.
func runHostileIn(t *testing.T, dir string, env []string, stdin io.Reader, watchdog time.Duration, sig os.Signal, signalWhen func(pid int) bool, args ...string) hostileRun {
	t.Helper()
	cmd := exec.Command(inspectorBin, args...)
	cmd.Dir, cmd.Stdin = dir, stdin
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sampled := sampleHWM(cmd.Process.Pid)
	var r hostileRun
	kill := time.AfterFunc(watchdog, func() {
		r.killed = true
		cmd.Process.Kill()
	})
	exited := make(chan struct{})
	if sig != nil {
		// The signal goes once signalWhen says the inspector is where the
		// test wants it (polled until it exits), not after a guess at how
		// long it takes to get there.
		go func() {
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for !signalWhen(cmd.Process.Pid) {
				select {
				case <-exited:
					return
				case <-tick.C:
				}
			}
			cmd.Process.Signal(sig)
		}()
	}
	err := cmd.Wait()
	close(exited)
	kill.Stop()
	r.took = time.Since(start)
	r.stdout, r.stderr = out.String(), errb.String()
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("inspector %q: %v", args, err)
	}
	// The parent's peak read after the child ended is at least what it
	// was when the child started (other tests run beside this one).
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	parentPeak := int64(self.Maxrss) << 10
	var how string
	r.maxRSS, how = childPeak(cmd.ProcessState, parentPeak, <-sampled)
	t.Logf("exit %d in %v, peak RSS %.1f MB (%s): inspector %.100s", r.code, r.took.Round(time.Millisecond), float64(r.maxRSS)/1e6, how, strings.Join(args, " "))
	return r
}

// childPeak is the child's peak RSS, and how it is known. A child started
// by a vfork-style clone inherits, at exec, its parent's peak RSS as its
// own (Linux), so its rusage tells its peak only when that is above the
// parent's; otherwise the rusage is an upper bound, which is the figure
// when it is under [maxRSS] already. Else it is the highest VmHWM sampled
// while the child ran: 0 when the child ended before the first sample (a
// run of a few milliseconds on a busy machine), which is why the bound
// comes first.
func childPeak(ps *os.ProcessState, parentPeak, sampled int64) (int64, string) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return sampled, "sampled"
	}
	switch peak := int64(ru.Maxrss) << 10; { // KiB on Linux
	case peak > parentPeak:
		return max(peak, sampled), "rusage"
	case peak <= maxRSS:
		return max(peak, sampled), fmt.Sprintf("at most, by rusage; %.1f MB sampled", float64(sampled)/1e6)
	}
	return sampled, "sampled"
}

// sampleHWM reads the process's peak RSS (VmHWM) every 20ms until it
// exits, and sends the last value read.
func sampleHWM(pid int) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		for {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil {
				break
			}
			_, rest, ok := strings.Cut(string(data), "VmHWM:")
			if !ok {
				break // a zombie: it has exited
			}
			var kib int64
			fmt.Sscan(rest, &kib)
			peak = max(peak, kib<<10)
			time.Sleep(20 * time.Millisecond)
		}
		out <- peak
	}()
	return out
}

// check fails t unless the run ended by itself with code within limit,
// under maxRSS, saying every one of want on stderr.
func (r hostileRun) check(t *testing.T, code int, limit time.Duration, want ...string) {
	t.Helper()
	if r.killed {
		t.Fatalf("still running after %v (peak RSS %.1f MB); stderr: %.2000s", r.took.Round(time.Millisecond), float64(r.maxRSS)/1e6, r.stderr)
	}
	if r.code != code {
		t.Errorf("exit %d, want %d; stderr: %.2000s", r.code, code, r.stderr)
	}
	if r.took > limit {
		t.Errorf("took %v, want under %v", r.took, limit)
	}
	if r.maxRSS == 0 || r.maxRSS > maxRSS {
		t.Errorf("peak RSS %.1f MB, want under %.0f MB", float64(r.maxRSS)/1e6, float64(maxRSS)/1e6)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%.2000s", w, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "panic:") {
		t.Errorf("panicked:\n%s", r.stderr)
	}
}

// endlessBody answers every request with prefix and then filler until the
// client goes.
func endlessBody(contentType, prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		fmt.Fprint(w, prefix)
		chunk := []byte(strings.Repeat("a", 64<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

// TestHostileEndlessMessage: a server answering initialize with an
// endless JSON body or one endless server-sent event is cut off at the
// message limit, default or given.
func TestHostileEndlessMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the inspector against hostile servers")
	}
	const initPrefix = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","instructions":"`
	tests := []struct {
		name    string
		handler http.HandlerFunc
		flags   []string
		want    string
	}{
		{"endless JSON body", endlessBody("application/json", initPrefix), nil,
			"the server's HTTP response was larger than the 16 MiB message limit (--max-message-size)"},
		{"endless SSE event", endlessBody("text/event-stream", "data: "+initPrefix), nil,
			"the server's server-sent event was larger than the 16 MiB message limit (--max-message-size)"},
		{"endless SSE event, 4MB limit", endlessBody("text/event-stream", "data: "+initPrefix), []string{"--max-message-size", "4MB"},
			"the server's server-sent event was larger than the 3.8 MiB message limit (--max-message-size)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			args := append([]string{"run", "--url", srv.URL, "--tool", "x"}, tt.flags...)
			r := runHostile(t, 20*time.Second, nil, nil, args...)
			r.check(t, exitFailure, 10*time.Second, tt.want)
		})
	}
	t.Run("endless stdio line", func(t *testing.T) {
		server := `sh -c 'printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\""; tr "\0" a < /dev/zero'`
		r := runHostile(t, 20*time.Second, nil, nil, "run", "--stdio", server, "--tool", "x", "--max-message-size", "8MiB")
		r.check(t, exitFailure, 10*time.Second, "the server's stdio message was larger than the 8 MiB message limit (--max-message-size)")
	})
}

// TestHostileStderrFlood: a stdio server that floods its stderr, in
// lines or in one line without end, while it starts: the run goes on and
// succeeds within bounded memory, and the recording keeps the first and
// last lines with one event counting them all.
func TestHostileStderrFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the inspector against hostile servers")
	}
	line := strings.Repeat("x", 99)
	tests := []struct {
		name, flood string // a shell command run before the server
		flags       []string
		events      int    // stderr events recorded
		want        string // in the counting event
	}{
		{"lines", "yes " + line + " | head -c 300000000 >&2;", nil,
			10_001, "stderr: 3,000,000 lines (286.1 MiB), first 5,000 and last 5,000 kept (--max-stderr-lines 10,000)"},
		{"no newline", "head -c 300000000 /dev/zero >&2;", nil, 1, ""},
		{"lines during the run", "yes " + line + " >&2 &", []string{"--latency", "2s", "--max-stderr-lines", "100"},
			101, "first 50 and last 50 kept (--max-stderr-lines 100)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			record := filepath.Join(t.TempDir(), "run.json")
			server := fmt.Sprintf("sh -c '%s exec %s demo-server'", tt.flood, inspectorBin)
			args := append([]string{"run", "--stdio", server, "--tool", "fanout", "--record", record}, tt.flags...)
			r := runHostile(t, 60*time.Second, nil, nil, args...)
			r.check(t, exitOK, 30*time.Second)
			f, err := os.Open(record)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if fi, _ := f.Stat(); fi.Size() > 10<<20 {
				t.Errorf("the recording is %s", fmt.Sprint(fi.Size()))
			}
			snap, err := recorder.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			var stderr []string
			for _, e := range snap.Events {
				if e.Kind == recorder.EventStderr {
					stderr = append(stderr, e.Text)
				}
			}
			if len(stderr) != tt.events {
				t.Errorf("%d stderr events recorded, want %d", len(stderr), tt.events)
			}
			if tt.want != "" && !strings.Contains(strings.Join(stderr, "\n"), tt.want) {
				t.Errorf("no stderr event says %q", tt.want)
			}
			if len(stderr) > 0 && len(stderr[0]) > 4200 {
				t.Errorf("a stderr event of %d bytes", len(stderr[0]))
			}
		})
	}
}

// TestHostileSilentServer: a server that never answers initialize fails
// the run within the connect timeout, saying what it waited for; an
// interrupt while waiting says so and blames nobody.
func TestHostileSilentServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the inspector against hostile servers")
	}
	var asked atomic.Int64 // initialize requests the silent server got
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(silent.Close)
	for _, tt := range []struct {
		name   string
		server []string
		want   string
	}{
		{"stdio never speaks", []string{"--stdio", "sleep 1000"}, `no answer to initialize from the stdio server "sleep 1000" within 1s (--connect-timeout)`},
		{"stdio reads, never answers", []string{"--stdio", "sh -c 'cat >/dev/null'"}, `within 1s (--connect-timeout)`},
		{"http", []string{"--url", silent.URL}, "no answer to initialize from the http server at " + silent.URL + " within 1s (--connect-timeout)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"run"}, tt.server...), "--tool", "x", "--connect-timeout", "1s")
			r := runHostile(t, 20*time.Second, nil, nil, args...)
			r.check(t, exitFailure, 4*time.Second, tt.want)
		})
	}
	// Waiting for initialize: the stdio server is started (the inspector
	// has a child), or the HTTP server was asked.
	started := func(pid int) bool {
		// Each thread lists the children it started, and Go starts them
		// from any thread.
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, f := range tasks {
			if b, _ := os.ReadFile(f); len(strings.TrimSpace(string(b))) > 0 {
				return true
			}
		}
		return false
	}
	for _, tt := range []struct {
		name    string
		server  []string
		sig     os.Signal
		waiting func(pid int) bool
	}{
		{"stdio", []string{"--stdio", "sleep 1000"}, os.Interrupt, started},
		{"stdio SIGTERM", []string{"--stdio", "sleep 1000"}, syscall.SIGTERM, started},
		{"http", []string{"--url", silent.URL}, os.Interrupt, func(int) bool { return asked.Load() > 0 }},
	} {
		t.Run("interrupted/"+tt.name, func(t *testing.T) {
			asked.Store(0)
			args := append(append([]string{"run"}, tt.server...), "--tool", "x")
			r := runHostile(t, 20*time.Second, tt.sig, tt.waiting, args...)
			r.check(t, exitInterrupted, 5*time.Second, "interrupted while waiting for the server to initialize")
			for _, blame := range []string{"exited before the session started", "file already closed", "context canceled", "check that the server is running"} {
				if strings.Contains(r.stderr, blame) {
					t.Errorf("the message blames the server (%q):\n%s", blame, r.stderr)
				}
			}
		})
	}
}
