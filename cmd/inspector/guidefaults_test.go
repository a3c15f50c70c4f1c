//go:build !nogui

package main

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/ui"
)

// TestGUIDefaultLatency: the app answers after 500 ms unless --latency
// says otherwise (0 included), and --dispatch still chooses the dispatch.
func TestGUIDefaultLatency(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, ui.FirstRunLatency.A},
		{[]string{"--dispatch", "serial"}, ui.FirstRunLatency.A},
		{[]string{"--latency", "0"}, 0},
		{[]string{"--latency", "200ms"}, 200 * time.Millisecond},
	} {
		fs := flag.NewFlagSet("inspector gui", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		conn := parseConnectionFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		_, policy, err := conn()
		if err != nil {
			t.Fatal(err)
		}
		policy = guiDefaults(fs, policy)
		if policy.Latency.A != tc.want {
			t.Errorf("gui %q: latency %v, want %v", tc.args, policy.Latency.A, tc.want)
		}
		if len(tc.args) == 2 && tc.args[0] == "--dispatch" && policy.Dispatch.Mode != "serial" {
			t.Errorf("gui %q: dispatch %q", tc.args, policy.Dispatch.Mode)
		}
	}
	if ui.FirstRunLatency.A != 500*time.Millisecond {
		t.Errorf("first-run latency %v, want the README's 500ms", ui.FirstRunLatency.A)
	}
}
