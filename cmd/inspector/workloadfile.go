package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fanout-inspector/inspector/internal/workloadfile"
	"github.com/fanout-inspector/inspector/recorder"
)

// shapeFlags are the load flags that make the shape of a load: given with
// --workload, they replace the file's shape as a whole.
var shapeFlags = []string{"calls", "concurrency", "duration", "rate", "max-in-flight", "stages"}

// loadWorkloadFile reads --workload (package workloadfile) into the plan:
// the mix, its shape (the file's [load], or the shape flags when any is
// given), the sessions and call timeout (a flag given wins), the seed
// (the file's, else --seed) and the thresholds (the file's, then
// --assert).
func (p *runPlan) loadWorkloadFile(fs *flag.FlagSet) error {
	path := p.o.workload
	for _, f := range []string{"tool", "args"} {
		if flagWasSet(fs, f) {
			return usageError("--%s with --workload %s: the file's operations say what to call; leave out --%s", f, path, f)
		}
	}
	wf, err := workloadfile.Read(path)
	if err != nil {
		var fe *workloadfile.Error
		if errors.As(err, &fe) {
			return &exitError{code: exitUsage, msg: fe.Error()}
		}
		return failure(fmt.Sprintf("--workload %s: cannot read the file: %v", path, err), "")
	}
	fileErr := func(key, format string, a ...any) error {
		return &exitError{code: exitUsage, msg: wf.ErrorAt(key, format, a...).Error()}
	}

	// The shape: from the file, or wholly from the flags.
	fromFlags := false
	for _, f := range shapeFlags {
		fromFlags = fromFlags || flagWasSet(fs, f)
	}
	o := p.o
	if !fromFlags {
		o.calls, o.concurrency, o.duration, o.rate, o.maxInFlight, o.stages = 1, 1, wf.Load.Duration, wf.Load.Rate, wf.Load.MaxInFlight, wf.Load.Stages
		if wf.Defined("load.calls") {
			o.calls = wf.Load.Calls
		}
		if wf.Defined("load.concurrency") {
			o.concurrency = wf.Load.Concurrency
		}
	}
	if !flagWasSet(fs, "sessions") && wf.Defined("load.sessions") {
		o.sessions = wf.Load.Sessions
	}
	if !flagWasSet(fs, "call-timeout") && wf.Defined("load.call_timeout") {
		o.callTimeout = wf.Load.CallTimeout
	}
	var firstField string // the first field an error names that the file (not a flag) gave
	fromFile := func(flagName string) bool {
		return !flagWasSet(fs, flagName) && !(fromFlags && isShapeFlag(flagName)) && wf.Defined("load."+strings.ReplaceAll(flagName, "-", "_"))
	}
	set := func(flagName string) bool { return flagWasSet(fs, flagName) || fromFile(flagName) }
	name := func(field string) string {
		if field == "ramp" {
			field = "stages"
		}
		if fl := strings.ReplaceAll(field, "_", "-"); flagWasSet(fs, fl) || (fromFlags && isShapeFlag(fl)) {
			return loadFlag(field)
		}
		if firstField == "" && wf.Defined("load."+field) {
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
	if w.Operations, err = wf.Mix(); err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	w.Seed = wf.Seed
	if !wf.Defined("seed") || flagWasSet(fs, "seed") {
		w.Seed = p.policy.Seed
	}
	if err := wf.Check(w); err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	p.w = w

	// The thresholds: the file's, then --assert, both may name operations.
	if p.thresholds, err = wf.Checks(len(w.Operations)); err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	more, err := recorder.ParseThresholds(p.o.asserts, len(w.Operations))
	if err != nil {
		return usageError("--assert %v", err)
	}
	p.thresholds = append(p.thresholds, more...)
	return nil
}

// checkWorkloadFile reads the gui's --workload FILE ("" for none) and
// checks it with fits, the Workload panel's own check, so that a file the
// app cannot run (one it could not read, a bad line, more sessions than
// the app spreads a run over) is refused before the window opens, at its
// line.
func checkWorkloadFile(path string, fits func(*workloadfile.File) error) error {
	if path == "" {
		return nil
	}
	wf, err := workloadfile.Read(path)
	if err != nil {
		var fe *workloadfile.Error
		if errors.As(err, &fe) {
			return &exitError{code: exitUsage, msg: fe.Error()}
		}
		return usageError("--workload %s: cannot read the file: %v", path, err)
	}
	if err := fits(wf); err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	return nil
}

func isShapeFlag(name string) bool {
	for _, f := range shapeFlags {
		if f == name {
			return true
		}
	}
	return false
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
