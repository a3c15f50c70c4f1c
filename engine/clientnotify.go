package engine

import (
	"encoding/json"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
)

// maxCancelNotes bounds the ids kept by [wireState.noteCancels] whose
// notifications/cancelled was not written yet (on 2026-07-28 over HTTP
// a cancel may close the request's stream instead).
const maxCancelNotes = 1000

// clientNotification records a notification the client writes
// (notifications/initialized, roots/list_changed, a cancellation …) as
// an event of the outgoing direction, so that the recording holds every
// message of the session. The cancellation of a call the inspector gave
// up on is recorded by the call as it ends, with its span (call.go): the
// SDK writes it afterwards, off the call's path, and it is not recorded
// twice. One written after its request ended (the listen the SDK ends) is
// recorded with that request's span.
func (s *Session) clientNotification(method string, params json.RawMessage) {
	n := wire.ReadNotification("client", method, params)
	ev := recorder.Event{At: s.rec.Now(), Session: s.name, Kind: n.Kind, Method: method,
		Direction: recorder.Outgoing, Text: n.Text, Data: recorder.CapPayload(params)}
	if n.Kind == recorder.EventCancelled && s.wire != nil {
		if c := s.wire.caller(n.Cancels); c != nil || s.wire.cancelRecorded(n.Cancels) {
			return // its call records it as it ends, or did
		}
		ev.Span = s.wire.endedSpan(n.Cancels)
	}
	s.rec.AddEvent(ev)
}

// idsOf returns the id keys of call c's requests on the wire.
func (w *wireState) idsOf(c *call) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), c.ids...)
}

// noteCancels notes that the cancellation of the requests with id keys
// ids was recorded by their call.
func (w *wireState) noteCancels(ids []string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancelNoted == nil || len(w.cancelNoted) >= maxCancelNotes {
		w.cancelNoted = map[string]bool{}
	}
	for _, id := range ids {
		w.cancelNoted[id] = true
	}
}

// cancelRecorded reports whether the cancellation of the request with id
// key was recorded by its call, forgetting it.
func (w *wireState) cancelRecorded(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.cancelNoted[key] {
		return false
	}
	delete(w.cancelNoted, key)
	return true
}

// noteEnded notes that the client request with id key, of span, was
// answered or forgotten. Call it with w.mu held.
func (w *wireState) noteEnded(key string, span recorder.SpanID) {
	if w.endedSpans == nil || len(w.endedSpans) >= maxCancelNotes {
		w.endedSpans = map[string]recorder.SpanID{}
	}
	w.endedSpans[key] = span
}

// answeredSpan returns the span of the answered client request with id
// key, forgetting it, or 0.
func (w *wireState) endedSpan(key string) recorder.SpanID {
	w.mu.Lock()
	defer w.mu.Unlock()
	span := w.endedSpans[key]
	delete(w.endedSpans, key)
	return span
}
