package export

import (
	"encoding/hex"

	"github.com/fanout-inspector/inspector/recorder"
)

// remoteParent is the server's span that a request the server sent
// named as its parent in the traceparent of its _meta (SEP-414), as hex.
type remoteParent struct{ trace, span string }

// remoteParents returns, for each server request of snap whose params
// carry a valid W3C traceparent in one of the recording's own traces
// (the traceparent the inspector sent, propagated by the server), the
// server's span that it names: the OTLP export makes it the span's
// parent, so that the server's own spans, exported by the server, sit
// between our tool call and the requests the server sent while serving
// it. A traceparent that is malformed or of a trace not ours is ignored.
// root gives a span's top ancestor, as the export walks it.
func remoteParents(snap *recorder.Snapshot, ids recorder.TraceIDs, root func(*recorder.Span) recorder.SpanID) map[recorder.SpanID]remoteParent {
	var found map[recorder.SpanID]remoteParent
	var ours map[[16]byte]bool
	for _, s := range snap.Spans {
		if s.Direction != recorder.Incoming {
			continue
		}
		tc, ok := recorder.TraceContextOf(s.Params)
		if !ok {
			continue
		}
		trace, span, err := recorder.ParseTraceparent(tc.Traceparent)
		if err != nil {
			continue
		}
		if ours == nil {
			ours = ourTraces(snap, ids, root)
			found = make(map[recorder.SpanID]remoteParent)
		}
		if ours[trace] {
			found[s.ID] = remoteParent{trace: hex.EncodeToString(trace[:]), span: hex.EncodeToString(span[:])}
		}
	}
	return found
}

// ourTraces is the set of the trace IDs the export gives snap's spans.
func ourTraces(snap *recorder.Snapshot, ids recorder.TraceIDs, root func(*recorder.Span) recorder.SpanID) map[[16]byte]bool {
	roots := make(map[recorder.SpanID]bool)
	out := make(map[[16]byte]bool)
	for _, s := range snap.Spans {
		r := root(s)
		if !roots[r] {
			roots[r] = true
			out[ids.Trace(r)] = true
		}
	}
	return out
}

// serverTraceparent returns the traceparent a server request carried
// in its _meta when it is a valid one, for the Chrome trace's args.
func serverTraceparent(s *recorder.Span) string {
	if s.Direction != recorder.Incoming {
		return ""
	}
	tc, ok := recorder.TraceContextOf(s.Params)
	if !ok {
		return ""
	}
	if _, _, err := recorder.ParseTraceparent(tc.Traceparent); err != nil {
		return ""
	}
	return tc.Traceparent
}
