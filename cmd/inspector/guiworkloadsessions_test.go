//go:build !nogui

package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/ui"
)

// TestGUIWorkloadSessions: inspector gui --workload refuses a file that
// spreads its load over more sessions than the app takes (ui.MaxSessions,
// fewer than inspector run takes) with exit 2 and the line at fault,
// before any window opens (the Workload panel refused it only in a
// dialog, once the window was up); a file at the limit passes.
func TestGUIWorkloadSessions(t *testing.T) {
	file := func(sessions int) string {
		return writeTemp(t, fmt.Sprintf("s%d.toml", sessions), fmt.Sprintf(
			"[load]\nsessions = %d\ncalls = 200\n\n[[operations]]\nmethod = \"tools/call\"\nname = \"echo\"\nweight = 1\n", sessions))
	}
	over := file(ui.MaxSessions + 1)
	var stderr bytes.Buffer
	code := guiMain([]string{"--demo", "--workload", over}, &bytes.Buffer{}, &stderr)
	want := fmt.Sprintf("%s:2: load.sessions %d: the app spreads a run over at most %d sessions", over, ui.MaxSessions+1, ui.MaxSessions)
	if code != exitUsage || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr.String(), want)
	}
	if n := strings.Count(strings.TrimSpace(stderr.String()), "\n"); n > 1 {
		t.Errorf("stderr has %d lines, want the error alone:\n%s", n+1, stderr.String())
	}
	if err := checkWorkloadFile(file(ui.MaxSessions), ui.CheckWorkloadFile); err != nil {
		t.Errorf("a file of %d sessions, the app's limit, is refused: %v", ui.MaxSessions, err)
	}
}
