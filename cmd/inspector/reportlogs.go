package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/fanout-inspector/inspector/recorder"
)

// logsJSON is what `report --logs --json` prints.
type logsJSON struct {
	// Counts is how many messages each level has, least severe first.
	Counts   []recorder.LogCount `json:"counts"`
	Messages []logLineJSON       `json:"messages"`
}

// logLineJSON is one log message of `report --logs --json`.
type logLineJSON struct {
	AtMS    float64 `json:"at_ms"`
	Session string  `json:"session,omitempty"`
	Level   string  `json:"level"`
	Logger  string  `json:"logger,omitempty"`
	Message string  `json:"message"`
	// Span is the request the message belongs to (see
	// [recorder.Event.Span]), 0 for none; Request names it.
	Span    int64  `json:"span,omitempty"`
	Request string `json:"request,omitempty"`
}

// printLogs prints the server log messages of snap, by level from the
// most severe down, each level's messages in time order; with asJSON a
// [logsJSON].
func printLogs(w io.Writer, snap *recorder.Snapshot, asJSON bool) {
	var lines []logLineJSON
	events := slices.Clone(snap.Events)
	slices.SortStableFunc(events, func(a, b recorder.Event) int { return cmp.Compare(a.At, b.At) })
	for _, e := range events {
		m, ok := recorder.LogOf(e)
		if !ok {
			continue
		}
		l := logLineJSON{AtMS: float64(e.At.Microseconds()) / 1000, Session: e.Session, Level: m.Level, Logger: m.Logger, Message: m.Message, Span: int64(e.Span)}
		if sp := snap.SpanByID(e.Span); sp != nil {
			l.Request = requestName(sp)
		}
		lines = append(lines, l)
	}
	counts := recorder.LogCounts(snap.Events)
	if asJSON {
		if counts == nil {
			counts = []recorder.LogCount{}
		}
		if lines == nil {
			lines = []logLineJSON{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(logsJSON{Counts: counts, Messages: lines})
		return
	}
	if len(lines) == 0 {
		fmt.Fprintln(w, "The recording holds no log messages (the server sent none at the level asked for: see --log-level).")
		return
	}
	var total []string
	for _, c := range counts {
		total = append(total, fmt.Sprintf("%s %d", levelName(c.Level), c.Count))
	}
	plural := "s"
	if len(lines) == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "%d log message%s: %s\n", len(lines), plural, strings.Join(total, ", "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i := len(counts) - 1; i >= 0; i-- {
		c := counts[i]
		fmt.Fprintf(tw, "\n%s (%d)\n", levelName(c.Level), c.Count)
		for _, l := range lines {
			if l.Level != c.Level {
				continue
			}
			under := ""
			if l.Request != "" {
				under = fmt.Sprintf("#%d %s", l.Span, l.Request)
			}
			fmt.Fprintf(tw, "  %.3fs\t%s\t%s\t%s\n", l.AtMS/1000, l.Logger, shortLine(l.Message), under)
		}
	}
	tw.Flush()
}

// requestName is how a log line names the request it belongs to: its
// method, and the tool, resource or prompt it was for.
func requestName(sp *recorder.Span) string {
	if sp.Name != "" {
		return sp.Method + " " + sp.Name
	}
	return sp.Method
}

// shortLine keeps a message to one line of at most 200 characters.
func shortLine(s string) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// levelName is a level as the report names it: a message recorded
// without one (an old recording, a server off the protocol) is "(no
// level)".
func levelName(level string) string {
	if level == "" {
		return "(no level)"
	}
	return level
}
