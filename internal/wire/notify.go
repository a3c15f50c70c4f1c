package wire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fanout-inspector/inspector/recorder"
)

// Notice is what a notification says, in the recording's words: the
// kind of its event and the event's text; for a progress notification
// its token (a [Key]) and for a cancellation the id key of the request it
// cancels, for the observer to find the span it is about.
type Notice struct {
	Kind    recorder.EventKind
	Text    string
	Token   string
	Cancels string
	// Level and Logger are a log message's (notifications/message).
	Level, Logger string
}

// ReadNotification reads the notification method with params that from
// ("client" or "server") sent. Params it cannot read leave the text
// empty.
func ReadNotification(from, method string, params json.RawMessage) Notice {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
		Level     string          `json:"level"`
		Logger    string          `json:"logger"`
		Data      json.RawMessage `json:"data"`
	}
	read := method != "notifications/progress" && len(params) > 0 && json.Unmarshal(params, &p) == nil
	var n Notice
	switch {
	case method == "notifications/progress":
		n.Kind = recorder.EventProgress
		if progress, total, message, ok := readProgress(params); ok {
			n.Token, n.Text = Token(params), progressText(progress, total, message)
		}
	case method == "notifications/message":
		n.Kind = recorder.EventLog
		if read {
			n.Text = recorder.LogPrefix(p.Level, p.Logger) + recorder.LogData(p.Data)
			n.Level, n.Logger = p.Level, p.Logger
		}
	case method == "notifications/cancelled":
		n.Kind = recorder.EventCancelled
		if read {
			n.Cancels = Key(p.RequestID)
			n.Text = fmt.Sprintf("the %s cancelled its request %s", from, n.Cancels)
			if p.Reason != "" {
				n.Text += ": " + p.Reason
			}
		}
	case strings.HasSuffix(method, "/list_changed"):
		n.Kind = recorder.EventListChanged
		n.Text = strings.TrimSuffix(strings.TrimPrefix(method, "notifications/"), "/list_changed") + " changed"
	default:
		n.Kind = recorder.EventOther
	}
	return n
}

// progressText is "3/5 message", or "3 message" without a total.
func progressText(progress, total float64, message string) string {
	var b strings.Builder
	if total > 0 {
		fmt.Fprintf(&b, "%g/%g", progress, total)
	} else {
		fmt.Fprintf(&b, "%g", progress)
	}
	if message != "" {
		b.WriteString(" " + message)
	}
	return b.String()
}

// readProgress reads a progress notification's progress, total and
// message in one pass ([Members]: the notification a server sends most,
// one per answered request in a fan-out); ok is false when params are
// not an object or one of the three has another type than its own.
func readProgress(params []byte) (progress, total float64, message string, ok bool) {
	typed := true // each of the three has its own type so far
	valid := Members(params, func(name, value []byte, _ int) bool {
		if string(value) == "null" {
			return true
		}
		switch string(name) {
		case "progress":
			progress, typed = scalar(value).(float64)
		case "total":
			total, typed = scalar(value).(float64)
		case "message":
			message, typed = String(value)
		}
		return typed
	})
	if !valid || !typed {
		return 0, 0, "", false
	}
	return progress, total, message, true
}
