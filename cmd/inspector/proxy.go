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

// proxyMain is `inspector proxy` with its streams passed in: stdin and
// stdout are the client's, stderr the person's.
func proxyMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		o         runOptions
		stdio     = fs.String("stdio", "", "start the real server as `'CMD ARGS'` (split as a POSIX shell would) and stand between it and the client")
		listen    = fs.String("listen", "", "over HTTP: listen for the client on `HOST:PORT` (with --upstream)")
		upstream  = fs.String("upstream", "", "over HTTP: the real server's `URL` (streamable HTTP or legacy SSE; with --listen)")
		env       repeatedFlag
		dir       = fs.String("cwd", "", "the server's working `DIR` (default: the proxy's)")
		maxMsg    = sizeFlag(engine.DefaultMaxMessageSize)
		maxStderr = fs.Int("max-stderr-lines", engine.DefaultMaxStderrLines, "record at most `N` lines of the server's stderr (all of them still pass through)")
	)
	cfg := addConfigFlags(fs)       // --server, --config, --input: the server of a client's config (serverflags.go)
	guard := addProxyGuardFlags(fs) // --allow-remote, --client-token: who may use the HTTP proxy (proxyguard.go)
	fs.Var(&env, "env", "`K=V` added to the server's environment (repeatable); the value is kept out of the recording")
	inheritEnv := fs.Bool("inherit-env", false, "give the server the proxy's whole environment (default: only HOME, LOGNAME, PATH, SHELL, TERM, USER, plus --env)")
	fs.Var(&maxMsg, "max-message-size", "record messages up to `SIZE`; a larger one still passes through unchanged, and the recording says it was left out")
	fs.StringVar(&o.journal, "journal", "auto", "append the recording to `FILE` as it happens; auto picks a file in "+recorder.DefaultJournalDir()+"; off writes none")
	addOutputFlags(fs, &o)
	maxSpans := addMaxSpansFlag(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, proxyUsage, recorder.DefaultJournalDir())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	usageErr := func(format string, a ...any) int {
		return exitWith(stderr, "proxy", usageError(format, a...), nil)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q: every option is a flag (quote the server's command line: --stdio 'CMD ARGS')", fs.Arg(0))
	}
	cfgSecrets, err := cfg.fillProxy(stdio, upstream, dir, &env)
	if err != nil {
		return exitWith(stderr, "proxy", asUsage(err), nil) // a config file that cannot be read is exit 1
	}
	overHTTP := *listen != "" || *upstream != ""
	var words []string
	switch {
	case overHTTP && *stdio != "":
		return usageErr("--stdio and --listen/--upstream: give one, the server's command line (stdio) or its URL (HTTP)")
	case overHTTP && *listen == "":
		return usageErr("--upstream needs --listen HOST:PORT, the address the client connects to, as in --listen 127.0.0.1:9000")
	case overHTTP && *upstream == "":
		return usageErr("--listen needs --upstream URL, the real server's address, as in --upstream http://127.0.0.1:8080/mcp")
	case overHTTP && len(env) > 0:
		return usageErr("--env: only for --stdio, where the proxy starts the server")
	case overHTTP && *inheritEnv:
		return usageErr("--inherit-env: only for --stdio, where the proxy starts the server")
	case !overHTTP && *stdio == "":
		return usageErr("--stdio: give the real server's command line, as in --stdio 'node server.js' (or --listen and --upstream for a server over HTTP)")
	case !overHTTP:
		var err error
		words, err = shlex.Split(*stdio)
		if err != nil || len(words) == 0 {
			return usageErr("--stdio %q: cannot split it into a command line (check the quotes)", *stdio)
		}
	}
	if err := guard.check(overHTTP); err != nil {
		return usageErr("%v", err)
	}
	secrets := append(engine.CommandSecrets(*stdio), cfgSecrets...)
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return usageErr("--env %q: want KEY=VALUE", hideValue(kv, "="))
		}
	}
	secrets = append(secrets, engine.EnvSecrets(env)...)
	if *maxStderr < 1 {
		return usageErr("--max-stderr-lines %d: want 1 or more", *maxStderr)
	}
	asserts, err := parseAssertions(o.asserts)
	if err != nil {
		return usageErr("%v", err)
	}
	if o.outputs.Chart, err = export.ParseChart(o.outputs.chart); err != nil {
		return usageErr("--chart: %v", err)
	}
	if o.journal == "off" {
		o.journal = ""
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
	meta := recorder.Meta{Target: *stdio, Inspector: version}
	if overHTTP {
		meta.Target = recorder.RedactURL(*upstream)
		meta.Title = "proxy: " + meta.Target
	} else {
		meta.Title = "proxy: " + words[0]
	}
	opts := o.captureOptions("proxy", meta, spanCap, secrets, stderr)
	opts.Limits = engine.Limits{MaxMessageSize: int64(maxMsg), MaxStderrLines: *maxStderr}
	var addr net.Listener
	if overHTTP {
		opts.Upstream = *upstream
		if addr, err = proxy.Listen(*listen, guard.allowRemote); err != nil {
			if proxy.IsRemoteListen(err) {
				return usageErr("--listen %v", err)
			}
			fmt.Fprintf(stderr, "inspector proxy: --listen %s: %v (is the port taken? pick another)\n", *listen, err)
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
	r := &runner{cmd: "proxy", ctx: ctx, o: o, c: c, stderr: stderr}
	if path := c.JournalPath(); path != "" {
		fmt.Fprintf(stderr, "inspector proxy: recording to %s\n", path)
	}

	var res proxy.Result
	if overHTTP {
		guard.apply(*listen, addr, c.HTTPProxy(), stderr)
		fmt.Fprintf(stderr, "inspector proxy: listening on http://%s%s → %s\n", addr.Addr(), c.HTTPProxy().Path(), recorder.RedactURL(*upstream))
		res = c.Serve(ctx, addr)
	} else {
		p := &proxy.Stdio{Command: words, Env: env, InheritEnv: *inheritEnv, Dir: *dir, ClientIn: stdin, ClientOut: stdout, Stderr: stderr, Limits: opts.Limits}
		if res, err = c.ProxyStdio(ctx, p); err != nil {
			return r.fail(err)
		}
	}
	// The files first: the client may have stopped reading stderr.
	code := r.save()
	fmt.Fprintf(stderr, "inspector proxy: %s\n", c.Scrub(res.Reason))
	sum := r.summary(stderr, load.RunResult{})
	switch {
	case code != exitOK:
		return code
	case checkAssertions(stderr, "proxy", asserts, sum) > 0:
		return exitAssertion
	case overHTTP:
		return exitOK // stopping is how an HTTP proxy ends
	case res.ExitCode < 0:
		return exitInterrupted // ended by a signal: ours, passed on, or the client's
	}
	return res.ExitCode
}
