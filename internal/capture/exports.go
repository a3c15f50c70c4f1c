package capture

import (
	"io"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
)

// Outputs are the export files a run asks for by flag ("" for none),
// and the chart --png and --svg draw.
type Outputs struct {
	Trace, OTLP, OTLPMetrics, CSV, SeriesCSV, PNG, SVG, HTML string
	Chart                                                    export.Chart
	Width, Height                                            int
}

// Exports lists o's files as [Export]s, each named by its flag.
func (o Outputs) Exports() []Export {
	chart := func(draw func(io.Writer, *recorder.Snapshot, export.Chart, int, int) error) func(io.Writer, *recorder.Snapshot) error {
		return func(w io.Writer, snap *recorder.Snapshot) error { return draw(w, snap, o.Chart, o.Width, o.Height) }
	}
	return []Export{
		{Flag: "--trace", Path: o.Trace, Write: export.WriteChromeTrace},
		{Flag: "--otlp", Path: o.OTLP, Write: export.WriteOTLP},
		{Flag: "--csv", Path: o.CSV, Write: export.WriteCSV},
		{Flag: "--series-csv", Path: o.SeriesCSV, Write: export.WriteSeriesCSV},
		{Flag: "--otlp-metrics", Path: o.OTLPMetrics, Write: export.WriteOTLPMetrics},
		{Flag: "--png", Path: o.PNG, Write: chart(export.WriteChartPNG)},
		{Flag: "--svg", Path: o.SVG, Write: chart(export.WriteChartSVG)},
		{Flag: "--html", Path: o.HTML, Write: func(w io.Writer, snap *recorder.Snapshot) error { return export.WriteHTML(w, snap) }},
	}
}
