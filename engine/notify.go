package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// notification records a notification the server sent as an instant
// event, and hands logs and tool-list changes to the session's callbacks.
func (s *Session) notification(method string, params json.RawMessage) {
	s.addNotification(s.notificationEvent(method, params))
}

// notificationEvent is the event of a notification the server sent, as
// it is read: what it says and the span it is about, then and there.
func (s *Session) notificationEvent(method string, params json.RawMessage) recorder.Event {
	ev := recorder.Event{At: s.rec.Now(), Session: s.name, Method: method, Data: recorder.CapPayload(params)}
	switch {
	case method == "notifications/progress":
		ev.Kind = recorder.EventProgress
		var p mcp.ProgressNotificationParams
		if json.Unmarshal(params, &p) == nil {
			ev.Span = s.calls.ByToken(wire.TokenString(p.ProgressToken))
			ev.Text = progressText(&p)
		}
	case method == "notifications/message":
		ev.Kind = recorder.EventLog
		var p mcp.LoggingMessageParams
		if json.Unmarshal(params, &p) == nil {
			ev.Text = logText(&p)
		}
	case method == "notifications/cancelled":
		ev.Kind = recorder.EventCancelled
		var p mcp.CancelledParams
		if json.Unmarshal(params, &p) == nil {
			ev.Text = p.Reason
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && s.wire != nil {
				if r := s.wire.pending(wire.KeyOf(id)); r != nil {
					ev.Span = r.span
				}
			}
		}
	case strings.HasSuffix(method, "/list_changed"):
		ev.Kind = recorder.EventListChanged
		ev.Text = strings.TrimSuffix(strings.TrimPrefix(method, "notifications/"), "/list_changed") + " changed"
	default:
		ev.Kind = recorder.EventOther
	}
	return ev
}

// addNotification records a notification's event.
func (s *Session) addNotification(ev recorder.Event) {
	s.rec.AddEvent(ev)
	if ev.Kind == recorder.EventLog {
		s.emitLog(ev)
	}
}

func progressText(p *mcp.ProgressNotificationParams) string {
	var b strings.Builder
	if p.Total > 0 {
		fmt.Fprintf(&b, "%g/%g", p.Progress, p.Total)
	} else {
		fmt.Fprintf(&b, "%g", p.Progress)
	}
	if p.Message != "" {
		b.WriteString(" " + p.Message)
	}
	return b.String()
}

func logText(p *mcp.LoggingMessageParams) string {
	var data string
	switch v := p.Data.(type) {
	case string:
		data = v
	default:
		b, _ := json.Marshal(v)
		data = string(b)
	}
	prefix := string(p.Level)
	if p.Logger != "" {
		prefix += " " + p.Logger
	}
	return prefix + ": " + data
}
