package proxy

import (
	"context"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioBooksRequestBeforeItsAnswer: a server that answers at once
// (the demo's echo tool, or the last round of a 2026-07-28 call) must
// not have its answer booked before the request it answers. A pump that
// wrote a message on before booking it (or handing it to the bookkeeper)
// let the other direction's pump read and book the answer first: the
// answer was then dropped as "no pending request" and the request left
// open, ended as aborted when the session closed, though the client got
// its answer. Seen with
// real clients (the Go SDK's and the TypeScript SDK v2's, 2026-07-28)
// in engine/interop's TestRealClientsThroughProxy, about one run in ten.
func TestStdioBooksRequestBeforeItsAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo server")
	}
	rec := recorder.New(recorder.Meta{Mode: "proxy"})
	cs, stop := proxiedClient(t, rec, "2025-11-25", nil)
	const calls = 1000
	for i := range calls {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil || res.IsError {
			t.Fatalf("echo %d: %v %v", i, err, res)
		}
	}
	stop()
	snap := rec.Snapshot()
	bad := 0
	for _, s := range snap.Spans {
		if s.Method == "tools/call" && s.Status != recorder.StatusOK {
			bad++
		}
	}
	var orphans []string
	for _, e := range snap.Events {
		if strings.Contains(e.Text, "no pending request") {
			orphans = append(orphans, e.Text)
		}
	}
	if bad > 0 || len(orphans) > 0 {
		t.Errorf("of %d echo calls, each answered to the client, %d are recorded as not ok and %d answers were booked before their request (first: %v)", calls, bad, len(orphans), orphans[:min(1, len(orphans))])
	}
}
