package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// CSVHeader is the header row of [WriteCSV].
var CSVHeader = []string{
	"id", "parent", "session", "direction", "method", "kind", "status",
	"received_ms", "queued_ms", "serve_start_ms", "end_ms",
	"queue_ms", "serve_ms", "total_ms", "error",
	"request_id", "call", "round", "input_key", "outcome", "stalled_ms", "fulfilment_ms",
	"input_tokens", "output_tokens",
}

// WriteCSV writes one row per span, in ID order, under [CSVHeader]. Times
// are milliseconds from the recording's start with microsecond precision;
// a phase not reached is empty, as are the durations of an open span,
// whose status is "open". parent is empty for a span without one.
//
// The columns after error (added with recording format 2) place a span in
// its tool call: call is the id of the logical tool call it belongs to
// (itself for a call, the call of a round, the call of an input request's
// round or of a request the call caused), round its multi-round-trip
// round, input_key and outcome as in the recording, stalled_ms how long it
// was withheld from the client, fulfilment_ms (on a round) the client's
// time from the round's input_required result to the next round sent.
// input_tokens and output_tokens are the token counts of a sampling
// request a model endpoint answered, empty otherwise.
func WriteCSV(w io.Writer, snap *recorder.Snapshot) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	row := make([]string, len(CSVHeader))
	spans := snapSpans(snap)
	byID := make(map[recorder.SpanID]*recorder.Span, len(spans))
	for _, s := range spans {
		byID[s.ID] = s
	}
	var next map[recorder.SpanID]*recorder.Span
	if snap != nil {
		next = recorder.NextRounds(snap)
	}
	for _, s := range spans {
		status := s.Status.String()
		if s.Open() {
			status = "open"
		}
		parent := ""
		if s.Parent != 0 {
			parent = strconv.FormatInt(int64(s.Parent), 10)
		}
		var queue, serve, total string
		if !s.Open() {
			queue, serve, total = csvMS(s.QueueTime()), csvMS(s.ServeTime()), csvMS(s.Total())
		}
		row = append(row[:0],
			strconv.FormatInt(int64(s.ID), 10), parent, s.Session, s.Direction.String(),
			s.Method, s.Kind.String(), status,
			csvPhase(s.Received), csvPhase(s.Queued), csvPhase(s.Serving), csvPhase(s.Answered),
			queue, serve, total, s.Error,
			s.RequestID, csvID(callOf(byID, s)), csvInt(int(s.Round)), s.InputKey, s.Outcome.String(), csvStalled(s.Stalled), csvFulfilment(s, next[s.ID]),
			csvInt(int(s.InputTokens)), csvInt(int(s.OutputTokens)))
		for i := range row {
			row[i] = csvText(row[i])
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// csvText makes a cell of text a peer sent (an error message, a method,
// a request ID) safe for a spreadsheet or a line-based tool: control
// characters other than tab and line breaks are written as \xNN, and
// invalid UTF-8 as U+FFFD.
func csvText(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func csvPhase(d time.Duration) string {
	if d == recorder.Unset {
		return ""
	}
	return csvMS(d)
}

func csvMS(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

// snapSpans returns the spans of snap, or none for a nil snapshot.
func snapSpans(snap *recorder.Snapshot) []*recorder.Span {
	if snap == nil {
		return nil
	}
	return snap.Spans
}

// callOf is the logical tool call s belongs to, or 0: s itself when it is
// one, else the nearest tool call up its parents (at most two steps: an
// input request, its round, the call).
func callOf(byID map[recorder.SpanID]*recorder.Span, s *recorder.Span) recorder.SpanID {
	for hops := 0; s != nil && hops < 3; hops++ {
		if s.Kind == recorder.KindTool {
			return s.ID
		}
		s = byID[s.Parent]
	}
	return 0
}

func csvID(id recorder.SpanID) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(int64(id), 10)
}

func csvInt(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func csvStalled(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return csvMS(d)
}

func csvFulfilment(round, next *recorder.Span) string {
	if f, ok := recorder.FulfilmentTime(round, next); ok {
		return csvMS(f)
	}
	return ""
}

// SeriesCSVHeader is the header row of [WriteSeriesCSV].
var SeriesCSVHeader = []string{"t_s", "width_s", "started", "finished", "errors", "in_flight", "queued", "p50_ms", "p99_ms"}

// WriteSeriesCSV writes the recording over time ([recorder.Series]), one
// row per step from the recording's start, under [SeriesCSVHeader]: the
// step's start and width in seconds (1, unless the run is longer than
// [recorder.MaxSeriesPoints] seconds), tool calls started, finished and
// failed in the step, the most calls in flight and server requests
// queued at once in it, and the p50 and p99 latency of the calls
// finished in it (milliseconds).
func WriteSeriesCSV(w io.Writer, snap *recorder.Snapshot) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SeriesCSVHeader); err != nil {
		return fmt.Errorf("write series csv: %w", err)
	}
	num := strconv.Itoa
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, st := range recorder.Series(snap) {
		if err := cw.Write([]string{num(st.T), num(max(st.Width, 1)), num(st.Started), num(st.Finished), num(st.Errors),
			num(st.InFlight), num(st.Queued), f(st.P50MS), f(st.P99MS)}); err != nil {
			return fmt.Errorf("write series csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write series csv: %w", err)
	}
	return nil
}
