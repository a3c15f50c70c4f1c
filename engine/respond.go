package engine

import (
	"context"
	"time"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// writing is the session's part of the wire tap (see [wireObserver]) for
// a message about to be written: a client call is timed as it goes out
// (call.go), an answer to a server request ends that request, a
// notification is recorded (notify.go).
func (s *Session) writing(ctx context.Context, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if c, ok := ctx.Value(callKey{}).(*call); ok && m.IsCall() {
			key := wire.KeyOf(m.ID)
			s.wire.sent(key, c)
			c.sending(key, m.Params, s.rec.Now())
		}
		if !m.IsCall() {
			s.clientNotification(m.Method, m.Params)
		}
	case *jsonrpc.Response:
		if r := s.wire.answer(m); r != nil {
			r.respond(m, s.rec.Now())
		}
	}
}

// written is the session's part of the wire tap for a message written,
// or not: an answer that could not be written is aborted, and a failed
// write on a wrapped connection means the server can no longer be
// reached.
func (s *Session) written(ctx context.Context, msg jsonrpc.Message, err error) {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if r := s.wire.answered(resp); r != nil && err != nil {
			r.unsent(err)
		}
	}
	if err != nil && ctx.Err() == nil && s.wire.tapped != nil {
		s.wire.writeFailed()
	}
}

// closed is the session's part of the wire tap for the connection
// closing.
func (s *Session) closed(err error) { s.wire.markClosed(err) }

// respond ends the request as its answer resp is about to be written at
// now, so that the span has ended by the time the server can react to
// the answer.
func (r *request) respond(resp *jsonrpc.Response, now time.Duration) {
	o := recorder.Outcome{Status: recorder.StatusOK}
	switch {
	case r.settled && (r.outcome.Status != recorder.StatusOK || resp.Error == nil):
		o.Status, o.Error = r.outcome.Status, r.outcome.Error
	case resp.Error != nil:
		// Also an answer the handler built but the SDK refused to
		// send, such as elicitation content the schema rejects.
		o.Status, o.Error = recorder.StatusError, resp.Error.Error()
	}
	if resp.Error == nil {
		o.Result = recorder.CapPayload(resp.Result)
	}
	r.end(now, o)
}

// unsent marks a request whose answer could not be written as aborted.
func (r *request) unsent(err error) {
	r.rec.Update(r.span, func(sp *recorder.Span) {
		if sp.Status == recorder.StatusOK {
			sp.Status, sp.Error = recorder.StatusAborted, "the answer could not be sent: "+err.Error()
		}
	})
}
