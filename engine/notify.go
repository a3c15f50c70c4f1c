package engine

import (
	"encoding/json"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
)

// notification records a notification the server sent as an instant
// event, and hands logs and tool-list changes to the session's callbacks.
func (s *Session) notification(method string, params json.RawMessage) {
	s.addNotification(s.notificationEvent(method, params, wireSource{}))
}

// notificationEvent is the event of a notification the server sent, as
// it is read (from where it came, see [wireSource]): what it says and the
// span it is about, then and there.
func (s *Session) notificationEvent(method string, params json.RawMessage, from wireSource) recorder.Event {
	ev := recorder.Event{At: s.rec.Now(), Session: s.name, Method: method, Data: recorder.CapPayload(params)}
	n := wire.ReadNotification("server", method, params)
	ev.Kind, ev.Text, ev.Level, ev.Logger = n.Kind, n.Text, n.Level, n.Logger
	switch {
	case n.Kind == recorder.EventLog:
		ev.Span = s.logSpan(params, from)
	case n.Token != "":
		ev.Span = s.calls.ByToken(n.Token)
	case n.Cancels != "" && s.wire != nil:
		if r := s.wire.pending(n.Cancels); r != nil {
			ev.Span = r.span
		}
	}
	s.subscriptionNotice(&ev, params)
	return ev
}

// addNotification records a notification's event.
func (s *Session) addNotification(ev recorder.Event) {
	s.rec.AddEvent(ev)
	if ev.Kind == recorder.EventLog {
		s.emitLog(ev)
	}
	s.resourceUpdated(ev)
}
