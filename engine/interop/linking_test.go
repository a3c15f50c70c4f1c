package interop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestTypeScriptServerLinking runs six fanout calls, three at once, on
// the TypeScript SDK's server, which relates each request to its call
// only the SDK's way (relatedRequestId): over streamable HTTP that puts
// the request on the call's response stream, and every request must be
// shown under its call; over stdio nothing on the wire says which call a
// request belongs to, and a request that arrives while several calls are
// in flight must be recorded unlinked, saying why.
func TestTypeScriptServerLinking(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	needTSServer(t)
	for _, tc := range tsTargets() {
		t.Run(tc.name, func(t *testing.T) {
			policy := engine.DefaultAnswerPolicy()
			policy.Latency = engine.LatencyModel{Dist: engine.Fixed, A: 150 * time.Millisecond}
			rec := recorder.New(recorder.Meta{Title: t.Name()})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			target := tc.target(t)
			s, err := engine.Connect(ctx, target, policy, rec)
			if err != nil {
				t.Fatalf("connect to %s: %v", target, err)
			}
			defer s.Close()
			res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "fanout", Args: []byte(`{"n":5,"kind":"sampling"}`), Calls: 6, Concurrency: 3}, nil)
			if err != nil || res.OK != 6 {
				t.Fatalf("run: %+v, %v", res, err)
			}
			snap := rec.Snapshot()
			children := map[recorder.SpanID]int{}
			unlinked := 0
			for _, sp := range snap.Spans {
				if sp.Method != "sampling/createMessage" {
					continue
				}
				if sp.Parent == 0 {
					unlinked++
					if !strings.Contains(sp.Unlinked, "tool calls were in flight and the request carried no progress token") {
						t.Errorf("sampling #%d has no parent and says why as %q", sp.ID, sp.Unlinked)
					}
					continue
				}
				children[sp.Parent]++
			}
			switch tc.name {
			case "http":
				for _, sp := range snap.Spans {
					if sp.Method == "tools/call" && children[sp.ID] != 5 {
						t.Errorf("tool call #%d has %d sampling requests under it, want 5", sp.ID, children[sp.ID])
					}
				}
				if unlinked != 0 {
					t.Errorf("%d requests unlinked over HTTP, want none: each came on its call's response stream", unlinked)
				}
			case "stdio":
				if unlinked == 0 {
					t.Error("no request unlinked over stdio, though three calls were in flight at once")
				}
			}
		})
	}
}
