// Package workloadfile is the workload file: the TOML file that says
// what a load test calls (a mix of weighted operations: tool calls,
// resource reads, prompt gets), the shape of its load and the thresholds
// its run must meet. `inspector run --workload`, `inspector init` and the
// app's Workload panel all read and write it through this package, so
// that a file one of them writes the others take unchanged.
//
// [Read] and [Parse] read a file, with a bound on its size and errors
// that name the line at fault ([*Error]). [File.Workload] turns it into a
// [load.Workload] on its own; a face that lets flags replace parts of it
// reads the parts ([File.Defined], [File.Mix], [ShapeOf], [File.Check],
// [File.Checks]) and places its errors with [File.ErrorAt].
// [FromWorkload] and [File.Marshal] write one back.
//
// # How the code is laid out
//
//   - file.go: [File], [Read], [Parse] and [Error].
//   - shape.go: the [load] table ([Shape], [ShapeOf]), and the file as a
//     workload and back ([File.Workload], [FromWorkload]).
//   - write.go: [File.Marshal] and the TOML writers init's starter file
//     shares ([Quote], [Value], [Comment], [WriteOperation]).
//   - lines.go: where a key is written, for errors.
package workloadfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// MaxSize is the most read of a workload file: a mix of the most
// operations with their arguments fits in far less.
const MaxSize = 1 << 20

// File is a workload file (docs/load.md describes it). Its [load] table
// holds the load flags' fields under their names with _ for -.
type File struct {
	Seed       int64       `toml:"seed"`
	Thresholds []string    `toml:"thresholds"`
	Load       Shape       `toml:"load"`
	Operations []Operation `toml:"operations"`

	name    string          // the file's path, for errors
	defined map[string]bool // the keys written, dotted: "seed", "load.calls"
	line    func(key string) int
}

// Shape is a workload file's [load] table: the shape of the load.
type Shape struct {
	Calls       int           `toml:"calls"`
	Concurrency int           `toml:"concurrency"`
	Duration    time.Duration `toml:"duration"`
	Rate        float64       `toml:"rate"`
	MaxInFlight int           `toml:"max_in_flight"`
	Stages      string        `toml:"stages"`
	Sessions    int           `toml:"sessions"`
	CallTimeout time.Duration `toml:"call_timeout"`
}

// Operation is one [[operations]] table: the method (tools/call,
// resources/read, prompts/get), the tool's or prompt's name or the
// resource's URI, the weight, and the arguments.
type Operation struct {
	Method string         `toml:"method"`
	Name   string         `toml:"name"`
	Weight float64        `toml:"weight"`
	Args   map[string]any `toml:"args"`
}

// LoadKeys are the keys of a workload file's [load] table, in the order
// [File.Marshal] writes them.
var LoadKeys = []string{"calls", "concurrency", "duration", "rate", "max_in_flight", "stages", "sessions", "call_timeout"}

// Error is what is wrong with a workload file: its path, the line at
// fault (0 when it cannot tell) and what to write instead.
type Error struct {
	Path string
	Line int
	Msg  string
}

// Error words it as PATH:LINE: MSG.
func (e *Error) Error() string {
	where := e.Path
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line)
	}
	if where == "" {
		return e.Msg
	}
	return where + ": " + e.Msg
}

// Read reads and parses the workload file at path. An error reading it
// (missing, unreadable, larger than [MaxSize]) is returned as it is; what
// is wrong in the file is an [*Error].
func Read(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("larger than %d KiB: a workload file is a few lines per operation (is this the right file?)", MaxSize>>10)
	}
	return Parse(path, data)
}

// Parse reads a workload file's text; path names it in errors. The error
// is an [*Error]: a TOML mistake, a value of the wrong type, an unknown
// key, or no operations.
func Parse(path string, data []byte) (*File, error) {
	f := &File{name: path, line: lineFinder(data), defined: map[string]bool{}}
	if len(data) > MaxSize {
		return nil, f.ErrorAt("", "larger than %d KiB: a workload file is a few lines per operation (is this the right file?)", MaxSize>>10)
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(f)
	if err != nil {
		var pe toml.ParseError
		if pp := (*toml.ParseError)(nil); errors.As(err, &pp) {
			pe = *pp
		} else if !errors.As(err, &pe) { // a value of the wrong type: "toml: line 2 (last key ...): ..."
			msg := strings.TrimPrefix(err.Error(), "toml: ")
			if m := tomlLine.FindStringSubmatch(msg); m != nil {
				n, _ := strconv.Atoi(m[1])
				return nil, &Error{Path: path, Line: n, Msg: strings.TrimPrefix(msg, m[0])}
			}
			return nil, f.ErrorAt("", "%s", msg)
		}
		what := strings.TrimPrefix(pe.Message, "toml: ")
		if pe.LastKey != "" {
			what = pe.LastKey + ": " + what
		}
		return nil, &Error{Path: path, Line: pe.Position.Line, Msg: what}
	}
	for _, key := range md.Undecoded() {
		k := key.String()
		if strings.HasPrefix(k, "operations.args.") {
			continue // inside a tool's arguments, which are the tool's to judge
		}
		return nil, f.ErrorAt(k, "unknown key %q; the keys are seed, thresholds, [load] %s and [[operations]] method, name, weight, args",
			k, strings.Join(LoadKeys, ", "))
	}
	for _, key := range md.Keys() {
		f.defined[key.String()] = true
	}
	if len(f.Operations) == 0 {
		return nil, f.ErrorAt("", "no operations: add one or more [[operations]] tables with method, name and weight (inspector init writes a starter file)")
	}
	return f, nil
}

// Path is the path the file was read from ("" for one made in memory).
func (f *File) Path() string { return f.name }

// Defined reports whether the file writes the dotted key: "seed",
// "load.calls".
func (f *File) Defined(key string) bool { return f.defined[key] }

// ErrorAt is an [*Error] about the dotted key ("load.rate",
// "operations.2.weight", "thresholds"; "" for none), placed at the line
// that writes it when the file was read.
func (f *File) ErrorAt(key, format string, a ...any) *Error {
	e := &Error{Path: f.name, Msg: fmt.Sprintf(format, a...)}
	if f.line != nil && key != "" {
		e.Line = f.line(key)
	}
	return e
}

// Mix is the file's operations as a load mix, in the file's order; their
// arguments become JSON. [File.Check] judges them.
func (f *File) Mix() ([]load.Operation, error) {
	ops := make([]load.Operation, 0, len(f.Operations))
	for _, op := range f.Operations {
		lop := load.Operation{Method: op.Method, Name: op.Name, Weight: op.Weight}
		if op.Args != nil {
			b, err := json.Marshal(op.Args)
			if err != nil {
				return nil, f.ErrorAt("operations.args", "the arguments of %s %s cannot be sent as JSON: %v", op.Method, op.Name, err)
			}
			lop.Args = b
		}
		ops = append(ops, lop)
	}
	return ops, nil
}

// Check validates w, a workload of the file's mix, and places what is
// wrong in the file: an operation's field at its line.
func (f *File) Check(w load.Workload) error {
	err := w.Validate()
	if err == nil {
		return nil
	}
	var oe *load.OperationError
	if errors.As(err, &oe) && oe.Index < len(f.Operations) {
		op := f.Operations[oe.Index]
		return f.ErrorAt(fmt.Sprintf("operations.%d.%s", oe.Index, oe.Field), "operation %d (%s %s): %s: %s", oe.Index, orNone(op.Method), orNone(op.Name), oe.Field, oe.Reason)
	}
	var we *load.WorkloadError
	if errors.As(err, &we) {
		return f.ErrorAt(we.Fields[0], "%s", we.Explain(func(f string) string { return f }))
	}
	return f.ErrorAt("", "%v", err)
}

// Checks are the file's thresholds for its mix of n operations.
func (f *File) Checks(n int) ([]recorder.Threshold, error) {
	ts, err := recorder.ParseThresholds(f.Thresholds, n)
	if err != nil {
		return nil, f.ErrorAt("thresholds", "thresholds: %v", err)
	}
	return ts, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// tomlLine is how the TOML decoder starts an error about a value.
var tomlLine = regexp.MustCompile(`^line (\d+) `)
