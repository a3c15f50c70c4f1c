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
		if err == nil && len(snap.Spans) == 520 && snap.Meta.Server == "demo 2.0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s the journal holds %v spans (err %v), want 520", lenSpans(snap), err)
		}
		time.Sleep(JournalFlushInterval / 4)
	}
	want := rec.Snapshot()
	for _, s := range snap.Spans {
		if s.ID == openID {
			t.Fatal("the open span is in the journal")
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
	if len(snap.Spans) != 520 {
		t.Errorf("%d spans after close, want 520", len(snap.Spans))
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
		full, _ := Load(bytes.NewReader(data))
		if got, want := len(snap.Spans)+len(snap.Events), len(full.Spans)+len(full.Events)-1; got != want {
			t.Errorf("cut %d: recovered %d spans and events, want %d (all but the torn line)", cut, got, want)
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
	time.Sleep(2 * JournalFlushInterval) // the ok line reaches the file first
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
