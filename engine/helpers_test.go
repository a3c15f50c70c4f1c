package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
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

// testCalls is the calls of one tool an engine test makes: Calls of
// them (default 1), Concurrency at a time (default 1). The load
// generator proper is package engine/load, which imports this one; these
// tests need only calls, made with [Session.CallTool].
type testCalls struct {
	Tool        string
	Args        json.RawMessage
	Calls       int
	Concurrency int
	CallTimeout time.Duration
}

// testResult counts how a testCalls' calls ended.
type testResult struct {
	OK, Failed int
	Errors     []string      // the failures, in the order they ended
	Elapsed    time.Duration // from the first call to the last result
}

// runCalls makes w's calls on s. It returns an error, saying why, when a
// call found the connection lost.
func runCalls(ctx context.Context, s *Session, w testCalls) (testResult, error) {
	if err := s.CheckOpen("run"); err != nil {
		return testResult{}, err
	}
	var (
		mu   sync.Mutex
		res  testResult
		lost bool
		wg   sync.WaitGroup
		next atomic.Int64
	)
	calls := max(w.Calls, 1)
	start := time.Now()
	for range min(max(w.Concurrency, 1), calls) {
		wg.Go(func() {
			for next.Add(1) <= int64(calls) {
				out := s.CallTool(ctx, ToolCall{Tool: w.Tool, Args: w.Args, Timeout: w.CallTimeout})
				mu.Lock()
				res.Elapsed = time.Since(start)
				if out.Failure == "" {
					res.OK++
				} else {
					res.Failed++
					res.Errors = append(res.Errors, out.Failure)
				}
				lost = lost || out.Lost
				mu.Unlock()
				if out.Lost {
					return
				}
			}
		})
	}
	wg.Wait()
	if lost {
		reason := "the connection was lost"
		if s.waitDone(2*time.Second) && s.Err() != nil {
			reason = s.Err().Error()
		}
		return res, fmt.Errorf("the connection was lost: %s", reason)
	}
	return res, nil
}

// run makes w's calls on s and fails the test on a lost connection.
func run(t *testing.T, s *Session, w testCalls) testResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := runCalls(ctx, s, w)
	if err != nil {
		t.Fatalf("calls %+v: %v", w, err)
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
