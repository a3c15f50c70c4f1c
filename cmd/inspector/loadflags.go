package main

import (
	"errors"
	"flag"
	"fmt"
	"math"

	"github.com/fanout-inspector/inspector/engine/load"
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
// flags do not go together (a usage error).
func loadShape(fs *flag.FlagSet, o runOptions) (load.Workload, error) {
	w := load.Workload{CallTimeout: o.callTimeout, Duration: o.duration, Rate: o.rate, MaxInFlight: o.maxInFlight}
	set := func(name string) bool { return flagWasSet(fs, name) }
	switch {
	case o.sessions < 1 || o.sessions > 1000:
		return w, fmt.Errorf("--sessions %d: want 1 to 1000", o.sessions)
	case o.duration < 0:
		return w, fmt.Errorf("--duration %v: must not be negative", o.duration)
	case set("duration") && o.duration == 0:
		return w, errors.New("--duration 0: give how long to go on, as in 10s")
	case !(o.rate >= 0) || math.IsInf(o.rate, 0):
		return w, fmt.Errorf("--rate %v: want calls per second above 0, as in 200", o.rate)
	case set("rate") && o.rate == 0:
		return w, errors.New("--rate 0: want calls per second above 0, as in 200")
	case o.maxInFlight < 0:
		return w, fmt.Errorf("--max-in-flight %d: must not be negative", o.maxInFlight)
	case set("calls") && set("rate"):
		return w, errors.New("--calls and --rate: an open loop makes --rate × --duration calls; leave out --calls")
	case set("calls") && set("duration"):
		return w, errors.New("--calls and --duration: give a number of calls or a duration, not both")
	case o.rate > 0 && set("concurrency"):
		return w, errors.New("--concurrency and --rate: an open loop is not bounded by callers; bound it with --max-in-flight")
	}
	if o.stages != "" {
		stages, err := load.ParseStages(o.stages)
		if err != nil {
			return w, fmt.Errorf("--stages: %v", err)
		}
		for _, other := range []string{"rate", "duration", "calls"} {
			if set(other) {
				return w, fmt.Errorf("--stages and --%s: the stages give the %s; leave out --%s", other, map[string]string{"rate": "rate", "duration": "duration", "calls": "length of the run"}[other], other)
			}
		}
		w.Stages, w.Ramp = stages, load.RampRate
		if set("concurrency") {
			w.Ramp, w.Concurrency = load.RampConcurrency, o.concurrency
		}
	} else if o.rate > 0 && o.duration == 0 {
		return w, errors.New("--rate needs --duration: how long to keep starting calls, as in --rate 200 --duration 10s")
	}
	open := o.rate > 0 || w.Ramp == load.RampRate
	if o.maxInFlight > 0 && !open {
		return w, errors.New("--max-in-flight bounds an open loop (--rate, or --stages without --concurrency); a closed loop is bounded by --concurrency")
	}
	if !open && w.Ramp == "" {
		w.Concurrency = o.concurrency
		if o.duration == 0 {
			w.Calls = o.calls
		}
	}
	probe := w
	probe.Tool = "probe"
	if err := probe.Validate(); err != nil {
		return w, err
	}
	return w, nil
}
