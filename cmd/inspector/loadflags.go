package main

import (
	"errors"
	"flag"
	"strings"

	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/internal/workloadfile"
)

// addLoadFlags adds the flags that say what to call and the shape of the
// load (calls, concurrency, duration, rate, stages, sessions). run uses
// them to run it, gui to preset the Workload panel: prefix starts each
// help text ("preset: " for the gui).
func addLoadFlags(fs *flag.FlagSet, o *runOptions, prefix string) {
	fs.StringVar(&o.tool, "tool", "", prefix+"call the tool `NAME` (default: the server's tool named fanout, else its only tool)")
	fs.StringVar(&o.args, "args", "", prefix+"the tool's arguments: a JSON object, or @FILE to read it from a file")
	fs.IntVar(&o.calls, "calls", 1, prefix+"call the tool `N` times")
	fs.IntVar(&o.concurrency, "concurrency", 1, prefix+"with at most `C` calls in flight at once")
	fs.DurationVar(&o.callTimeout, "call-timeout", 0, prefix+"give up on a tool call after `D` (0 = never)")
	fs.IntVar(&o.sessions, "sessions", 1, prefix+"spread the calls round robin over `M` sessions, each its own connection (a server process each for --stdio)")
	fs.DurationVar(&o.duration, "duration", 0, prefix+"keep starting calls for `D` instead of making --calls N (calls in flight then are waited for)")
	fs.Float64Var(&o.rate, "rate", 0, prefix+"open loop: start `R` calls per second for --duration, on schedule whatever the answers do")
	fs.IntVar(&o.maxInFlight, "max-in-flight", 0, prefix+"open loop: at most `K` calls outstanding; an arrival over it is dropped and counted (0 = no bound)")
	fs.StringVar(&o.stages, "stages", "", prefix+"ramp linearly through `D:TARGET,...` stages, as in 10s:50,30s:200,10s:0: the rate from 0 (open loop), or with --concurrency the callers from it (closed loop)")
}

// loadShape reads the shape of the load from the flags, or says which
// flags do not go together (a usage error): [shapeOf] with the flags
// given and their names.
func loadShape(fs *flag.FlagSet, o runOptions) (load.Workload, error) {
	return shapeOf(o, func(name string) bool { return flagWasSet(fs, name) }, loadFlag)
}

// shapeOf reads the shape of the load from o, whose fields were given as
// set says (by flag name: "calls", "max-in-flight"), naming each field
// with name: [workloadfile.ShapeOf], the one reading the flags and a
// workload file's [load] table share.
func shapeOf(o runOptions, set func(flag string) bool, name func(field string) string) (load.Workload, error) {
	s := workloadfile.Shape{Calls: o.calls, Concurrency: o.concurrency, Duration: o.duration, Rate: o.rate,
		MaxInFlight: o.maxInFlight, Stages: o.stages, Sessions: o.sessions, CallTimeout: o.callTimeout}
	return workloadfile.ShapeOf(s, func(key string) bool { return set(strings.ReplaceAll(key, "_", "-")) }, name)
}

// loadFlag is the flag that sets a Workload's field (its JSON name).
func loadFlag(field string) string {
	if field == "ramp" {
		field = "stages" // --stages with or without --concurrency
	}
	return "--" + strings.ReplaceAll(field, "_", "-")
}

// explainWorkload words an error of [load.Workload.Validate] with the
// flags' names (--rate, --max-in-flight, ...).
func explainWorkload(err error) string {
	var we *load.WorkloadError
	if errors.As(err, &we) {
		return we.Explain(loadFlag)
	}
	return err.Error()
}
