package recorder

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLogOf reads log messages as recorded now (level and logger
// fields), as recorded before those fields (from the params), and when
// the params were cut (from the text).
func TestLogOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    Event
		want LogMessage
	}{
		{"fields", Event{Kind: EventLog, Level: "warning", Logger: "db", Text: "warning db: slow query",
			Data: json.RawMessage(`{"level":"warning","logger":"db","data":"slow query"}`)}, LogMessage{"warning", "db", "slow query"}},
		{"older recording", Event{Kind: EventLog, Text: "error: {\"n\":5}",
			Data: json.RawMessage(`{"level":"error","data":{ "n": 5 }}`)}, LogMessage{"error", "", `{"n":5}`}},
		{"params cut", Event{Kind: EventLog, Level: "info", Logger: "big", Text: "info big: the head of it",
			Data: json.RawMessage(`{"truncated":true,"bytes":20000,"head":"…"}`)}, LogMessage{"info", "big", "the head of it"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := LogOf(tt.e); !ok || got != tt.want {
				t.Errorf("LogOf = %+v, %v; want %+v", got, ok, tt.want)
			}
		})
	}
	if _, ok := LogOf(Event{Kind: EventProgress}); ok {
		t.Error("LogOf read a progress event as a log message")
	}
}

// TestLogCounts counts by level in the protocol's order, a level it does
// not name last.
func TestLogCounts(t *testing.T) {
	evs := []Event{{Kind: EventLog, Level: "error"}, {Kind: EventLog, Level: "info"}, {Kind: EventLog, Level: "verbose"},
		{Kind: EventLog, Level: "info"}, {Kind: EventStderr, Text: "error: not a log message"}}
	var got []string
	for _, c := range LogCounts(evs) {
		got = append(got, c.Level+"="+strings.Repeat("|", c.Count))
	}
	if strings.Join(got, " ") != "info=|| error=| verbose=|" {
		t.Errorf("LogCounts = %v", got)
	}
	if err := CheckLogLevel("verbose"); err == nil || !strings.Contains(err.Error(), "debug, info, notice, warning, error, critical, alert, emergency") {
		t.Errorf("CheckLogLevel(verbose) = %v", err)
	}
}

// TestLogLoggerScrubbed: a secret in a log message's logger name, text
// or params does not reach the recording.
func TestLogLoggerScrubbed(t *testing.T) {
	rec := New(Meta{})
	rec.AddSecrets("tok-5f2b9c1e")
	rec.AddEvent(Event{Kind: EventLog, Level: "info", Logger: "client tok-5f2b9c1e", Text: "info client tok-5f2b9c1e: hi",
		Data: json.RawMessage(`{"level":"info","logger":"client tok-5f2b9c1e","data":"hi"}`)})
	e := rec.Snapshot().Events[0]
	b, _ := json.Marshal(e)
	if strings.Contains(string(b), "tok-5f2b9c1e") {
		t.Errorf("the secret reached the recording: %s", b)
	}
	if m, _ := LogOf(e); m.Level != "info" || m.Message != "hi" {
		t.Errorf("scrubbed, the message reads %+v", m)
	}
}
