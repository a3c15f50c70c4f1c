package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestJournalSurvivesSIGKILL kills a headless run with SIGKILL in the middle
// of a serial fan-out and recovers its journal: every request that had
// finished half a second before the kill must be in it, answered, and the
// requests still waiting must be there too, open.
func TestJournalSurvivesSIGKILL(t *testing.T) {
	const (
		n       = 20
		latency = 150 * time.Millisecond
	)
	journal := filepath.Join(t.TempDir(), "run.jsonl")
	cmd := exec.Command(inspectorBin, "run", "--journal", journal,
		"--tool", "fanout", "--args", `{"n":20,"kind":"sampling"}`,
		"--dispatch", "serial", "--latency", latency.String())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	// Wait until the journal shows a third of the answers, so the kill
	// lands mid-run whatever the machine's speed: by what the run did, not
	// by a fixed time.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if snap, err := recorder.LoadFile(journal); err == nil && answered(snap) >= n/3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journal did not show %d answered requests within 30 s", n/3)
		}
		time.Sleep(20 * time.Millisecond) // polling the file, with the deadline above
	}
	killedAt := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	snap, err := recorder.LoadFile(journal)
	if err != nil {
		t.Fatalf("recovering the journal of a killed run: %v", err)
	}
	kill := killedAt.Sub(snap.Meta.Created)

	var incoming []*recorder.Span
	var lastAnswer time.Duration
	for _, s := range snap.Spans {
		if s.Direction != recorder.Incoming {
			continue
		}
		incoming = append(incoming, s)
		if s.Status == recorder.StatusOK {
			lastAnswer = max(lastAnswer, s.Answered)
		}
	}
	if len(incoming) != n {
		t.Fatalf("the journal has %d of the %d sampling requests that had arrived", len(incoming), n)
	}
	done := answered(snap)
	if done == n {
		t.Fatalf("all %d requests were answered before the kill at %v: the run was not killed mid-run", n, kill)
	}
	// Served one at a time, the request after the last one in the journal
	// would have been answered one latency later. If that moment lies more
	// than half a second (plus a little scheduling slack) before the kill,
	// the journal lost an answer it should have kept.
	if next := lastAnswer + latency; next < kill-500*time.Millisecond-50*time.Millisecond {
		t.Errorf("the journal's last answer is at %v, the next would have come at %v, but the kill was at %v: answers older than half a second were lost",
			lastAnswer, next, kill)
	}
	t.Logf("killed at %v; journal holds %d answered and %d open requests, last answer at %v", kill, done, n-done, lastAnswer)

	// The command line reads the journal like a recording.
	out, err := exec.Command(inspectorBin, "report", journal, "--json").Output()
	if err != nil {
		t.Fatalf("inspector report on the journal: %v", err)
	}
	var sum recorder.Summary
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("report --json output: %v\n%s", err, out)
	}
	if sum.ServerRequests.Total != n || sum.ServerRequests.OK != done {
		t.Errorf("report on the journal: %d requests, %d ok; want %d and %d", sum.ServerRequests.Total, sum.ServerRequests.OK, n, done)
	}
}

// answered counts the incoming requests answered successfully.
func answered(snap *recorder.Snapshot) int {
	k := 0
	for _, s := range snap.Spans {
		if s.Direction == recorder.Incoming && s.Status == recorder.StatusOK {
			k++
		}
	}
	return k
}

// TestJournalOffWritesNone: --journal off means no journal for run, as it
// does for proxy, not a journal in a file named off.
func TestJournalOffWritesNone(t *testing.T) {
	dir := t.TempDir()
	r := inspectorIn(t, dir, nil, "run", "--tool", "fanout", "--args", `{"n":1}`, "--latency", "1ms", "--journal", "off")
	if r.code != 0 {
		t.Fatalf("run --journal off: exit %d\n%s", r.code, r.stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("run --journal off wrote %s in its folder", e.Name())
	}
}
