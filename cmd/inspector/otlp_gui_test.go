//go:build !nogui

package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder/otlppush/otlptest"
)

// TestGUIOTLPPush: the real app on Xvfb, `inspector gui --autorun
// --otlp-endpoint URL`, pushes its run — the fanout call and its 5
// sampling requests under it — by the time it has quit by itself.
func TestGUIOTLPPush(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the real app")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Xvfb is required when CI is set")
		}
		t.Skip("Xvfb is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	display := startXvfb(t)

	c := otlptest.NewCollector(t)
	dir := t.TempDir()
	app := exec.CommandContext(ctx, inspectorBin, "gui", "--autorun", "--exit-after", "8s", "--otlp-endpoint", c.URL)
	app.Env = append(os.Environ(), "DISPLAY=:"+display, "XDG_CACHE_HOME="+dir+"/cache",
		"XDG_CONFIG_HOME="+dir+"/config", "LANG=en_US.UTF-8")
	out, err := app.CombinedOutput()
	if err != nil {
		t.Fatalf("inspector gui: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "warning") {
		t.Errorf("the app warned:\n%s", out)
	}
	spans, _, _ := c.Received()
	call, kids := fanoutCall(spans)
	if call == "" || kids != 5 {
		t.Errorf("the collector got %d spans; the fanout call %q with %d sampling requests under it, want 5\napp output:\n%s", len(spans), call, kids, out)
	}
}

// startXvfb starts a virtual X display for the test and returns its
// number. Xvfb picks the display itself (-displayfd: the first it can
// lock, written on fd 3 once it accepts connections), so that tests and
// smoke scripts starting at once never share one; it is stopped with
// SIGTERM, on which it removes its lock file. -noreset: without it the
// server resets when its last client leaves and closes any connection
// it accepted meanwhile, so the app could be refused the display.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	logPath := filepath.Join(t.TempDir(), "xvfb.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	logged := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	xvfb := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
	xvfb.ExtraFiles = []*os.File{w} // fd 3
	xvfb.Stdout, xvfb.Stderr = logFile, logFile
	err = xvfb.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		xvfb.Process.Signal(syscall.SIGTERM)
		xvfb.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatalf("Xvfb did not start: %s", logged())
		}
		return n
	case <-time.After(30 * time.Second):
		t.Fatalf("Xvfb did not say which display it took within 30 s: %s", logged())
	}
	return ""
}
