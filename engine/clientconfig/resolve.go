package clientconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
)

// Values fill a server's placeholders.
type Values struct {
	// Inputs are the values of VS Code's ${input:ID} by ID. An input not
	// here is read from the environment variable [InputEnvVar](ID), then
	// from the input's default.
	Inputs map[string]string
	// LookupEnv reads the environment; nil means [os.LookupEnv].
	LookupEnv func(string) (string, bool)
	// Home is ${userHome}; "" means [os.UserHomeDir].
	Home string
}

// InputEnvVar is the environment variable that gives the input id when no
// value was typed: INSPECTOR_INPUT_ and the id in capitals, every other
// character than a letter or digit made an underscore ("api-key" →
// INSPECTOR_INPUT_API_KEY).
func InputEnvVar(id string) string {
	var b strings.Builder
	b.WriteString("INSPECTOR_INPUT_")
	for _, r := range strings.ToUpper(id) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// MissingInputsError says which inputs a person must give before the
// server can be reached.
type MissingInputsError struct {
	Server Server
	Inputs []Input
}

func (e *MissingInputsError) Error() string {
	ids := make([]string, len(e.Inputs))
	for i, in := range e.Inputs {
		ids[i] = fmt.Sprintf("%q", in.ID)
		if in.Description != "" {
			ids[i] += " (" + in.Description + ")"
		}
	}
	return fmt.Sprintf("server %q in %s needs the input %s, which %s asks a person for", e.Server.Name, e.Server.File, strings.Join(ids, " and "), e.Server.Format)
}

// Inputs returns the inputs of the server's file its entry names as
// ${input:ID}, in the order of the file's "inputs".
func (s Server) Inputs() []Input {
	var used []Input
	for _, in := range s.inputs {
		ref := "${input:" + in.ID + "}"
		if slices.ContainsFunc(s.strings(), func(t string) bool { return strings.Contains(t, ref) }) {
			used = append(used, in)
		}
	}
	return used
}

// strings returns every string of the entry placeholders may be in.
func (s Server) strings() []string {
	out := append([]string{s.Command, s.URL, s.Cwd, s.EnvFile}, s.Args...)
	for _, v := range s.Env {
		out = append(out, v)
	}
	for _, v := range s.Headers {
		out = append(out, v)
	}
	return out
}

// placeholder matches ${…}.
var placeholder = regexp.MustCompile(`\$\{([^}]*)\}`)

// filler fills one server's placeholders, keeping what it filled them with.
type filler struct {
	s       Server
	v       Values
	secrets []string
	missing []Input
	errs    []string
}

// fill returns text with its placeholders filled, as the server's client
// does: VS Code's and Cursor's ${env:NAME}, ${input:ID},
// ${workspaceFolder}, ${userHome}; Claude Code's ${NAME} and
// ${NAME:-default}; none in Claude Desktop's.
func (f *filler) fill(text string) string {
	switch f.s.Format {
	case VSCode, Cursor, ClaudeCode, ClaudeCodeUser:
	default:
		return text
	}
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		inner := m[2 : len(m)-1]
		if f.s.Format == ClaudeCode || f.s.Format == ClaudeCodeUser {
			name, def, hasDef := strings.Cut(inner, ":-")
			if v, ok := f.lookupEnv(name); ok {
				f.secrets = append(f.secrets, v)
				return v
			}
			if hasDef {
				return def
			}
			f.errs = append(f.errs, fmt.Sprintf("the environment variable %s is not set (the entry names ${%s}; set it, or write ${%s:-DEFAULT})", name, name, name))
			return m
		}
		kind, arg, _ := strings.Cut(inner, ":")
		switch kind {
		case "env":
			v, _ := f.lookupEnv(arg) // unset is empty, as in VS Code
			f.secrets = append(f.secrets, v)
			return v
		case "input":
			if v, ok := f.input(arg); ok {
				f.secrets = append(f.secrets, v)
				return v
			}
			return m
		case "workspaceFolder":
			return f.s.workspace
		case "workspaceFolderBasename":
			return filepath.Base(f.s.workspace)
		case "userHome":
			return f.home()
		case "pathSeparator", "/":
			return string(filepath.Separator)
		}
		return m // VS Code leaves a variable it does not know as it is
	})
}

func (f *filler) lookupEnv(name string) (string, bool) {
	if f.v.LookupEnv != nil {
		return f.v.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

func (f *filler) home() string {
	if f.v.Home != "" {
		return f.v.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// input returns the value of ${input:id}, or notes it missing.
func (f *filler) input(id string) (string, bool) {
	if v, ok := f.v.Inputs[id]; ok {
		return v, true
	}
	if v, ok := f.lookupEnv(InputEnvVar(id)); ok {
		return v, true
	}
	i := slices.IndexFunc(f.s.inputs, func(in Input) bool { return in.ID == id })
	if i < 0 {
		f.errs = append(f.errs, fmt.Sprintf("${input:%s} names no input of the file's \"inputs\"", id))
		return "", false
	}
	if f.s.inputs[i].Default != "" {
		return f.s.inputs[i].Default, true
	}
	if !slices.ContainsFunc(f.missing, func(in Input) bool { return in.ID == id }) {
		f.missing = append(f.missing, f.s.inputs[i])
	}
	return "", false
}

// Target returns the connection the entry describes, its placeholders
// filled from v. The values filled in from the environment or inputs, and
// the entry's environment and headers, are the target's secrets
// ([engine.Target.Secrets]): no recording, journal or export carries them.
//
// The server's arguments are passed as written: a relative path in them
// is relative to the working directory the server starts in, which is the
// entry's cwd (relative to the project folder: the one holding .vscode or
// .cursor, else the file's folder) when it gives one, else the
// inspector's own, as when a client is started from a shell there. A
// *[MissingInputsError] lists the inputs a person must give.
func (s Server) Target(v Values) (engine.Target, error) {
	if s.Err != nil {
		return engine.Target{}, s.Err
	}
	f := &filler{s: s, v: v}
	t := engine.Target{Transport: s.Transport, Era: s.Era}
	switch s.Transport {
	case engine.TransportStdio:
		words := []string{f.fill(s.Command)}
		for _, a := range s.Args {
			words = append(words, f.fill(a))
		}
		t.Command = quoteWords(words)
		env := map[string]string{}
		if s.EnvFile != "" {
			path := f.fill(s.EnvFile)
			if !filepath.IsAbs(path) {
				path = filepath.Join(s.workspace, path)
			}
			fromFile, err := readEnvFile(path)
			if err != nil {
				return t, fmt.Errorf("server %q in %s: envFile: %w", s.Name, s.File, err)
			}
			for k, val := range fromFile {
				env[k] = val
			}
		}
		for k, val := range s.Env {
			env[k] = f.fill(val)
		}
		for k, val := range env {
			t.Env = append(t.Env, k+"="+val)
		}
		slices.Sort(t.Env)
		if s.Cwd != "" {
			t.Dir = f.fill(s.Cwd)
			if !filepath.IsAbs(t.Dir) {
				t.Dir = filepath.Join(s.workspace, t.Dir)
			}
		}
	case engine.TransportHTTP, engine.TransportSSE:
		t.URL = f.fill(s.URL)
		for k, val := range s.Headers {
			if t.Headers == nil {
				t.Headers = map[string]string{}
			}
			t.Headers[k] = f.fill(val)
		}
	}
	if len(f.errs) > 0 {
		return t, fmt.Errorf("server %q in %s: %s", s.Name, s.File, strings.Join(f.errs, "; "))
	}
	if len(f.missing) > 0 {
		return t, &MissingInputsError{Server: s, Inputs: f.missing}
	}
	for _, sec := range f.secrets {
		if sec != "" {
			t.SecretValues = append(t.SecretValues, sec)
		}
	}
	return t, nil
}

// readEnvFile reads KEY=VALUE lines (# comments, blank lines, a leading
// "export " and quotes around the value allowed), as VS Code's envFile.
func readEnvFile(path string) (map[string]string, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, val, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s:%d: want KEY=VALUE", path, n)
		}
		val = strings.TrimSpace(val)
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			val = val[1 : len(val)-1]
		}
		out[k] = val
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// quoteWords joins words into a command line that a POSIX shell, and
// [engine.Target]'s splitting, read back as the same words.
func quoteWords(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
			out[i] = w
			continue
		}
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// Written returns the target as the entry is written, its placeholders
// not filled: what to show a person, who may edit it, without the values
// inputs and the environment would put in ([Server.Target] gives those).
func (s Server) Written() engine.Target {
	t := engine.Target{Transport: s.Transport, URL: s.URL, Dir: s.Cwd, Era: s.Era}
	if s.Transport == engine.TransportStdio {
		t.Command = quoteWords(append([]string{s.Command}, s.Args...))
		t.URL = ""
	}
	for k, v := range s.Env {
		t.Env = append(t.Env, k+"="+v)
	}
	slices.Sort(t.Env)
	for k, v := range s.Headers {
		if t.Headers == nil {
			t.Headers = map[string]string{}
		}
		t.Headers[k] = v
	}
	return t
}
