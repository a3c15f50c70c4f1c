package engine

import (
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sendingResponse ends the span of the server request being answered.
// It runs just before the answer is written, so that the span has ended
// by the time the server can react to the answer.
func (t *wireTap) sendingResponse(resp *jsonrpc.Response) {
	key := idKey(resp.ID)
	t.mu.Lock()
	e := t.in[key]
	delete(t.in, key)
	if e != nil {
		t.answering[resp] = e
	}
	t.mu.Unlock()
	if e == nil {
		return
	}
	now := t.s.rec.Now()
	if e.holdsSlot {
		now = max(now, t.s.gate.release()) // ends as the next request is let in
	}
	o := recorder.Outcome{Status: recorder.StatusOK}
	switch {
	case e.handled && (e.status != recorder.StatusOK || resp.Error == nil):
		o.Status, o.Error = e.status, e.errText
	case resp.Error != nil:
		// Also an answer the handler built but the SDK refused to
		// send, such as elicitation content the schema rejects.
		o.Status, o.Error = recorder.StatusError, resp.Error.Error()
	}
	if resp.Error == nil {
		o.Result = recorder.CapPayload(resp.Result)
	}
	t.s.rec.End(e.span, now, o)
}

// afterWrite marks an answer that could not be written as aborted.
func (t *wireTap) afterWrite(msg jsonrpc.Message, err error) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	t.mu.Lock()
	e := t.answering[resp]
	delete(t.answering, resp)
	t.mu.Unlock()
	if e == nil || err == nil {
		return
	}
	t.s.rec.Update(e.span, func(sp *recorder.Span) {
		if sp.Status == recorder.StatusOK {
			sp.Status, sp.Error = recorder.StatusAborted, "the answer could not be sent: "+err.Error()
		}
	})
}
