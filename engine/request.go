package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// entryFor returns the entry of the request being served: the one the
// wire tap made when it read the request, or a new span when the request
// did not come over a tapped wire (a multi-round-trip input request, or
// an untapped transport).
func (s *Session) entryFor(ctx context.Context, method string, params mcp.Params, now time.Duration) *inEntry {
	meta := metaOf(params)
	if s.tap != nil {
		if e := s.tap.claim(meta); e != nil {
			return e
		}
	}
	sp := recorder.NewSpan(s.name, recorder.Incoming, method)
	sp.Received = now
	if b, err := json.Marshal(params); err == nil && !isNullJSON(b) {
		sp.Params = recorder.CapPayload(b)
	}
	if oc, ok := ctx.Value(outKey{}).(*outCall); ok {
		// Asked for inside a tool call's result (multi round-trip): the
		// call is the parent, the round is how many times it was sent.
		sp.Parent = oc.span
		sp.Round, _ = ctx.Value(roundKey{}).(int)
	} else {
		var tok string
		if meta != nil {
			tok = tokenString((*meta)["progressToken"])
		}
		sp.Parent = s.parentByToken(tok)
	}
	// No arrival sequence from the wire: it arrives as it enters.
	e := &inEntry{index: s.nextIndex(method), seq: s.gate.next(), received: now}
	e.span = s.rec.Begin(sp)
	return e
}

func isNullJSON(b []byte) bool { return bytes.Equal(b, []byte("null")) }

// finish records how a request ended. For a request read off a tapped
// wire, the span ends when its response is written; otherwise now.
func (s *Session) finish(e *inEntry, status recorder.Status, errText string, res mcp.Result) {
	if e.wire {
		e.handled, e.status, e.errText = true, status, errText
		return
	}
	var result json.RawMessage
	if res != nil {
		if b, err := json.Marshal(res); err == nil {
			result = recorder.CapPayload(b)
		}
	}
	now := s.rec.Now()
	if e.holdsSlot {
		e.holdsSlot = false
		now = max(now, s.gate.release()) // ends as the next request is let in
	}
	s.rec.End(e.span, now, recorder.Outcome{Status: status, Error: errText, Result: result})
}

// inEntry is a server request being served: created when it is read (or
// when its handler starts, if it did not come over a tapped wire).
type inEntry struct {
	span     recorder.SpanID
	index    int64
	seq      int64 // arrival order across methods, for the dispatch gate
	received time.Duration
	wire     bool   // its response is written through the tap
	stream   any    // the HTTP event stream it came on, if any
	params   []byte // its params as they came, when stream is set

	// Set by the handler before it returns, read when the response is
	// written (same goroutine, after).
	handled   bool
	holdsSlot bool // its dispatch slot is released when the answer is written (off the wire: by finish)
	status    recorder.Status
	errText   string
}

// idKey is a JSON-RPC id as it appears on the wire: 7 or "abc".
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}
