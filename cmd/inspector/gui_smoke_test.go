package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGUISmoke runs scripts/gui-smoke.sh: the real binary, built with
// cgo, opens three windows on Xvfb. One connects to the demo server, runs
// the fanout workload twice (the stats must then describe the second run)
// and is quit with SIGTERM once its journal shows the second result; one
// is quit with SIGINT mid load test; one quits by itself (--exit-after).
// The script waits for events (journal lines, a non-blank screenshot)
// with deadlines, not for fixed times, so a slow machine's frame rate
// does not decide it; it checks each exit status, journal end, the
// absence of off-thread widget calls and panics, and the screenshot. It
// is skipped only where Xvfb is missing and CI is not set.
func TestGUISmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the GUI smoke test builds and runs the real binary")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil && os.Getenv("CI") == "" {
		t.Skip("Xvfb is not installed (it is required when CI is set)")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "gui-smoke.sh"))
	cmd.Env = append(os.Environ(), "SMOKE_OUT="+out, "CGO_ENABLED=1")
	b, err := cmd.CombinedOutput()
	t.Logf("%s", b)
	if err != nil {
		t.Fatalf("gui-smoke.sh: %v", err)
	}
	if !strings.Contains(string(b), "gui-smoke: PASS") {
		t.Fatalf("gui-smoke.sh did not report PASS")
	}
	if !strings.Contains(string(b), "gui-smoke: two runs: the stats describe the second") {
		t.Errorf("gui-smoke.sh did not check that after two runs on one connection the stats describe the second")
	}
	for _, name := range []string{"main", "sigint", "by-itself"} {
		if !strings.Contains(string(b), "gui-smoke: "+name+": exit 0, journal closed") {
			t.Errorf("gui-smoke.sh did not check how the instance %s quit", name)
		}
	}
	if st, err := os.Stat(filepath.Join(out, "screenshot.png")); err != nil || st.Size() < 10_000 {
		t.Errorf("screenshot: %v", err)
	}
}

// TestGUIFollowSmoke runs scripts/gui-follow-smoke.sh: the real app, on
// Xvfb, follows the journal of a proxy session (a serial client through
// inspector proxy to the demo server) from before the journal exists; the
// script waits for the window's title to say so, and to say the journal
// ended, rather than for fixed times, and checks the app drew the journal
// as it grew (several states seen, not one at the end), stopped at its
// end, and calls the client serialized with 5 requests at peak 1.
func TestGUIFollowSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the GUI smoke test builds and runs the real binary")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil && os.Getenv("CI") == "" {
		t.Skip("Xvfb is not installed (it is required when CI is set)")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "gui-follow-smoke.sh"))
	cmd.Env = append(os.Environ(), "SMOKE_OUT="+out, "CGO_ENABLED=1")
	b, err := cmd.CombinedOutput()
	t.Logf("%s", b)
	if err != nil {
		t.Fatalf("gui-follow-smoke.sh: %v", err)
	}
	for _, want := range []string{"gui-follow-smoke: PASS", `state="the journal ended" server_requests=5 peak=1`, "stats: verdict=serialized "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("gui-follow-smoke.sh did not report %q", want)
		}
	}
}
