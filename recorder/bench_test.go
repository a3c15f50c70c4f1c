package recorder

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkAppend is the recorder's cost per span as the engine pays it:
// Begin and three Updates (queued, serving, answered).
func BenchmarkAppend(b *testing.B) {
	rec := New(Meta{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := NewSpan("s", Incoming, "sampling/createMessage")
		s.Received = 1
		id := rec.Begin(s)
		rec.Update(id, func(s *Span) { s.Queued = 2 })
		rec.Update(id, func(s *Span) { s.Serving = 3 })
		rec.Update(id, func(s *Span) { s.Answered = 4; s.Status = StatusOK })
	}
}

// BenchmarkAppendCapped is BenchmarkAppend on a recording capped at
// [DefaultMaxSpans] spans, as `inspector run` makes: past the cap the
// spans are sampled and every one is folded into the totals.
func BenchmarkAppendCapped(b *testing.B) {
	rec := New(Meta{})
	rec.SetMaxSpans(DefaultMaxSpans)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := NewSpan("s", Outgoing, "tools/call")
		s.Received, s.Queued, s.Serving = time.Duration(i)*time.Microsecond, time.Duration(i)*time.Microsecond, time.Duration(i)*time.Microsecond
		id := rec.Begin(s)
		rec.End(id, time.Duration(i+500)*time.Microsecond, Outcome{Status: StatusOK})
	}
}

// BenchmarkAppendJournaled is BenchmarkAppend with a journal following the
// recording: the engine's extra cost is queueing the finished span; the
// journal's goroutine encodes and writes it.
func BenchmarkAppendJournaled(b *testing.B) {
	rec := New(Meta{})
	j, err := OpenJournal(filepath.Join(b.TempDir(), "bench.jsonl"), rec)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := NewSpan("s", Incoming, "sampling/createMessage")
		s.Received = 1
		id := rec.Begin(s)
		rec.Update(id, func(s *Span) { s.Queued = 2 })
		rec.Update(id, func(s *Span) { s.Serving = 3 })
		rec.Update(id, func(s *Span) { s.Answered = 4; s.Status = StatusOK })
	}
	if err := j.Close(); err != nil { // includes writing what is left
		b.Fatal(err)
	}
}

// BenchmarkSnapshot is the cost of one snapshot of a live recording.
func BenchmarkSnapshot(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rec := New(Meta{})
			for range n {
				s := NewSpan("s", Incoming, "ping")
				rec.Begin(s)
			}
			b.ReportAllocs()
			for b.Loop() {
				rec.Snapshot()
			}
		})
	}
}

// BenchmarkExport is saving, loading and summarizing a 100,000-span
// recording; "bytes" is the size of the output. The exports to other
// formats are benchmarked in package export.
func BenchmarkExport(b *testing.B) {
	snap := loadSnapshot(100_000, 1)
	var saved bytes.Buffer
	Save(&saved, snap)
	exports := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"save", func(w io.Writer) error { return Save(w, snap) }},
		{"load", func(io.Writer) error { _, err := loadBytes(saved.Bytes()); return err }},
		{"summarize", func(io.Writer) error { Summarize(snap); return nil }},
	}
	for _, e := range exports {
		b.Run(e.name, func(b *testing.B) {
			var out countingWriter
			for b.Loop() {
				out = 0
				if err := e.write(&out); err != nil {
					b.Fatal(err)
				}
			}
			if out > 0 {
				b.ReportMetric(float64(out), "bytes")
			}
		})
	}
}

// countingWriter counts the bytes written to it and keeps none, so that
// export benchmarks measure the export, not a growing buffer.
type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
