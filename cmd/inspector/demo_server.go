package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fanout-inspector/inspector/engine/demo"
)

const demoServerUsage = `Usage: inspector demo-server [--http ADDR]

Serves the embedded demo server (tools fanout, echo, slow) to any MCP client.

Without --http it speaks MCP over stdin and stdout (stdout carries only
JSON-RPC; messages go to stderr) and exits when stdin closes, once the
requests in progress are answered (up to 10 s). With --http it
serves streamable HTTP at http://ADDR/mcp, prints that URL on stdout, and
runs until interrupted (Ctrl-C). Both protocol eras are served either way:
2026-07-28 (input_required rounds; statelessly over HTTP) and 2025-11-25
(real requests to the client).

fanout {"n":5,"kind":"sampling"|"elicitation"|"roots"|"mixed","rounds":1}
asks the client for n things at once, rounds times, and reports per round
how long it waited.

Examples:
  inspector run --stdio 'inspector demo-server'
  inspector demo-server --http 127.0.0.1:8080

Flags:
`

// demoServerCommand runs `inspector demo-server`.
func demoServerCommand(args []string) int {
	return demoServer(args, os.Stdout, os.Stderr)
}

func demoServer(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http", "", "serve streamable HTTP at `ADDR` (host:port, e.g. 127.0.0.1:8080; port 0 picks a free one) instead of stdio")
	fs.Usage = func() {
		fmt.Fprint(stderr, demoServerUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return exitWith(stderr, "demo-server", exitErrorf(exitUsage, "unexpected argument %q (the only flag is --http ADDR)", fs.Arg(0)), nil)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *addr == "" {
		if isTerminal(os.Stdin) {
			fmt.Fprintln(stderr, "inspector demo-server: serving MCP on stdin/stdout; an MCP client should start this command. Ctrl-C or Ctrl-D to stop.")
		}
		if err := demo.ServeStdio(ctx); err != nil {
			return exitWith(stderr, "demo-server", exitErrorf(exitFailure, "%v", err), nil)
		}
		return exitOK
	}
	err := demo.ServeHTTP(ctx, *addr, func(url string) {
		fmt.Fprintln(stdout, url)
		fmt.Fprintf(stderr, "inspector demo-server: streamable HTTP at %s\n  connect with: inspector run --url %s\n  Ctrl-C to stop.\n", url, url)
	})
	if err != nil {
		return exitWith(stderr, "demo-server", exitErrorf(exitFailure, "%v", err), nil)
	}
	fmt.Fprintln(stderr, "inspector demo-server: stopped")
	return exitOK
}

// isTerminal reports whether f is a character device (a terminal) rather
// than a pipe or a file.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
