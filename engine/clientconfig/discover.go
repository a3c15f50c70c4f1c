package clientconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Places are where [Discover] looks.
type Places struct {
	// Cwd is the working directory: project files (.mcp.json,
	// .cursor/mcp.json, .vscode/mcp.json) are looked for in it and in each
	// folder above it up to the repository's root (the folder holding
	// .git); outside a repository, in Cwd alone.
	Cwd string
	// Home holds ~/.claude.json and ~/.cursor/mcp.json.
	Home string
	// ClaudeDesktop is the folder of claude_desktop_config.json ("" for
	// none): see [ClaudeDesktopDir].
	ClaudeDesktop string
}

// Here returns the places of this machine, user and working directory.
func Here() Places {
	cwd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	return Places{Cwd: cwd, Home: home,
		ClaudeDesktop: ClaudeDesktopDir(runtime.GOOS, home, os.Getenv("APPDATA"), os.Getenv("XDG_CONFIG_HOME"))}
}

// ClaudeDesktopDir returns the folder Claude Desktop keeps its
// configuration in on goos: ~/Library/Application Support/Claude on macOS,
// %APPDATA%\Claude on Windows, $XDG_CONFIG_HOME/Claude (~/.config/Claude)
// elsewhere.
func ClaudeDesktopDir(goos, home, appData, xdgConfig string) string {
	switch goos {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "Claude")
	case "windows":
		if appData == "" {
			appData = filepath.Join(home, "AppData", "Roaming")
		}
		return filepath.Join(appData, "Claude")
	}
	if xdgConfig == "" {
		xdgConfig = filepath.Join(home, ".config")
	}
	return filepath.Join(xdgConfig, "Claude")
}

// Found is what [Discover] found: the files in precedence order, the
// first naming a server winning.
type Found struct {
	Files []File
}

// Discover reads every configuration file in p's places that exists, in
// this order, which is also the precedence when two name the same server:
//
//  1. ~/.claude.json, the entries of the project Cwd is in (Claude Code's
//     "local" scope);
//  2. in Cwd, then each folder above it to the repository root:
//     .mcp.json (Claude Code), .cursor/mcp.json, .vscode/mcp.json;
//  3. ~/.claude.json, its top-level entries (Claude Code's "user" scope);
//  4. ~/.cursor/mcp.json;
//  5. Claude Desktop's claude_desktop_config.json.
//
// A file that exists but cannot be read or parsed is kept, with its Err.
func Discover(p Places) Found {
	type place struct{ path, scope string }
	var places []place
	if p.Home != "" {
		places = append(places, place{filepath.Join(p.Home, ".claude.json"), "local"})
	}
	for _, dir := range projectDirs(p.Cwd) {
		for _, name := range []string{".mcp.json", filepath.Join(".cursor", "mcp.json"), filepath.Join(".vscode", "mcp.json")} {
			places = append(places, place{filepath.Join(dir, name), ""})
		}
	}
	if p.Home != "" {
		places = append(places, place{filepath.Join(p.Home, ".claude.json"), "user"},
			place{filepath.Join(p.Home, ".cursor", "mcp.json"), ""})
	}
	if p.ClaudeDesktop != "" {
		places = append(places, place{filepath.Join(p.ClaudeDesktop, "claude_desktop_config.json"), ""})
	}
	var found Found
	seen := map[place]bool{}
	for _, pl := range places {
		if seen[pl] {
			continue
		}
		seen[pl] = true
		if _, err := os.Stat(pl.path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		f := load(pl.path, pl.scope, p.Cwd)
		if pl.scope == "local" && f.Err == nil && len(f.Servers) == 0 {
			continue // no entries for this project: the user scope lists the file
		}
		found.Files = append(found.Files, f)
	}
	return found
}

// projectDirs returns cwd and the folders above it up to the repository
// root, nearest first; outside a repository, cwd alone.
func projectDirs(cwd string) []string {
	if cwd == "" {
		return nil
	}
	cwd = filepath.Clean(cwd)
	var dirs []string
	for dir := cwd; ; {
		dirs = append(dirs, dir)
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return []string{cwd}
		}
		dir = parent
	}
}

// Servers returns the entries of every file, in precedence order,
// including those with an Err.
func (f Found) Servers() []Server {
	var out []Server
	for _, file := range f.Files {
		out = append(out, file.Servers...)
	}
	return out
}

// Shadowed reports whether s is hidden by an entry of the same name
// earlier in precedence order, and by which.
func (f Found) Shadowed(s Server) (Server, bool) {
	for _, o := range f.Servers() {
		if o.Name == s.Name {
			if o.File == s.File && o.Project == s.Project {
				return Server{}, false
			}
			return o, true
		}
	}
	return Server{}, false
}

// Pick chooses the server arg names: NAME, the first in precedence order
// of that name, or FILE:NAME, the one of that file (read even when
// Discover did not find it). others are the further entries of that name,
// which it hides. The error wraps [ErrNotFound] when no file names it,
// and says which servers there are and which files could not be read.
func (f Found) Pick(arg string) (s Server, others []Server, err error) {
	file, name := splitFileName(arg)
	pool := f
	if file != "" {
		pool = Found{}
		for _, fl := range f.Files {
			if samePath(fl.Path, file) {
				pool.Files = append(pool.Files, fl)
			}
		}
		if len(pool.Files) == 0 {
			pool.Files = []File{Load(file)}
		}
		if err := pool.Files[0].Err; err != nil {
			return Server{}, nil, err
		}
	}
	var matches []Server
	for _, sv := range pool.Servers() {
		if sv.Name == name {
			matches = append(matches, sv)
		}
	}
	if len(matches) == 0 {
		return Server{}, nil, pool.notFound(name)
	}
	return matches[0], matches[1:], matches[0].Err
}

// Only returns the one server of f, for a file given alone: an error when
// it has none or several (naming them).
func (f Found) Only() (Server, error) {
	for _, fl := range f.Files {
		if fl.Err != nil {
			return Server{}, fl.Err
		}
	}
	all := f.Servers()
	switch len(all) {
	case 1:
		return all[0], all[0].Err
	case 0:
		return Server{}, notFound(f.paths() + " names no server")
	}
	return Server{}, fmt.Errorf("%s names %d servers (%s): say which", f.paths(), len(all), strings.Join(names(all), ", "))
}

// notFound says that no file names name, what they name instead and which
// could not be read.
func (f Found) notFound(name string) error {
	all := names(f.Servers())
	msg := fmt.Sprintf("no server is named %q", name)
	switch {
	case len(f.Files) == 0:
		msg += " (no client configuration file was found)"
	case len(all) == 0:
		msg += " in " + f.paths()
	default:
		msg += fmt.Sprintf(" in %s; there are %s", f.paths(), strings.Join(all, ", "))
	}
	var bad []string
	for _, fl := range f.Files {
		if fl.Err != nil {
			bad = append(bad, fl.Err.Error())
		}
	}
	if len(bad) > 0 {
		msg += "; not read, so it may be in one of them: " + strings.Join(bad, "; ")
	}
	return notFound(msg)
}

// notFound is an error that is [ErrNotFound] and says more.
type notFound string

func (e notFound) Error() string        { return string(e) }
func (e notFound) Is(target error) bool { return target == ErrNotFound }

// paths lists the files' paths.
func (f Found) paths() string {
	var ps []string
	for _, fl := range f.Files {
		if !slices.Contains(ps, fl.Path) {
			ps = append(ps, fl.Path)
		}
	}
	return strings.Join(ps, ", ")
}

// names returns the servers' names, each once, in order.
func names(ss []Server) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	if aa == bb {
		return true
	}
	sa, err1 := os.Stat(aa)
	sb, err2 := os.Stat(bb)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
