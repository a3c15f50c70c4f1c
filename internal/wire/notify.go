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
		Progress  float64         `json:"progress"`
		Total     float64         `json:"total"`
		Message   string          `json:"message"`
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
		Level     string          `json:"level"`
		Logger    string          `json:"logger"`
		Data      json.RawMessage `json:"data"`
	}
	read := len(params) > 0 && json.Unmarshal(params, &p) == nil
	var n Notice
	switch {
	case method == "notifications/progress":
		n.Kind = recorder.EventProgress
		if read {
			n.Token, n.Text = Token(params), progressText(p.Progress, p.Total, p.Message)
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
