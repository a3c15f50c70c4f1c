package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestProxyStdioAgreesWithTheClient: the inspector's own run, as a client
// of known behaviour (serial, then concurrent, 200 ms a request), talks
// to the demo server through `inspector proxy`; the proxy's recording
// times the run as the client measured it, within 5%.
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
			if d := math.Abs(seen.ElapsedMS - client.ElapsedMS); d > 0.05*client.ElapsedMS {
				t.Errorf("elapsed: proxy %.1f ms, client %.1f ms: more than 5%% apart", seen.ElapsedMS, client.ElapsedMS)
			}
			last := snap.Events[len(snap.Events)-1]
			if snap.Meta.Mode != recorder.ModeProxy || !strings.Contains(last.Text, "the client closed its end (stdin); the server exited with status 0") {
				t.Errorf("mode %q, last event %q: want a proxy recording ending with the reason", snap.Meta.Mode, last.Text)
			}
		})
	}
}

// TestProxyFlags: the proxy needs a server, and says so.
func TestProxyFlags(t *testing.T) {
	for _, args := range [][]string{{"proxy"}, {"proxy", "--stdio", "'unclosed"}, {"proxy", "--stdio", "x", "--env", "NOEQUALS"}, {"proxy", "--stdio", "x", "extra"}} {
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
