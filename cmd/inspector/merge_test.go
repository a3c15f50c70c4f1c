package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestMergeOfThreeProcesses is the load test past one machine, on one:
// three `inspector run` processes call the demo's echo tool 200 times
// each, 10 at a time, at about the same time; `report --merge` of their
// recordings (one read from its journal) gives the sum of their counts,
// the percentiles of all their calls together, one timeline over the
// union of their wall-clock intervals and one process row per source.
func TestMergeOfThreeProcesses(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var cmds []*exec.Cmd
	for _, name := range []string{"a", "b", "c"} {
		args := []string{"run", "--tool", "echo", "--calls", "200", "--concurrency", "10", "--record", filepath.Join(dir, name+".json")}
		if name == "c" {
			args = append(args, "--journal", filepath.Join(dir, "c.jsonl"))
		}
		cmd := exec.CommandContext(ctx, inspectorBin, args...)
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s stderr: %s", name, errb.String())
			}
		})
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %v", cmd.Args, err)
		}
	}
	// c is merged from its journal: what a killed generator leaves.
	paths := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.jsonl")}
	var sources []*recorder.Snapshot
	for _, p := range paths {
		snap, err := recorder.LoadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, snap)
	}

	merged := filepath.Join(dir, "merged.json")
	trace := filepath.Join(dir, "merged.trace.json")
	r := inspector(t, append([]string{"report", "--merge"}, append(paths, "--save", merged, "--trace", trace, "--json")...)...)
	if r.code != exitOK {
		t.Fatalf("report --merge: exit %d\nstderr: %s", r.code, r.stderr)
	}
	var out reportJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("report --merge --json: %v\n%s", err, r.stdout)
	}

	// Counts are the sums of the sources'.
	var calls, ok, requests, spans int
	for _, s := range sources {
		sum := recorder.Summarize(s)
		calls, ok, requests, spans = calls+sum.ToolCalls.Total, ok+sum.ToolCalls.OK, requests+sum.ToolCalls.Requests, spans+len(s.Spans)
	}
	if got := out.ToolCalls; got.Total != calls || got.OK != ok || got.Requests != requests || calls != 600 {
		t.Errorf("merged tool calls: total %d ok %d requests %d; want the sums %d, %d, %d (600 calls)", got.Total, got.OK, got.Requests, calls, ok, requests)
	}
	if len(out.Merged) != 3 || out.Merged[2].Name != "c" {
		t.Fatalf("merged sources %+v, want a, b and c", out.Merged)
	}

	// Percentiles are those of the 600 calls' raw times together. The
	// reference is computed here from the spans; whatever definition of
	// a percentile the summary uses (nearest rank, interpolated, an HDR
	// histogram's 3 significant digits), it lies between the times
	// ranked next to q·n, and the max is the max.
	var durs []float64
	for _, s := range sources {
		for _, sp := range s.Spans {
			if sp.Direction == recorder.Outgoing && sp.Kind == recorder.KindTool && sp.Status == recorder.StatusOK {
				durs = append(durs, float64(sp.Answered-sp.Received)/float64(time.Millisecond))
			}
		}
	}
	slices.Sort(durs)
	n := len(durs)
	within := func(name string, got, lo, hi float64) {
		t.Helper()
		slack := 0.001*hi + 0.001 // 0.1%, and the summary's rounding to the microsecond
		if got < lo-slack || got > hi+slack {
			t.Errorf("merged %s = %.3f ms, want between %.3f and %.3f ms (the times ranked around it among all %d calls)", name, got, lo, hi, n)
		}
	}
	d := out.ToolCalls.DurationMS
	for _, p := range []struct {
		name string
		q    float64
		got  float64
	}{{"p50", 0.50, d.P50}, {"p90", 0.90, d.P90}, {"p99", 0.99, d.P99}} {
		rank := int(math.Ceil(p.q * float64(n))) // 1-based
		within("duration_ms."+p.name, p.got, durs[max(rank-2, 0)], durs[min(rank, n-1)])
	}
	within("duration_ms.max", d.Max, durs[n-1], durs[n-1])

	// One timeline over the union of the three wall-clock intervals.
	m, err := recorder.LoadFile(merged)
	if err != nil {
		t.Fatalf("the merge saved with --save does not load: %v", err)
	}
	start, end := sources[0].Meta.Created, sources[0].Meta.Created.Add(sources[0].Now)
	for _, s := range sources[1:] {
		if s.Meta.Created.Before(start) {
			start = s.Meta.Created
		}
		if e := s.Meta.Created.Add(s.Now); e.After(end) {
			end = e
		}
	}
	if !m.Meta.Created.Equal(start) || m.Meta.Created.Add(m.Now) != end {
		t.Errorf("merged timeline %v + %v, want the union of the sources' intervals: %v to %v", m.Meta.Created, m.Now, start, end)
	}
	for i, name := range []string{"a", "b", "c"} {
		src := sources[i]
		shift := src.Meta.Created.Sub(start)
		var first *recorder.Span
		for _, sp := range m.Spans {
			if sp.Session == name+":s1" {
				first = sp
				break
			}
		}
		if first == nil {
			t.Errorf("no span of session %s:s1 in the merge", name)
		} else if first.Received != src.Spans[0].Received+shift {
			t.Errorf("%s's first request at %v of the merge, want it at its own %v + %v (its start after the earliest)", name, first.Received, src.Spans[0].Received, shift)
		}
	}

	// One process row per source: sessions a:s1, b:s1, c:s1, 200 calls
	// each, and a process of that name in the Chrome trace.
	perSession := map[string]int{}
	for _, sp := range m.Spans {
		if sp.Kind == recorder.KindTool {
			perSession[sp.Session]++
		}
	}
	if len(perSession) != 3 || perSession["a:s1"] != 200 || perSession["b:s1"] != 200 || perSession["c:s1"] != 200 {
		t.Errorf("tool calls by session %v, want 200 on each of a:s1, b:s1, c:s1", perSession)
	}
	tr, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a:s1", "b:s1", "c:s1"} {
		if !strings.Contains(string(tr), `"name":"session `+name+`"`) {
			t.Errorf("the Chrome trace of the merge has no process %q", "session "+name)
		}
	}
	if len(m.Runs) != 3 || !strings.HasPrefix(m.Runs[0].Name, m.Runs[0].Sessions[0][:1]+": ") {
		t.Errorf("runs %+v, want one per source, named after it", m.Runs)
	}
}

// TestMergeErrors: a file that cannot be read is named (all of them at
// once), --merge with --compare is refused, and one recording is
// reported as it is with a note.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if r := inspector(t, "run", "--tool", "echo", "--calls", "3", "--record", good); r.code != exitOK {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("not json\n"), 0o600)
	missing := filepath.Join(dir, "missing.json")

	r := inspector(t, "report", "--merge", good, missing, bad)
	if r.code != exitFailure || !strings.Contains(r.stderr, "missing.json") || !strings.Contains(r.stderr, "bad.json") {
		t.Errorf("merge with unreadable files: exit %d, stderr %q; want 1 naming missing.json and bad.json", r.code, r.stderr)
	}
	r = inspector(t, "report", "--merge", good, good, "--compare", good)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--merge and --compare") {
		t.Errorf("--merge --compare: exit %d, stderr %q; want 2 saying they do not go together", r.code, r.stderr)
	}
	r = inspector(t, "report", "--merge", good, "--json")
	if r.code != exitOK || !strings.Contains(r.stderr, "nothing to merge") || summaryOf(t, r).ToolCalls.Total != 3 {
		t.Errorf("--merge of one: exit %d, stderr %q, stdout %s; want 0, a note and the recording's 3 calls", r.code, r.stderr, r.stdout)
	}
	r = inspector(t, "report", "--merge", good, good)
	if r.code != exitOK || !strings.Contains(r.stdout, "source good-2") || !strings.Contains(r.stdout, "6 total") || strings.Contains(r.stderr, "overlaps none") {
		t.Errorf("--merge of a file with itself: exit %d\n%s%s\nwant sources good and good-2, 6 calls, and no note (they overlap)", r.code, r.stdout, r.stderr)
	}
}
