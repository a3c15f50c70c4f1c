package timeline

import (
	"fmt"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// FormatDuration writes d for a person: "512 µs", "12.3 ms", "2.51 s".
func FormatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "—"
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d/time.Microsecond)
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	case d < 100*time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// SpanLabel is the row label of a span.
func SpanLabel(s *recorder.Span) string {
	if s.Name != "" {
		return s.Method + " " + s.Name
	}
	if s.Unlinked != "" {
		return "unlinked " + s.Method // no tool call could be named as its cause (the details say why)
	}
	return s.Method
}

// FormatOffset writes an offset from the recording's start, or "—" when
// the phase was not reached.
func FormatOffset(d time.Duration) string {
	if d == recorder.Unset {
		return "—"
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}

// Truncate shortens s to at most n runes, ending it with "…" when cut.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
