package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHeadlessBuild: the binary docs/load/Dockerfile builds for load
// generators in containers (-tags nogui, without cgo, so without Fyne
// and the GL and X11 libraries) is static, runs a load test, and says
// what to use instead when asked for the window.
func TestHeadlessBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a second binary (about a minute the first time, without cgo)")
	}
	bin := filepath.Join(t.TempDir(), "inspector")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-tags", "nogui", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build -tags nogui: %v\n%s", err, out)
	}
	run := func(args ...string) (int, string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "DISPLAY=") // no display, as in a container
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	code, out, errs := run("run", "--tool", "echo", "--calls", "50", "--concurrency", "5", "--json")
	if code != exitOK {
		t.Fatalf("headless run: exit %d\n%s", code, errs)
	}
	if s := summaryOf(t, result{stdout: out}); s.ToolCalls.OK != 50 {
		t.Errorf("headless run: %d calls ok, want 50", s.ToolCalls.OK)
	}
	for _, args := range [][]string{nil, {"gui"}} {
		code, _, errs := run(args...)
		if code != exitUsage || !strings.Contains(errs, "without the desktop app") || !strings.Contains(errs, "inspector run") {
			t.Errorf("headless inspector %q: exit %d, stderr %q; want 2 and a sentence saying to use run", args, code, errs)
		}
	}
}
