package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fanout-inspector/inspector/recorder"
)

// transcriptLine is one message of `report --transcript --json`.
type transcriptLine struct {
	AtMS    float64 `json:"at_ms"`
	Type    string  `json:"type"`
	From    string  `json:"from,omitempty"` // "client" or "server"
	Depth   int     `json:"depth,omitempty"`
	ID      string  `json:"id,omitempty"`
	Method  string  `json:"method,omitempty"`
	Span    int64   `json:"span,omitempty"`
	Summary string  `json:"summary,omitempty"`
	Class   string  `json:"class,omitempty"`
	Code    int64   `json:"code,omitempty"`
	HTTP    int     `json:"http_status,omitempty"`
	Session string  `json:"session,omitempty"`
	Message any     `json:"message"`
}

// printTranscript prints snap's JSON-RPC transcript (see
// [recorder.Transcript]): a line per message, or with asJSON an array
// of [transcriptLine].
func printTranscript(w io.Writer, snap *recorder.Snapshot, asJSON bool) {
	msgs := recorder.TranscriptOf(snap)
	if !asJSON {
		if len(msgs) == 0 {
			fmt.Fprintln(w, "The recording holds no messages.")
		}
		for i := range msgs {
			m := &msgs[i]
			line := m.Line()
			if st := m.StatusText(snap); st != "" {
				line += " (" + st + ")"
			}
			fmt.Fprintln(w, line)
		}
		return
	}
	out := make([]transcriptLine, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		l := transcriptLine{AtMS: float64(m.At.Microseconds()) / 1000, Type: m.Type.String(), Depth: int(m.Depth),
			ID: m.ID(), Method: m.Method(), Span: int64(m.SpanID()), Summary: m.Summary(),
			Class: string(m.Class()), HTTP: m.HTTPStatus(snap), Message: json.RawMessage(m.JSON())}
		switch m.Direction {
		case recorder.Outgoing:
			l.From = "client"
		case recorder.Incoming:
			l.From = "server"
		}
		if m.Span != nil {
			l.Session = m.Span.Session
			if l.Class != "" {
				l.Code = recorder.ErrorCodeOf(m.Span)
			}
		} else if m.Event != nil {
			l.Session = m.Event.Session
		}
		out[i] = l
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}
