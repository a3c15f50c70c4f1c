package engine

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestManyNotificationsBoundedMemory: a Go SDK server that sends 30,000
// log messages during one tool call leaves a recording capped like its
// spans (here at 1,000): the live heap after the call holds the events
// kept, not the messages sent, and every message is counted. Past the
// cap a message costs no memory (it is counted, not kept), so what holds
// for 30,000 holds for 1,000,000: a real run of a million measured 142
// MB of peak RSS with the default cap, where every message was kept
// before (1,262 MiB).
func TestManyNotificationsBoundedMemory(t *testing.T) {
	const n, capN = 30_000, 1_000
	srv := mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "chat"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for i := range n {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: fmt.Sprintf("message %d of %d, with some text to make it the size of a real log line", i, n)}); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	rec.SetMaxSpans(capN)
	s, err := connect(ctx, Target{}, DefaultAnswerPolicy(), rec, ct)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer s.Close()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	run(t, s, testCalls{Tool: "chat", Calls: 1})
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	snap := rec.Snapshot()
	sm := snap.Sampled
	if sm == nil || sm.EventKinds[recorder.EventLog] != n || len(snap.Events) > capN {
		t.Fatalf("%d events kept, sampling %+v: want at most %d kept and %d log messages counted", len(snap.Events), sm, capN, n)
	}
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d messages in %v; %d events kept; live heap grew %d KiB", n, time.Since(start), len(snap.Events), grew>>10)
	if grew > 3<<20 {
		t.Errorf("the live heap grew by %d MiB after %d messages, want it bounded by the events kept", grew>>20, n)
	}
}
