package main

import (
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestSummarySaysWhyCallsFailed checks that the reason a tool call failed
// reaches the JSON summary (tool_calls.errors) and the table: with --json
// it used to be printed nowhere.
func TestSummarySaysWhyCallsFailed(t *testing.T) {
	const reason = "validating /properties/n: minimum: -1/1 is less than 1" // the server's schema check
	r := inspector(t, "run", "--tool", "fanout", "--args", `{"n":-1}`, "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0 (a failed call is counted, not fatal)\nstderr: %s", r.code, r.stderr)
	}
	s := summaryOf(t, r)
	if s.ToolCalls.Failed != 1 || len(s.ToolCalls.Errors) != 1 || !strings.Contains(s.ToolCalls.Errors[0].Message, reason) || s.ToolCalls.Errors[0].Count != 1 {
		t.Errorf("tool_calls %+v, want 1 failed with the server's reason %q", s.ToolCalls, reason)
	}
	r = inspector(t, "run", "--tool", "fanout", "--args", `{"n":-1}`)
	if !strings.Contains(r.stdout, "1×") || !strings.Contains(r.stdout, reason) {
		t.Errorf("the summary table does not list the reason %q:\n%s", reason, r.stdout)
	}
}

// TestCrashedFanoutIsCutShort records a fan-out whose server exits before
// answering any of its 5 requests and reads the recording's summary: the
// requests are aborted, counted apart, in no percentile, and the verdict
// says the run was cut short (it used to say all 5 were served at once).
func TestCrashedFanoutIsCutShort(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "crash.json")
	r := inspector(t, "run", "--stdio", crashServerBin+" -mode crash", "--tool", "fanout", "--latency", "2s", "--record", rec)
	if r.code != exitFailure {
		t.Fatalf("exit %d, want %d\nstderr: %s", r.code, exitFailure, r.stderr)
	}
	r = inspector(t, "report", rec, "--json")
	if r.code != exitOK {
		t.Fatalf("report: exit %d\nstderr: %s", r.code, r.stderr)
	}
	s := summaryOf(t, r)
	if s.ServerRequests.Total != 5 || s.ServerRequests.Aborted != 5 || s.ServerRequests.OK != 0 || s.ServerRequests.Failed != 0 {
		t.Errorf("server_requests %+v, want 5 total, all aborted", s.ServerRequests)
	}
	if s.ServeMS != (recorder.Percentiles{}) || s.QueueMS != (recorder.Percentiles{}) {
		t.Errorf("serve_ms %+v queue_ms %+v, want none: nothing was answered", s.ServeMS, s.QueueMS)
	}
	if s.Verdict != recorder.VerdictNoFanout || !strings.Contains(s.VerdictText, "the run was cut short") {
		t.Errorf("verdict %q: %s; want no-fanout, cut short", s.Verdict, s.VerdictText)
	}
	r = inspector(t, "report", rec)
	if !strings.Contains(r.stdout, "5 aborted (never answered)") {
		t.Errorf("the summary table does not show the aborted requests apart:\n%s", r.stdout)
	}
}

// TestFiguresShowDuplicates checks the table names the ids a server
// reused while their requests were pending, and says when the list was
// cut.
func TestFiguresShowDuplicates(t *testing.T) {
	sum := recorder.Summary{ServerRequests: recorder.RequestCounts{Total: 5, OK: 5, Duplicates: 4, DuplicateIDs: []string{`"dup"`}}}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	writeFigures(tw, sum)
	tw.Flush()
	if !strings.Contains(b.String(), `4 reused the id of a request still pending (ids "dup")`) {
		t.Errorf("the table does not name the reused id:\n%s", b.String())
	}
	ids := make([]string, recorder.MaxDuplicateIDs)
	for i := range ids {
		ids[i] = string(rune('a' + i))
	}
	sum.ServerRequests.Duplicates, sum.ServerRequests.DuplicateIDs = 40, ids
	b.Reset()
	writeFigures(tw, sum)
	tw.Flush()
	if !strings.Contains(b.String(), "40 reused the id of a request still pending (ids a, b, c, d, e, f, g, h, i, j, …)") {
		t.Errorf("the table does not say the list of ids was cut:\n%s", b.String())
	}
}

// TestSummaryTableCallTime checks that the table of a run of several calls
// gives their tail percentiles and throughput, and that of one call does
// not (its single time is the elapsed time).
func TestSummaryTableCallTime(t *testing.T) {
	write := func(sum recorder.Summary) string {
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		writeFigures(tw, sum)
		tw.Flush()
		return b.String()
	}
	sum := recorder.Summary{ToolCalls: recorder.CallCounts{Total: 40}, ThroughputPerS: 12.5,
		CallMS: recorder.TailPercentiles{P50: 10, P90: 20, P99: 30, P999: 45.25, Max: 50}}
	if got, want := write(sum), "p50 10.0  p90 20.0  p99 30.0  p99.9 45.2  max 50.0 ms, 12.5 calls/s"; !strings.Contains(got, "call time") || !strings.Contains(got, want) {
		t.Errorf("table lacks %q:\n%s", want, got)
	}
	sum.ToolCalls.Total = 1
	if got := write(sum); strings.Contains(got, "call time") {
		t.Errorf("one call's table has a call time row:\n%s", got)
	}
}
