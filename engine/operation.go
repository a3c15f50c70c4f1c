package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The methods a load generator sends with [Session.Send].
const (
	MethodCallTool     = "tools/call"
	MethodReadResource = "resources/read"
	MethodGetPrompt    = "prompts/get"
)

// Request is one request of a load: a tool call, a resource read or a
// prompt get, as a load generator (package engine/load) sends it with
// [Session.Send].
type Request struct {
	// Method is [MethodCallTool], [MethodReadResource] or
	// [MethodGetPrompt].
	Method string
	// Name is the tool's name, the resource's URI or the prompt's name.
	Name string
	// Args is a tool's arguments (a JSON object) or a prompt's (a JSON
	// object of strings); nil means none. A resource read has none.
	Args json.RawMessage
	// Timeout, when not 0, gives up on the request after that long.
	Timeout time.Duration
	// Intended, when not zero, is when the request was meant to start (an
	// open loop's schedule); its span records it as
	// [recorder.Span.Intended].
	Intended time.Time
}

// callTimes is where the sending middleware leaves the recorded time of
// a request sent by [Session.Send] (the context carries it).
type callTimes struct {
	d  time.Duration
	ok bool
}

// callTimesKey is the context key of a *callTimes.
type callTimesKey struct{}

// noteCallTime tells the sender of a request its time as recorded: sp is
// its span as it was just before it ended at end.
func noteCallTime(ctx context.Context, sp *recorder.Span, end time.Duration) {
	t, ok := ctx.Value(callTimesKey{}).(*callTimes)
	if !ok || sp == nil {
		return
	}
	c := *sp
	c.Answered = end
	t.d, t.ok = recorder.CallDuration(&c)
}

// Send sends one request of a load on the session, recording it as an
// outgoing span (a tool call with the server requests it causes as
// children), and says how it ended and how long it took as recorded.
// ctx is the run the request belongs to: a request that ends by its
// Timeout while ctx goes on fails as "no result within the call timeout".
func (s *Session) Send(ctx context.Context, r Request) CallOutcome {
	return s.request(ctx, r, true)
}

// request sends r; timed asks for its time as recorded (a copy of its
// span as it ends), which a load of one tool does without.
func (s *Session) request(ctx context.Context, r Request, timed bool) CallOutcome {
	if !r.Intended.IsZero() {
		ctx = context.WithValue(ctx, intendedKey{}, r.Intended)
	}
	times := &callTimes{}
	if timed {
		ctx = context.WithValue(ctx, callTimesKey{}, times)
	}
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if r.Timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, r.Timeout)
	}
	failure, err := s.send(cctx, r)
	cancel()
	var out CallOutcome
	switch {
	case err != nil && s.isDone() && s.Err() != nil:
		out.Failure = "the connection was lost: " + s.Err().Error()
	case err != nil:
		out.Failure = err.Error()
		if r.Timeout > 0 && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			out.Failure = fmt.Sprintf("no result within the call timeout (%v)", r.Timeout)
		}
	default:
		out.Failure = failure
	}
	out.Failure = s.rec.Scrub(out.Failure) // a server may echo a credential in its error
	out.Lost = err != nil && s.connectionBroken(err)
	out.Time, out.Timed = times.d, times.ok
	return out
}

// send sends r: the error of the request, or the failure a tool result
// with isError set says.
func (s *Session) send(ctx context.Context, r Request) (string, error) {
	switch r.Method {
	case MethodCallTool:
		args := r.Args
		if len(args) == 0 {
			args = emptyArgs
		}
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: r.Name, Arguments: args})
		if err == nil && res.IsError {
			return toolErrorText(res), nil
		}
		return "", err
	case MethodReadResource:
		_, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.Name})
		return "", err
	case MethodGetPrompt:
		var args map[string]string
		if len(r.Args) > 0 {
			if err := json.Unmarshal(r.Args, &args); err != nil {
				return "", fmt.Errorf("the arguments of prompt %s must be a JSON object of strings: %v", r.Name, err)
			}
		}
		_, err := s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: r.Name, Arguments: args})
		return "", err
	}
	return "", fmt.Errorf("cannot send %q: want %s, %s or %s", r.Method, MethodCallTool, MethodReadResource, MethodGetPrompt)
}
