package app

import (
	"context"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/otlppush"
	"github.com/fanout-inspector/inspector/recorder/otlppush/otlptest"
)

// TestBridgeOnRecording: the app's live recording reaches OnRecording
// (how `inspector gui --otlp-endpoint` pushes it), and the function it
// returned runs when the connection closes: a fan-out run in the app
// arrives at the collector, all of it, by the time Disconnect returns.
func TestBridgeOnRecording(t *testing.T) {
	c := otlptest.NewCollector(t)
	b := newBridge(engine.DefaultAnswerPolicy())
	b.journalDir = ""
	var stats otlppush.Stats
	var rec *recorder.Recording
	b.onRecording = func(r *recorder.Recording) func() {
		rec = r
		p, err := otlppush.Start(r, otlppush.Options{Endpoint: c.URL})
		if err != nil {
			t.Fatal(err)
		}
		return func() { stats = p.Close(context.Background()) }
	}
	done := make(chan error, 1)
	b.onRunDone = func(_ load.RunResult, err error) { done <- err }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.Connect(ctx, engine.Target{}); err != nil {
		t.Fatal(err)
	}
	if rec == nil {
		t.Fatal("OnRecording was not called on Connect")
	}
	if err := b.Run(load.Workload{Tool: "fanout", Args: []byte(`{"n":3}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
	}
	if err := b.disconnect(); err != nil {
		t.Fatal(err)
	}
	n := int64(len(rec.Snapshot().Spans))
	spans, _, _ := c.Received()
	if n < 4 || stats.Spans != n || stats.Pushed != n || int64(len(spans)) != n {
		t.Errorf("recording %d spans, stats %+v, collector %d spans: want the whole run pushed by Disconnect", n, stats, len(spans))
	}
}
