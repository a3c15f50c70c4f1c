package recorder_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// A recording of two sampling requests that arrived together and were
// served one after the other.
func ExampleSummarize() {
	rec := recorder.New(recorder.Meta{Title: "example"})
	for i := range 2 {
		s := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
		s.Received, s.Queued = 0, 0
		id := rec.Begin(s)
		start := time.Duration(i) * 500 * time.Millisecond
		rec.Update(id, func(s *recorder.Span) {
			s.Serving, s.Answered, s.Status = start, start+500*time.Millisecond, recorder.StatusOK
		})
	}
	sum := recorder.Summarize(rec.Snapshot())
	fmt.Println(sum.Verdict, sum.PeakInFlight, sum.PeakPending)
	fmt.Println(sum.VerdictText)
	p99, _ := sum.Get("queue_ms.p99")
	fmt.Println(p99)
	// Output:
	// serialized 1 2
	// serialized: 2 requests arrived together and were served one at a time — 1.00 s, 2.0× the concurrent time (0.50 s, the longest serve time among them)
	// 495
}

// A journal keeps a live recording on disk as it grows; LoadFile reads it
// back, even if the process was killed before Close.
func ExampleOpenJournal() {
	dir, _ := os.MkdirTemp("", "journal")
	defer os.RemoveAll(dir)
	rec := recorder.New(recorder.Meta{Title: "journaled"})
	j, err := recorder.OpenJournal(filepath.Join(dir, "run.jsonl"), rec)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := recorder.NewSpan("s1", recorder.Incoming, "roots/list")
	s.Received, s.Queued, s.Serving = rec.Now(), rec.Now(), rec.Now()
	id := rec.Begin(s)
	rec.Update(id, func(s *recorder.Span) { s.Answered, s.Status = rec.Now(), recorder.StatusOK })
	j.Close()

	snap, err := recorder.LoadFile(j.Path())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(snap.Meta.Title, len(snap.Spans), snap.Spans[0].Method)
	// Output: journaled 1 roots/list
}
