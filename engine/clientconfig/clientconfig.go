// Package clientconfig reads the MCP servers people have already written
// down in their clients' configuration files, so the inspector can connect
// to one by name.
//
// It knows five files: Claude Desktop's claude_desktop_config.json,
// Claude Code's project .mcp.json and its user file ~/.claude.json (with
// per-project entries), Cursor's .cursor/mcp.json and VS Code's
// .vscode/mcp.json (its "servers" key, "inputs" and ${…} placeholders).
// [Load] reads one file; [Discover] looks in every place those clients
// look ([Here] gives the places for this machine and working directory)
// and returns every file found, each with its servers or its error: one
// bad file never hides the servers of the others. [Found.Pick] chooses a
// server by name, the first in precedence order when several files name
// it; [Server.Target] turns it into an [engine.Target], filling its
// placeholders from the environment and the inputs a person gave, and
// marks what they were filled with as secrets.
package clientconfig

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
)

// Format is the client a configuration file belongs to, as people name it.
type Format string

// The formats [Load] reads.
const (
	ClaudeDesktop  Format = "Claude Desktop"
	ClaudeCode     Format = "Claude Code"        // a project's .mcp.json
	ClaudeCodeUser Format = "Claude Code (user)" // ~/.claude.json
	Cursor         Format = "Cursor"
	VSCode         Format = "VS Code"
	// Generic is a file of another name with an "mcpServers" object, read
	// as Claude Desktop's.
	Generic Format = "mcpServers"
)

// maxFileSize bounds a configuration file read: ~/.claude.json keeps a
// history and grows, but not past this.
const maxFileSize = 32 << 20

// File is one configuration file and what was read from it.
type File struct {
	// Path is the file's path, as found or given.
	Path string
	// Format is the client it belongs to.
	Format Format
	// Scope says which part of the file was read when [Discover] reads
	// only part of it: "local" (~/.claude.json's entries for the working
	// directory's project) or "user" (its top-level entries); "" for all.
	Scope string
	// Servers are its entries, in the file's order.
	Servers []Server
	// Err says why the file could not be read; Servers is then empty.
	Err error
}

// Server is one entry of a configuration file.
type Server struct {
	// Name is the entry's key.
	Name string
	// File and Format say where it was found.
	File   string
	Format Format
	// Project is the project folder of a ~/.claude.json per-project entry
	// ("" for others).
	Project string
	// Transport is stdio, http or sse.
	Transport engine.TransportKind
	// Command, Args, Env, EnvFile and Cwd start a stdio server, as
	// written (placeholders not yet filled).
	Command string
	Args    []string
	Env     map[string]string
	EnvFile string
	Cwd     string
	// URL and Headers reach an http or sse server, as written.
	URL     string
	Headers map[string]string
	// Era is the entry's "era" (legacy, auto or modern; see
	// [engine.Era]): how the inspector opens a session with it. No client
	// writes it, the inspector reads it; "" when the entry has none.
	Era engine.Era
	// Err says what is wrong with this entry; the file's other entries
	// are still usable.
	Err error

	inputs    []Input // the file's inputs (VS Code)
	workspace string  // the folder ${workspaceFolder} names
}

// Input is a value a VS Code config asks a person for ("inputs", type
// promptString), named in its entries as ${input:ID}.
type Input struct {
	ID          string
	Description string
	// Password says the value is secret: ask for it without showing it.
	Password bool
	// Default is the value used when none is given.
	Default string
}

// Label names the server with its file, for lists and messages:
// "fanout-ts (Claude Desktop, /path/claude_desktop_config.json)".
func (s Server) Label() string {
	where := string(s.Format) + ", " + s.File
	if s.Project != "" {
		where += ", project " + s.Project
	}
	return s.Name + " (" + where + ")"
}

// Summary says what the entry starts or reaches, as written: its command
// line ("node server.mjs") or its URL.
func (s Server) Summary() string {
	if s.Transport == engine.TransportStdio {
		return quoteWords(append([]string{s.Command}, s.Args...))
	}
	return s.URL
}

// Load reads the configuration file at path, its format told by its name
// (claude_desktop_config.json, .mcp.json, .claude.json, .cursor/mcp.json,
// .vscode/mcp.json) or else by its keys ("servers" is VS Code's,
// "mcpServers" anyone else's). An error of the whole file is in File.Err,
// naming the file; one of an entry is in that Server's Err.
func Load(path string) File {
	return load(path, "", "")
}

// load reads path; for ~/.claude.json, scope "local" keeps only the
// entries of the project at or above cwd, "user" only the top-level ones.
func load(path, scope, cwd string) File {
	f := File{Path: path, Format: formatByName(path), Scope: scope}
	data, err := readBounded(path)
	if err != nil {
		f.Err = err
		return f
	}
	d, err := parseJSON(path, data)
	if err != nil {
		f.Err = err
		return f
	}
	if f.Format == "" {
		switch {
		case member(d.root, "servers") != nil:
			f.Format = VSCode
		case member(d.root, "projects") != nil:
			f.Format = ClaudeCodeUser
		default:
			f.Format = Generic
		}
	}
	f.Servers, f.Err = parseFile(f, d, cwd)
	return f
}

// formatByName tells the format from the file's name, or "".
func formatByName(path string) Format {
	base, dir := filepath.Base(path), filepath.Base(filepath.Dir(path))
	switch {
	case base == "claude_desktop_config.json":
		return ClaudeDesktop
	case base == ".mcp.json":
		return ClaudeCode
	case base == ".claude.json":
		return ClaudeCodeUser
	case base == "mcp.json" && dir == ".cursor":
		return Cursor
	case base == "mcp.json" && dir == ".vscode":
		return VSCode
	}
	return ""
}

// readBounded reads a file of at most maxFileSize bytes.
func readBounded(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder: give the configuration file in it", path)
	}
	if st.Size() > maxFileSize {
		return nil, fmt.Errorf("%s: %d bytes is more than a configuration file holds (at most %d MiB read)", path, st.Size(), maxFileSize>>20)
	}
	buf := make([]byte, st.Size())
	if _, err := io.ReadFull(fh, buf); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return buf, nil
}

// workspaceOf is the folder ${workspaceFolder} names for a file: the
// folder holding .vscode or .cursor, else the file's own folder.
func workspaceOf(path string) string {
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if b := filepath.Base(dir); b == ".vscode" || b == ".cursor" {
		return filepath.Dir(dir)
	}
	return dir
}

// ErrNotFound is returned (wrapped) by [Found.Pick] when no file names the
// server.
var ErrNotFound = errors.New("no such server")

// splitFileName splits "FILE:NAME" into its file and name when the part
// before the last colon names an existing file; else file is "".
func splitFileName(arg string) (file, name string) {
	i := strings.LastIndex(arg, ":")
	if i <= 0 {
		return "", arg
	}
	if st, err := os.Stat(arg[:i]); err == nil && !st.IsDir() {
		return arg[:i], arg[i+1:]
	}
	return "", arg
}
