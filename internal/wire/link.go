package wire

import (
	"fmt"
	"slices"
	"sync"

	"github.com/fanout-inspector/inspector/recorder"
)

// Call is one tool call in flight, as [Calls] knows it: its span (the
// logical call's, over all its rounds), the progress token its request
// carried and the trace its traceparent named.
type Call struct {
	Span     recorder.SpanID
	Token    string
	Trace    [16]byte
	HasTrace bool
}

// Calls is the tool calls in flight, by progress token and by trace, so
// that a server request can be tied to the call it was made for. It is
// safe for concurrent use.
type Calls struct {
	mu     sync.Mutex
	calls  map[*Call]struct{}
	tokens map[string]*Call
	traces map[[16]byte][]*Call
}

// NewCalls returns an empty registry.
func NewCalls() *Calls {
	return &Calls{calls: map[*Call]struct{}{}, tokens: map[string]*Call{}, traces: map[[16]byte][]*Call{}}
}

// Add notes that c is in flight.
func (r *Calls) Add(c *Call) {
	r.mu.Lock()
	r.calls[c] = struct{}{}
	if c.Token != "" {
		r.tokens[c.Token] = c
	}
	if c.HasTrace {
		r.traces[c.Trace] = append(r.traces[c.Trace], c)
	}
	r.mu.Unlock()
}

// Remove notes that c ended; removing a call not in flight does nothing.
func (r *Calls) Remove(c *Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.calls[c]; !ok {
		return
	}
	delete(r.calls, c)
	if c.Token != "" && r.tokens[c.Token] == c {
		delete(r.tokens, c.Token)
	}
	if c.HasTrace {
		if rest := slices.DeleteFunc(r.traces[c.Trace], func(o *Call) bool { return o == c }); len(rest) > 0 {
			r.traces[c.Trace] = rest
		} else {
			delete(r.traces, c.Trace)
		}
	}
}

// Clear forgets every call (the connection is gone).
func (r *Calls) Clear() {
	r.mu.Lock()
	clear(r.calls)
	clear(r.tokens)
	clear(r.traces)
	r.mu.Unlock()
}

// ByToken returns the span of the call whose progress token is tok, or 0.
func (r *Calls) ByToken(tok string) recorder.SpanID {
	if tok == "" {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.tokens[tok]; c != nil {
		return c.Span
	}
	return 0
}

// Clue is what a server request says about the call it belongs to.
type Clue struct {
	// Token and Trace are read from its params' _meta (see [ReadParams]).
	Token    string
	Trace    [16]byte
	HasTrace bool
	// Stream is the span of the client request whose HTTP response
	// stream carried it (the POST's event stream), 0 for none.
	Stream recorder.SpanID
	// Standalone: it came on the session's standalone event stream (a
	// GET of the client's own), which belongs to no call.
	Standalone bool
}

// ClueOf is the clue of a request with params p on stream (see [Clue]).
func ClueOf(p Params, stream recorder.SpanID, standalone bool) Clue {
	return Clue{Token: p.Token, Trace: p.Trace, HasTrace: p.HasTrace, Stream: stream, Standalone: standalone}
}

// Link returns the span of the tool call a server request belongs to,
// or, when it cannot tell, 0 and why not: the call whose progress token
// the request echoes; else the one call whose trace its traceparent
// names (a server that propagates trace context); else the call whose
// HTTP response stream it arrived on; else the only tool call in flight.
// With several in flight and nothing to tell them apart any choice would
// be a guess, so the request stays unlinked and the reason says so; with
// none in flight there is nothing to link to and no reason is given,
// unless the request named a call by a token that matches none.
func (r *Calls) Link(q Clue) (recorder.SpanID, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if q.Token != "" {
		if c, ok := r.tokens[q.Token]; ok {
			return c.Span, ""
		}
	}
	if cs := r.traces[q.Trace]; q.HasTrace && len(cs) == 1 {
		return cs[0].Span, ""
	}
	if q.Stream != 0 {
		return q.Stream, ""
	}
	n := len(r.calls)
	if n == 1 {
		for c := range r.calls {
			return c.Span, ""
		}
	}
	return 0, unlinkedText(n, q)
}

// unlinkedText says why a request was not linked with n calls in flight.
func unlinkedText(n int, q Clue) string {
	var why string
	switch {
	case n == 0 && q.Token == "":
		return ""
	case n == 0:
		return fmt.Sprintf("its progress token %q names no tool call in flight (none was)", q.Token)
	case q.Token == "":
		why = fmt.Sprintf("%d tool calls were in flight and the request carried no progress token", n)
	default:
		why = fmt.Sprintf("%d tool calls were in flight and the request's progress token %q names none of them", n, q.Token)
	}
	if q.Standalone {
		why += "; it arrived on the session's standalone event stream, which belongs to no call"
	}
	return why
}
