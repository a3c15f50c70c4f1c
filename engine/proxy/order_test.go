package proxy

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestStdioCheckpointHasWhatPassed: the checkpoint called for when the
// client's side ends ([Stdio.Checkpoint], where the proxy's owner saves
// the recording, as the client may kill the proxy next) finds in the
// recording every message passed on before it. The book is held up here
// between the echo call and its answer (an observer of the recording
// waits for the checkpoint, a second at most): a checkpoint that did not
// wait for the
// bookkeeper saved the call as still open, as one of ten recordings of
// cmd/inspector's TestProxyRecordSurvivesItsClientKillingIt did on a
// busy machine.
func TestStdioCheckpointHasWhatPassed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo server")
	}
	rec := recorder.New(recorder.Meta{Mode: "proxy"})
	checkpointed := make(chan struct{})
	rec.Observe(&holdToolCall{until: checkpointed, most: time.Second})
	var saved *recorder.Snapshot
	cs, stop := proxiedClientWith(t, rec, "2025-11-25", nil, func(p *Stdio) {
		p.Checkpoint = func() {
			saved = rec.Snapshot()
			close(checkpointed)
		}
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("echo: %v %v", err, res)
	}
	stop()
	select {
	case <-checkpointed:
	default:
		t.Fatal("the proxy ended without a checkpoint")
	}
	var calls []recorder.Status
	for _, s := range saved.Spans {
		if s.Method == "tools/call" {
			calls = append(calls, s.Status)
		}
	}
	if len(calls) != 1 || calls[0] != recorder.StatusOK {
		t.Errorf("the checkpoint saved tools/call spans of status %v; want the one echo call, answered (%v)", calls, recorder.StatusOK)
	}
}

// holdToolCall is an observer of a recording that holds up the book
// once it has begun the first tool call, before it can book the answer,
// until until is closed or most has passed.
type holdToolCall struct {
	until <-chan struct{}
	most  time.Duration
	once  sync.Once
}

func (h *holdToolCall) SpanChanged(s *recorder.Span) {
	if s.Method != "tools/call" {
		return
	}
	h.once.Do(func() {
		select {
		case <-h.until:
		case <-time.After(h.most):
		}
	})
}

func (*holdToolCall) SpanFinished(*recorder.Span) {}
func (*holdToolCall) EventAdded(recorder.Event)   {}
