package recorder

import (
	"errors"
	"io"
)

// Chart names a chart of a recording.
type Chart string

// The charts.
const (
	ChartConcurrency Chart = "concurrency"
	ChartLatency     Chart = "latency"
	ChartGantt       Chart = "gantt"
)

// WriteChartPNG draws chart c of snap as a PNG image.
func WriteChartPNG(w io.Writer, snap *Snapshot, c Chart, width, height int) error {
	return errors.New("not yet")
}

// WriteChartSVG draws chart c of snap as an SVG image.
func WriteChartSVG(w io.Writer, snap *Snapshot, c Chart, width, height int) error {
	return errors.New("not yet")
}

// WriteHTML writes a self-contained HTML report of one snapshot, or a
// comparison of two.
func WriteHTML(w io.Writer, snaps ...*Snapshot) error { return errors.New("not yet") }

// Difference is one figure that differs between two summaries.
type Difference struct {
	Key   string  `json:"key"`
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	Delta float64 `json:"delta"`
	// Ratio is B/A, or 0 when A is 0.
	Ratio float64 `json:"ratio"`
	Text  string  `json:"text"`
}

// Compare lists the figures that differ between a and b.
func Compare(a, b Summary) []Difference { return nil }
