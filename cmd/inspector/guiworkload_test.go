//go:build !nogui

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestGUIWorkloadFlag: inspector gui --workload refuses a file that
// cannot run before any window opens, at the line at fault.
func TestGUIWorkloadFlag(t *testing.T) {
	bad := writeTemp(t, "bad.toml", "[[operations]]\nmethod = \"tools/call\"\nname = \"echo\"\nweight = 0\n")
	var stderr bytes.Buffer
	code := guiMain([]string{"--workload", bad}, &bytes.Buffer{}, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), bad+":4: operation 0 (tools/call echo): weight") {
		t.Errorf("exit %d, stderr %q: want 2 and the line at fault", code, stderr.String())
	}
	stderr.Reset()
	code = guiMain([]string{"--workload", filepath.Join(t.TempDir(), "none.toml")}, &bytes.Buffer{}, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "cannot read the file") {
		t.Errorf("a missing file: exit %d, stderr %q: want 2 and that it cannot be read", code, stderr.String())
	}
}

// TestGUITabFlag checks that --tab takes a panel's name in any case and
// refuses another with the names it takes, before any window opens.
func TestGUITabFlag(t *testing.T) {
	var stderr bytes.Buffer
	code := guiMain([]string{"--tab", "transcript"}, &bytes.Buffer{}, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), `--tab "transcript": want one of server, callbacks, workload, manual, resources, prompts, logs, network, protocol`) {
		t.Errorf("exit %d, stderr %q: want 2 and the panels' names", code, stderr.String())
	}
}
