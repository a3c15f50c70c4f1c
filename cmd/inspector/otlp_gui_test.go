//go:build !nogui

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
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
	display := 140
	for ; display < 240; display++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", display)); os.IsNotExist(err) {
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	xvfb := exec.CommandContext(ctx, "Xvfb", fmt.Sprintf(":%d", display), "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { xvfb.Process.Kill(); xvfb.Wait() }()
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", display)); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}

	c := otlptest.NewCollector(t)
	dir := t.TempDir()
	app := exec.CommandContext(ctx, inspectorBin, "gui", "--autorun", "--exit-after", "8s", "--otlp-endpoint", c.URL)
	app.Env = append(os.Environ(), fmt.Sprintf("DISPLAY=:%d", display), "XDG_CACHE_HOME="+dir+"/cache",
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
