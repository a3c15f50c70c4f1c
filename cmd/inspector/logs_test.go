package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunLogLevelAndReportLogs runs a fan-out whose elicitations are
// declined against the demo server on both protocol eras, once asking for
// warning and once for debug, and reads the log messages back with
// report --logs: at warning only the warning arrives, at debug the info
// line too, each under the call that made it.
func TestRunLogLevelAndReportLogs(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, tt := range []struct {
				level  string
				counts string
			}{
				{"warning", "warning 1"},
				{"debug", "info 1, warning 1"},
			} {
				file := filepath.Join(dir, tt.level+".json")
				r := inspector(t, "run", "--protocol", protocol, "--log-level", tt.level, "--tool", "fanout",
					"--args", `{"n":2,"kind":"elicitation"}`, "--elicitation", "decline", "--record", file)
				if r.code != exitOK {
					t.Fatalf("run --log-level %s: exit %d\n%s", tt.level, r.code, r.stderr)
				}
				r = inspector(t, "report", file, "--logs", "--json")
				if r.code != exitOK {
					t.Fatalf("report --logs --json: exit %d\n%s", r.code, r.stderr)
				}
				var got struct {
					Counts []struct {
						Level string
						Count int
					}
					Messages []struct {
						Level, Logger, Message, Request string
						Span                            int
					}
				}
				if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
					t.Fatalf("report --logs --json: %v\n%s", err, r.stdout)
				}
				var counts []string
				for _, c := range got.Counts {
					counts = append(counts, fmt.Sprintf("%s %d", c.Level, c.Count))
				}
				if strings.Join(counts, ", ") != tt.counts {
					t.Errorf("at %s the counts are %v, want %s", tt.level, counts, tt.counts)
				}
				for _, m := range got.Messages {
					if m.Logger != "fanout" || m.Request != "tools/call fanout" || m.Span == 0 {
						t.Errorf("at %s: message %+v, want it from the fanout logger under the tools/call fanout", tt.level, m)
					}
				}
				if tt.level != "warning" {
					continue
				}
				r = inspector(t, "report", file, "--logs")
				want := "1 log message: warning 1\n\nwarning (1)\n"
				if r.code != exitOK || !strings.HasPrefix(r.stdout, want) ||
					!strings.Contains(r.stdout, "fanout  2 of 2 elicitation requests were declined or cancelled  #3 tools/call fanout") {
					t.Errorf("report --logs: exit %d\n%s\nwant it to start %q and list the warning under #3", r.code, r.stdout, want)
				}
			}
		})
	}
}

// TestLogLevelFlagRefused: a level the protocol does not name is a usage
// error that lists the levels.
func TestLogLevelFlagRefused(t *testing.T) {
	for _, args := range [][]string{{"run", "--log-level", "verbose"}, {"run", "--log-level", " "}} {
		r := inspector(t, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--log-level") || !strings.Contains(r.stderr, "debug, info, notice, warning, error, critical, alert, emergency") {
			t.Errorf("%q: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	r := inspector(t, "report", fixtureRecording, "--logs", "--http")
	if r.code != exitUsage || !strings.Contains(r.stderr, "choose one") {
		t.Errorf("report --logs --http: exit %d\n%s", r.code, r.stderr)
	}
	// The fixture's one log message was recorded with its text alone.
	r = inspector(t, "report", fixtureRecording, "--logs")
	if want := "1 log message: (no level) 1\n\n(no level) (1)\n  1.200s    halfway"; r.code != exitOK || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("report --logs of the fixture: exit %d\n%s\nwant %q", r.code, r.stdout, want)
	}
	file := filepath.Join(t.TempDir(), "echo.json")
	if r = inspector(t, "run", "--tool", "echo", "--record", file); r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	r = inspector(t, "report", file, "--logs")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "The recording holds no log messages") {
		t.Errorf("report --logs of a recording without any: exit %d\n%s", r.code, r.stdout)
	}
}
