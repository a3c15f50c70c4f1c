package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// CSVHeader is the header row of [WriteCSV].
var CSVHeader = []string{
	"id", "parent", "session", "direction", "method", "kind", "status",
	"received_ms", "queued_ms", "serve_start_ms", "end_ms",
	"queue_ms", "serve_ms", "total_ms", "error",
}

// WriteCSV writes one row per span, in ID order, under [CSVHeader]. Times
// are milliseconds from the recording's start with microsecond precision;
// a phase not reached is empty, as are the durations of an open span,
// whose status is "open". parent is empty for a span without one.
func WriteCSV(w io.Writer, snap *recorder.Snapshot) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	row := make([]string, len(CSVHeader))
	for _, s := range snapSpans(snap) {
		status := string(s.Status)
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
			strconv.FormatInt(int64(s.ID), 10), parent, s.Session, string(s.Direction),
			s.Method, string(s.Kind), status,
			csvPhase(s.Received), csvPhase(s.Queued), csvPhase(s.Serving), csvPhase(s.Answered),
			queue, serve, total, s.Error)
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
