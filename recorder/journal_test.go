package recorder

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// record fills rec with n incoming requests from several goroutines.
func record(rec *Recording, n int) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 4 {
				s := NewSpan("live", Incoming, "sampling/createMessage")
				s.Received = rec.Now()
				id := rec.Begin(s)
				rec.Update(id, func(s *Span) { s.Queued = rec.Now() })
				rec.Update(id, func(s *Span) { s.Serving = rec.Now() })
				rec.Update(id, func(s *Span) { s.Answered = rec.Now(); s.Status = StatusOK })
				if i%10 == 0 {
					rec.AddEvent(Event{At: rec.Now(), Session: "live", Kind: EventProgress, Span: id})
				}
			}
		}()
	}
	wg.Wait()
}

func TestJournalRecoversLiveRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := New(Meta{Title: "live", Target: "demo"})
	// Some spans finish before the journal opens: it writes them too.
	record(rec, 20)
	open := NewSpan("live", Outgoing, "tools/call")
	open.Received = rec.Now()
	openID := rec.Begin(open)
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	record(rec, 500)
	rec.SetMeta(func(m *Meta) { m.Server = "demo 2.0" })

	// Without Close (as if the process were killed), everything finished
	// reaches the file within the flush interval.
	deadline := time.Now().Add(5 * time.Second)
	var snap *Snapshot
	for {
		snap, err = LoadFile(path)
		if err == nil && len(snap.Spans) == 521 && snap.Meta.Server == "demo 2.0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s the journal holds %v spans (err %v), want 521", lenSpans(snap), err)
		}
		time.Sleep(JournalFlushInterval / 4)
	}
	want := rec.Snapshot()
	for _, s := range snap.Spans {
		if s.ID == openID && !s.Open() {
			t.Fatalf("the open tool call is not open in the journal: %+v", s)
		}
		if w := want.Spans[s.ID-1]; !sameSpan(w, s) {
			t.Fatalf("span %d differs: got %+v, want %+v", s.ID, s, w)
		}
	}
	if len(snap.Events) != len(want.Events) {
		t.Errorf("%d events in the journal, want %d", len(snap.Events), len(want.Events))
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	// After Close the journal ignores the recording.
	record(rec, 10)
	snap, err = LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Spans) != 521 {
		t.Errorf("%d spans after close, want 521", len(snap.Spans))
	}
	if snap.Now < want.Now-time.Second {
		t.Errorf("loaded Now %v, recording ran to at least %v", snap.Now, want.Now)
	}
}

func lenSpans(s *Snapshot) any {
	if s == nil {
		return "no"
	}
	return len(s.Spans)
}

func sameSpan(a, b *Span) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestJournalTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := New(Meta{Title: "torn"})
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	record(rec, 30)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, cut := range []int{1, 10, len(lines[len(lines)-2]) - 2} {
		// Drop the end mark and tear the last span line after cut bytes.
		torn := strings.Join(lines[:len(lines)-2], "") + lines[len(lines)-2][:cut]
		snap, err := Load(strings.NewReader(torn))
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		// What it gives is what the lines before the torn one hold.
		before, err := Load(strings.NewReader(strings.Join(lines[:len(lines)-2], "")))
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Spans) != len(before.Spans) || len(snap.Events) != len(before.Events) {
			t.Errorf("cut %d: recovered %d spans and %d events, want %d and %d (all but the torn line)",
				cut, len(snap.Spans), len(snap.Events), len(before.Spans), len(before.Events))
		}
		full, _ := Load(bytes.NewReader(data))
		if len(snap.Spans)+len(snap.Events) >= len(full.Spans)+len(full.Events)+1 {
			t.Errorf("cut %d: the torn journal holds more than the whole one", cut)
		}
	}
}

func TestJournalDefaultDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir := DefaultJournalDir()
	if !strings.HasSuffix(dir, filepath.Join("fanout-inspector", "journal")) {
		t.Errorf("DefaultJournalDir() = %q", dir)
	}
	rec := New(Meta{})
	j, err := OpenJournal("", rec)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if filepath.Dir(j.Path()) != dir {
		t.Errorf("journal at %q, want it in %q", j.Path(), dir)
	}
	// A second journal never overwrites the first.
	if _, err := OpenJournal(j.Path(), rec); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("opening an existing journal file: err = %v, want one that says it exists", err)
	}
}

// TestJournalIsPrivate: a journal is written 0600 in a folder made 0700,
// and a default folder an older version made 0755 is narrowed.
func TestJournalIsPrivate(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir := DefaultJournalDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	j, err := OpenJournal("", New(Meta{}))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for path, want := range map[string]os.FileMode{j.Path(): 0o600, dir: 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
	fresh := filepath.Join(t.TempDir(), "a", "b")
	if err := MakeJournalDir(fresh); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{fresh, filepath.Dir(fresh)} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
}

func TestJournalFlushesPromptly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := New(Meta{})
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	s := NewSpan("s", Incoming, "ping")
	s.Received, s.Queued, s.Serving = rec.Now(), rec.Now(), rec.Now()
	id := rec.Begin(s)
	rec.Update(id, func(s *Span) { s.Answered, s.Status = rec.Now(), StatusOK })
	start := time.Now()
	for {
		data, _ := os.ReadFile(path)
		if bytes.Contains(data, []byte(`"span":{"id":1,`)) {
			break
		}
		// The bound is JournalFlushInterval (a ticker at half of it); allow
		// ten times that on a busy machine.
		if time.Since(start) > 10*JournalFlushInterval {
			t.Fatalf("the finished span is not in the journal after %v", time.Since(start))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestJournalKeepsChangesAfterEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := New(Meta{})
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSpan("s", Incoming, "sampling/createMessage")
	s.Received, s.Queued, s.Serving = 1, 2, 3
	id := rec.Begin(s)
	rec.Update(id, func(s *Span) { s.Answered, s.Status = 4, StatusOK })
	// The ok line reaches the file first: poll it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(JournalFlushInterval / 4) {
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(`"status":"ok"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ok line did not reach the journal within 10 s")
		}
	}
	rec.Update(id, func(s *Span) { s.Status, s.Error = StatusAborted, "the answer could not be sent" })
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Spans) != 1 || snap.Spans[0].Status != StatusAborted {
		t.Errorf("journal gives %+v, want the one span, aborted", snap.Spans[0])
	}
}

func TestJournalShowsWhatWasInFlight(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := New(Meta{})
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	// Three requests: one answered, one being served, one still queued,
	// as a run killed mid fan-out leaves them.
	var ids []SpanID
	for range 3 {
		s := NewSpan("s", Incoming, "sampling/createMessage")
		s.Received, s.Queued = 1, 1
		ids = append(ids, rec.Begin(s))
	}
	rec.Update(ids[0], func(s *Span) { s.Serving = 2 })
	rec.Update(ids[0], func(s *Span) { s.Answered, s.Status = 3, StatusOK })
	rec.Update(ids[1], func(s *Span) { s.Serving = 3 })
	var snap *Snapshot
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(JournalFlushInterval / 4) {
		snap, err = LoadFile(path)
		if err == nil && len(snap.Spans) == 3 && snap.Spans[1].Serving == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journal does not show the three requests: %v, %v", lenSpans(snap), err)
		}
	}
	if s := snap.Spans[0]; s.Status != StatusOK {
		t.Errorf("answered request: %+v", s)
	}
	if s := snap.Spans[1]; !s.Open() || s.Serving != 3 {
		t.Errorf("request being served: %+v", s)
	}
	if s := snap.Spans[2]; !s.Open() || s.Serving != Unset {
		t.Errorf("queued request: %+v", s)
	}
	if sum := Summarize(snap); sum.PeakPending != 3 {
		t.Errorf("peak pending %d from the journal, want 3", sum.PeakPending)
	}
}
