//go:build linux

package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// farRecording writes a recording of one tool call sent at the start
// and answered after span, created at created: a few hundred bytes that
// reach far in time.
func farRecording(t *testing.T, path string, created time.Time, span time.Duration) {
	t.Helper()
	data := fmt.Sprintf(`{"format":"fanout-inspector-recording","version":2,"meta":{"title":"far","created":%q},"now":%d,
"spans":[
{"id":1,"session":"s1","direction":"outgoing","method":"tools/call","kind":"tool","request_id":"1","name":"x","received":0,"queued":0,"serving":0,"answered":%d,"status":"ok","params":{"name":"x"}}
],
"events":[]}
`, created.UTC().Format(time.RFC3339), int64(span), int64(span))
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestFarSpansReportInBoundedMemory: a recording whose one call is
// answered 99 years after it was sent, and the merge of two recordings
// made a year apart, report and export with a peak RSS under 200 MB
// within seconds (the per-second series they draw had one entry per
// second of the span: out of memory at 99 years, 16 GB for the merge).
// The series CSV is bounded by [recorder.MaxSeriesPoints] rows, its
// steps a power of 2 of seconds wide and saying so.
func TestFarSpansReportInBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	far := filepath.Join(dir, "far.json")
	farRecording(t, far, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), 99*365*24*time.Hour)
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	farRecording(t, a, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), 2*time.Second)
	farRecording(t, b, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), 2*time.Second)
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		args []string
		csv  string // a series CSV to check
	}{
		{"series-csv", []string{"report", far, "--series-csv", out("far.csv")}, out("far.csv")},
		{"save", []string{"report", far, "--save", out("far-saved.json")}, ""},
		{"png throughput", []string{"report", far, "--png", out("far.png"), "--chart", "throughput"}, ""},
		{"svg latency-time", []string{"report", far, "--svg", out("far.svg"), "--chart", "latency-time"}, ""},
		{"html and json", []string{"report", far, "--html", out("far.html"), "--json"}, ""},
		{"merge a year apart", []string{"report", "--merge", a, b, "--save", out("merged.json"), "--series-csv", out("merged.csv"),
			"--png", out("merged.png"), "--chart", "throughput"}, out("merged.csv")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runHostile(t, 60*time.Second, nil, nil, tc.args...)
			r.check(t, exitOK, 20*time.Second)
			if tc.csv == "" {
				return
			}
			f, err := os.Open(tc.csv)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) < 2 || len(rows) > 1+4096 {
				t.Fatalf("%d rows, want a header and 1 to 4096 steps", len(rows))
			}
			if rows[0][1] != "width_s" {
				t.Errorf("header %q does not give the steps' width", rows[0])
			}
			width := rows[1][1]
			for _, row := range rows[1:] {
				if row[1] != width {
					t.Fatalf("steps of %s and %s seconds in one series", width, row[1])
				}
			}
			t.Logf("%d steps of %s s", len(rows)-1, width)
		})
	}
	if r := runHostile(t, 60*time.Second, nil, nil, "report", out("far-saved.json"), "--json"); r.code != exitOK {
		t.Errorf("the saved recording does not report: exit %d\n%s", r.code, r.stderr)
	}
}
