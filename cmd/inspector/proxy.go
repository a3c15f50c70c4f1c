package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/engine/proxy"
	"github.com/fanout-inspector/inspector/internal/capture"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
	"github.com/google/shlex"
)

const proxyUsage = `Usage: inspector proxy --stdio 'SERVER CMD ARGS' [--env K=V]... [--cwd DIR] [flags]
       inspector proxy --listen 127.0.0.1:PORT --upstream URL [flags]

Stands between an MCP client you did not write and its server, passes every
byte both ways unchanged, and records every request on a timeline: so you can
see what your own client does with a server's fan-out.

Put the inspector in your client's config where the server's command was:
  "command": "inspector",
  "args": ["proxy", "--stdio", "node /path/to/server.js"]
The client talks to the proxy over stdin and stdout as it did to the server.
The proxy never writes to stdout itself; the server's stderr passes through
to the proxy's stderr, and everything else the proxy says goes there too.

Over HTTP (streamable HTTP, or legacy HTTP+SSE), the proxy listens on
--listen and forwards to the server at --upstream: point the client at
http://127.0.0.1:PORT/PATH, PATH being the upstream URL's. It runs until
interrupted (Ctrl-C, SIGTERM), then prints the summary. It listens on loopback
only (--allow-remote for more), refuses a request whose Host or Origin names
another machine (403), and with --client-token asks every client for a token
(401 without it).

The recording is journaled as it happens (--journal auto, under
` + "%s" + `), so a client that kills its server loses nothing; when the
server exits the summary goes to stderr and --record and the exports are
written. Open a journal with inspector report or the GUI.

Exit status: over stdio, the server's own exit status (over HTTP, 0); 1 if the server could not be
started or a file could not be written; 2 a bad flag; 3 an --assert did not
hold.

Examples:
  inspector proxy --stdio 'inspector demo-server' --record client.json
  inspector proxy --stdio 'python server.py' --env API_KEY=… --journal off --html report.html
  inspector proxy --listen 127.0.0.1:9000 --upstream http://127.0.0.1:8080/mcp --record client.json

Flags:
`

// proxyCommand runs `inspector proxy`.
func proxyCommand(args []string) int {
	ctx, stop := capture.Signals()
	defer stop()
	// A client that stops reading the proxy's stdout or stderr (as it
	// stops, say) must not kill it with SIGPIPE before it saves the
	// recording: a write to a closed pipe then fails instead, which the
	// proxy handles (stdout) or ignores (stderr).
	signal.Ignore(syscall.SIGPIPE)
	return proxyMain(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

// proxyFlags are `inspector proxy`'s flags, as parsed.
type proxyFlags struct {
	o          runOptions
	stdio      *string
	listen     *string
	upstream   *string
	env        repeatedFlag
	dir        *string
	maxMsg     sizeFlag
	maxStderr  *int
	inheritEnv *bool
	cfg        *configFlags
	guard      *proxyGuardFlags
	maxSpans   func() (int, error)
}

// proxyPlan is a checked proxy: what parseProxy read and what it worked
// out from it.
type proxyPlan struct {
	f        *proxyFlags
	overHTTP bool
	words    []string // the stdio server's command line
	secrets  []string
	asserts  []recorder.Assertion
	spanCap  int
}

// proxyMain is `inspector proxy` with its streams passed in: stdin and
// stdout are the client's, stderr the person's.
func proxyMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	p, code := parseProxy(args, stderr)
	if p == nil {
		return code
	}
	usageErr := func(format string, a ...any) int {
		return exitWith(stderr, "proxy", usageError(format, a...), nil)
	}
	f := p.f
	meta := recorder.Meta{Target: *f.stdio, Inspector: version}
	if p.overHTTP {
		meta.Target = recorder.RedactURL(*f.upstream)
		meta.Title = "proxy: " + meta.Target
	} else {
		meta.Title = "proxy: " + p.words[0]
	}
	opts := f.o.captureOptions("proxy", meta, p.spanCap, p.secrets, stderr)
	opts.Limits = engine.Limits{MaxMessageSize: int64(f.maxMsg), MaxStderrLines: *f.maxStderr}
	var addr net.Listener
	if p.overHTTP {
		opts.Upstream = *f.upstream
		var err error
		if addr, err = proxy.Listen(*f.listen, f.guard.allowRemote); err != nil {
			if proxy.IsRemoteListen(err) {
				return usageErr("--listen %v", err)
			}
			fmt.Fprintf(stderr, "inspector proxy: --listen %s: %v (is the port taken? pick another)\n", *f.listen, err)
			return exitFailure
		}
		defer addr.Close()
	}
	c, err := capture.Start(opts)
	var journalErr *capture.JournalError
	switch {
	case errors.As(err, &journalErr):
		fmt.Fprintf(stderr, "inspector proxy: %v (--journal off to run without one)\n", err)
		return exitFailure
	case err != nil:
		return usageErr("%v", err) // the upstream URL
	}
	r := &runner{cmd: "proxy", ctx: ctx, o: f.o, c: c, stderr: stderr}
	if path := c.JournalPath(); path != "" {
		fmt.Fprintf(stderr, "inspector proxy: recording to %s\n", path)
	}
	return r.proxy(p, addr, stdin, stdout)
}

// parseProxy reads and checks `inspector proxy`'s flags. On a nil plan
// the int is the exit code, the error said.
func parseProxy(args []string, stderr io.Writer) (*proxyPlan, int) {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &proxyFlags{
		stdio:     fs.String("stdio", "", "start the real server as `'CMD ARGS'` (split as a POSIX shell would) and stand between it and the client"),
		listen:    fs.String("listen", "", "over HTTP: listen for the client on `HOST:PORT` (with --upstream)"),
		upstream:  fs.String("upstream", "", "over HTTP: the real server's `URL` (streamable HTTP or legacy SSE; with --listen)"),
		dir:       fs.String("cwd", "", "the server's working `DIR` (default: the proxy's)"),
		maxMsg:    sizeFlag(engine.DefaultMaxMessageSize),
		maxStderr: fs.Int("max-stderr-lines", engine.DefaultMaxStderrLines, "record at most `N` lines of the server's stderr (all of them still pass through)"),
	}
	f.cfg = addConfigFlags(fs)       // --server, --config, --input: the server of a client's config (serverflags.go)
	f.guard = addProxyGuardFlags(fs) // --allow-remote, --client-token: who may use the HTTP proxy (proxyguard.go)
	fs.Var(&f.env, "env", "`K=V` added to the server's environment (repeatable); the value is kept out of the recording")
	f.inheritEnv = fs.Bool("inherit-env", false, "give the server the proxy's whole environment (default: only HOME, LOGNAME, PATH, SHELL, TERM, USER, plus --env)")
	fs.Var(&f.maxMsg, "max-message-size", "record messages up to `SIZE`; a larger one still passes through unchanged, and the recording says it was left out")
	fs.StringVar(&f.o.journal, "journal", "auto", "append the recording to `FILE` as it happens; auto picks a file in "+recorder.DefaultJournalDir()+"; off writes none")
	addOutputFlags(fs, &f.o)
	f.maxSpans = addMaxSpansFlag(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, proxyUsage, recorder.DefaultJournalDir())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, exitOK
		}
		return nil, exitUsage
	}
	if fs.NArg() > 0 {
		return nil, exitWith(stderr, "proxy", usageError("unexpected argument %q: every option is a flag (quote the server's command line: --stdio 'CMD ARGS')", fs.Arg(0)), nil)
	}
	cfgSecrets, err := f.cfg.fillProxy(f.stdio, f.upstream, f.dir, &f.env)
	if err != nil {
		return nil, exitWith(stderr, "proxy", asUsage(err), nil) // a config file that cannot be read is exit 1
	}
	p, err := f.check(cfgSecrets)
	if err != nil {
		return nil, exitWith(stderr, "proxy", usageError("%v", err), nil)
	}
	return p, exitOK
}

// check checks the flags against one another and works out the plan.
func (f *proxyFlags) check(cfgSecrets []string) (*proxyPlan, error) {
	p := &proxyPlan{f: f, overHTTP: *f.listen != "" || *f.upstream != ""}
	switch {
	case p.overHTTP && *f.stdio != "":
		return nil, errors.New("--stdio and --listen/--upstream: give one, the server's command line (stdio) or its URL (HTTP)")
	case p.overHTTP && *f.listen == "":
		return nil, errors.New("--upstream needs --listen HOST:PORT, the address the client connects to, as in --listen 127.0.0.1:9000")
	case p.overHTTP && *f.upstream == "":
		return nil, errors.New("--listen needs --upstream URL, the real server's address, as in --upstream http://127.0.0.1:8080/mcp")
	case p.overHTTP && len(f.env) > 0:
		return nil, errors.New("--env: only for --stdio, where the proxy starts the server")
	case p.overHTTP && *f.inheritEnv:
		return nil, errors.New("--inherit-env: only for --stdio, where the proxy starts the server")
	case !p.overHTTP && *f.stdio == "":
		return nil, errors.New("--stdio: give the real server's command line, as in --stdio 'node server.js' (or --listen and --upstream for a server over HTTP)")
	case !p.overHTTP:
		words, err := shlex.Split(*f.stdio)
		if err != nil || len(words) == 0 {
			return nil, fmt.Errorf("--stdio %q: cannot split it into a command line (check the quotes)", *f.stdio)
		}
		p.words = words
	}
	if err := f.guard.check(p.overHTTP); err != nil {
		return nil, err
	}
	p.secrets = append(engine.CommandSecrets(*f.stdio), cfgSecrets...)
	for _, kv := range f.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("--env %q: want KEY=VALUE", hideValue(kv, "="))
		}
	}
	p.secrets = append(p.secrets, engine.EnvSecrets(f.env)...)
	if *f.maxStderr < 1 {
		return nil, fmt.Errorf("--max-stderr-lines %d: want 1 or more", *f.maxStderr)
	}
	return p, f.checkOutputs(p)
}

// checkOutputs checks the assertions, the chart and the files the proxy
// will write before it starts, into p.
func (f *proxyFlags) checkOutputs(p *proxyPlan) error {
	var err error
	if p.asserts, err = parseAssertions(f.o.asserts); err != nil {
		return err
	}
	if f.o.outputs.Chart, err = export.ParseChart(f.o.outputs.chart); err != nil {
		return fmt.Errorf("--chart: %v", err)
	}
	if f.o.journal == "off" {
		f.o.journal = ""
	}
	if err := checkOutputs(f.o.files()); err != nil {
		return err
	}
	if err := f.o.push.check(); err != nil {
		return err
	}
	p.spanCap, err = f.maxSpans()
	return err
}

// proxy stands between the client and the server until either ends (or
// a signal comes), then saves the files and says how it ended: the
// stdio server's exit status, or 0 for an HTTP proxy stopped.
func (r *runner) proxy(p *proxyPlan, addr net.Listener, stdin io.Reader, stdout io.Writer) int {
	f, c := p.f, r.c
	var res proxy.Result
	if p.overHTTP {
		f.guard.apply(*f.listen, addr, c.HTTPProxy(), r.stderr)
		fmt.Fprintf(r.stderr, "inspector proxy: listening on http://%s%s → %s\n", addr.Addr(), c.HTTPProxy().Path(), recorder.RedactURL(*f.upstream))
		res = c.Serve(r.ctx, addr)
	} else {
		sp := &proxy.Stdio{Command: p.words, Env: f.env, InheritEnv: *f.inheritEnv, Dir: *f.dir, ClientIn: stdin, ClientOut: stdout, Stderr: r.stderr,
			Limits: engine.Limits{MaxMessageSize: int64(f.maxMsg), MaxStderrLines: *f.maxStderr}}
		var err error
		if res, err = c.ProxyStdio(r.ctx, sp); err != nil {
			return r.fail(err)
		}
	}
	// The files first: the client may have stopped reading stderr.
	code := r.save()
	fmt.Fprintf(r.stderr, "inspector proxy: %s\n", c.Scrub(res.Reason))
	sum := r.summary(r.stderr, load.RunResult{})
	switch {
	case code != exitOK:
		return code
	case checkAssertions(r.stderr, "proxy", p.asserts, sum) > 0:
		return exitAssertion
	case p.overHTTP:
		return exitOK // stopping is how an HTTP proxy ends
	case res.ExitCode < 0:
		return exitInterrupted // ended by a signal: ours, passed on, or the client's
	}
	return res.ExitCode
}
