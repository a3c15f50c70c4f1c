package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestProxyStdioAgreesWithTheClient: the inspector's own run, as a client
// of known behaviour (serial, then concurrent, 200 ms a request), talks
// to the demo server through `inspector proxy`; the proxy's recording
// times the run as the client measured it (see checkProxyTimesTheRun).
func TestProxyStdioAgreesWithTheClient(t *testing.T) {
	for _, dispatch := range []string{"serial", "concurrent"} {
		t.Run(dispatch, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "proxy.json")
			server := fmt.Sprintf("%s proxy --stdio '%s demo-server' --record %s --journal off", inspectorBin, inspectorBin, file)
			r := inspector(t, "run", "--stdio", server, "--tool", "fanout", "--dispatch", dispatch,
				"--latency", "200ms", "--protocol", "2025-11-25", "--json")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			client := summaryOf(t, r)
			snap, err := recorder.LoadFile(file)
			if err != nil {
				t.Fatalf("the proxy's recording: %v\nclient's stderr (the proxy's too):\n%s", err, r.stderr)
			}
			seen := recorder.Summarize(snap)
			if seen.ServerRequests.Total != 5 || seen.PeakPending != 5 || seen.ToolCalls.Total != 1 {
				t.Errorf("proxy saw %d server requests, peak pending %d, %d tool calls; want 5, 5, 1", seen.ServerRequests.Total, seen.PeakPending, seen.ToolCalls.Total)
			}
			checkProxyTimesTheRun(t, dispatch, seen.ElapsedMS, client.ElapsedMS)
			want := map[string]string{"serial": "serialized: your client served 5 requests one at a time",
				"concurrent": "concurrent: your client overlapped all 5 requests pending at once"}[dispatch]
			rep := inspector(t, "report", file)
			if rep.code != 0 || !strings.Contains(rep.stdout, want) || !strings.Contains(rep.stdout, "(estimated from the answers)") {
				t.Errorf("report of the proxy's recording: exit %d, want %q and the estimate said:\n%s%s", rep.code, want, rep.stdout, rep.stderr)
			}
			last := snap.Events[len(snap.Events)-1]
			if snap.Meta.Mode != recorder.ModeProxy || !strings.Contains(last.Text, "the client closed its end (stdin); the server exited with status 0") {
				t.Errorf("mode %q, last event %q: want a proxy recording ending with the reason", snap.Meta.Mode, last.Text)
			}
		})
	}
}

// checkProxyTimesTheRun checks the run's elapsed time in the proxy's
// recording against the client's: the proxy sees the tool call after the
// client sent it and its result before the client reads it, so its time
// lies within the client's, and it holds the five 200 ms answers the
// client served (one after another when serial, at once when concurrent).
// Both bounds hold however late a busy machine schedules the processes;
// what the hops between them add is logged (a few ms on a quiet machine),
// not asserted: a 5% bound failed under load.
func checkProxyTimesTheRun(t *testing.T, dispatch string, proxyMS, clientMS float64) {
	t.Helper()
	work := map[string]float64{"serial": 5 * 200, "concurrent": 200}[dispatch]
	// 0.1 ms: both are rounded to a tenth of a millisecond.
	if proxyMS < work || proxyMS > clientMS+0.1 {
		t.Errorf("elapsed: proxy %.1f ms, client %.1f ms: want the proxy's within the client's and at least the %s client's %.0f ms of answers",
			proxyMS, clientMS, dispatch, work)
	}
	t.Logf("elapsed: proxy %.1f ms, client %.1f ms (%.1f%% apart)", proxyMS, clientMS, 100*(clientMS-proxyMS)/clientMS)
}

// TestProxyFlags: the proxy needs a server, and says so.
func TestProxyFlags(t *testing.T) {
	for _, args := range [][]string{{"proxy"}, {"proxy", "--stdio", "'unclosed"}, {"proxy", "--stdio", "x", "--env", "NOEQUALS"}, {"proxy", "--stdio", "x", "extra"},
		{"proxy", "--stdio", "x", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/mcp"},
		{"proxy", "--listen", "127.0.0.1:0"}, {"proxy", "--upstream", "http://127.0.0.1:1/mcp"},
		{"proxy", "--listen", "127.0.0.1:0", "--upstream", "ftp://x"}} {
		r := inspector(t, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "inspector proxy:") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with a message", args, r.code, r.stderr)
		}
	}
	r := inspector(t, "proxy", "--stdio", "/nonexistent/server", "--journal", "off")
	if r.code != exitFailure || !strings.Contains(r.stderr, "cannot start the server") {
		t.Errorf("missing server: exit %d, stderr %q; want exit 1 saying it cannot start", r.code, r.stderr)
	}
}

// lockedBuffer is a strings.Builder safe to read while another
// goroutine writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProxyHTTPAgreesWithTheClient: `inspector proxy --listen --upstream`
// stands between the inspector's own run (serial, then concurrent) and
// the demo server over streamable HTTP; stopped, it writes a recording
// that times the run as the client measured it (see
// checkProxyTimesTheRun), and says why it ended.
func TestProxyHTTPAgreesWithTheClient(t *testing.T) {
	up := httptest.NewServer(demo.NewHTTPHandler())
	defer up.Close()
	for _, dispatch := range []string{"serial", "concurrent"} {
		t.Run(dispatch, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "proxy.json")
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			var stderr lockedBuffer
			done := make(chan int, 1)
			go func() {
				done <- proxyMain(ctx, []string{"--listen", "127.0.0.1:0", "--upstream", up.URL + "/mcp?token=hush-hush-99",
					"--record", file, "--journal", "off"}, nil, io.Discard, &stderr)
			}()
			listening := regexp.MustCompile(`listening on (http://\S+) → (\S+)`)
			var m []string
			for deadline := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				m = listening.FindStringSubmatch(stderr.String())
			}
			if m == nil {
				t.Fatalf("the proxy did not say where it listens:\n%s", stderr.String())
			}
			if !strings.HasSuffix(m[1], "/mcp") || !strings.Contains(m[2], "token=REDACTED") {
				t.Errorf("listening on %s → %s: want the /mcp endpoint and the upstream without its token", m[1], m[2])
			}
			r := inspector(t, "run", "--url", m[1], "--tool", "fanout", "--dispatch", dispatch,
				"--latency", "200ms", "--protocol", "2025-11-25", "--json")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			client := summaryOf(t, r)
			stop()
			select {
			case code := <-done:
				if code != exitOK {
					t.Errorf("the proxy exited %d, want 0:\n%s", code, stderr.String())
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the proxy did not end 20 s after it was stopped")
			}
			snap, err := recorder.LoadFile(file)
			if err != nil {
				t.Fatalf("the proxy's recording: %v\n%s", err, stderr.String())
			}
			seen := recorder.Summarize(snap)
			if seen.ServerRequests.Total != 5 || seen.PeakPending != 5 || seen.ToolCalls.Total != 1 {
				t.Errorf("proxy saw %d server requests, peak pending %d, %d tool calls; want 5, 5, 1", seen.ServerRequests.Total, seen.PeakPending, seen.ToolCalls.Total)
			}
			checkProxyTimesTheRun(t, dispatch, seen.ElapsedMS, client.ElapsedMS)
			last := snap.Events[len(snap.Events)-1]
			if !strings.Contains(last.Text, "the proxy was stopped") || strings.Contains(snap.Meta.Target, "hush-hush-99") {
				t.Errorf("last event %q, target %q: want the reason, and no token", last.Text, snap.Meta.Target)
			}
		})
	}
}
