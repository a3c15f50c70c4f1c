package load

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/internal/inproc"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets the test binary double as the demo server over stdio:
// with LOAD_TEST_SERVER=demo set it serves instead of testing.
func TestMain(m *testing.M) {
	if os.Getenv("LOAD_TEST_SERVER") == "demo" {
		if err := demo.ServeStdio(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	os.Exit(m.Run())
}

// stdioDemo is a target that starts this test binary as the demo server
// over stdio.
func stdioDemo() engine.Target {
	return engine.Target{Transport: engine.TransportStdio, Command: fmt.Sprintf("%q -test.run=^$", os.Args[0]),
		Env: []string{"LOAD_TEST_SERVER=demo"}}
}

// connectDemo connects to the embedded demo server with the default
// answer policy.
func connectDemo(t *testing.T) *engine.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := engine.Connect(ctx, engine.Target{}, engine.DefaultAnswerPolicy(), recorder.New(recorder.Meta{Title: t.Name()}))
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// connectGroup connects n sessions to t, recording into rec.
func connectGroup(t *testing.T, target engine.Target, rec *recorder.Recording, n int) *engine.Group {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := engine.ConnectGroup(ctx, target, engine.DefaultAnswerPolicy(), rec, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// runOn runs w over sessions within a minute and fails the test if it errs.
func runOn(t *testing.T, sessions []*engine.Session, w Workload) RunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, sessions, w, nil)
	if err != nil {
		t.Fatalf("Run(%+v): %v", w, err)
	}
	return res
}

// one is the sessions of a run on s alone.
func one(s *engine.Session) []*engine.Session { return []*engine.Session{s} }

// toolCalls returns the snapshot's tool call spans.
func toolCalls(snap *recorder.Snapshot) []*recorder.Span {
	var out []*recorder.Span
	for _, s := range snap.Spans {
		if s.Direction == recorder.Outgoing && s.Kind == recorder.KindTool {
			out = append(out, s)
		}
	}
	return out
}

func fanoutArgs(n int, kind string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"n": n, "kind": kind})
	return b
}

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

// bareClient connects a bare SDK client to a new demo server over the
// in-process pair the engine's demo target uses.
func bareClient(b *testing.B) *mcp.ClientSession {
	ctx := context.Background()
	st, ct := inproc.Pair()
	if _, err := demo.NewServer().Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "reply"}, Model: "bare", Role: "assistant"}, nil
		},
	})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: engine.DefaultProtocol})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}
