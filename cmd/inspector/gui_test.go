//go:build !nogui

package main

import (
	"bytes"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestGUIFlagErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"stray argument", []string{"run.json"}, "use --open FILE"},
		{"args not an object", []string{"--args", "[1,2]"}, "want a JSON object"},
		{"args file missing", []string{"--args", "@/no/such/file.json"}, "cannot read the file"},
		{"autorun without a tool off the demo", []string{"--autorun", "--url", "http://127.0.0.1:1/mcp"}, "--autorun: name the tool"},
		{"negative exit-after", []string{"--exit-after", "-1s"}, "must not be negative"},
		{"zero calls", []string{"--calls", "0"}, "want 1 or more"},
		{"open a missing file", []string{"--open", "/no/such/recording.json"}, "--open /no/such/recording.json"},
		{"bad dispatch (shared with run)", []string{"--dispatch", "sometimes"}, "--dispatch"},
		{"two servers", []string{"--demo", "--url", "http://x/mcp"}, "choose one server"},
		{"elicitation lists manual, which gui takes", []string{"--elicitation", "maybe"}, "want accept, decline, cancel or manual"},
		{"rate without a duration", []string{"--rate", "50"}, "--rate: an open loop needs --duration"},
		{"calls and a duration", []string{"--calls", "5", "--duration", "1s"}, "give a number of calls or a duration, not both"},
		{"max in flight without a rate", []string{"--max-in-flight", "3"}, "--max-in-flight: bounds an open loop"},
		{"stages with a rate (shared with run)", []string{"--stages", "1s:10", "--rate", "5"}, "--stages and --rate"},
		{"malformed stages", []string{"--stages", "10:50"}, "--stages: stage 1"},
		{"compare a missing file", []string{"--compare", "/no/such/b.json"}, "--compare /no/such/b.json"},
		{"compare while following", []string{"--follow", "j.jsonl", "--compare", "gui_test.go"}, "--compare shows a recording under another"},
		{"a threshold on no figure (shared with run)", []string{"--assert", "p95<=200"}, `--assert "p95<=200": unknown key "p95"`},
		{"more sessions than the app opens", []string{"--sessions", "500"}, "at most 100 sessions"},
		{"zero sessions", []string{"--sessions", "0"}, "want 1 to 1000"},
		{"negative rate", []string{"--rate", "-1", "--duration", "1s"}, "want calls per second above 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := guiMain(tt.args, &stdout, &stderr); code != exitUsage {
				t.Errorf("exit code %d, want %d (usage); stderr:\n%s", code, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.want)
			}
		})
	}
}

// TestFyneAppTOMLTwins checks that the metadata `fyne package` reads
// (cmd/inspector/FyneApp.toml) and the repository root's copy agree, name
// the app ID the binary uses for its preferences, and point at the icon.
func TestFyneAppTOMLTwins(t *testing.T) {
	type meta struct {
		Details struct {
			Icon, Name, ID, Version string
		}
	}
	var pkg, root meta
	if _, err := toml.DecodeFile("FyneApp.toml", &pkg); err != nil {
		t.Fatal(err)
	}
	if _, err := toml.DecodeFile(filepath.Join("..", "..", "FyneApp.toml"), &root); err != nil {
		t.Fatal(err)
	}
	if pkg.Details.ID != appID || root.Details.ID != appID {
		t.Errorf("app IDs %q and %q, the binary uses %q", pkg.Details.ID, root.Details.ID, appID)
	}
	if pkg.Details.Name != root.Details.Name || pkg.Details.Version != root.Details.Version {
		t.Errorf("the twins differ: %+v vs %+v", pkg.Details, root.Details)
	}
	if pkg.Details.Version != version {
		t.Errorf("FyneApp.toml version %q, the binary says %q", pkg.Details.Version, version)
	}
	if got, want := filepath.Clean(pkg.Details.Icon), filepath.Clean(filepath.Join("..", "..", root.Details.Icon)); got != want {
		t.Errorf("icons %q and %q are not the same file", got, want)
	}
}

func TestGUIWithoutDisplay(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("DISPLAY matters on Linux and the BSDs")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	var stdout, stderr bytes.Buffer
	if code := guiMain(nil, &stdout, &stderr); code != exitFailure {
		t.Errorf("exit code %d, want %d", code, exitFailure)
	}
	if !strings.Contains(stderr.String(), "no display") || !strings.Contains(stderr.String(), "inspector run") {
		t.Errorf("stderr %q should say there is no display and point to 'inspector run'", stderr.String())
	}
}

// TestSignalBeforeTheWindowIsKept: a SIGINT that arrives while the app is
// still starting (before quitOnSignal takes the signals over from Fyne)
// is kept and quits the app once it runs, instead of being lost (a
// process started ignoring SIGINT, as a script's background job is) or
// killing it midway.
func TestSignalBeforeTheWindowIsKept(t *testing.T) {
	catchSignalsEarly()
	defer func() { signal.Reset(quitSignals...); earlySignals = nil }()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The signal arrives before the app runs: wait until it is caught.
	for deadline := time.Now().Add(5 * time.Second); len(earlySignals) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("SIGINT was not caught within 5 s of catchSignalsEarly")
		}
	}
	quit := make(chan struct{})
	quitOnSignal(func() { close(quit) })
	select {
	case <-quit:
	case <-time.After(5 * time.Second):
		t.Fatal("a SIGINT sent while the app started did not quit it once it ran")
	}
}
