package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/fanout-inspector/inspector/recorder"
	sjson "github.com/segmentio/encoding/json"
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
// message in one tokenizer pass (the notification a server sends most,
// one per answered request in a fan-out); ok is false when params are
// not an object or one of the three has another type than its own.
func readProgress(params []byte) (progress, total float64, message string, ok bool) {
	if len(params) == 0 || params[0] != '{' || !sjson.Valid(params) {
		return 0, 0, "", false
	}
	var t sjson.Tokenizer
	key := ""
	for t.Reset(params); t.Next(); {
		switch {
		case t.Depth != 1 || t.Delim == ':' || t.Delim == ',' || t.Delim == '}' || t.Delim == ']':
			continue
		case t.IsKey:
			switch string(t.String()) { // a switch on a converted name allocates nothing
			case "progress":
				key = "progress"
			case "total":
				key = "total"
			case "message":
				key = "message"
			default:
				key = ""
			}
			continue
		case key != "progress" && key != "total" && key != "message", t.Kind() == sjson.Null:
			continue
		case key == "message":
			if t.Delim != 0 || t.Value[0] != '"' {
				return 0, 0, "", false
			}
			message = string(t.String())
			continue
		}
		f, err := strconv.ParseFloat(string(t.Value), 64)
		if t.Delim != 0 || err != nil {
			return 0, 0, "", false
		}
		if key == "progress" {
			progress = f
		} else {
			total = f
		}
	}
	return progress, total, message, t.Err == nil
}
