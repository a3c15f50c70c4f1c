package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/internal/capture"
	"github.com/fanout-inspector/inspector/internal/outfile"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
)

const runUsage = `Usage: inspector run [flags]

Connects to an MCP server as a client, calls a tool (once or as a load
test), serves the server's sampling, elicitation and roots requests with the
latency and dispatch policy you choose, and prints a summary: how many
requests were in flight at once, how long they waited and ran, and a verdict
(concurrent, serialized, bounded...).

  inspector run [--demo | --stdio 'CMD ARGS' [--env K=V]... | --url URL | --sse URL] [--header 'K: V']... [--protocol VERSION|latest]
                [--connect-timeout D] [--max-message-size SIZE] [--max-stderr-lines N]
                [--dispatch concurrent|serial|inline|bounded:N] [--latency SPEC] [--sampling-latency SPEC] [--elicitation-latency SPEC] [--roots-latency SPEC] [--seed N]
                [--sampling-reply TEMPLATE | --sampling-endpoint URL [--sampling-model NAME] [--sampling-key-env VAR] [--sampling-timeout D]]
                [--elicitation accept|decline|cancel] [--roots URI,...] [--fail-rate F] [--request-timeout D]
                [--tool NAME [--args JSON|@FILE] [--calls N | --duration D] [--concurrency C] [--call-timeout D]] [--list-tools]
                [--sessions M] [--rate R --duration D [--max-in-flight K]] [--stages 'D:TARGET,...']
                [--record FILE] [--journal FILE|auto|off] [--trace F] [--otlp F] [--otlp-metrics F] [--csv F] [--series-csv F] [--png F] [--svg F] [--chart NAME] [--width N] [--height N] [--html F]
                [--otlp-endpoint URL [--otlp-protocol http/protobuf|grpc]] [--json] [--assert EXPR]...

SPEC is 500ms | uniform:200ms-800ms | normal:500ms,100ms | exp:500ms.
Without --tool the demo server's fanout tool is called with {} (5 sampling
requests); other servers need --tool (see them with --list-tools).

Shapes of load: a closed loop makes --calls N calls (or calls for
--duration D) with --concurrency C callers, each calling again when
answered. An open loop starts --rate R calls per second for --duration D
on a fixed schedule, whatever the answers do; each call's time counts from
when it was meant to start, late starts are counted, and with
--max-in-flight K an arrival while K calls are outstanding is dropped and
counted. --stages '10s:50,30s:200,10s:0' ramps linearly from stage to
stage: the rate from 0 calls/s (open loop), or, with --concurrency C, the
callers from C (closed loop). --sessions M spreads the calls round robin
over M sessions (M servers for --stdio, M HTTP sessions, M demo servers).

Exit status: 0 ok (failed tool calls are counted, not fatal), 1 the
connection failed or was lost, or a file could not be read or written,
2 a bad flag or output path, 3 an --assert did not hold, 130 interrupted
by SIGINT (Ctrl-C), SIGTERM or SIGHUP (what was recorded is still saved).

Examples:
  inspector run --dispatch serial --latency 500ms
  inspector run --dispatch concurrent --latency 500ms --json --assert 'peak_in_flight>=5' --assert 'elapsed_ms<=800'
  inspector run --stdio 'node server.mjs' --tool fanout --args '{"n":5}' --latency 500ms --record run.fanout.json
  inspector run --tool echo --args '{"text":"x"}' --rate 500 --duration 10s --sessions 4 --json

Flags:
`

// runOptions are the flags of `inspector run` beyond the connection and
// callback flags.
type runOptions struct {
	tool        string
	args        string
	calls       int
	concurrency int
	callTimeout time.Duration
	sessions    int
	duration    time.Duration
	rate        float64
	maxInFlight int
	stages      string
	listTools   bool
	record      string
	journal     string
	json        bool
	asserts     repeatedFlag
	outputs     runOutputs
	push        *otlpPushFlag // --otlp-endpoint (otlp.go)
}

// addOutputFlags adds the flags of what a recording is written to, other
// than --journal: --record, the summary (--json, --assert) and the
// exports. run and proxy share them.
func addOutputFlags(fs *flag.FlagSet, o *runOptions) {
	fs.StringVar(&o.record, "record", "", "save the recording to `FILE` (also when the run fails midway); open it with inspector report or the GUI")
	fs.BoolVar(&o.json, "json", false, "print the summary as one JSON object")
	fs.Var(&o.asserts, "assert", "check `EXPR` = KEY OP NUMBER on the JSON summary, e.g. 'peak_in_flight>=5' (repeatable; exit 3 if one fails)")
	fs.StringVar(&o.outputs.Trace, "trace", "", "write a Chrome trace (Perfetto, chrome://tracing) to `FILE`")
	fs.StringVar(&o.outputs.OTLP, "otlp", "", "write OTLP JSON traces (Jaeger) to `FILE`")
	fs.StringVar(&o.outputs.OTLPMetrics, "otlp-metrics", "", "write OTLP JSON metrics (mcp.client.operation.duration) to `FILE`")
	fs.StringVar(&o.outputs.CSV, "csv", "", "write one CSV row per request to `FILE`")
	fs.StringVar(&o.outputs.SeriesCSV, "series-csv", "", "write one CSV row per second (calls started, finished, failed, in flight, p50/p99) to `FILE`")
	fs.StringVar(&o.outputs.PNG, "png", "", "draw a chart (see --chart) as a PNG image in `FILE`")
	fs.StringVar(&o.outputs.SVG, "svg", "", "draw a chart (see --chart) as an SVG image in `FILE`")
	fs.StringVar(&o.outputs.chart, "chart", "concurrency", "the chart --png and --svg draw: concurrency, gantt, latency, throughput or latency-time")
	fs.IntVar(&o.outputs.Width, "width", 1200, "the chart's width in pixels")
	fs.IntVar(&o.outputs.Height, "height", 600, "the chart's height in pixels")
	fs.StringVar(&o.outputs.HTML, "html", "", "write a self-contained HTML report to `FILE`")
	o.push = addOTLPPushFlag(fs)
}

// runOutputs are the export files of a run, the same as report writes;
// chart is --chart, parsed into Outputs.Chart once the flags are.
type runOutputs struct {
	capture.Outputs
	chart string
}

// files lists the files the run writes, each with the flag naming it.
func (o runOptions) files() []outputFile {
	journal := o.journal
	if journal == "auto" {
		journal = "" // a fresh name in the journal folder, made when opened
	}
	return []outputFile{{"--record", o.record}, {"--journal", journal},
		{"--trace", o.outputs.Trace}, {"--otlp", o.outputs.OTLP}, {"--csv", o.outputs.CSV},
		{"--series-csv", o.outputs.SeriesCSV}, {"--otlp-metrics", o.outputs.OTLPMetrics}, {"--png", o.outputs.PNG}, {"--svg", o.outputs.SVG}, {"--html", o.outputs.HTML}}
}

// runCommand runs `inspector run`.
func runCommand(args []string) int {
	ctx, stop := capture.Signals()
	defer stop()
	return runMain(ctx, args, os.Stdout, os.Stderr)
}

// runMain is `inspector run` with its streams passed in; it returns the exit code.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conn := parseConnectionFlags(fs)
	var o runOptions
	addLoadFlags(fs, &o, "")
	fs.BoolVar(&o.listTools, "list-tools", false, "print the server's tools (and call none unless --tool is given)")
	fs.StringVar(&o.journal, "journal", "", "append the recording to `FILE` as it happens, so that even a killed run leaves it behind; auto picks a file in "+recorder.DefaultJournalDir()+"; off (the default) writes none")
	addOutputFlags(fs, &o)
	maxSpans := addMaxSpansFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage // the flag package said which flag
	}
	if o.journal == "off" { // as for inspector proxy, not a file named off
		o.journal = ""
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "inspector run: "+format+"\n", a...)
		fmt.Fprintln(stderr, "Run 'inspector run -h' for the flags.")
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q: every option is a flag (did you forget to quote --stdio 'CMD ARGS'?)", fs.Arg(0))
	}
	target, policy, err := conn()
	if err != nil {
		return usageErr("%v", err)
	}
	if policy.Elicitation == engine.ElicitManual || policy.SamplingManual {
		return usageErr("--elicitation manual needs a person to answer each request, and a headless run has nobody there: use inspector gui --elicitation manual, or here accept, decline or cancel")
	}
	asserts, err := parseAssertions(o.asserts)
	if err != nil {
		return usageErr("%v", err)
	}
	if o.calls < 1 {
		return usageErr("--calls %d: want 1 or more", o.calls)
	}
	if o.concurrency < 1 {
		return usageErr("--concurrency %d: want 1 or more", o.concurrency)
	}
	if o.callTimeout < 0 {
		return usageErr("--call-timeout %v: must not be negative", o.callTimeout)
	}
	w, err := loadShape(fs, o)
	if err != nil {
		return usageErr("%v", err)
	}
	if o.outputs.Chart, err = export.ParseChart(o.outputs.chart); err != nil {
		return usageErr("--chart: %v", err)
	}
	if o.outputs.Width < 64 || o.outputs.Height < 48 || o.outputs.Width > 20000 || o.outputs.Height > 20000 {
		return usageErr("--width %d --height %d: choose a chart size between 64×48 and 20000×20000", o.outputs.Width, o.outputs.Height)
	}
	toolArgs, code := readToolArgs(o.args, stderr)
	if code != exitOK {
		return code
	}
	if o.tool == "" && !o.listTools && target.Transport == engine.TransportDemo {
		o.tool = "fanout"
	}

	if err := checkOutputs(o.files()); err != nil {
		return usageErr("%v", err)
	}
	if err := o.push.check(); err != nil {
		return usageErr("%v", err)
	}

	spanCap, err := maxSpans()
	if err != nil {
		return usageErr("%v", err)
	}
	c, err := capture.Start(o.captureOptions("run", recorder.Meta{Title: runTitle(target, o.tool), Inspector: version},
		spanCap, target.Secrets(), stderr))
	if err != nil {
		fmt.Fprintf(stderr, "inspector run: %v\n", err)
		return exitFailure
	}
	r := &runner{cmd: "run", ctx: ctx, o: o, c: c, stderr: stderr}

	group, err := c.ConnectGroup(ctx, target, policy, o.sessions)
	if err != nil {
		return r.fail(connectFailure(target, err))
	}
	sess := group.Sessions()[0]
	if o.listTools {
		if err := listTools(ctx, sess, c, o, stdout, stderr); err != nil {
			group.Close()
			return r.fail(fmt.Sprintf("cannot list the tools of %s: %v", target, err))
		}
		if o.tool == "" {
			group.Close()
			return r.save()
		}
	}

	if o.tool == "" { // another server than the demo: its only tool
		if o.tool, err = soleTool(ctx, sess, target); err != nil {
			group.Close()
			return r.fail(err.Error())
		}
		c.Recording().SetMeta(func(m *recorder.Meta) { m.Title = runTitle(target, o.tool) })
	}
	w.Tool, w.Args = o.tool, toolArgs
	// the run is a named segment of the recording, its dispatch said as
	// the app says it ("bounded 4")
	endSegment := c.Segment(o.tool, strings.Replace(policy.Dispatch.String(), ":", " ", 1))
	progress, clearProgress := progressLine(stderr, w)
	res, runErr := load.Run(ctx, group.Sessions(), w, progress)
	clearProgress()
	endSegment()
	// Run returns a lost connection's error only once the session has
	// ended (Done closed, Err set), so there is nothing to wait for here.
	lost := group.Err()
	group.Close()

	// The files first, then the summary: the push's counts are in it
	// once the capture closed.
	why := runFailure(ctx, target, res, lost, runErr)
	saved := r.save()
	sum := r.summary(stdout, res)
	switch {
	case why != "":
		return r.fail(why)
	case saved != exitOK:
		return saved
	case checkAssertions(stderr, "run", asserts, sum) > 0:
		return exitAssertion
	}
	return exitOK
}

// progressLine returns a progress callback that keeps one line on stderr
// up to date during a load test, when stderr is a terminal (nil
// otherwise), and a function that clears the line when the run is over.
func progressLine(stderr io.Writer, w load.Workload) (func(load.Progress), func()) {
	f, ok := stderr.(*os.File)
	if !ok || (w.Calls < 2 && w.Duration == 0 && len(w.Stages) == 0) || !isTerminal(f) {
		return nil, func() {}
	}
	var mu sync.Mutex
	var last time.Time
	shown := false
	update := func(p load.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < 100*time.Millisecond {
			return
		}
		last, shown = time.Now(), true
		done := fmt.Sprintf("%d calls", p.Done)
		if p.Total > 0 {
			done = fmt.Sprintf("%d/%d calls", p.Done, p.Total)
		}
		if p.Dropped > 0 {
			done += fmt.Sprintf(", %d dropped", p.Dropped)
		}
		fmt.Fprintf(f, "\r%s, %d failed, %.1f s\033[K", done, p.Failed, p.Elapsed.Seconds())
	}
	clear := func() {
		mu.Lock()
		defer mu.Unlock()
		if shown {
			fmt.Fprint(f, "\r\033[K")
		}
	}
	return update, clear
}

// runFailure says why a run did not complete, "" when it did.
func runFailure(ctx context.Context, target engine.Target, res load.RunResult, lost, runErr error) string {
	switch {
	case ctx.Err() != nil: // a signal: whatever else went wrong followed from it
		return "interrupted before the run finished; what was recorded so far is saved (--record, --journal)"
	case lost != nil:
		return fmt.Sprintf("the connection to %s was lost during the run: %v (%d of %d tool calls finished; requests still open are marked aborted in the recording)",
			target, lost, res.OK+res.Failed, res.Total)
	case runErr != nil:
		return fmt.Sprintf("the run on %s did not complete: %v", target, runErr)
	}
	return ""
}

// connectFailure says why connecting failed and what to check.
func connectFailure(t engine.Target, err error) string {
	var signIn *capture.SignInError
	switch {
	case errors.Is(err, engine.ErrConnectInterrupted):
		return fmt.Sprintf("%v (%s); what was recorded so far is saved (--record, --journal)", err, t)
	case errors.As(err, &signIn):
		return err.Error() // the sign-in says what to do
	}
	why := strings.TrimPrefix(err.Error(), "connecting to "+t.String()+": ")
	hint := ""
	var tooLarge *engine.MessageTooLargeError
	if errors.As(err, &tooLarge) {
		return fmt.Sprintf("cannot connect to %s: %s", t, why) // it says what to do
	}
	switch t.Transport {
	case engine.TransportHTTP, engine.TransportSSE:
		hint = "; check that the server is running and listening at that URL (and that --url/--sse match its transport)"
		for _, refused := range []string{"Unauthorized", "Forbidden", "401", "403"} {
			if strings.Contains(why, refused) {
				hint = "; the server refused the request: check its credentials, as in --header 'Authorization: Bearer TOKEN', or sign in with --oauth"
				break
			}
		}
	case engine.TransportStdio:
		hint = "; check that the command starts an MCP server on its own: run it in a shell, it should wait for input on stdin"
	}
	return fmt.Sprintf("cannot connect to %s: %s%s", t, why, hint)
}

// runner ends a run: it saves what was recorded, however the run ended.
type runner struct {
	cmd    string          // the subcommand, for messages: "run", "proxy"
	ctx    context.Context // cancelled by SIGINT, SIGTERM or SIGHUP
	o      runOptions
	c      *capture.Capture
	stderr io.Writer
	saved  bool // by save, which returned code
	code   int
}

// fail reports why the run failed, saves what was recorded and returns
// exitFailure, or exitInterrupted when a signal stopped the run (at any
// stage: connecting, listing tools, running).
func (r *runner) fail(why string) int {
	fmt.Fprintf(r.stderr, "inspector %s: %s\n", r.cmd, r.c.Scrub(why))
	r.save()
	if r.ctx.Err() != nil {
		return exitInterrupted
	}
	return exitFailure
}

// save closes the capture (the journal, --record and the exports) and
// says what could not be written; a later call says nothing more.
func (r *runner) save() int {
	if r.saved {
		return r.code
	}
	r.saved, r.code = true, exitOK
	if err := r.c.Close(); err != nil { // a line for each file that failed
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(r.stderr, "inspector %s: %s\n", r.cmd, line)
		}
		r.code = exitFailure
	}
	if path := r.c.JournalPath(); path != "" && r.o.journal == "auto" {
		fmt.Fprintf(r.stderr, "inspector %s: journal written to %s\n", r.cmd, path)
	}
	return r.code
}

// summary prints the summary of the recording to w, as JSON (with the
// OTLP push's counts) or for a person, and returns it.
func (r *runner) summary(w io.Writer, res load.RunResult) recorder.Summary {
	snap := r.c.Recording().Snapshot()
	sum := recorder.Summarize(snap)
	if r.o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(r.o.push.summary(sum))
	} else {
		writeSummaryText(w, snap, sum, res)
	}
	return sum
}

// captureOptions are the capture of a run or a proxy as the flags ask
// for it: the journal, --record, the exports, the OTLP push, and the
// OAuth sign-in's notices on stderr.
func (o runOptions) captureOptions(cmd string, meta recorder.Meta, spanCap int, secrets []string, stderr io.Writer) capture.Options {
	return capture.Options{
		Meta: meta, MaxSpans: spanCap, Secrets: secrets,
		Journal:     o.journal,
		Observers:   []capture.Observer{o.push.observer(cmd, stderr, 0)},
		Record:      o.record,
		Exports:     o.outputs.Exports(),
		Tell:        func(s string) { fmt.Fprintf(stderr, "inspector: %s\n", s) },
		OpenBrowser: openBrowser,
		Log:         stderr, // net/http logs what peers send
	}
}

// writeFileWith writes path with write ([outfile.Write]): a failed write
// leaves no half-written file behind, and a device, pipe or symbolic link
// is never replaced nor removed.
func writeFileWith(path string, write func(io.Writer) error) error {
	return outfile.Write(path, write)
}

// readToolArgs reads --args: a JSON object, or @FILE holding one.
func readToolArgs(s string, stderr io.Writer) (json.RawMessage, int) {
	if s == "" {
		return nil, exitOK
	}
	what := "--args"
	data := []byte(s)
	if path, ok := strings.CutPrefix(s, "@"); ok {
		what = "--args @" + path
		var err error
		data, err = readArgsFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "inspector run: %s: cannot read the file: %v\n", what, err)
			return nil, exitFailure
		}
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		msg := "want a JSON object, as in '{\"n\": 5}'"
		if err != nil {
			msg = fmt.Sprintf("not a JSON object (%v); want one, as in '{\"n\": 5}'", err)
		}
		fmt.Fprintf(stderr, "inspector run: %s: %s\n", what, msg)
		return nil, exitUsage
	}
	return json.RawMessage(data), exitOK
}

func runTitle(t engine.Target, tool string) string {
	if tool == "" {
		return "run on " + t.String()
	}
	return tool + " on " + t.String()
}

// listTools prints the server's tools: to stdout, or to stderr when
// stdout carries the summary's JSON alone.
func listTools(ctx context.Context, sess *engine.Session, c *capture.Capture, o runOptions, stdout, stderr io.Writer) error {
	tools, err := sess.ListTools(ctx)
	if err != nil {
		return err
	}
	if o.json && o.tool != "" {
		printToolsClean(stderr, c.Recording(), tools, false)
	} else {
		printToolsClean(stdout, c.Recording(), tools, o.json)
	}
	return nil
}

// printToolsClean is printTools without the session's secrets: what a
// server says of its tools is its own text, and may echo a credential.
func printToolsClean(w io.Writer, rec *recorder.Recording, tools []engine.Tool, asJSON bool) {
	var b strings.Builder
	printTools(&b, tools, asJSON)
	io.WriteString(w, rec.Scrub(b.String()))
}

// printTools lists tools, as a table for a person or as JSON.
func printTools(w io.Writer, tools []engine.Tool, asJSON bool) {
	if asJSON {
		type entry struct {
			Name        string          `json:"name"`
			Title       string          `json:"title,omitempty"`
			Description string          `json:"description,omitempty"`
			InputSchema json.RawMessage `json:"inputSchema,omitempty"`
		}
		list := make([]entry, 0, len(tools))
		for _, t := range tools {
			list = append(list, entry{t.Name, t.Title, t.Description, t.InputSchema})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"tools": list})
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "TOOL\tDESCRIPTION\n")
	for _, t := range tools {
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, desc)
	}
	tw.Flush()
}

// writeSummaryText prints the summary for a person.
func writeSummaryText(w io.Writer, snap *recorder.Snapshot, sum recorder.Summary, res load.RunResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "server\t%s\n", serverLine(snap.Meta))
	writeFigures(tw, sum)
	tw.Flush()
	writeCallErrors(w, res.Errors)
}

// maxCallErrors is the most distinct tool call errors the summary lists.
const maxCallErrors = 5

// writeCallErrors lists the distinct first lines of the failed calls'
// errors, so that a load test with many failures stays readable.
func writeCallErrors(w io.Writer, errs []string) {
	var lines []string
	seen := map[string]bool{}
	for _, e := range errs {
		line, _, _ := strings.Cut(strings.TrimSpace(e), "\n")
		if len(line) > 300 {
			line = line[:300] + "…"
		}
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	for i, line := range lines {
		if i == maxCallErrors {
			fmt.Fprintf(w, "… and %d more distinct tool call errors (the recording has them all)\n", len(lines)-maxCallErrors)
			break
		}
		fmt.Fprintf(w, "tool call error: %s\n", line)
	}
}

// formatNumber prints a summary value without needless decimals.
func formatNumber(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3f", v)
}
