package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Workload is a series of calls of one tool: Calls calls, at most
// Concurrency at once.
type Workload struct {
	Tool string `json:"tool"`
	// Args is the tool's arguments, a JSON object; nil means {}.
	Args json.RawMessage `json:"args,omitempty"`
	// Calls is how many calls to make (default 1).
	Calls int `json:"calls,omitempty"`
	// Concurrency is how many calls may be in flight at once (default 1).
	Concurrency int `json:"concurrency,omitempty"`
	// CallTimeout, when not 0, gives up on a call after that long.
	CallTimeout time.Duration `json:"call_timeout,omitempty"`
}

// maxErrors bounds RunResult.Errors: errors that each carry an id would
// otherwise grow it with every call.
const maxErrors = 50

// Progress is how far a [Session.Run] has got.
type Progress struct {
	Total, Done, OK, Failed int
	Elapsed                 time.Duration
}

// RunResult is the outcome of a [Session.Run].
type RunResult struct {
	Total, OK, Failed int
	// Elapsed runs from the first call sent to the last result received.
	Elapsed time.Duration
	// Errors are the distinct error texts of the failed calls, in the
	// order first seen, at most 50. A tool result with isError counts as
	// failed.
	Errors []string
}

// Run calls w.Tool w.Calls times, w.Concurrency at a time, each call an
// outgoing span with the server requests it causes as children. progress,
// if not nil, is called after each call, from the calling goroutines but
// one call at a time, with Done increasing.
// Run returns an error when the workload is invalid or when the
// connection was lost during the run; failed calls alone are counted in
// the result, not returned as an error.
func (s *Session) Run(ctx context.Context, w Workload, progress func(Progress)) (RunResult, error) {
	if w.Tool == "" {
		return RunResult{}, errors.New("run: no tool named: say which tool to call")
	}
	var args json.RawMessage = []byte("{}")
	if len(w.Args) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(w.Args, &obj); err != nil || obj == nil {
			return RunResult{}, fmt.Errorf("run: the arguments of %s must be a JSON object like {\"n\": 5}: %s", w.Tool, describeJSONError(w.Args, err))
		}
		args = w.Args
	}
	calls, conc := max(w.Calls, 1), max(w.Concurrency, 1)
	if w.Calls < 0 || w.Concurrency < 0 || w.CallTimeout < 0 {
		return RunResult{}, errors.New("run: calls, concurrency and call timeout must not be negative")
	}
	conc = min(conc, calls)
	select {
	case <-s.life.done:
		return RunResult{}, s.explainCallError("run", mcp.ErrConnectionClosed)
	default:
	}

	var (
		mu         sync.Mutex
		progressMu sync.Mutex
		res        = RunResult{Total: calls}
		seen       = map[string]bool{}
		next       int
		lost       bool
		wg         sync.WaitGroup
		start      = time.Now()
		lastAt     time.Time
	)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= calls || lost || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()

				cctx, cancel := ctx, context.CancelFunc(func() {})
				if w.CallTimeout > 0 {
					cctx, cancel = context.WithTimeout(ctx, w.CallTimeout)
				}
				r, err := s.cs.CallTool(cctx, &mcp.CallToolParams{Name: w.Tool, Arguments: args})
				cancel()
				failText := ""
				switch {
				case err != nil && s.isDone() && s.Err() != nil:
					failText = "the connection was lost: " + s.Err().Error()
				case err != nil:
					failText = err.Error()
					if w.CallTimeout > 0 && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
						failText = fmt.Sprintf("no result within the call timeout (%v)", w.CallTimeout)
					}
				case r.IsError:
					failText = toolErrorText(r)
				}
				failText = s.rec.Scrub(failText) // a server may echo a credential in its error

				mu.Lock()
				lastAt = time.Now()
				if failText == "" {
					res.OK++
				} else {
					res.Failed++
					if !seen[failText] && len(res.Errors) < maxErrors {
						seen[failText] = true
						res.Errors = append(res.Errors, failText)
					}
					if err != nil && s.connectionBroken(err) {
						lost = true
					}
				}
				p := Progress{Total: calls, Done: res.OK + res.Failed, OK: res.OK, Failed: res.Failed, Elapsed: time.Since(start)}
				if progress != nil {
					// One at a time and in order, while the next calls go on.
					progressMu.Lock()
				}
				mu.Unlock()
				if progress != nil {
					progress(p)
					progressMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if !lastAt.IsZero() {
		res.Elapsed = lastAt.Sub(start)
	}
	if lost || s.isDone() {
		done := res.OK + res.Failed
		reason := "the connection was lost"
		if s.waitDone(2 * time.Second) {
			if cause := s.Err(); cause != nil {
				reason = cause.Error()
			}
		}
		return res, fmt.Errorf("run stopped: the connection was lost after %d of %d calls: %s", done, calls, reason)
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("run stopped after %d of %d calls: %w", res.OK+res.Failed, calls, err)
	}
	return res, nil
}

func describeJSONError(b []byte, err error) string {
	if err == nil {
		return "got " + string(b)
	}
	return err.Error()
}

// connectionBroken reports whether a call's error means the connection
// is gone. The wire tap of a wrapped connection knows at once; over HTTP,
// an error that is neither the server's JSON-RPC answer nor the caller's
// context may be the first sign of the connection ending, so the session
// gets a moment to notice.
func (s *Session) connectionBroken(err error) bool {
	if errors.Is(err, mcp.ErrConnectionClosed) || s.isDone() {
		return true
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if s.wire != nil && s.wire.wrapped() {
		return s.wire.broken()
	}
	return s.life.up.Load() && s.waitDone(time.Second)
}
