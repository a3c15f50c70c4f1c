package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/internal/capture"
	"github.com/fanout-inspector/inspector/recorder"
)

const initUsage = `Usage: inspector init [--demo | --stdio 'CMD ARGS' | --url URL | --sse URL | --server NAME] [--out FILE [--force]]

Connects to an MCP server, lists its tools, resources, resource templates
and prompts (every page), and writes a starter workload file for
inspector run --workload: one operation per tool, resource, template and
prompt, each with weight 1, the arguments filled from each tool's input
schema (its defaults, and a placeholder valid for the type of each
required field), so that the file runs as written. Edit the weights to
give each operation its share of the calls, and the [load] table for the
shape of the load (docs/load.md).

Writes to stdout, or to --out FILE, which must not exist yet unless
--force is given.

Exit status: 0 written, 1 the server could not be reached or the file
could not be written, 2 a bad flag or an --out file that exists.

Examples:
  inspector init --demo --out demo.toml && inspector run --workload demo.toml
  inspector init --url http://127.0.0.1:8080/mcp --out load.toml

Flags:
`

// initCommand runs `inspector init`.
func initCommand(args []string) int {
	ctx, stop := capture.Signals()
	defer stop()
	return initMain(ctx, args, os.Stdout, os.Stderr)
}

// initMain is `inspector init` with its streams passed in; it returns
// the exit code.
func initMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conn := parseConnectionFlags(fs)
	out := fs.String("out", "", "write the workload file to `FILE` (default: stdout)")
	force := fs.Bool("force", false, "replace the --out file if it exists")
	fs.Usage = func() {
		fmt.Fprint(stderr, initUsage)
		fs.PrintDefaults()
	}
	if err := flagsParsed(fs.Parse(args)); err != nil {
		return exitWith(stderr, "init", err, nil)
	}
	if fs.NArg() > 0 {
		return exitWith(stderr, "init", usageError("unexpected argument %q: every option is a flag (did you forget to quote --stdio 'CMD ARGS'?)", fs.Arg(0)), nil)
	}
	target, policy, err := conn()
	if err != nil {
		return exitWith(stderr, "init", asUsage(err), nil)
	}
	if *out != "" && !*force {
		if _, err := os.Lstat(*out); err == nil {
			return exitWith(stderr, "init", &exitError{code: exitUsage, msg: fmt.Sprintf("--out %s exists", *out),
				hint: "give --force to replace it, or another file name"}, nil)
		}
	}
	c, err := capture.Start(capture.Options{Meta: recorder.Meta{Title: "init on " + target.String(), Inspector: version},
		Secrets: target.Secrets(), Tell: func(s string) { fmt.Fprintf(stderr, "inspector: %s\n", s) }, OpenBrowser: openBrowser, Log: stderr})
	if err != nil {
		return exitWith(stderr, "init", err, nil)
	}
	defer c.Close()
	sess, err := c.Connect(ctx, target, policy)
	if err != nil {
		return exitWith(stderr, "init", connectFailure(target, err), c.Scrub)
	}
	defer sess.Close()
	cat, err := listCatalog(ctx, sess)
	if err != nil {
		return exitWith(stderr, "init", failure(fmt.Sprintf("cannot list what %s offers: %v", target, err), ""), c.Scrub)
	}
	var b strings.Builder
	if err := writeStarter(&b, target.String(), cat); err != nil {
		return exitWith(stderr, "init", failure(err.Error(), ""), c.Scrub)
	}
	text := c.Scrub(b.String()) // what a server says of itself may echo a credential
	if *out == "" {
		io.WriteString(stdout, text)
		return exitOK
	}
	if err := writeFileWith(*out, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
		return exitWith(stderr, "init", failure(fmt.Sprintf("cannot write %s: %v", *out, err), ""), nil)
	}
	fmt.Fprintf(stderr, "inspector init: wrote %s: %d operations; run it with inspector run --workload %s\n", *out, cat.count(), *out)
	return exitOK
}

// catalog is what a server offers, all pages of each list.
type catalog struct {
	tools     []engine.Tool
	resources []engine.Resource
	templates []engine.ResourceTemplate
	prompts   []engine.Prompt
}

func (c catalog) count() int {
	return len(c.tools) + len(c.resources) + len(c.templates) + len(c.prompts)
}

// listCatalog lists the session's tools, resources, resource templates
// and prompts.
func listCatalog(ctx context.Context, s *engine.Session) (catalog, error) {
	var c catalog
	var err error
	if c.tools, err = s.ListTools(ctx); err != nil {
		return c, err
	}
	if c.resources, err = s.ListResources(ctx); err != nil {
		return c, err
	}
	if c.templates, err = s.ListResourceTemplates(ctx); err != nil {
		return c, err
	}
	if c.prompts, err = s.ListPrompts(ctx); err != nil {
		return c, err
	}
	if c.count() == 0 {
		return c, errors.New("the server offers no tools, resources or prompts: nothing to put in a workload")
	}
	return c, nil
}
