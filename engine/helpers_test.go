package engine

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets the test binary double as a stdio MCP server: with
// ENGINE_TEST_SERVER set it serves instead of testing (see stdio_test.go).
func TestMain(m *testing.M) {
	if mode := os.Getenv("ENGINE_TEST_SERVER"); mode != "" {
		serveTestServer(mode)
		return
	}
	os.Exit(m.Run())
}

// connectDemo connects to the embedded demo server with policy.
func connectDemo(t *testing.T, policy AnswerPolicy) *Session {
	t.Helper()
	return connectTarget(t, Target{}, policy)
}

func connectTarget(t *testing.T, target Target, policy AnswerPolicy) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Connect(ctx, target, policy, recorder.New(recorder.Meta{Title: t.Name()}))
	if err != nil {
		t.Fatalf("Connect(%v): %v", target, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// connectServer connects to srv over in-memory transports.
func connectServer(t *testing.T, srv *mcp.Server, policy AnswerPolicy) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	s, err := connect(ctx, Target{}, policy, recorder.New(recorder.Meta{Title: t.Name()}), ct)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// run runs w and fails the test on error.
func run(t *testing.T, s *Session, w Workload) RunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.Run(ctx, w, nil)
	if err != nil {
		t.Fatalf("Run(%+v): %v", w, err)
	}
	return res
}

// spansOf returns the finished snapshot's spans of one method.
func spansOf(snap *recorder.Snapshot, method string) []*recorder.Span {
	var out []*recorder.Span
	for _, s := range snap.Spans {
		if s.Method == method {
			out = append(out, s)
		}
	}
	return out
}

func fanoutArgs(n int, kind string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"n": n, "kind": kind})
	return b
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cond()
}
