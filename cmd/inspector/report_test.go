package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// fixtureRecording is the recorder package's golden recording: five
// requests fanned out by one tool call and served one at a time.
var fixtureRecording = filepath.Join("..", "..", "recorder", "testdata", "fixture.recording.json")

// concurrentCopy saves the fixture with its five requests served at once.
func concurrentCopy(t *testing.T) string {
	t.Helper()
	snap, err := recorder.LoadFile(fixtureRecording)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range snap.Spans {
		if s.Parent == 1 {
			c := *s
			c.Serving = c.Queued
			c.Answered = c.Serving + 500*time.Millisecond
			snap.Spans[i] = &c
		}
	}
	path := filepath.Join(t.TempDir(), "concurrent.json")
	if err := recorder.SaveFile(path, snap); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReportSummary(t *testing.T) {
	r := inspector(t, "report", fixtureRecording)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		`recording\s+fixture, 2026-01-02 03:04:05 UTC, 8 requests, 3 events\n`,
		`peak in flight\s+1\n`, `peak pending\s+5\n`, `sampling/createMessage\s+4\n`,
		`tool calls\s+2 total, 1 ok, 0 failed\n`,
		`verdict\s+serialized: 5 requests arrived together and were served one at a time — 2\.50 s, 5\.0× the concurrent time`,
		`still open\s+1 request: the recording stopped before it was answered`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("summary does not match %q:\n%s", want, r.stdout)
		}
	}

	r = inspector(t, "report", fixtureRecording, "--slowest", "2")
	if !regexp.MustCompile(`slowest requests:\n.*id.*total ms\n\s*1\s+tools/call fan_out\s+outgoing\s+ok\s+0\.0\s+0\.0\s+2520\.0\s+2520\.0\n\s*6\s+elicitation/create\s+incoming\s+error: user declined`).MatchString(r.stdout) {
		t.Errorf("--slowest 2 did not list the tool call and the elicitation:\n%s", r.stdout)
	}

	r = inspector(t, "report", "--json", fixtureRecording)
	s := summaryOf(t, r)
	if s.PeakPending != 5 || s.PeakInFlight != 1 || s.Verdict != recorder.VerdictSerialized {
		t.Errorf("--json summary %+v", s)
	}
}

func TestReportStdin(t *testing.T) {
	data, err := os.ReadFile(fixtureRecording)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := reportMain([]string{"-", "--json"}, bytes.NewReader(data), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"peak_pending": 5`) {
		t.Errorf("stdin summary: %s", out.String())
	}
	code = reportMain([]string{"-"}, strings.NewReader("nope"), &out, &errb)
	if code != exitFailure || !strings.Contains(errb.String(), "standard input: not a recording") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

func TestReportExports(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	r := inspector(t, "report", fixtureRecording,
		"--trace", out("t.json"), "--otlp", out("o.json"), "--csv", out("r.csv"),
		"--png", out("g.png"), "--svg", out("c.svg"), "--chart", "gantt", "--width", "800", "--height", "300",
		"--html", out("r.html"), "--save", out("copy.json"))
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, name := range []string{"t.json", "o.json"} {
		data, _ := os.ReadFile(out(name))
		if !json.Valid(data) {
			t.Errorf("%s is not JSON", name)
		}
	}
	if fi, err := os.Stat(out("r.csv")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("--csv file mode %v, want -rw-------", fi.Mode())
	}
	csvData, _ := os.ReadFile(out("r.csv"))
	if lines := strings.Count(string(csvData), "\n"); lines != 9 {
		t.Errorf("CSV has %d lines, want a header and 8 rows", lines)
	}
	f, err := os.Open(out("g.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("--png: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 300 {
		t.Errorf("--png is %v, want 800×300", b)
	}
	svg, _ := os.ReadFile(out("c.svg"))
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("Timeline of 8 requests")) {
		t.Errorf("--svg --chart gantt did not draw the timeline")
	}
	page, _ := os.ReadFile(out("r.html"))
	for _, want := range []string{"<svg", "serialized: 5 requests", "Slowest requests", "user declined"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	if bytes.Contains(page, []byte("http://")) && bytes.Contains(page, []byte("src=\"http")) {
		t.Error("HTML report fetches something from the network")
	}
	orig, _ := recorder.LoadFile(fixtureRecording)
	again, err := recorder.LoadFile(out("copy.json"))
	if err != nil || len(again.Spans) != len(orig.Spans) {
		t.Errorf("--save: %v", err)
	}
}

func TestReportCompare(t *testing.T) {
	b := concurrentCopy(t)
	html := filepath.Join(t.TempDir(), "cmp.html")
	r := inspector(t, "report", fixtureRecording, "--compare", b, "--html", html)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"A: " + fixtureRecording, "B: " + b, "Differences (A → B):",
		"verdict: serialized → concurrent", "peak_in_flight: 1 → 5"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("comparison lacks %q:\n%s", want, r.stdout)
		}
	}
	page, _ := os.ReadFile(html)
	if n := bytes.Count(page, []byte("<svg")); n != 10 {
		t.Errorf("comparison page has %d charts, want 10 (five per recording)", n)
	}

	r = inspector(t, "report", "--json", fixtureRecording, "--compare", b)
	var cmp struct {
		A, B        recorder.Summary
		Differences []recorder.Difference
	}
	if err := json.Unmarshal([]byte(r.stdout), &cmp); err != nil {
		t.Fatalf("--json --compare: %v\n%s", err, r.stdout)
	}
	if cmp.A.Verdict != "serialized" || cmp.B.Verdict != "concurrent" || len(cmp.Differences) == 0 {
		t.Errorf("--json --compare gave %+v", cmp)
	}
}

func TestReportJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := recorder.New(recorder.Meta{Title: "journaled"})
	j, err := recorder.OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		s := recorder.NewSpan("s", recorder.Incoming, "roots/list")
		s.Received, s.Queued, s.Serving = rec.Now(), rec.Now(), rec.Now()
		id := rec.Begin(s)
		rec.Update(id, func(s *recorder.Span) { s.Answered = rec.Now(); s.Status = recorder.StatusOK })
	}
	// Not closed: as a killed run leaves it, once the flush has run.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(recorder.JournalFlushInterval / 2) {
		if snap, err := recorder.LoadFile(path); err == nil && len(snap.Spans) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the journal did not get its 3 spans within 10 s")
		}
	}
	r := inspector(t, "report", "--json", path)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if s := summaryOf(t, r); s.ServerRequests.ByMethod["roots/list"] != 3 {
		t.Errorf("journal summary %+v, want 3 roots/list", s.ServerRequests)
	}
	j.Close()
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	good, _ := os.ReadFile(fixtureRecording)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no recording", []string{"report"}, exitUsage, "name the recording"},
		{"two recordings", []string{"report", fixtureRecording, fixtureRecording}, exitUsage, "one recording at a time"},
		{"unknown flag", []string{"report", "--frobnicate", fixtureRecording}, exitUsage, "frobnicate"},
		{"bad chart", []string{"report", fixtureRecording, "--chart", "pie"}, exitUsage, "concurrency, latency, gantt, throughput or latency-time"},
		{"bad size", []string{"report", fixtureRecording, "--width", "3"}, exitUsage, "chart size"},
		{"missing file", []string{"report", filepath.Join(dir, "nope.json")}, exitFailure, "cannot open recording"},
		{"not JSON", []string{"report", write("text.json", "hello\n")}, exitFailure, "not JSON"},
		{"truncated", []string{"report", write("cut.json", string(good[:len(good)/2]))}, exitFailure, "truncated"},
		{"newer version", []string{"report", write("new.json", strings.Replace(string(good), `"version":2`, `"version":99`, 1))},
			exitFailure, "newer than this inspector reads"},
		{"bad compare", []string{"report", fixtureRecording, "--compare", write("c.json", "[]")}, exitFailure, "--compare"},
		{"unwritable output", []string{"report", fixtureRecording, "--csv", filepath.Join(dir, "no", "such", "dir.csv")}, exitUsage, "--csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := inspector(t, c.args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d\nstderr: %s", r.code, c.code, r.stderr)
			}
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr does not say %q:\n%s", c.want, r.stderr)
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		r := inspector(t, "report", "-h")
		if r.code != exitOK || !strings.Contains(r.stdout, "--compare B") {
			t.Errorf("exit %d, stdout %q", r.code, r.stdout)
		}
	})
}
