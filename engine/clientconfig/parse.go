package clientconfig

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/tailscale/hujson"
)

// doc is a parsed configuration file: its syntax tree (kept for the
// order of its keys and the line and column of each value) and its name.
type doc struct {
	path string
	data []byte
	root *hujson.Value
}

// lineCol matches hujson's "line L, column C: what" syntax errors.
var lineCol = regexp.MustCompile(`^line (\d+), column (\d+): (.*)$`)

// parseJSON parses data as JSON with comments and trailing commas allowed
// (VS Code and Cursor write their files so). A syntax error names the file,
// line and column.
func parseJSON(path string, data []byte) (*doc, error) {
	if line, col, ok := tooDeep(data); !ok {
		return nil, fmt.Errorf("%s:%d:%d: objects and arrays nested more than %d deep; a client configuration never needs that many: the file is damaged or not a configuration", path, line, col, maxDepth)
	}
	v, err := hujson.Parse(data)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "hujson: ")
		if m := lineCol.FindStringSubmatch(msg); m != nil {
			msg = m[1] + ":" + m[2] + ": " + m[3]
		}
		return nil, fmt.Errorf("%s:%s: not valid JSON (check the commas, quotes and brackets there)", path, msg)
	}
	d := &doc{path: path, data: data, root: &v}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, d.errorf(&v, "", "the file holds %s; want a JSON object such as {\"mcpServers\": {…}}", kindOf(&v))
	}
	return d, nil
}

// maxDepth is the deepest nesting of objects and arrays a configuration
// file may have. The parser descends recursively, so a file nested
// millions deep would exhaust the stack; real files nest a handful deep.
const maxDepth = 100

// tooDeep scans data as JSON with comments for an object or array opened
// deeper than maxDepth, and returns the line and column of the first one
// and false; true when there is none. Brackets inside strings and
// comments do not count. It does not check the syntax otherwise: the
// parser does that after.
func tooDeep(data []byte) (line, col int, ok bool) {
	depth, line, lineStart := 0, 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line, lineStart = line+1, i+1
		case '"':
			for i++; i < len(data) && data[i] != '"' && data[i] != '\n'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i < len(data) && data[i] == '\n' {
				line, lineStart = line+1, i+1
			}
		case '/':
			switch {
			case i+1 < len(data) && data[i+1] == '/':
				for i < len(data) && data[i] != '\n' {
					i++
				}
				i-- // the newline is counted above
			case i+1 < len(data) && data[i+1] == '*':
				for i += 2; i < len(data) && !(data[i] == '*' && i+1 < len(data) && data[i+1] == '/'); i++ {
					if data[i] == '\n' {
						line, lineStart = line+1, i+1
					}
				}
				i++
			}
		case '{', '[':
			if depth++; depth > maxDepth {
				return line, i - lineStart + 1, false
			}
		case '}', ']':
			depth--
		}
	}
	return 0, 0, true
}

// errorf makes an error naming the file, the line and column of v, and
// the key path to it.
func (d *doc) errorf(v *hujson.Value, key, format string, a ...any) error {
	line := 1 + bytes.Count(d.data[:v.StartOffset], []byte("\n"))
	col := 1 + v.StartOffset - (bytes.LastIndexByte(d.data[:v.StartOffset], '\n') + 1)
	where := fmt.Sprintf("%s:%d:%d", d.path, line, col)
	if key != "" {
		where += ": " + key
	}
	return fmt.Errorf("%s: %s", where, fmt.Sprintf(format, a...))
}

// member returns obj's member name, or nil.
func member(v *hujson.Value, name string) *hujson.Value {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &obj.Members[i].Value
		}
	}
	return nil
}

// kindOf names the kind of a JSON value for messages: "a string", "an array"…
func kindOf(v *hujson.Value) string {
	switch t := v.Value.(type) {
	case *hujson.Object:
		return "an object"
	case *hujson.Array:
		return "an array"
	case hujson.Literal:
		switch t.Kind() {
		case '"':
			return "a string"
		case '0':
			return "a number"
		case 't', 'f':
			return "true or false"
		case 'n':
			return "null"
		}
	}
	return "a value"
}

// stringOf returns v as a string, or an error naming key.
func (d *doc) stringOf(v *hujson.Value, key string) (string, error) {
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == '"' {
		return lit.String(), nil
	}
	return "", d.errorf(v, key, "want a string, not %s", kindOf(v))
}

// stringsOf returns v as a list of strings.
func (d *doc) stringsOf(v *hujson.Value, key string) ([]string, error) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, d.errorf(v, key, "want an array of strings such as [\"server.js\", \"--port\", \"3000\"], not %s", kindOf(v))
	}
	out := make([]string, 0, len(arr.Elements))
	for i := range arr.Elements {
		s, err := d.stringOf(&arr.Elements[i], fmt.Sprintf("%s[%d]", key, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// stringMapOf returns v as an object of strings (env, headers).
func (d *doc) stringMapOf(v *hujson.Value, key string) (map[string]string, error) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, d.errorf(v, key, "want an object of strings such as {\"NAME\": \"value\"}, not %s", kindOf(v))
	}
	out := make(map[string]string, len(obj.Members))
	for _, m := range obj.Members {
		name := m.Name.Value.(hujson.Literal).String()
		s, err := d.stringOf(&m.Value, key+"."+name)
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
}

// parseFile reads the servers of a parsed file. An error of the whole file
// is returned; an error of one entry goes into that entry.
func parseFile(f File, d *doc, cwd string) ([]Server, error) {
	key := "mcpServers"
	if f.Format == VSCode {
		key = "servers"
	}
	var out []Server
	if f.Format == VSCode {
		inputs, err := parseInputs(d)
		if err != nil {
			return nil, err
		}
		if v := member(d.root, key); v == nil && member(d.root, "mcpServers") != nil {
			return nil, d.errorf(member(d.root, "mcpServers"), "mcpServers", "VS Code's mcp.json names its servers under \"servers\", not \"mcpServers\"")
		}
		servers, err := d.entries(f, member(d.root, key), key, "")
		for i := range servers {
			servers[i].inputs = inputs
		}
		return servers, err
	}
	if f.Format == ClaudeCodeUser && f.Scope != "user" {
		if p := member(d.root, "projects"); p != nil {
			obj, ok := p.Value.(*hujson.Object)
			if !ok {
				return nil, d.errorf(p, "projects", "want an object of projects by folder, not %s", kindOf(p))
			}
			for i := range obj.Members {
				dir := obj.Members[i].Name.Value.(hujson.Literal).String()
				if f.Scope == "local" && !within(cwd, dir) {
					continue
				}
				pk := "projects." + dir
				if !isObject(&obj.Members[i].Value) {
					return nil, d.errorf(&obj.Members[i].Value, pk, "want an object, not %s", kindOf(&obj.Members[i].Value))
				}
				servers, err := d.entries(f, member(&obj.Members[i].Value, "mcpServers"), pk+".mcpServers", dir)
				if err != nil {
					return nil, err
				}
				out = append(out, servers...)
			}
		}
		if f.Scope == "local" {
			return out, nil
		}
	}
	if v := member(d.root, key); v == nil && f.Format != ClaudeDesktop && f.Format != ClaudeCodeUser && member(d.root, "servers") != nil {
		return nil, d.errorf(member(d.root, "servers"), "servers", "this %s file names its servers under \"mcpServers\"; \"servers\" is VS Code's key", f.Format)
	}
	servers, err := d.entries(f, member(d.root, key), key, "")
	return append(out, servers...), err
}

// isObject reports whether v is a JSON object.
func isObject(v *hujson.Value) bool {
	_, ok := v.Value.(*hujson.Object)
	return ok
}

// within reports whether dir is cwd or one of its parents.
func within(cwd, dir string) bool {
	if cwd == "" || dir == "" {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(cwd))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// entries reads the object of servers v (nil: none) at key.
func (d *doc) entries(f File, v *hujson.Value, key, project string) ([]Server, error) {
	if v == nil {
		return nil, nil
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, d.errorf(v, key, "want an object of servers by name, such as {\"my-server\": {\"command\": \"node\", \"args\": [\"server.js\"]}}, not %s", kindOf(v))
	}
	out := make([]Server, 0, len(obj.Members))
	for i := range obj.Members {
		name := obj.Members[i].Name.Value.(hujson.Literal).String()
		s := Server{Name: name, File: f.Path, Format: f.Format, Project: project, workspace: workspaceOf(f.Path)}
		if project != "" {
			s.workspace = project
		}
		s.Err = d.entry(&s, &obj.Members[i].Value, key+"."+name)
		out = append(out, s)
	}
	return out, nil
}

// entry fills s from the entry v at key.
func (d *doc) entry(s *Server, v *hujson.Value, key string) error {
	if !isObject(v) {
		return d.errorf(v, key, "want an object with \"command\" (a stdio server) or \"url\" (an HTTP server), not %s", kindOf(v))
	}
	str := func(name string, into *string) error {
		if m := member(v, name); m != nil {
			var err error
			*into, err = d.stringOf(m, key+"."+name)
			return err
		}
		return nil
	}
	var typ string
	for _, f := range []struct {
		name string
		into *string
	}{{"type", &typ}, {"command", &s.Command}, {"url", &s.URL}, {"cwd", &s.Cwd}, {"envFile", &s.EnvFile}} {
		if err := str(f.name, f.into); err != nil {
			return err
		}
	}
	var era string
	if err := str("era", &era); err != nil {
		return err
	}
	if era != "" {
		e, err := engine.ParseEra(era)
		if err != nil {
			return d.errorf(member(v, "era"), key+".era", "%v", err)
		}
		s.Era = e
	}
	if s.URL == "" { // Windsurf's name for it
		if err := str("serverUrl", &s.URL); err != nil {
			return err
		}
	}
	var err error
	if m := member(v, "args"); m != nil {
		if s.Args, err = d.stringsOf(m, key+".args"); err != nil {
			return err
		}
	}
	if m := member(v, "env"); m != nil {
		if s.Env, err = d.stringMapOf(m, key+".env"); err != nil {
			return err
		}
	}
	if m := member(v, "headers"); m != nil {
		if s.Headers, err = d.stringMapOf(m, key+".headers"); err != nil {
			return err
		}
	}
	switch strings.ToLower(typ) {
	case "stdio":
		s.Transport = engine.TransportStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		s.Transport = engine.TransportHTTP
	case "sse":
		s.Transport = engine.TransportSSE
	case "":
		if s.Command != "" {
			s.Transport = engine.TransportStdio
		} else if s.URL != "" {
			s.Transport = engine.TransportHTTP // Claude Code reads a url-only entry so
		}
	default:
		return d.errorf(member(v, "type"), key+".type", "%q is not a transport: want stdio, http or sse", typ)
	}
	switch {
	case s.Command != "" && s.URL != "":
		return d.errorf(v, key, "has both \"command\" and \"url\": keep \"command\" for a stdio server or \"url\" for an HTTP one")
	case s.Transport == engine.TransportStdio && s.Command == "":
		return d.errorf(v, key, "no \"command\": a stdio server needs the program to start, as in \"command\": \"node\"")
	case (s.Transport == engine.TransportHTTP || s.Transport == engine.TransportSSE) && s.URL == "":
		return d.errorf(v, key, "no \"url\": an %s server needs its address, as in \"url\": \"http://127.0.0.1:3000/mcp\"", s.Transport)
	case s.Transport == "":
		return d.errorf(v, key, "neither \"command\" (a stdio server) nor \"url\" (an HTTP server)")
	}
	return nil
}

// parseInputs reads VS Code's "inputs".
func parseInputs(d *doc) ([]Input, error) {
	v := member(d.root, "inputs")
	if v == nil {
		return nil, nil
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, d.errorf(v, "inputs", "want an array of inputs such as [{\"type\": \"promptString\", \"id\": \"api-key\", \"password\": true}], not %s", kindOf(v))
	}
	var out []Input
	for i := range arr.Elements {
		e := &arr.Elements[i]
		key := fmt.Sprintf("inputs[%d]", i)
		if !isObject(e) {
			return nil, d.errorf(e, key, "want an object with \"id\", not %s", kindOf(e))
		}
		var in Input
		for _, f := range []struct {
			name string
			into *string
		}{{"id", &in.ID}, {"description", &in.Description}, {"default", &in.Default}} {
			if m := member(e, f.name); m != nil {
				s, err := d.stringOf(m, key+"."+f.name)
				if err != nil {
					return nil, err
				}
				*f.into = s
			}
		}
		if in.ID == "" {
			return nil, d.errorf(e, key, "no \"id\": an input is named by it, as in ${input:ID}")
		}
		if m := member(e, "password"); m != nil {
			lit, ok := m.Value.(hujson.Literal)
			if !ok || (lit.Kind() != 't' && lit.Kind() != 'f') {
				return nil, d.errorf(m, key+".password", "want true or false, not %s", kindOf(m))
			}
			in.Password = lit.Bool()
		}
		out = append(out, in)
	}
	return out, nil
}
