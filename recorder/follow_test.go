package recorder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pollUntil polls t until cond holds of its snapshot, for up to 5 s.
func pollUntil(t *testing.T, tail *Tail, what string, cond func(*Snapshot) bool) *Snapshot {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := tail.Poll(); err != nil {
			t.Fatal(err)
		}
		if snap := tail.Snapshot(); snap != nil && cond(snap) {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s the followed journal still lacks %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTailFollowsAJournal: a journal written by a live recording is read
// as it grows — an open span (growing with the clock), then its end, an
// event, and the journal's end.
func TestTailFollowsAJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.jsonl")
	rec := New(Meta{Title: "followed", Mode: ModeProxy})
	j, err := OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	tail, err := OpenTail(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()

	s := NewSpan("proxy", Incoming, "sampling/createMessage")
	s.Received, s.Queued = rec.Now(), rec.Now()
	id := rec.Begin(s)
	snap := pollUntil(t, tail, "the open span", func(s *Snapshot) bool { return len(s.Spans) == 1 })
	if !snap.Spans[0].Open() || snap.Meta.Title != "followed" || tail.Ended() {
		t.Errorf("span %+v, meta %+v, ended %v: want one open span of the followed recording", *snap.Spans[0], snap.Meta, tail.Ended())
	}
	// Now moves with the clock while a span is open: poll until it has.
	if later := pollUntil(t, tail, "Now to move with the clock while the span is open", func(s *Snapshot) bool { return s.Now > snap.Now }); len(later.Spans) != 1 || !later.Spans[0].Open() {
		t.Errorf("spans %+v: want the one span, still open", later.Spans)
	}

	rec.End(id, rec.Now(), Outcome{Status: StatusOK})
	rec.AddEvent(Event{At: rec.Now(), Session: "proxy", Kind: EventLog, Text: "hello"})
	snap = pollUntil(t, tail, "the span's end and the event", func(s *Snapshot) bool {
		return !s.Spans[0].Open() && len(s.Events) == 1
	})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	snap = pollUntil(t, tail, "the end line", func(*Snapshot) bool { return tail.Ended() })
	if len(snap.Spans) != 1 || snap.Spans[0].Status != StatusOK || snap.Events[0].Text != "hello" {
		t.Errorf("final snapshot %d spans, events %+v", len(snap.Spans), snap.Events)
	}
	saved, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Spans) != len(snap.Spans) || saved.Now != snap.Now {
		t.Errorf("following gave %d spans up to %v, loading the file %d up to %v", len(snap.Spans), snap.Now, len(saved.Spans), saved.Now)
	}
}

// TestTailBadFiles: a torn last line waits for its end; a file that is
// not a journal, a damaged line and a file that shrank are errors that
// say so.
func TestTailBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) *Tail {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		tail, err := OpenTail(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tail.Close() })
		return tail
	}
	head := `{"format":"` + JournalFormat + `","version":1,"meta":{"title":"x","created":"2026-01-01T00:00:00Z"}}` + "\n"

	torn := write("torn", head+`{"event":{"at":1000,"session":"s","kind":"log","te`)
	if _, err := torn.Poll(); err != nil {
		t.Fatalf("torn last line: %v", err)
	}
	if snap := torn.Snapshot(); snap == nil || len(snap.Events) != 0 {
		t.Fatalf("torn last line: want the header and no event yet, got %+v", snap)
	}
	f, _ := os.OpenFile(filepath.Join(dir, "torn"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`xt":"done"}}` + "\n")
	f.Close()
	if _, err := torn.Poll(); err != nil || len(torn.Snapshot().Events) != 1 || torn.Snapshot().Events[0].Text != "done" {
		t.Fatalf("completed line: err %v, events %+v", err, torn.Snapshot().Events)
	}

	for name, c := range map[string]struct{ content, want string }{
		"notjson": {"hello\n", "is not a journal"},
		"damaged": {head + "{oops\n", "is damaged"},
	} {
		if _, err := write(name, c.content).Poll(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
	shrink := write("shrink", head)
	if _, err := shrink.Poll(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "shrink"), []byte("{}\n"), 0o600)
	if _, err := shrink.Poll(); err == nil || !strings.Contains(err.Error(), "shrank") {
		t.Errorf("shrunk file: error %v, want one saying it shrank", err)
	}
}
