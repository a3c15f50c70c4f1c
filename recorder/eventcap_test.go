package recorder

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// countingObserver counts the events it is told of.
type countingObserver struct{ events int }

func (o *countingObserver) SpanFinished(*Span) {}
func (o *countingObserver) EventAdded(Event)   { o.events++ }

// TestEventsCapped: 1,000,000 log messages into a recording capped at
// 10,000 keep about 10,000 events, spread over the whole run, in memory
// that does not grow with the messages; the counts by kind stay exact
// and the note says how many were kept; an observer (the journal) hears
// of a bounded number. Without the cap every message was kept (1,262
// MiB for a million of them in a real run).
func TestEventsCapped(t *testing.T) {
	const n, capN = 1_000_000, 10_000
	rec := New(Meta{})
	rec.SetMaxSpans(capN)
	obs := &countingObserver{}
	rec.Observe(obs)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		rec.AddEvent(Event{At: time.Duration(i) * time.Microsecond, Session: "s", Kind: EventLog, Method: "notifications/message",
			Data: json.RawMessage(fmt.Sprintf(`{"level":"info","data":"message %d of a million, padded to a realistic size"}`, i))})
	}
	rec.AddEvent(Event{At: n * time.Microsecond, Session: "s", Kind: EventStderr, Text: "last words"})
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	snap := rec.Snapshot()
	if k := len(snap.Events); k > capN || k < capN/2 {
		t.Errorf("%d events kept, want between %d and %d", k, capN/2, capN)
	}
	if sm := snap.Sampled; sm == nil || sm.Events != n+1 || sm.EventKinds[EventLog] != n || sm.EventKinds[EventStderr] != 1 || sm.EventsKept != len(snap.Events) {
		t.Fatalf("sampling %+v, want %d events counted (%d log, 1 stderr) and %d kept", sm, n+1, n, len(snap.Events))
	}
	if note := snap.Sampled.Note(); !strings.Contains(note, fmt.Sprintf("kept %s of 1,000,001 events", thousands(len(snap.Events)))) {
		t.Errorf("note %q does not say how many events were kept", note)
	}
	if snap.Events[capN/2-1].At != (capN/2-1)*time.Microsecond {
		t.Errorf("the first half of the cap is not kept as it came: event %d at %v", capN/2-1, snap.Events[capN/2-1].At)
	}
	if last := snap.Events[len(snap.Events)-1].At; last < n*time.Microsecond*9/10 {
		t.Errorf("the last event kept is at %v: the sample does not reach the end of the run", last)
	}
	if sum := Summarize(snap); sum.Dropped != 0 || sum.Sampled == nil || !strings.Contains(sum.Sampled.Note, "events") {
		t.Errorf("summary: dropped %d, sampled %+v; want no drops and a note on the events kept", sum.Dropped, sum.Sampled)
	}
	if obs.events > 10*capN {
		t.Errorf("the observer heard of %d events, want a bound near the cap", obs.events)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 50<<20 {
		t.Errorf("the heap grew by %d MiB for a recording of %d events", grew>>20, len(snap.Events))
	}
	t.Logf("kept %d events; observer heard %d; heap grew %d KiB", len(snap.Events), obs.events, (int64(after.HeapAlloc)-int64(before.HeapAlloc))>>10)
}
