package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// trimFloat prints whole numbers without decimals, others with one or
// more as needed (as the comparison does).
func trimFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	if math.Abs(v) >= 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// lastInstant is the end of the last span or event.
func lastInstant(snap *recorder.Snapshot) time.Duration {
	var end time.Duration
	for _, s := range snap.Spans {
		end = max(end, s.Received, s.Queued, s.Serving, s.Answered)
	}
	for _, e := range snap.Events {
		end = max(end, e.At)
	}
	return end
}

// writeJSON writes v without a trailing newline and without escaping <,
// > and & (payloads stay as they were on the wire).
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return err
}
