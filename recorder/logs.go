package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// LogLevels are the levels of a server's log messages (notifications/message),
// from the least to the most severe, as the protocol names them.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// DefaultLogLevel is the level asked of a server unless another is chosen:
// its log messages at info and above.
const DefaultLogLevel = "info"

// LogLevelRank is the place of level in [LogLevels] (0 for debug), or -1
// for a level the protocol does not name.
func LogLevelRank(level string) int {
	for i, l := range LogLevels {
		if l == level {
			return i
		}
	}
	return -1
}

// CheckLogLevel returns nil for a level of [LogLevels], else an error that
// names the levels there are.
func CheckLogLevel(level string) error {
	if LogLevelRank(level) < 0 {
		return fmt.Errorf("log level %q: want one of %s", level, strings.Join(LogLevels, ", "))
	}
	return nil
}

// LogMessage is a log message a server sent (an event of kind [EventLog]),
// read into its parts.
type LogMessage struct {
	// Level is the message's level, as the server wrote it (one of
	// [LogLevels] from a server that keeps to the protocol).
	Level string
	// Logger is the name of the logger that wrote it, "" for none.
	Logger string
	// Message is its data: a string as it is, other JSON compacted.
	Message string
}

// LogOf reads the log message of an event of kind [EventLog]; ok is
// false for any other event. Events recorded before [Event.Level]
// existed are read from their params.
func LogOf(e Event) (m LogMessage, ok bool) {
	if e.Kind != EventLog {
		return m, false
	}
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	read := len(e.Data) > 0 && json.Unmarshal(e.Data, &p) == nil
	m.Level, m.Logger = e.Level, e.Logger
	if m.Level == "" {
		m.Level, m.Logger = p.Level, p.Logger
	}
	if read && p.Data != nil {
		m.Message = LogData(p.Data)
	} else {
		// The params were cut (over the payload cap) or unreadable: the
		// text says the most, less its "level logger: " prefix.
		m.Message = strings.TrimPrefix(e.Text, LogPrefix(m.Level, m.Logger))
	}
	return m, true
}

// LogPrefix is what an event's text puts before a log message's data:
// "level logger: ", or "level: " without a logger.
func LogPrefix(level, logger string) string {
	if logger != "" {
		return level + " " + logger + ": "
	}
	return level + ": "
}

// LogData is a log message's data as text: a JSON string unquoted, other
// JSON compacted.
func LogData(data json.RawMessage) string {
	var s string
	if json.Unmarshal(data, &s) == nil {
		return s
	}
	var compact bytes.Buffer
	if json.Compact(&compact, data) == nil {
		return compact.String()
	}
	return string(data)
}

// LogCount is how many log messages a recording holds at one level.
type LogCount struct {
	Level string `json:"level"`
	Count int    `json:"count"`
}

// LogCounts counts the log messages among events by level, in the order
// of [LogLevels], then any level the protocol does not name in the order
// first seen. Levels with no message are left out.
func LogCounts(events []Event) []LogCount {
	byLevel := map[string]int{}
	var other []string
	for _, e := range events {
		m, ok := LogOf(e)
		if !ok {
			continue
		}
		if byLevel[m.Level] == 0 && LogLevelRank(m.Level) < 0 {
			other = append(other, m.Level)
		}
		byLevel[m.Level]++
	}
	var out []LogCount
	for _, l := range append(append([]string(nil), LogLevels...), other...) {
		if n := byLevel[l]; n > 0 {
			out = append(out, LogCount{Level: l, Count: n})
		}
	}
	return out
}
