package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wireLines names each JSON-RPC message of a file of them, one a line
// (what a stdio server read or wrote), as "client request tools/call 3",
// "server response 3", "client notification notifications/initialized".
func wireLines(t *testing.T, path, from string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %q is not a JSON-RPC message: %v", path, line, err)
		}
		switch {
		case m.Method != "" && m.ID == nil:
			out = append(out, from+" notification "+m.Method)
		case m.Method != "":
			out = append(out, from+" request "+m.Method+" "+string(m.ID))
		default:
			out = append(out, from+" response "+string(m.ID))
		}
	}
	return out
}

// TestReportTranscript runs the demo server as a stdio subprocess with
// what it reads and writes copied to files (tee), on each protocol era,
// then prints the recording's transcript with report --transcript: its
// --json messages are exactly those the server read and wrote, and the
// text has a line per message with the call's rounds indented under it
// and the unknown tool's error classed.
func TestReportTranscript(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			in, out, file := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "run.json")
			server := fmt.Sprintf("sh -c 'tee %s | %s demo-server | tee %s'", in, inspectorBin, out)
			r := inspector(t, "run", "--stdio", server, "--protocol", protocol, "--tool", "fanout",
				"--args", `{"n":3,"rounds":2}`, "--latency", "5ms", "--record", file, "--journal", "off")
			if r.code != exitOK {
				t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
			}
			r = inspector(t, "report", "--transcript", "--json", file)
			if r.code != exitOK {
				t.Fatalf("report --transcript --json: exit %d\n%s", r.code, r.stderr)
			}
			var lines []transcriptLine
			if err := json.Unmarshal([]byte(r.stdout), &lines); err != nil {
				t.Fatalf("report --transcript --json printed no JSON array: %v\n%s", err, r.stdout)
			}
			var got []string
			for _, l := range lines {
				switch l.Type {
				case "request":
					got = append(got, l.From+" request "+l.Method+" "+l.ID)
				case "response":
					got = append(got, l.From+" response "+l.ID)
				case "notification":
					got = append(got, l.From+" notification "+l.Method)
				}
			}
			want := append(wireLines(t, in, "client"), wireLines(t, out, "server")...)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("the server read and wrote %d messages:\n%s\nthe transcript holds %d:\n%s",
					len(want), strings.Join(want, "\n"), len(got), strings.Join(got, "\n"))
			}

			r = inspector(t, "report", file, "--transcript")
			if r.code != exitOK {
				t.Fatalf("report --transcript: exit %d\n%s", r.code, r.stderr)
			}
			wantText := []string{"→ #1 initialize", "→ notifications/initialized", "→ #3 tools/call  fanout", "←   #1 sampling/createMessage"}
			if protocol == "2026-07-28" {
				wantText = []string{"→ #1 server/discover", "→ tools/call  call of several rounds: fanout",
					"→   #3 tools/call  round 1: fanout", "←   #3 tools/call answered  input_required: 3 input requests",
					"←     sampling/createMessage  input request r1-0 of round 1", "→   #5 tools/call  round 3: fanout"}
			}
			for _, w := range wantText {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("report --transcript has no %q:\n%s", w, r.stdout)
				}
			}
			t.Logf("report --transcript:\n%s", r.stdout)
		})
	}
}

// TestReportTranscriptHTTP calls a tool the demo server lacks over
// streamable HTTP on 2026-07-28: the transcript classes the error and
// gives the HTTP status the POST was answered with, 400 as that protocol
// requires, read from the recording's HTTP exchanges.
func TestReportTranscriptHTTP(t *testing.T) {
	url := startDemoHTTP(t)
	file := filepath.Join(t.TempDir(), "run.json")
	r := inspector(t, "run", "--url", url, "--protocol", "2026-07-28", "--tool", "no-such-tool", "--record", file, "--journal", "off")
	if r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	r = inspector(t, "report", "--transcript", file)
	if want := `unknown tool "no-such-tool"  [unknown tool -32602] (HTTP 400)`; !strings.Contains(r.stdout, want) {
		t.Errorf("report --transcript has no %q:\n%s", want, r.stdout)
	}
	r = inspector(t, "report", "--transcript", "--json", file)
	var lines []transcriptLine
	if err := json.Unmarshal([]byte(r.stdout), &lines); err != nil {
		t.Fatal(err)
	}
	var failed []transcriptLine
	for _, l := range lines {
		if l.Class != "" {
			failed = append(failed, l)
		}
	}
	if len(failed) != 1 || failed[0].Class != "unknown tool" || failed[0].Code != -32602 || failed[0].HTTP != 400 || failed[0].From != "server" {
		t.Errorf("failed lines %+v, want one: unknown tool, -32602, HTTP 400, from the server", failed)
	}
}

// TestReportTranscriptRefusesCompare checks that --transcript says what
// to do when asked for two recordings.
func TestReportTranscriptRefusesCompare(t *testing.T) {
	r := inspector(t, "report", "a.json", "--transcript", "--compare", "b.json")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--transcript prints one recording: leave out --compare") {
		t.Errorf("exit %d, stderr %q; want exit %d saying to leave out --compare", r.code, r.stderr, exitUsage)
	}
}

// TestReportTranscriptLogs runs the demo server's slow tool as a stdio
// subprocess that writes a red line to stderr as it starts, on each
// protocol era, with log messages asked for at debug: in report
// --transcript and its --json every log message and progress
// notification sits under the call it belongs to, one deeper than the
// call's line, and the stderr line is printed with its escape sequences
// neutralised.
func TestReportTranscriptLogs(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "run.json")
			server := fmt.Sprintf(`sh -c 'printf "\\033[31mslow server\\033[0m up\\n" >&2; exec %s demo-server'`, inspectorBin)
			r := inspector(t, "run", "--stdio", server, "--protocol", protocol, "--tool", "slow",
				"--args", `{"ms":30,"steps":3}`, "--log-level", "debug", "--record", file, "--journal", "off")
			if r.code != exitOK {
				t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
			}
			r = inspector(t, "report", "--transcript", "--json", file)
			if r.code != exitOK {
				t.Fatalf("report --transcript --json: exit %d\n%s", r.code, r.stderr)
			}
			var lines []transcriptLine
			if err := json.Unmarshal([]byte(r.stdout), &lines); err != nil {
				t.Fatalf("report --transcript --json printed no JSON array: %v\n%s", err, r.stdout)
			}
			call := slices.IndexFunc(lines, func(l transcriptLine) bool {
				return l.Method == "tools/call" && (l.Type == "call" || l.Type == "request")
			})
			if call < 0 {
				t.Fatalf("no tools/call in the transcript:\n%s", r.stdout)
			}
			logs, progress := 0, 0
			for i, l := range lines {
				switch l.Method {
				case "notifications/message":
					logs++
				case "notifications/progress":
					progress++
				default:
					continue
				}
				if i < call || l.Span != lines[call].Span || l.Depth != lines[call].Depth+1 {
					t.Errorf("line %d, %s %q: span %d depth %d; want it after the call's line %d, under it: span %d depth %d",
						i, l.Method, l.Summary, l.Span, l.Depth, call, lines[call].Span, lines[call].Depth+1)
				}
			}
			// the slow tool logs as it starts, at each of its 3 steps
			// (with a progress notification each) and as it ends
			if logs != 5 || progress != 3 {
				t.Errorf("%d log messages and %d progress notifications, want 5 and 3:\n%s", logs, progress, r.stdout)
			}

			r = inspector(t, "report", "--transcript", file)
			if r.code != exitOK {
				t.Fatalf("report --transcript: exit %d\n%s", r.code, r.stderr)
			}
			for _, want := range []string{"←   notifications/message  info slow: step 2 of 3", "←   notifications/progress  2/3 step 2 of 3",
				"· stderr  \uFFFD[31mslow server\uFFFD[0m up"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("report --transcript has no %q:\n%s", want, r.stdout)
				}
			}
			if strings.ContainsRune(r.stdout, 0x1b) {
				t.Errorf("report --transcript printed an escape character:\n%q", r.stdout)
			}
			t.Logf("report --transcript:\n%s", r.stdout)
		})
	}
}
