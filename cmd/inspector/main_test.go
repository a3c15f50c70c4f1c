package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/engine"
)

// TestUnknownCommand checks that a word that is not a subcommand is
// refused as one (exit 2, listing the commands), not passed to the GUI as
// a stray argument.
func TestUnknownCommand(t *testing.T) {
	for _, word := range []string{"foo", "runn", "reports"} {
		r := inspector(t, word)
		if r.code != exitUsage {
			t.Errorf("inspector %s: exit %d, want %d", word, r.code, exitUsage)
		}
		want := `inspector: unknown command "` + word + `"; commands are gui, run, init, proxy, servers, demo-server, report`
		if !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "inspector gui") {
			t.Errorf("inspector %s: stderr %q, want %q", word, r.stderr, want)
		}
	}
	// Flags alone still go to the GUI: its flag errors say "inspector gui".
	r := inspector(t, "--dispatch", "sometimes")
	if r.code != exitUsage || !strings.Contains(r.stderr, "inspector gui: --dispatch") {
		t.Errorf("inspector --dispatch sometimes: exit %d, stderr %q; want the GUI's flag error", r.code, r.stderr)
	}
}

// TestElicitationManualHelp checks that the help names manual, which gui
// takes, and that run says why it refuses it.
func TestElicitationManualHelp(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	get := parseConnectionFlags(fs)
	if err := fs.Parse([]string{"--elicitation", "manual"}); err != nil {
		t.Fatal(err)
	}
	if _, policy, err := get(); err != nil || policy.Elicitation != engine.ElicitManual {
		t.Fatalf("--elicitation manual: %v, %q", err, policy.Elicitation)
	}
	if usage := fs.Lookup("elicitation").Usage; !strings.Contains(usage, "manual") {
		t.Errorf("--elicitation's help %q does not name manual", usage)
	}
	var stderr bytes.Buffer
	if code := runMain(t.Context(), []string{"--elicitation", "manual"}, io.Discard, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "a headless run has nobody there") {
		t.Errorf("run --elicitation manual: exit %d, stderr %q", code, stderr.String())
	}
}

// TestReportEmptyFileHint checks that the hint for an empty file names a
// flag that exists.
func TestReportEmptyFileHint(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.json")
	os.WriteFile(empty, nil, 0o600)
	r := inspector(t, "report", empty)
	if r.code != exitFailure || !strings.Contains(r.stderr, "inspector run --record FILE") || strings.Contains(r.stderr, "run --save") {
		t.Fatalf("exit %d, stderr %q; want a hint naming inspector run --record FILE", r.code, r.stderr)
	}
	// The flag the hint names is one run takes.
	r = inspector(t, "run", "-h")
	if !strings.Contains(r.stderr, "-record FILE") {
		t.Errorf("run -h does not list --record:\n%s", r.stderr)
	}
}

// TestReportJSONSlowest checks that --slowest is kept with --json: the
// slowest requests come under "slowest", slowest first, alone and in a
// comparison.
func TestReportJSONSlowest(t *testing.T) {
	type row struct {
		ID      int     `json:"id"`
		Method  string  `json:"method"`
		Status  string  `json:"status"`
		TotalMS float64 `json:"total_ms"`
	}
	r := inspector(t, "report", fixtureRecording, "--json", "--slowest", "3")
	var one struct {
		Verdict string `json:"verdict"`
		Slowest []row  `json:"slowest"`
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &one) != nil {
		t.Fatalf("exit %d, stdout not JSON:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if one.Verdict == "" || len(one.Slowest) != 3 {
		t.Fatalf("verdict %q and %d slowest, want a summary and 3 rows:\n%s", one.Verdict, len(one.Slowest), r.stdout)
	}
	for i := 1; i < len(one.Slowest); i++ {
		if one.Slowest[i].TotalMS > one.Slowest[i-1].TotalMS {
			t.Errorf("slowest not slowest first: %+v", one.Slowest)
		}
	}
	if one.Slowest[0].Method != "tools/call" || one.Slowest[0].TotalMS < 2000 {
		t.Errorf("slowest[0] = %+v, want the 2.5 s tools/call", one.Slowest[0])
	}

	r = inspector(t, "report", fixtureRecording, "--compare", fixtureRecording, "--json", "--slowest", "2")
	var two struct {
		A struct {
			Slowest []row `json:"slowest"`
		} `json:"a"`
		B struct {
			Slowest []row `json:"slowest"`
		} `json:"b"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &two); err != nil || len(two.A.Slowest) != 2 || len(two.B.Slowest) != 2 {
		t.Errorf("compare --json --slowest 2: %v, a %d rows, b %d rows", err, len(two.A.Slowest), len(two.B.Slowest))
	}

	// Without --slowest the key is absent, as before.
	r = inspector(t, "report", fixtureRecording, "--json")
	if strings.Contains(r.stdout, `"slowest"`) {
		t.Errorf("--json without --slowest printed slowest:\n%s", r.stdout)
	}
}
