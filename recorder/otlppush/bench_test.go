package otlppush_test

import (
	"context"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/otlppush"
	"github.com/fanout-inspector/inspector/recorder/otlppush/otlptest"
)

// BenchmarkPush measures the push end to end: b.N spans recorded, handed
// to the SDK, batched and accepted by a local OTLP/HTTP receiver. Every
// span must arrive (the queue is sized not to drop).
func BenchmarkPush(b *testing.B) {
	c := otlptest.NewCollector(b)
	rec := recorder.New(recorder.Meta{})
	p, err := otlppush.Start(rec, otlppush.Options{Endpoint: c.URL, QueueSize: b.N + 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		now := rec.Now()
		id := rec.Begin(recorder.Span{Direction: recorder.Outgoing, Method: "tools/call", Kind: recorder.KindTool, Name: "echo",
			Received: now, Queued: now, Serving: now, Answered: recorder.Unset})
		rec.End(id, rec.Now(), recorder.Outcome{Status: recorder.StatusOK})
	}
	st := p.Close(context.Background())
	b.StopTimer()
	if st.Pushed != int64(b.N) {
		b.Fatalf("%d of %d spans pushed: %+v", st.Pushed, b.N, st)
	}
}

// BenchmarkSpanFinished is what the push costs the goroutine that ends
// a span: one non-blocking queue send.
func BenchmarkSpanFinished(b *testing.B) {
	rec := recorder.New(recorder.Meta{})
	p, err := otlppush.Start(rec, otlppush.Options{Endpoint: "http://127.0.0.1:1", QueueSize: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	s := &recorder.Span{ID: 1, Method: "ping"}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p.SpanFinished(s)
	}
}
