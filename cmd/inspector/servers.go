package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/fanout-inspector/inspector/engine/clientconfig"
)

const serversUsage = `Usage: inspector servers [--config FILE]

Lists the MCP servers of your clients' configuration files, file by file in
precedence order: --server NAME (with run, gui and proxy) connects to the
first of that name. Looked for: ~/.claude.json (Claude Code: this project's
entries, then the user's), .mcp.json, .cursor/mcp.json and .vscode/mcp.json
in this folder and each above it up to the repository root, ~/.cursor/mcp.json,
and Claude Desktop's claude_desktop_config.json. A file that cannot be read
is listed with what is wrong; the others are still listed, and the exit
status is then 1.

`

// serversCommand runs `inspector servers`.
func serversCommand(args []string) int {
	return serversMain(args, os.Stdout, os.Stderr)
}

// serversMain is `inspector servers` with its streams passed in.
func serversMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspector servers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "list the servers of the client config `FILE` alone")
	fs.Usage = func() {
		fmt.Fprint(stderr, serversUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "inspector servers: unexpected argument %q (give a file with --config FILE)\n", fs.Arg(0))
		return exitUsage
	}
	places := clientconfig.Here()
	var found clientconfig.Found
	if *config != "" {
		found.Files = []clientconfig.File{clientconfig.Load(*config)}
	} else {
		found = clientconfig.Discover(places)
	}
	if len(found.Files) == 0 {
		fmt.Fprintf(stdout, "No client configuration file found. Looked for ~/.claude.json, .mcp.json, .cursor/mcp.json and .vscode/mcp.json from %s up to the repository root, ~/.cursor/mcp.json and %s.\n",
			places.Cwd, shortPath(filepath.Join(places.ClaudeDesktop, "claude_desktop_config.json"), places))
		return exitOK
	}
	writeServers(stdout, found, places)
	if bad := unreadable(found); len(bad) > 0 {
		return exitWith(stderr, "servers", failure(fmt.Sprintf("%d of %d configuration files could not be read (listed above with what is wrong)", len(bad), len(found.Files)),
			"fix or remove them: --server NAME cannot see the servers they may hold"), nil)
	}
	return exitOK
}

// writeServers prints the files found and their servers.
func writeServers(w io.Writer, found clientconfig.Found, places clientconfig.Places) {
	var b strings.Builder
	defer func() { // without the padding after a line's last word
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			io.WriteString(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n")))
		}
	}()
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	hidden := 0
	for i, f := range found.Files {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, shortPath(f.Path, places)+" ("+formatLabel(f)+")")
		if f.Err != nil {
			fmt.Fprintf(tw, "  error: %s\n", f.Err)
			continue
		}
		if len(f.Servers) == 0 {
			fmt.Fprintln(tw, "  (no servers)")
		}
		for _, s := range f.Servers {
			if s.Err != nil {
				fmt.Fprintf(tw, "  %s\terror: %s\n", s.Name, s.Err)
				continue
			}
			notes := inputNotes(s)
			if by, ok := found.Shadowed(s); ok {
				hidden++
				notes = append(notes, "hidden by "+shortPath(by.File, places)+": --server "+shortPath(s.File, places)+":"+s.Name)
			}
			if s.Project != "" {
				notes = append(notes, "project "+shortPath(s.Project, places))
			}
			if s.Era != "" {
				notes = append(notes, "era "+string(s.Era))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", s.Name, s.Transport, s.Summary(), strings.Join(notes, "; "))
		}
	}
	tw.Flush()
	if hidden > 0 {
		fmt.Fprintln(&b, "\nA name in several files: --server NAME takes the first listed; FILE:NAME or --config FILE picks another.")
	}
}

// formatLabel names a file's client, and for ~/.claude.json which of its
// entries were read.
func formatLabel(f clientconfig.File) string {
	switch {
	case f.Format == clientconfig.ClaudeCodeUser && f.Scope == "local":
		return "Claude Code, this project's entries"
	case f.Format == clientconfig.ClaudeCodeUser && f.Scope == "user":
		return "Claude Code, user entries"
	}
	return string(f.Format)
}

// inputNotes says which inputs a server needs from a person.
func inputNotes(s clientconfig.Server) []string {
	var out []string
	for _, in := range s.Inputs() {
		n := "needs input " + in.ID
		if in.Password {
			n += " (password)"
		}
		if in.Default != "" {
			n += " (default " + in.Default + ")"
		}
		out = append(out, n)
	}
	return out
}

// shortPath writes a path relative to the working directory when it is in
// it or a folder above, else with the home folder as ~.
func shortPath(path string, p clientconfig.Places) string {
	if p.Cwd != "" {
		project := filepath.Dir(path)
		if b := filepath.Base(project); b == ".vscode" || b == ".cursor" {
			project = filepath.Dir(project)
		}
		sep := string(filepath.Separator)
		if project == p.Cwd || strings.HasPrefix(p.Cwd, project+sep) || strings.HasPrefix(project, p.Cwd+sep) {
			if rel, err := filepath.Rel(p.Cwd, path); err == nil && (project != p.Home || p.Cwd == p.Home) {
				return rel
			}
		}
	}
	if p.Home != "" && strings.HasPrefix(path, p.Home+string(filepath.Separator)) {
		return "~" + path[len(p.Home):]
	}
	return path
}
