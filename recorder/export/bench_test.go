package export

import (
	"io"
	"testing"
)

// BenchmarkExport is each export of a 100,000-span recording; "bytes" is
// the size of the output.
func BenchmarkExport(b *testing.B) {
	snap := loadSnapshot(100_000, 1)
	exports := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"chrome-trace", func(w io.Writer) error { return WriteChromeTrace(w, snap) }},
		{"otlp", func(w io.Writer) error { return WriteOTLP(w, snap) }},
		{"csv", func(w io.Writer) error { return WriteCSV(w, snap) }},
		{"png-concurrency", func(w io.Writer) error { return WriteChartPNG(w, snap, ChartConcurrency, 1200, 600) }},
		{"png-gantt", func(w io.Writer) error { return WriteChartPNG(w, snap, ChartGantt, 1200, 600) }},
		{"png-latency", func(w io.Writer) error { return WriteChartPNG(w, snap, ChartLatency, 1200, 600) }},
		{"svg-concurrency", func(w io.Writer) error { return WriteChartSVG(w, snap, ChartConcurrency, 1200, 600) }},
		{"svg-gantt", func(w io.Writer) error { return WriteChartSVG(w, snap, ChartGantt, 1200, 600) }},
		{"html", func(w io.Writer) error { return WriteHTML(w, snap) }},
	}
	for _, e := range exports {
		b.Run(e.name, func(b *testing.B) {
			var out countingWriter
			for b.Loop() {
				out = 0
				if err := e.write(&out); err != nil {
					b.Fatal(err)
				}
			}
			if out > 0 {
				b.ReportMetric(float64(out), "bytes")
			}
		})
	}
}

// countingWriter counts the bytes written to it and keeps none, so that
// export benchmarks measure the export, not a growing buffer.
type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
