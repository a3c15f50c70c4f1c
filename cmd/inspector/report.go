package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fanout-inspector/inspector/internal/outfile"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
)

const reportUsage = `Usage: inspector report RECORDING [flags]
       inspector report --merge RECORDING RECORDING... [flags]

Summarize a recording (saved with 'inspector run --record FILE', from the app,
or a journal a run left behind, even a killed one), export it to other
formats, compare it with another recording, or merge the recordings of
several load generators into one.

Flags may come before or after RECORDING. RECORDING - reads standard input.

  --json            print the summary as one JSON object (with --compare:
                    {"a": …, "b": …, "differences": […]})
  --compare B       compare RECORDING (A, the baseline) with recording B
  --merge           merge the recordings named (made at the same time by
                    several processes or machines) into one, aligned on
                    their wall-clock starts, each source's sessions named
                    after its file ("gen1:s1"); the summary, the exports
                    and --save describe the merge
  --trace FILE      write a Chrome trace (Perfetto, chrome://tracing)
  --otlp FILE       write OTLP/JSON traces (Jaeger's "Upload JSON")
  --otlp-metrics FILE
                    write OTLP/JSON metrics: the histogram
                    mcp.client.operation.duration by method
  --csv FILE        write one CSV row per request
  --series-csv FILE write one CSV row per second of the run: tool calls
                    started, finished and failed, in flight, p50/p99
  --png FILE        write a chart as PNG (which one: --chart)
  --svg FILE        write a chart as SVG (which one: --chart)
  --chart NAME      the chart --png and --svg draw: concurrency (default),
                    gantt, latency, throughput or latency-time
  --width N, --height N
                    the chart's size in pixels (default 1200×600)
  --html FILE       write a self-contained HTML report; with --compare, of
                    both recordings on one time scale
  --save FILE       save the recording again (turns a journal into a
                    recording file)
  --slowest N       also list the N slowest requests (with --json: under
                    "slowest")
  --transcript      print the JSON-RPC transcript instead of the summary:
                    one line per message, both ways, in time order (with
                    --json: a JSON array, one object per message)
  --http            print the HTTP exchanges instead of the summary (a
                    session over streamable HTTP or SSE): method, status,
                    headers with secrets masked, bodies, an event stream's
                    events (with --json: the recording's "http" object)
  --logs            print the server's log messages instead of the summary:
                    how many at each level, then each level's messages,
                    the most severe first, with the request each belongs
                    to (with --json: {"counts": […], "messages": […]})

Exit codes: 0 ok, 1 a file could not be read or written, 2 bad flags or an
output path that cannot be written (checked before reading anything).
`

// reportOptions are the flags of `inspector report`.
type reportOptions struct {
	asJSON                     bool
	compare                    string
	merge                      bool
	trace, otlp, csv, png, svg string
	html, save                 string
	seriesCSV, otlpMetrics     string
	chart                      string
	chartKind                  export.Chart // chart, read by check
	width, height              int
	slowest                    int
	transcript                 bool
	httpLog                    bool
	logs                       bool
}

// reportCommand implements `inspector report`.
func reportCommand(args []string) int {
	return reportMain(args, os.Stdin, os.Stdout, os.Stderr)
}

// reportLoad reads a recording or journal from path, or from stdin when
// path is "-".
func reportLoad(path string, stdin io.Reader) (*recorder.Snapshot, error) {
	if path != "-" {
		return recorder.LoadFile(path)
	}
	snap, err := recorder.Load(stdin)
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	return snap, nil
}

// reportMain is `inspector report` with its streams passed in; it returns
// the exit code.
func reportMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, files, code := parseReport(args, stdout, stderr)
	if o == nil {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		return exitWith(stderr, "report", exitErrorf(code, format, a...), nil)
	}
	if err := o.check(files); err != nil {
		return fail(exitUsage, "%v", err)
	}
	snaps, names, err := o.load(files, stdin, stderr)
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	if o.httpLog {
		printHTTP(stdout, snaps[0], o.asJSON)
		return o.write(snaps, stderr)
	}
	if o.logs {
		printLogs(stdout, snaps[0], o.asJSON) // reportlogs.go
		return o.write(snaps, stderr)
	}
	sums := make([]recorder.Summary, len(snaps))
	for i, s := range snaps {
		sums[i] = recorder.Summarize(s)
	}
	if o.transcript {
		printTranscript(stdout, snaps[0], o.asJSON)
	} else if o.asJSON {
		o.printJSON(stdout, snaps, sums)
	} else {
		o.printText(stdout, snaps, names, sums)
	}
	return o.write(snaps, stderr)
}

// parseReport reads the flags and the recordings named, which flags may
// follow. On a nil reportOptions the int is the exit code, the error said.
func parseReport(args []string, stdout, stderr io.Writer) (*reportOptions, []string, int) {
	o := &reportOptions{}
	fs := flag.NewFlagSet("inspector report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage) }
	fs.BoolVar(&o.asJSON, "json", false, "print the summary as JSON")
	fs.StringVar(&o.compare, "compare", "", "compare with recording `B`")
	fs.BoolVar(&o.merge, "merge", false, "merge the recordings named into one")
	fs.StringVar(&o.trace, "trace", "", "write a Chrome trace to `FILE`")
	fs.StringVar(&o.otlp, "otlp", "", "write OTLP/JSON traces to `FILE`")
	fs.StringVar(&o.csv, "csv", "", "write CSV to `FILE`")
	fs.StringVar(&o.seriesCSV, "series-csv", "", "write the per-second series as CSV to `FILE`")
	fs.StringVar(&o.otlpMetrics, "otlp-metrics", "", "write OTLP/JSON metrics to `FILE`")
	fs.StringVar(&o.png, "png", "", "write the chart as PNG to `FILE`")
	fs.StringVar(&o.svg, "svg", "", "write the chart as SVG to `FILE`")
	fs.StringVar(&o.chart, "chart", string(export.ChartConcurrency), "the chart --png and --svg draw: concurrency, gantt, latency, throughput or latency-time")
	fs.IntVar(&o.width, "width", 1200, "chart width in pixels")
	fs.IntVar(&o.height, "height", 600, "chart height in pixels")
	fs.StringVar(&o.html, "html", "", "write an HTML report to `FILE`")
	fs.StringVar(&o.save, "save", "", "save the recording to `FILE`")
	fs.IntVar(&o.slowest, "slowest", 0, "also list the `N` slowest requests")
	fs.BoolVar(&o.transcript, "transcript", false, "print the JSON-RPC transcript")
	fs.BoolVar(&o.httpLog, "http", false, "print the HTTP exchanges")
	fs.BoolVar(&o.logs, "logs", false, "print the server's log messages by level")

	// Flags may follow the recording's name: parse, take one positional
	// argument, parse the rest.
	var files []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, reportUsage)
				return nil, nil, exitOK
			}
			return nil, nil, exitUsage // the flag package said which flag
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) == 0 {
		fmt.Fprint(stderr, "inspector report: name the recording to read\n\n"+reportUsage)
		return nil, nil, exitUsage
	}
	return o, files, exitOK
}

// check checks the flags against one another and the files to write.
func (o *reportOptions) check(files []string) error {
	switch {
	case o.merge && o.compare != "":
		return errors.New("--merge and --compare do not go together: merge into a file with --save, then compare it")
	case len(files) > 1 && !o.merge:
		return fmt.Errorf("one recording at a time (got %s); to compare two, use RECORDING --compare B", strings.Join(files, ", "))
	case o.httpLog && o.compare != "":
		return errors.New("--http prints one recording: leave out --compare, or run report once for each")
	case o.logs && o.compare != "":
		return errors.New("--logs prints one recording: leave out --compare, or run report once for each")
	case o.logs && (o.httpLog || o.transcript):
		return errors.New("--logs, --http and --transcript each print instead of the summary: choose one")
	case o.transcript && o.compare != "":
		return errors.New("--transcript prints one recording: leave out --compare, or run report once for each")
	case o.slowest < 0:
		return fmt.Errorf("--slowest %d: give a number of requests, 0 or more", o.slowest)
	case o.width < 64 || o.height < 48 || o.width > 20000 || o.height > 20000:
		return fmt.Errorf("--width %d --height %d: choose a chart size between 64×48 and 20000×20000", o.width, o.height)
	}
	var err error
	if o.chartKind, err = export.ParseChart(o.chart); err != nil {
		return fmt.Errorf("--chart: %v", err)
	}
	return checkOutputs([]outputFile{{"--trace", o.trace}, {"--otlp", o.otlp}, {"--csv", o.csv},
		{"--series-csv", o.seriesCSV}, {"--otlp-metrics", o.otlpMetrics}, {"--png", o.png}, {"--svg", o.svg}, {"--html", o.html}, {"--save", o.save}})
}

// load reads the recording (or merges those named) and, with --compare,
// the second one; names are how the text output calls them.
func (o *reportOptions) load(files []string, stdin io.Reader, stderr io.Writer) (snaps []*recorder.Snapshot, names []string, err error) {
	var a *recorder.Snapshot
	if o.merge {
		if a, err = reportMerge(files, stdin, stderr); err != nil {
			return nil, nil, fmt.Errorf("--merge: %v", err)
		}
	} else if a, err = reportLoad(files[0], stdin); err != nil {
		return nil, nil, err
	}
	snaps, names = []*recorder.Snapshot{a}, []string{files[0]}
	if o.compare != "" {
		b, err := reportLoad(o.compare, stdin)
		if err != nil {
			return nil, nil, fmt.Errorf("--compare: %v", err)
		}
		snaps, names = append(snaps, b), append(names, o.compare)
	}
	return snaps, names, nil
}

// printJSON prints the summaries (and, for two, their differences) as
// JSON.
func (o *reportOptions) printJSON(stdout io.Writer, snaps []*recorder.Snapshot, sums []recorder.Summary) {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	out := make([]reportJSON, len(snaps))
	for i := range snaps {
		out[i].Summary = sums[i]
		out[i].Merged = snaps[i].Meta.Merged
		if o.slowest > 0 {
			out[i].Slowest = slowestJSON(snaps[i], o.slowest)
		}
	}
	// each with its protocol and era, as run --json gives them
	objs := make([]any, len(out))
	for i := range out {
		objs[i] = withEra(out[i], snaps[i].Meta)
	}
	if len(snaps) == 1 {
		enc.Encode(objs[0])
		return
	}
	diffs := recorder.Compare(sums[0], sums[1])
	if diffs == nil {
		diffs = []recorder.Difference{}
	}
	enc.Encode(map[string]any{"a": objs[0], "b": objs[1], "differences": diffs})
}

// printText prints the summaries as text, A and B and their differences
// when comparing.
func (o *reportOptions) printText(stdout io.Writer, snaps []*recorder.Snapshot, names []string, sums []recorder.Summary) {
	for i, s := range snaps {
		if len(snaps) == 2 {
			fmt.Fprintf(stdout, "%s: %s\n", string(rune('A'+i)), names[i])
		}
		reportSummaryText(stdout, s, sums[i])
		if o.slowest > 0 {
			reportSlowest(stdout, s, o.slowest)
		}
		fmt.Fprintln(stdout)
	}
	if len(snaps) != 2 {
		return
	}
	diffs := recorder.Compare(sums[0], sums[1])
	if len(diffs) == 0 {
		fmt.Fprintln(stdout, "No differences.")
		return
	}
	fmt.Fprintln(stdout, "Differences (A → B):")
	for _, d := range diffs {
		fmt.Fprintf(stdout, "  %s\n", d.Text)
	}
}

// write writes the files asked for; one that fails does not stop the
// others. Outputs describe the first recording; the HTML report draws
// both.
func (o *reportOptions) write(snaps []*recorder.Snapshot, stderr io.Writer) int {
	a := snaps[0]
	outputs := []struct {
		flag, path string
		write      func(io.Writer) error
	}{
		{"--trace", o.trace, func(w io.Writer) error { return export.WriteChromeTrace(w, a) }},
		{"--otlp", o.otlp, func(w io.Writer) error { return export.WriteOTLP(w, a) }},
		{"--csv", o.csv, func(w io.Writer) error { return export.WriteCSV(w, a) }},
		{"--series-csv", o.seriesCSV, func(w io.Writer) error { return export.WriteSeriesCSV(w, a) }},
		{"--otlp-metrics", o.otlpMetrics, func(w io.Writer) error { return export.WriteOTLPMetrics(w, a) }},
		{"--png", o.png, func(w io.Writer) error { return export.WriteChartPNG(w, a, o.chartKind, o.width, o.height) }},
		{"--svg", o.svg, func(w io.Writer) error { return export.WriteChartSVG(w, a, o.chartKind, o.width, o.height) }},
		{"--html", o.html, func(w io.Writer) error { return export.WriteHTML(w, snaps...) }},
		{"--save", o.save, func(w io.Writer) error { return recorder.Save(w, a) }},
	}
	code := exitOK
	for _, out := range outputs {
		if out.path == "" {
			continue
		}
		if err := reportWriteFile(out.path, out.write); err != nil {
			fmt.Fprintf(stderr, "inspector report: %s %s: %v\n", out.flag, out.path, err)
			code = exitFailure
		}
	}
	return code
}

// reportWriteFile writes path with write ([outfile.Write]): a regular
// file is replaced only once the new one is complete, so a failed export
// never leaves a half-written file nor destroys an older one; a device,
// pipe or symbolic link is written through and left in place.
func reportWriteFile(path string, write func(io.Writer) error) error {
	return outfile.Write(path, write)
}

// reportSummaryText prints a recording's summary for a person.
func reportSummaryText(w io.Writer, snap *recorder.Snapshot, sum recorder.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	title := snap.Meta.Title
	if title == "" {
		title = "(untitled)"
	}
	requests := fmt.Sprintf("%d requests", len(snap.Spans))
	if sm := snap.Sampled; sm != nil {
		requests = fmt.Sprintf("%d requests (a sample of %d)", len(snap.Spans), sm.Spans)
	}
	fmt.Fprintf(tw, "recording\t%s, %s, %s, %d events\n", title,
		snap.Meta.Created.UTC().Format("2006-01-02 15:04:05 MST"), requests, len(snap.Events))
	if server := serverLine(snap.Meta); server != "" {
		fmt.Fprintf(tw, "server\t%s\n", server)
	}
	for _, m := range snap.Meta.Merged {
		fmt.Fprintf(tw, "source %s\t%s, from +%.3f s for %.3f s, %d requests, sessions %s\n", m.Name,
			m.Created.UTC().Format("2006-01-02 15:04:05.000 MST"), m.Offset.Seconds(), m.Length.Seconds(), m.Spans, strings.Join(m.Sessions, ", "))
	}
	writeFigures(tw, sum)
	open := 0
	for _, sp := range snap.Spans {
		if sp.Open() {
			open++
		}
	}
	if open > 0 {
		what := fmt.Sprintf("%d requests: the recording stopped before they were answered", open)
		if open == 1 {
			what = "1 request: the recording stopped before it was answered"
		}
		fmt.Fprintf(tw, "still open\t%s (a journal of a killed run, or a live snapshot)\n", what)
	}
	tw.Flush()
}

// reportJSON is what report --json prints for one recording: the summary,
// and the slowest requests when --slowest asks for them.
type reportJSON struct {
	recorder.Summary
	Slowest []slowRequest `json:"slowest,omitempty"`
	// Merged lists the sources of a merged recording.
	Merged []recorder.MergedSource `json:"merged,omitempty"`
}

// slowRequest is one row of --slowest in JSON: the table's columns.
type slowRequest struct {
	ID         recorder.SpanID    `json:"id"`
	Method     string             `json:"method"`
	Name       string             `json:"name,omitempty"`
	Direction  recorder.Direction `json:"direction"`
	Status     recorder.Status    `json:"status"`
	Error      string             `json:"error,omitempty"`
	ReceivedMS float64            `json:"received_ms"`
	QueueMS    float64            `json:"queue_ms"`
	ServeMS    float64            `json:"serve_ms"`
	TotalMS    float64            `json:"total_ms"`
}

// slowestJSON returns the n slowest finished requests of snap, slowest
// first; an empty list (not null) when none finished.
func slowestJSON(snap *recorder.Snapshot, n int) []slowRequest {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	list := []slowRequest{}
	for _, s := range recorder.Slowest(snap, n) {
		list = append(list, slowRequest{ID: s.ID, Method: s.Method, Name: s.Name, Direction: s.Direction,
			Status: s.Status, Error: s.Error, ReceivedMS: ms(s.Received), QueueMS: ms(s.QueueTime()),
			ServeMS: ms(s.ServeTime()), TotalMS: ms(s.Total())})
	}
	return list
}

// reportSlowest lists the n slowest finished requests of snap.
func reportSlowest(w io.Writer, snap *recorder.Snapshot, n int) {
	spans := recorder.Slowest(snap, n)
	fmt.Fprintf(w, "\nslowest requests:\n")
	if len(spans) == 0 {
		fmt.Fprintln(w, "  none finished")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "id\tmethod\tdirection\tstatus\treceived ms\tqueue ms\tserve ms\ttotal ms\t")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }
	for _, s := range spans {
		method := s.Method
		if s.Name != "" {
			method += " " + s.Name
		}
		status := s.Status.String()
		if s.Error != "" {
			status += ": " + s.Error
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.ID, method, s.Direction, status,
			ms(s.Received), ms(s.QueueTime()), ms(s.ServeTime()), ms(s.Total()))
	}
	tw.Flush()
}

// reportMerge reads the recordings (or journals) at paths and merges them
// with [recorder.Merge], each named after its file. It names every file
// that cannot be read, and notes on stderr a merge of one recording and
// a source that overlaps none of the others in time.
func reportMerge(paths []string, stdin io.Reader, stderr io.Writer) (*recorder.Snapshot, error) {
	var snaps []*recorder.Snapshot
	var names, bad []string
	stdinUsed := false
	for _, p := range paths {
		if p == "-" {
			if stdinUsed {
				return nil, errors.New("standard input (-) named twice: it can be read once")
			}
			stdinUsed = true
		}
		snap, err := reportLoad(p, stdin)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		snaps = append(snaps, snap)
		names = append(names, sourceName(p))
	}
	switch {
	case len(bad) == 1:
		return nil, errors.New(bad[0])
	case len(bad) > 1:
		return nil, fmt.Errorf("%d of the %d recordings cannot be read:\n  %s", len(bad), len(paths), strings.Join(bad, "\n  "))
	}
	merged, err := recorder.Merge(snaps, names)
	if err != nil {
		return nil, err
	}
	if len(snaps) == 1 {
		fmt.Fprintf(stderr, "inspector report: note: --merge of one recording (%s): nothing to merge, it is reported as it is\n", paths[0])
	}
	sources := merged.Meta.Merged
	for i, m := range sources {
		alone := true
		for j, o := range sources {
			if i != j && m.Offset < o.End() && o.Offset < m.End() {
				alone = false
			}
		}
		if alone {
			fmt.Fprintf(stderr, "inspector report: note: %s (from +%.3f s to +%.3f s) overlaps none of the other recordings in time: were the generators run together, and are the machines' clocks in sync? Merged on the clocks as recorded.\n",
				m.Name, m.Offset.Seconds(), m.End().Seconds())
		}
	}
	return merged, nil
}

// sourceName is what a merged recording calls a source file: its base
// name without the extension ("gen-1" for /out/gen-1.json), "stdin" for -.
func sourceName(path string) string {
	if path == "-" {
		return "stdin"
	}
	base := filepath.Base(path)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}
