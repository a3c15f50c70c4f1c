package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolCall is one call of a tool, as a load generator (package
// engine/load) makes it with [Session.CallTool].
type ToolCall struct {
	Tool string
	// Args is the tool's arguments, a JSON object; nil means {}.
	Args json.RawMessage
	// Timeout, when not 0, gives up on the call after that long.
	Timeout time.Duration
	// Intended, when not zero, is when the call was meant to start (an
	// open loop's schedule); its span records it as
	// [recorder.Span.Intended].
	Intended time.Time
}

// CallOutcome is how a [Session.Send] or [Session.CallTool] ended.
type CallOutcome struct {
	// Failure says why the call failed, "" when it succeeded: the error,
	// or the text of a tool result with isError set, scrubbed of the
	// recording's secrets.
	Failure string
	// Lost reports that the call failed because the session's connection
	// is gone: no more calls should be started on it.
	Lost bool
	// Time is the call's time as recorded ([recorder.CallDuration] of its
	// span: from its intended start in an open loop, else from when it
	// was sent, to its answer); Timed is false when it has none (it
	// was never sent).
	Time  time.Duration
	Timed bool
}

// intendedKey is the context key of an open-loop call's intended start
// (a time.Time), which the call's span records (call.go).
type intendedKey struct{}

// emptyArgs is the arguments of a call that gives none.
var emptyArgs = json.RawMessage("{}")

// CallTool calls a tool once on the session: [Session.Send] of a
// tools/call, without its time (Timed is false): a load of one tool
// reads its times from the recording.
func (s *Session) CallTool(ctx context.Context, c ToolCall) CallOutcome {
	return s.request(ctx, Request{Method: MethodCallTool, Name: c.Tool, Args: c.Args, Timeout: c.Timeout, Intended: c.Intended}, false)
}

// CheckOpen returns nil while the session's connection is up; once it
// has ended, the error a call named op would get then, saying why.
func (s *Session) CheckOpen(op string) error {
	select {
	case <-s.life.done:
		return s.explainCallError(op, mcp.ErrConnectionClosed)
	default:
		return nil
	}
}

// connectionBroken reports whether a call's error means the connection
// is gone. The wire tap of a wrapped connection knows at once; over HTTP,
// an error that is neither the server's JSON-RPC answer nor the caller's
// context may be the first sign of the connection ending, so the session
// gets a moment to notice. A session being closed counts as broken
// from the moment Close begins: a call it cancelled (context canceled)
// or refused must stop a run as the connection's end does, whichever
// the call met first.
func (s *Session) connectionBroken(err error) bool {
	if errors.Is(err, mcp.ErrConnectionClosed) || s.isDone() || s.life.closing.Load() {
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
