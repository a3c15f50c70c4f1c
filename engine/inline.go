package engine

import (
	"errors"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ErrInlineOverHTTP is why dispatch inline is refused over streamable
// HTTP and SSE. Inline holds back what the client is handed while it
// serves a request, which the wire tap does by wrapping the transport's
// connection (see [tapConn]); over HTTP the tap sits in the HTTP client
// instead, because wrapping the SDK's streamable connection would hide
// the hook that opens its server-to-client event stream, and each HTTP
// response body is read on a goroutine of its own, so there is no single
// receive loop to stall. Use serial there, or the demo or stdio
// transports for inline.
var ErrInlineOverHTTP = errors.New("dispatch inline works over the demo and stdio transports only: over http and sse the client has no single receive loop the inspector can stall; use serial there, or connect over stdio")

// awaitsAnswer is the session's part of the wire tap (see
// [wireObserver]) as the client is handed a server request: under
// dispatch inline its reader awaits the request's answer.
func (s *Session) awaitsAnswer(*jsonrpc.Request) bool {
	return s.current().Dispatch.Mode == Inline
}

// mayHold is the session's part of the wire tap: the reader may await an
// answer once dispatch is inline.
func (s *Session) mayHold() bool {
	return s.current().Dispatch.Mode == Inline
}

// requestSeen records how long the server request r was withheld from
// the client, if it was: from its arrival until now (Stalled).
func (s *Session) requestSeen(r *request, withheld bool) {
	if !withheld {
		return
	}
	now := s.rec.Now()
	s.rec.Update(r.span, func(sp *recorder.Span) {
		if sp.Open() && sp.Queued == recorder.Unset {
			sp.Stalled = max(now-sp.Received, 0)
		}
	})
}

// responseSeen records how long the answer with the given id to the
// client's call c was withheld from the client, if it was: from its
// arrival (Answered) until now, on the round span it answers when the
// call has rounds, else on the call.
func (s *Session) responseSeen(c *call, id string, withheld bool) {
	if !withheld {
		return
	}
	now := s.rec.Now()
	span := c.span
	if r := c.roundSpan(id); r != 0 {
		span = r // a round of a multi-round-trip call: its own response
	}
	s.rec.Update(span, func(sp *recorder.Span) {
		if sp.Answered != recorder.Unset {
			sp.Stalled = max(now-sp.Answered, 0)
		}
	})
}

// notificationSeen records a notification's event as the client is
// handed it, with how long it was withheld, if it was.
func (s *Session) notificationSeen(ev recorder.Event, withheld bool) {
	if withheld {
		ev.Stalled = max(s.rec.Now()-ev.At, 0)
	}
	s.addNotification(ev)
}
