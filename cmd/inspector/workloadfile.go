package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// maxWorkloadFile is the most read of a --workload file: a mix of the
// most operations with their arguments fits in far less.
const maxWorkloadFile = 1 << 20

// workloadFile is a workload file as `inspector run --workload FILE`
// reads it (TOML; docs/load.md describes it). Its [load] table holds the
// fields of the load flags, read by the same [shapeOf] as the flags.
type workloadFile struct {
	Seed       int64           `toml:"seed"`
	Thresholds []string        `toml:"thresholds"`
	Load       workloadShape   `toml:"load"`
	Operations []fileOperation `toml:"operations"`
}

// workloadShape is a workload file's [load] table: the load flags, under
// their names with _ for -.
type workloadShape struct {
	Calls       int           `toml:"calls"`
	Concurrency int           `toml:"concurrency"`
	Duration    time.Duration `toml:"duration"`
	Rate        float64       `toml:"rate"`
	MaxInFlight int           `toml:"max_in_flight"`
	Stages      string        `toml:"stages"`
	Sessions    int           `toml:"sessions"`
	CallTimeout time.Duration `toml:"call_timeout"`
}

// fileOperation is one [[operations]] table.
type fileOperation struct {
	Method string         `toml:"method"`
	Name   string         `toml:"name"`
	Weight float64        `toml:"weight"`
	Args   map[string]any `toml:"args"`
}

// shapeFlags are the load flags that make the shape of a load: given with
// --workload, they replace the file's shape as a whole.
var shapeFlags = []string{"calls", "concurrency", "duration", "rate", "max-in-flight", "stages"}

// loadWorkloadFile reads --workload into the plan: the mix, its shape
// (the file's [load], or the shape flags when any is given), the
// sessions and call timeout (a flag given wins), the seed (the file's,
// else --seed) and the thresholds (the file's, then --assert).
func (p *runPlan) loadWorkloadFile(fs *flag.FlagSet) error {
	path := p.o.workload
	for _, f := range []string{"tool", "args"} {
		if flagWasSet(fs, f) {
			return usageError("--%s with --workload %s: the file's operations say what to call; leave out --%s", f, path, f)
		}
	}
	data, err := readBounded(path, maxWorkloadFile, fmt.Sprintf("larger than %d KiB: a workload file is a few lines per operation (is this the right file?)", maxWorkloadFile>>10))
	if err != nil {
		return failure(fmt.Sprintf("--workload %s: cannot read the file: %v", path, err), "")
	}
	wf, md, err := parseWorkloadFile(data)
	at := lineFinder(data)
	fileErr := func(key, format string, a ...any) error {
		where := path
		if line := at(key); line > 0 {
			where += ":" + strconv.Itoa(line)
		}
		return &exitError{code: exitUsage, msg: where + ": " + fmt.Sprintf(format, a...)}
	}
	if err != nil {
		var pe toml.ParseError
		if pp := (*toml.ParseError)(nil); errors.As(err, &pp) {
			pe = *pp
		} else if !errors.As(err, &pe) { // a value of the wrong type: "toml: line 2 (last key ...): ..."
			msg := strings.TrimPrefix(err.Error(), "toml: ")
			if m := tomlLine.FindStringSubmatch(msg); m != nil {
				return &exitError{code: exitUsage, msg: fmt.Sprintf("%s:%s: %s", path, m[1], strings.TrimPrefix(msg, m[0]))}
			}
			return fileErr("", "%s", msg)
		}
		what := strings.TrimPrefix(pe.Message, "toml: ")
		if pe.LastKey != "" {
			what = pe.LastKey + ": " + what
		}
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%s:%d: %s", path, pe.Position.Line, what)}
	}
	for _, key := range md.Undecoded() {
		k := key.String()
		if strings.HasPrefix(k, "operations.args.") {
			continue // inside a tool's arguments, which are the tool's to judge
		}
		return fileErr(k, "unknown key %q; the keys are seed, thresholds, [load] %s and [[operations]] method, name, weight, args",
			k, strings.Join(loadKeys(), ", "))
	}
	if len(wf.Operations) == 0 {
		return fileErr("", "no operations: add one or more [[operations]] tables with method, name and weight (inspector init writes a starter file)")
	}

	// The shape: from the file, or wholly from the flags.
	fromFlags := false
	for _, f := range shapeFlags {
		fromFlags = fromFlags || flagWasSet(fs, f)
	}
	o := p.o
	if !fromFlags {
		o.calls, o.concurrency, o.duration, o.rate, o.maxInFlight, o.stages = 1, 1, wf.Load.Duration, wf.Load.Rate, wf.Load.MaxInFlight, wf.Load.Stages
		if md.IsDefined("load", "calls") {
			o.calls = wf.Load.Calls
		}
		if md.IsDefined("load", "concurrency") {
			o.concurrency = wf.Load.Concurrency
		}
	}
	if !flagWasSet(fs, "sessions") && md.IsDefined("load", "sessions") {
		o.sessions = wf.Load.Sessions
	}
	if !flagWasSet(fs, "call-timeout") && md.IsDefined("load", "call_timeout") {
		o.callTimeout = wf.Load.CallTimeout
	}
	var firstField string // the first field an error names that the file (not a flag) gave
	fromFile := func(flagName string) bool {
		return !flagWasSet(fs, flagName) && !(fromFlags && isShapeFlag(flagName)) && md.IsDefined("load", strings.ReplaceAll(flagName, "-", "_"))
	}
	set := func(flagName string) bool { return flagWasSet(fs, flagName) || fromFile(flagName) }
	name := func(field string) string {
		if field == "ramp" {
			field = "stages"
		}
		if fl := strings.ReplaceAll(field, "_", "-"); flagWasSet(fs, fl) || (fromFlags && isShapeFlag(fl)) {
			return loadFlag(field)
		}
		if firstField == "" && md.IsDefined("load", field) {
			firstField = "load." + field
		}
		return "load." + field
	}
	w, err := shapeOf(o, set, name)
	if err != nil {
		if firstField != "" {
			return fileErr(firstField, "%v", err)
		}
		return usageError("%v", err)
	}
	p.o.sessions, p.o.callTimeout = o.sessions, o.callTimeout
	w.CallTimeout = o.callTimeout

	// The mix.
	for _, op := range wf.Operations {
		lop := load.Operation{Method: op.Method, Name: op.Name, Weight: op.Weight}
		if op.Args != nil {
			if lop.Args, err = json.Marshal(op.Args); err != nil {
				return fileErr("operations.args", "the arguments of %s %s cannot be sent as JSON: %v", op.Method, op.Name, err)
			}
		}
		w.Operations = append(w.Operations, lop)
	}
	w.Seed = wf.Seed
	if !md.IsDefined("seed") || flagWasSet(fs, "seed") {
		w.Seed = p.policy.Seed
	}
	if err := w.Validate(); err != nil {
		var oe *load.OperationError
		if errors.As(err, &oe) {
			return fileErr(fmt.Sprintf("operations.%d.%s", oe.Index, oe.Field), "operation %d (%s %s): %s: %s", oe.Index, orNone(wf.Operations[oe.Index].Method), orNone(wf.Operations[oe.Index].Name), oe.Field, oe.Reason)
		}
		var we *load.WorkloadError
		if errors.As(err, &we) {
			return fileErr(we.Fields[0], "%s", we.Explain(func(f string) string { return f }))
		}
		return fileErr("", "%v", err)
	}
	p.w = w

	// The thresholds: the file's, then --assert, both may name operations.
	if p.thresholds, err = recorder.ParseThresholds(wf.Thresholds, len(w.Operations)); err != nil {
		return fileErr("thresholds", "thresholds: %v", err)
	}
	more, err := recorder.ParseThresholds(p.o.asserts, len(w.Operations))
	if err != nil {
		return usageError("--assert %v", err)
	}
	p.thresholds = append(p.thresholds, more...)
	return nil
}

// parseWorkloadFile decodes a workload file, with the metadata that says
// which keys it has and which were not understood.
func parseWorkloadFile(data []byte) (workloadFile, toml.MetaData, error) {
	var wf workloadFile
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&wf)
	return wf, md, err
}

func isShapeFlag(name string) bool {
	for _, f := range shapeFlags {
		if f == name {
			return true
		}
	}
	return false
}

// loadKeys are the keys of a workload file's [load] table.
func loadKeys() []string {
	return []string{"calls", "concurrency", "duration", "rate", "max_in_flight", "stages", "sessions", "call_timeout"}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// readBounded reads at most limit bytes of path, and says tooLarge when
// the file is larger: a device or pipe that never ends must not fill the
// memory.
func readBounded(path string, limit int64, tooLarge string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errors.New(tooLarge)
	}
	return data, nil
}

// lineFinder returns a function giving the line (from 1) at which a
// dotted key of the file is written: "load.rate", "operations.2.weight"
// (the third [[operations]] table's weight; its table's line when the
// key is not written), "operations.args" (the first operation's), "thresholds";
// 0 when it cannot tell. It reads the plain forms a person and
// inspector init write: [table] and [[table]] headers, KEY = VALUE lines.
func lineFinder(data []byte) func(key string) int {
	lines := map[string]int{}
	table, index := "", -1
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxWorkloadFile)
	note := func(k string, n int) {
		if _, ok := lines[k]; !ok {
			lines[k] = n
		}
	}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "[["):
			table = strings.TrimSpace(strings.Trim(strings.SplitN(line, "#", 2)[0], "[] \t"))
			if table == "operations" {
				index++
				note(fmt.Sprintf("operations.%d", index), n)
			}
		case strings.HasPrefix(line, "["):
			table = strings.TrimSpace(strings.Trim(strings.SplitN(line, "#", 2)[0], "[] \t"))
		default:
			k, _, ok := strings.Cut(line, "=")
			k = strings.Trim(strings.TrimSpace(k), `"'`)
			if !ok || k == "" || strings.HasPrefix(k, "#") {
				continue
			}
			switch {
			case table == "operations":
				note(fmt.Sprintf("operations.%d.%s", index, k), n)
				note("operations."+k, n)
			case table != "":
				note(table+"."+k, n)
			default:
				note(k, n)
			}
		}
	}
	return func(key string) int {
		if n, ok := lines[key]; ok {
			return n
		}
		if i := strings.LastIndex(key, "."); i > 0 { // the operation's table
			return lines[key[:i]]
		}
		return 0
	}
}

// tomlLine is how the TOML decoder starts an error about a value.
var tomlLine = regexp.MustCompile(`^line (\d+) `)

// workloadTitle names a mix's run after its file.
func workloadTitle(path string) string { return "workload " + filepath.Base(path) }

// runName names the run in its title and its segment of the recording:
// its tool, or its workload file.
func (o runOptions) runName() string {
	if o.workload != "" {
		return workloadTitle(o.workload)
	}
	return o.tool
}
