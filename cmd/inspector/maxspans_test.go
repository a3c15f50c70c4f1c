package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestRunMaxSpans: 2,000 calls recorded with --max-spans 200 keep about
// 200 spans, and the summary, printed and reopened from the recording,
// still counts all 2,000 and says what was kept.
func TestRunMaxSpans(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "run.json")
	r := inspector(t, "run", "--tool", "echo", "--args", `{"text":"x"}`, "--calls", "2000", "--concurrency", "20",
		"--max-spans", "200", "--json", "--record", rec, "--assert", "tool_calls.total==2000", "--assert", "tool_calls.ok==2000")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	s := summaryOf(t, r)
	if s.Sampled == nil || s.Sampled.Kept > 400 || s.Sampled.Spans < 2000 ||
		!strings.HasSuffix(s.Sampled.Note, " spans; statistics are exact") {
		t.Fatalf("summary says sampled %+v: want about 200 kept of 2,000 and more", s.Sampled)
	}
	snap, err := recorder.LoadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	again := recorder.Summarize(snap)
	if again.ToolCalls.Total != 2000 || again.CallMS != s.CallMS || again.Sampled == nil || again.Sampled.Note != s.Sampled.Note {
		t.Errorf("reopened: %d calls, call_ms %+v, sampled %+v; want 2000, %+v, %+v", again.ToolCalls.Total, again.CallMS, again.Sampled, s.CallMS, s.Sampled)
	}
	if b, _ := os.ReadFile(rec); !strings.Contains(string(b), `"version":3`) {
		t.Error("the sampled recording is not version 3")
	}

	r = inspector(t, "report", rec)
	if r.code != exitOK || !strings.Contains(r.stdout, s.Sampled.Note+" (--max-spans)") ||
		!strings.Contains(r.stdout, fmt.Sprintf("%d requests (a sample of %d)", s.Sampled.Kept, s.Sampled.Spans)) {
		t.Errorf("report (exit %d) does not say what was sampled:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := inspector(t, "run", "--max-spans", "-1"); r.code != exitUsage || !strings.Contains(r.stderr, "--max-spans -1: want 0") {
		t.Errorf("--max-spans -1: exit %d, %s", r.code, r.stderr)
	}
}
