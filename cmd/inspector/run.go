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

  inspector run [--demo | --stdio 'CMD ARGS' [--env K=V]... | --url URL | --sse URL] [--header 'K: V']... [--era legacy|auto|modern] [--protocol VERSION|latest]
                [--log-level debug|info|notice|warning|error|critical|alert|emergency] [--connect-timeout D] [--max-message-size SIZE] [--max-stderr-lines N]
                [--dispatch concurrent|serial|inline|bounded:N] [--latency SPEC] [--sampling-latency SPEC] [--elicitation-latency SPEC] [--roots-latency SPEC] [--seed N]
                [--sampling-reply TEMPLATE | --sampling-endpoint URL [--sampling-model NAME] [--sampling-key-env VAR] [--sampling-timeout D]]
                [--elicitation accept|decline|cancel] [--roots URI,...] [--fail-rate F] [--request-timeout D]
                [--tool NAME [--args JSON|@FILE] [--calls N | --duration D] [--concurrency C] [--call-timeout D]] [--list-tools]
                [--sessions M] [--rate R --duration D [--max-in-flight K]] [--stages 'D:TARGET,...'] [--workload FILE]
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
	workload    string // --workload FILE (workloadfile.go)
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
	p, err := parseRun(args, stderr)
	if err != nil {
		return exitWith(stderr, "run", err, nil)
	}
	c, err := capture.Start(p.o.captureOptions("run", recorder.Meta{Title: runTitle(p.target, p.o.runName()), Inspector: version},
		p.spanCap, p.target.Secrets(), stderr))
	if err != nil {
		return exitWith(stderr, "run", err, nil)
	}
	r := &runner{cmd: "run", ctx: ctx, o: p.o, c: c, stderr: stderr}
	return r.run(p, stdout)
}

// runPlan is what the flags of `inspector run` ask for, checked.
type runPlan struct {
	o        runOptions
	target   engine.Target
	policy   engine.AnswerPolicy
	w        load.Workload // its Tool and Args are set once the tool is known
	toolArgs json.RawMessage
	// thresholds are --assert and a workload file's thresholds.
	thresholds []recorder.Threshold
	spanCap    int
}

// parseRun parses and checks the flags of `inspector run`: an
// [exitError] when they are bad, or -h was asked for.
func parseRun(args []string, stderr io.Writer) (runPlan, error) {
	var p runPlan
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conn := parseConnectionFlags(fs)
	addLoadFlags(fs, &p.o, "")
	fs.StringVar(&p.o.workload, "workload", "", "run the mix of operations (tool calls, resource reads, prompt gets) and the load shape of the TOML `FILE` (inspector init writes one); load flags given with it replace its shape")
	fs.BoolVar(&p.o.listTools, "list-tools", false, "print the server's tools (and call none unless --tool is given)")
	fs.StringVar(&p.o.journal, "journal", "", "append the recording to `FILE` as it happens, so that even a killed run leaves it behind; auto picks a file in "+recorder.DefaultJournalDir()+"; off (the default) writes none")
	addOutputFlags(fs, &p.o)
	maxSpans := addMaxSpansFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		fs.PrintDefaults()
	}
	if err := flagsParsed(fs.Parse(args)); err != nil {
		return p, err
	}
	if p.o.journal == "off" { // as for inspector proxy, not a file named off
		p.o.journal = ""
	}
	if fs.NArg() > 0 {
		return p, usageError("unexpected argument %q: every option is a flag (did you forget to quote --stdio 'CMD ARGS'?)", fs.Arg(0))
	}
	var err error
	if p.target, p.policy, err = conn(); err != nil {
		return p, asUsage(err)
	}
	if p.policy.Elicitation == engine.ElicitManual || p.policy.SamplingManual {
		return p, usageError("--elicitation manual needs a person to answer each request, and a headless run has nobody there: use inspector gui --elicitation manual, or here accept, decline or cancel")
	}
	if err := p.checkLoad(fs); err != nil {
		return p, err
	}
	if p.toolArgs, err = readToolArgs(p.o.args); err != nil {
		return p, err
	}
	if p.o.tool == "" && !p.o.listTools && p.o.workload == "" && p.target.Transport == engine.TransportDemo {
		p.o.tool = "fanout"
	}
	if err := p.checkOutputs(); err != nil {
		return p, err
	}
	if p.spanCap, err = maxSpans(); err != nil {
		return p, usageError("%v", err)
	}
	return p, nil
}

// checkLoad checks the assertions and the shape of the load.
func (p *runPlan) checkLoad(fs *flag.FlagSet) error {
	o := p.o
	if o.workload != "" {
		return p.loadWorkloadFile(fs) // workloadfile.go: its thresholds with --assert
	}
	var err error
	if p.thresholds, err = parseThresholds(o.asserts); err != nil {
		return usageError("%v", err)
	}
	if p.w, err = loadShape(fs, o); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// checkOutputs checks the chart, the files the run writes and the OTLP
// push before the run, when a bad one can still be fixed.
func (p *runPlan) checkOutputs() error {
	var err error
	if p.o.outputs.Chart, err = export.ParseChart(p.o.outputs.chart); err != nil {
		return usageError("--chart: %v", err)
	}
	if w, h := p.o.outputs.Width, p.o.outputs.Height; w < 64 || h < 48 || w > 20000 || h > 20000 {
		return usageError("--width %d --height %d: choose a chart size between 64×48 and 20000×20000", w, h)
	}
	if err := checkOutputs(p.o.files()); err != nil {
		return usageError("%v", err)
	}
	if err := p.o.push.check(); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// run connects, lists the tools if asked, runs the load, saves and
// prints the summary, and returns the exit code.
func (r *runner) run(p runPlan, stdout io.Writer) int {
	ctx, c, target := r.ctx, r.c, p.target
	group, err := c.ConnectGroup(ctx, target, p.policy, p.o.sessions)
	if err != nil {
		return r.fail(connectFailure(target, err))
	}
	sess := group.Sessions()[0]
	if p.o.listTools {
		if err := listTools(ctx, sess, c, p.o, stdout, r.stderr); err != nil {
			group.Close()
			return r.fail(failure(fmt.Sprintf("cannot list the tools of %s: %v", target, err), ""))
		}
		if p.o.tool == "" && p.o.workload == "" {
			group.Close()
			return r.save()
		}
	}
	if p.o.tool == "" && p.o.workload == "" { // another server than the demo: its only tool
		if p.o.tool, err = soleTool(ctx, sess, target); err != nil {
			group.Close()
			return r.fail(err)
		}
		c.Recording().SetMeta(func(m *recorder.Meta) { m.Title = runTitle(target, p.o.tool) })
	}
	res, lost, runErr := r.runLoad(group, p)
	// The files first, then the summary: the push's counts are in it
	// once the capture closed.
	why := runFailure(ctx, target, res, lost, runErr)
	saved := r.save()
	sum := r.summary(stdout, res)
	switch {
	case why != nil:
		return r.fail(why)
	case saved != exitOK:
		return saved
	case checkThresholds(r.stderr, "run", p.thresholds, sum, res.Operations) > 0:
		return exitAssertion
	}
	return exitOK
}

// runLoad runs the load over group as a named segment of the recording,
// its dispatch said as the app says it ("bounded 4"), and closes the
// group; lost is why a connection was lost during the run.
func (r *runner) runLoad(group *engine.Group, p runPlan) (res load.RunResult, lost, runErr error) {
	w := p.w
	w.Tool, w.Args = p.o.tool, p.toolArgs
	endSegment := r.c.Segment(p.o.runName(), strings.Replace(p.policy.Dispatch.String(), ":", " ", 1))
	progress, clearProgress := progressLine(r.stderr, w)
	res, runErr = load.Run(r.ctx, group.Sessions(), w, progress)
	clearProgress()
	endSegment()
	// Run returns a lost connection's error only once the session has
	// ended (Done closed, Err set), so there is nothing to wait for here.
	lost = group.Err()
	group.Close()
	return res, lost, runErr
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

// runFailure says why a run did not complete, nil when it did: a
// signal, a connection lost (lost, or a run that failed because of it),
// or a run that could not go on.
func runFailure(ctx context.Context, target engine.Target, res load.RunResult, lost, runErr error) *exitError {
	var lostErr *engine.ConnectionLostError
	switch {
	case ctx.Err() != nil: // a signal: whatever else went wrong followed from it
		return failure("interrupted before the run finished", "what was recorded so far is saved (--record, --journal)")
	case errors.As(lost, &lostErr) || errors.As(runErr, &lostErr):
		if lost == nil {
			lost = lostErr
		}
		return failure(fmt.Sprintf("the connection to %s was lost during the run: %v (%d of %d tool calls finished; requests still open are marked aborted in the recording)",
			target, lost, res.OK+res.Failed, res.Total), lostHint(target))
	case runErr != nil:
		return failure(fmt.Sprintf("the run on %s did not complete: %v", target, runErr), "")
	}
	return nil
}

// lostHint says what to do when the connection to t was lost mid-run:
// over HTTP, where the server's own log says why (a stdio server's last
// stderr line is in the message already).
func lostHint(t engine.Target) string {
	switch t.Transport {
	case engine.TransportHTTP, engine.TransportSSE:
		return "check that the server is still running and see its log for why it stopped answering"
	}
	return ""
}

// connectFailure says why connecting failed and what to check, by the
// kind of the error: interrupted, the sign-in, a message over the limit,
// credentials the HTTP server refused, or a server that could not be
// reached or started.
func connectFailure(t engine.Target, err error) *exitError {
	var (
		signIn   *capture.SignInError
		tooLarge *engine.MessageTooLargeError
		status   *engine.HTTPStatusError
		connect  *engine.ConnectError
		era      *engine.EraError
	)
	switch {
	case errors.Is(err, engine.ErrConnectInterrupted):
		return failure(fmt.Sprintf("%v (%s)", err, t), "what was recorded so far is saved (--record, --journal)")
	case errors.As(err, &signIn):
		return failure(err.Error(), "") // the sign-in says what to do
	case errors.As(err, &era):
		return failure(fmt.Sprintf("cannot connect to %s: %s", t, era.Why()),
			"--era auto falls back to initialize ("+engine.DefaultProtocol+") on such a server, --era legacy asks no server/discover at all")
	}
	why := err.Error()
	if errors.As(err, &connect) {
		why = connect.Err.Error() // the message names the target
	}
	msg := fmt.Sprintf("cannot connect to %s: %s", t, why)
	switch {
	case errors.As(err, &tooLarge):
		return failure(msg, "") // it says what to do
	case errors.As(err, &status) && status.Refused():
		return failure(msg, "the server refused the request: check its credentials, as in --header 'Authorization: Bearer TOKEN', or sign in with --oauth")
	}
	switch t.Transport {
	case engine.TransportHTTP, engine.TransportSSE:
		return failure(msg, "check that the server is running and listening at that URL (and that --url/--sse match its transport)")
	case engine.TransportStdio:
		return failure(msg, "check that the command starts an MCP server on its own: run it in a shell, it should wait for input on stdin")
	}
	return failure(msg, "")
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

// fail reports why the run failed, without the run's secrets, saves
// what was recorded and returns why's exit code (exit 1 for an error
// other than an [exitError]), or exitInterrupted when a signal stopped
// the run (at any stage: connecting, listing tools, running).
func (r *runner) fail(why error) int {
	code := exitWith(r.stderr, r.cmd, why, r.c.Scrub)
	r.save()
	if r.ctx.Err() != nil {
		return exitInterrupted
	}
	return code
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
		_ = enc.Encode(withEra(withOperations(r.o.push.summary(sum), res.Operations), snap.Meta))
	} else {
		writeSummaryText(w, snap, sum, res)
		writeOperationsText(w, res.Operations)
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
func readToolArgs(s string) (json.RawMessage, error) {
	if s == "" {
		return nil, nil
	}
	what := "--args"
	data := []byte(s)
	if path, ok := strings.CutPrefix(s, "@"); ok {
		what = "--args @" + path
		var err error
		data, err = readArgsFile(path)
		if err != nil {
			return nil, failure(fmt.Sprintf("%s: cannot read the file: %v", what, err), "")
		}
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		msg := "want a JSON object, as in '{\"n\": 5}'"
		if err != nil {
			msg = fmt.Sprintf("not a JSON object (%v); want one, as in '{\"n\": 5}'", err)
		}
		return nil, &exitError{code: exitUsage, msg: what + ": " + msg}
	}
	return json.RawMessage(data), nil
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
