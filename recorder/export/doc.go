// Package export writes a [recorder.Snapshot] in formats other tools open:
// [WriteChromeTrace] (Perfetto, chrome://tracing), [WriteOTLP] (Jaeger,
// any OTLP receiver), [WriteOTLPMetrics] (the mcp.client.operation.duration
// histogram), [WriteCSV] and [WriteSeriesCSV] (spreadsheets: a row per
// request, a row per second), [WriteChartPNG] and
// [WriteChartSVG] (go-chart images of the [Charts]), and [WriteHTML] (a
// self-contained report, or a comparison of two runs).
//
// It is apart from package recorder so that what records a run (the
// engine) links neither go-chart nor html/template; only what exports
// (the command line, the app) does. docs/recording-format.md describes
// every format.
package export
