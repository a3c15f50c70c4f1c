package recorder

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// twoRuns is a recording of two runs on one connection: a serial one
// (three requests one after another) and a concurrent one (three at
// once), with an idle gap between them.
func twoRuns() *Snapshot {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var spans []*Span
	add := func(parent SpanID, dir Direction, method string, recv, from, to int) SpanID {
		s := NewSpan("s1", dir, method)
		s.ID, s.Parent = SpanID(len(spans)+1), parent
		s.Received, s.Queued, s.Serving, s.Answered = ms(recv), ms(recv), ms(from), ms(to)
		s.Status = StatusOK
		spans = append(spans, &s)
		return s.ID
	}
	call := add(0, Outgoing, "tools/call", 100, 100, 1000)
	for i := range 3 { // served one after another
		add(call, Incoming, "sampling/createMessage", 150, 150+300*i, 150+300*(i+1))
	}
	call = add(0, Outgoing, "tools/call", 5000, 5000, 5400)
	for range 3 { // served at once
		add(call, Incoming, "sampling/createMessage", 5050, 5050, 5350)
	}
	return &Snapshot{
		Meta:   Meta{Target: "demo"},
		Spans:  spans,
		Events: []Event{{At: ms(500), Kind: EventProgress}, {At: ms(5100), Kind: EventProgress}},
		Runs: []Run{
			{Name: "Run 1", Start: ms(90), End: ms(1010), Tool: "fanout", Dispatch: "serial"},
			{Name: "Run 2", Start: ms(4990), End: ms(5410), Tool: "fanout", Dispatch: "concurrent"},
		},
		Now: ms(9000),
	}
}

func TestSegmentHoldsOnlyItsRun(t *testing.T) {
	snap := twoRuns()
	for _, c := range []struct {
		run                      Run
		spans, events            int
		verdict                  string
		elapsedMS, firstReceived float64
	}{
		{snap.Runs[0], 4, 1, VerdictSerialized, 900, 10},
		{snap.Runs[1], 4, 1, VerdictConcurrent, 400, 10},
	} {
		t.Run(c.run.Name, func(t *testing.T) {
			seg := snap.Segment(c.run)
			if len(seg.Spans) != c.spans || len(seg.Events) != c.events {
				t.Fatalf("segment has %d spans and %d events, want %d and %d", len(seg.Spans), len(seg.Events), c.spans, c.events)
			}
			if got := float64(seg.Spans[0].Received) / float64(time.Millisecond); got != c.firstReceived {
				t.Errorf("first span received at %v ms of the run, want %v (offsets count from the run's start)", got, c.firstReceived)
			}
			if want := c.run.End - c.run.Start; seg.Now != want {
				t.Errorf("segment Now %v, want the run's length %v", seg.Now, want)
			}
			sum := Summarize(seg)
			if sum.Verdict != c.verdict || sum.ElapsedMS != c.elapsedMS {
				t.Errorf("segment summary: verdict %q elapsed %v ms, want %q and %v ms", sum.Verdict, sum.ElapsedMS, c.verdict, c.elapsedMS)
			}
			if seg.Meta.Title != c.run.Label() {
				t.Errorf("segment title %q, want the run's label %q", seg.Meta.Title, c.run.Label())
			}
		})
	}
	if whole := Summarize(snap); whole.Verdict == VerdictConcurrent && whole.ElapsedMS < 5000 {
		t.Errorf("the whole session should not read like its last run: %+v", whole)
	}
	if snap.Spans[1].Received != 150*time.Millisecond {
		t.Error("Segment changed the snapshot's spans")
	}
}

func TestRecordingRuns(t *testing.T) {
	rec := New(Meta{})
	first := rec.BeginRun("fanout", "serial")
	s := NewSpan("s", Outgoing, "tools/call")
	s.Received = rec.Now()
	rec.Begin(s)
	rec.EndRun(first)
	second := rec.BeginRun("fanout", "concurrent")
	snap := rec.Snapshot()
	if first != 1 || second != 2 || len(snap.Runs) != 2 {
		t.Fatalf("runs %d and %d, snapshot has %d, want 1, 2 and 2", first, second, len(snap.Runs))
	}
	if snap.Runs[0].Open() || !snap.Runs[1].Open() {
		t.Errorf("run 1 open %v, run 2 open %v: want ended and going on", snap.Runs[0].Open(), snap.Runs[1].Open())
	}
	if got := snap.LatestRun().Label(); got != "Run 2 · fanout · concurrent" {
		t.Errorf("latest run %q", got)
	}
	if n := len(snap.Segment(snap.Runs[0]).Spans); n != 1 {
		t.Errorf("run 1 holds %d spans, want its one call", n)
	}
	if n := len(snap.Segment(snap.Runs[1]).Spans); n != 0 {
		t.Errorf("run 2 holds %d spans, want none (the call was made in run 1)", n)
	}
	rec.EndRun(second)
	if again := rec.Snapshot(); again.Runs[1].Open() || !snap.Runs[1].Open() {
		t.Error("EndRun must end the run in the recording and leave earlier snapshots as they were")
	}
	// beginning a run while one is open ends the open one
	rec.BeginRun("a", "")
	rec.BeginRun("b", "")
	if runs := rec.Snapshot().Runs; runs[2].Open() || !runs[3].Open() {
		t.Errorf("runs after two begins: %+v", runs[2:])
	}
}

func TestRunsSaveAndLoad(t *testing.T) {
	snap := twoRuns()
	snap.Runs = append(snap.Runs, Run{Name: "Run 3", Start: 8000 * time.Millisecond, End: Unset, Tool: "echo"})
	var buf bytes.Buffer
	if err := Save(&buf, snap); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n\"runs\":[\n{\"name\":\"Run 1\"") {
		t.Errorf("the runs are not written one a line after the header:\n%s", buf.String()[:300])
	}
	got, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]Run(nil), snap.Runs...)
	want[2].End = snap.Now // saved mid-run: it ends where the file does
	if !reflect.DeepEqual(got.Runs, want) {
		t.Errorf("loaded runs\n %+v\nwant\n %+v", got.Runs, want)
	}

	// A file without runs (written before they existed) is one run.
	snap.Runs = nil
	buf.Reset()
	if err := Save(&buf, snap); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"runs"`) {
		t.Error(`a recording without runs should not write "runs"`)
	}
	old, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	runs := old.RunList()
	if len(runs) != 1 || len(old.Segment(runs[0]).Spans) != len(snap.Spans) {
		t.Errorf("an old file's runs %+v: want one implicit run over every span", runs)
	}

	bad := strings.Replace(string(mustSave(t, twoRuns())), `"end":1010000000`, `"end":5`, 1)
	if _, err := Load(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "ends before it starts") {
		t.Errorf("a run ending before it starts: %v", err)
	}
}

func mustSave(t *testing.T, snap *Snapshot) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Save(&buf, snap); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkSegment is restricting a 10,000-span recording to a run that
// holds half of it, then summarizing the run: what a live view does each
// frame for its stats.
func BenchmarkSegment(b *testing.B) {
	snap := loadSnapshot(10_000, 1)
	run := Run{Name: "Run 1", Start: snap.Spans[len(snap.Spans)/2].Received, End: Unset}
	b.Run("segment", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			snap.Segment(run)
		}
	})
	b.Run("segment+summarize", func(b *testing.B) {
		for b.Loop() {
			Summarize(snap.Segment(run))
		}
	})
	b.Run("summarize whole", func(b *testing.B) {
		for b.Loop() {
			Summarize(snap)
		}
	})
}

// TestSegmenterFollowsALiveRun segments a live recording frame by frame,
// as the live view does, and checks that each segment is what Segment
// makes of that snapshot, and that it copied only what changed: an
// answered span keeps its copy from one frame to the next.
func TestSegmenterFollowsALiveRun(t *testing.T) {
	rec := New(Meta{Title: "live"})
	rec.Begin(NewSpan("s1", Outgoing, "initialize")) // before the run: left out
	rec.BeginRun("echo", "concurrent")
	var g Segmenter
	var open []SpanID
	var prev *Snapshot
	for frame := range 30 {
		for _, id := range open[:len(open)/2] { // the older half is answered
			rec.Update(id, func(s *Span) { s.Answered, s.Status = rec.Now(), StatusOK })
		}
		open = open[len(open)/2:]
		for range 5 {
			s := NewSpan("s1", Outgoing, "tools/call")
			s.Kind, s.Name, s.Received = KindTool, "echo", rec.Now()
			open = append(open, rec.Begin(s))
		}
		snap := rec.Snapshot()
		run := snap.LatestRun()
		got, want := g.Segment(snap, run), snap.Segment(run)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("frame %d: the segment differs from Segment's: %d spans, want %d", frame, len(got.Spans), len(want.Spans))
		}
		if prev != nil && !prev.Spans[0].Open() {
			if a, b := prev.Spans[0], got.Spans[0]; a != b {
				t.Fatalf("frame %d: the first call, answered long ago, was copied again", frame)
			}
		}
		prev = got
	}
	if n := len(prev.Spans); n != 150 {
		t.Errorf("the last segment holds %d spans, want the run's 150 calls", n)
	}
}
