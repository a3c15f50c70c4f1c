package load

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// Workload is a series of calls of one tool: the shape of a load test.
//
// A closed loop has Concurrency callers, each making its next call when
// its last one is answered: Calls calls in all, or as many as fit in
// Duration. An open loop (Rate > 0) starts calls on a fixed schedule,
// Rate per second for Duration, whatever the answers do: a call sent late
// is timed from when it was meant to start ([recorder.Span.Intended]),
// and with MaxInFlight calls outstanding an arrival is dropped (counted,
// an event of kind [recorder.EventDropped]), not delayed. Stages ramp
// the rate (open loop) or the number of callers (closed loop) instead of
// holding it; see [Ramp].
type Workload struct {
	Tool string `json:"tool"`
	// Args is the tool's arguments, a JSON object; nil means {}.
	Args json.RawMessage `json:"args,omitempty"`
	// Calls is how many calls to make (default 1, unless Duration, Rate
	// or Stages say how long to go on).
	Calls int `json:"calls,omitempty"`
	// Concurrency is how many calls may be in flight at once in a closed
	// loop (default 1).
	Concurrency int `json:"concurrency,omitempty"`
	// CallTimeout, when not 0, gives up on a call after that long.
	CallTimeout time.Duration `json:"call_timeout,omitempty"`
	// Duration, instead of Calls, is how long to go on starting calls;
	// calls in flight when it has passed are waited for.
	Duration time.Duration `json:"duration,omitempty"`
	// Rate, when not 0, makes the workload an open loop: Rate calls per
	// second for Duration, the i-th started at i/Rate.
	Rate float64 `json:"rate,omitempty"`
	// MaxInFlight, when not 0, bounds the calls an open loop has
	// outstanding: an arrival while that many are is dropped.
	MaxInFlight int `json:"max_in_flight,omitempty"`
	// Stages ramp the load linearly from stage to stage, instead of Rate
	// or Duration; Ramp says what they ramp (RampRate when empty).
	Stages []Stage `json:"stages,omitempty"`
	Ramp   Ramp    `json:"ramp,omitempty"`
	// Operations, instead of Tool and Args, make the workload a mix: each
	// call is one of them, picked by weight (see [Operation], mix.go).
	// Seed seeds the picking: the same seed picks the same sequence.
	Operations []Operation `json:"operations,omitempty"`
	Seed       int64       `json:"seed,omitempty"`
}

// open reports whether w is an open loop.
func (w Workload) open() bool {
	return w.Rate > 0 || (len(w.Stages) > 0 && w.Ramp != RampConcurrency)
}

// length is how long w goes on starting calls, 0 when Calls bounds it.
func (w Workload) length() time.Duration {
	if len(w.Stages) > 0 {
		return stagesDuration(w.Stages)
	}
	return w.Duration
}

// Validate says what is wrong with w, or nil: a [*WorkloadError] naming
// the fields at fault.
func (w Workload) Validate() error {
	switch {
	case w.Tool == "" && len(w.Operations) == 0:
		return &WorkloadError{Fields: []string{"tool"}, Reason: "none named: say which tool to call"}
	case w.Tool != "" && len(w.Operations) > 0:
		return &WorkloadError{Fields: []string{"tool", "operations"}, Reason: "a mix's operations say what to call; leave out {tool}"}
	}
	for _, f := range []struct {
		name     string
		negative bool
		value    any
	}{
		{"calls", w.Calls < 0, w.Calls},
		{"concurrency", w.Concurrency < 0, w.Concurrency},
		{"call_timeout", w.CallTimeout < 0, w.CallTimeout},
		{"duration", w.Duration < 0, w.Duration},
		{"max_in_flight", w.MaxInFlight < 0, w.MaxInFlight},
	} {
		if f.negative {
			return &WorkloadError{Fields: []string{f.name}, Value: fmt.Sprint(f.value), Reason: "must not be negative"}
		}
	}
	if !(w.Rate >= 0) || math.IsInf(w.Rate, 0) { // NaN too
		return &WorkloadError{Fields: []string{"rate"}, Value: fmt.Sprint(w.Rate), Reason: "want calls per second above 0, as in 200"}
	}
	if w.Rate > MaxRate {
		return &WorkloadError{Fields: []string{"rate"}, Value: fmt.Sprint(w.Rate),
			Reason: fmt.Sprintf("at most %d calls per second from one generator; spread a larger load over several machines", MaxRate)}
	}
	for _, st := range w.Stages {
		if w.Ramp != RampConcurrency && st.Target > MaxRate {
			return &WorkloadError{Fields: []string{"stages"}, Value: fmt.Sprintf("target %v", st.Target),
				Reason: fmt.Sprintf("at most %d calls per second from one generator", MaxRate)}
		}
		if w.Ramp == RampConcurrency && st.Target > maxCallers {
			return &WorkloadError{Fields: []string{"stages"}, Value: fmt.Sprintf("target %v", st.Target),
				Reason: fmt.Sprintf("at most %d concurrent callers", maxCallers)}
		}
	}
	switch w.Ramp {
	case "", RampRate, RampConcurrency:
	default:
		return &WorkloadError{Fields: []string{"ramp"}, Value: fmt.Sprintf("%q", w.Ramp), Reason: fmt.Sprintf("want %q or %q", RampRate, RampConcurrency)}
	}
	if len(w.Stages) > 0 {
		switch {
		case w.Rate > 0:
			return &WorkloadError{Fields: []string{"stages", "rate"}, Reason: "the stages give the rate; leave out {rate}"}
		case w.Duration > 0:
			return &WorkloadError{Fields: []string{"stages", "duration"}, Reason: "the stages give the duration; leave out {duration}"}
		case w.Calls > 0:
			return &WorkloadError{Fields: []string{"stages", "calls"}, Reason: "the stages give the length of the run; leave out {calls}"}
		}
		for i, st := range w.Stages {
			if st.Duration <= 0 || !(st.Target >= 0) || math.IsInf(st.Target, 0) {
				return &WorkloadError{Fields: []string{"stages"}, Value: fmt.Sprintf("(stage %d: %v to %v)", i+1, st.Duration, st.Target),
					Reason: "want a positive duration and a target of 0 or more"}
			}
		}
	}
	if w.open() {
		switch {
		case w.Rate > 0 && w.Duration == 0:
			return &WorkloadError{Fields: []string{"rate"}, Reason: "an open loop needs {duration} too: how long to keep starting calls, as in 10s"}
		case w.Calls > 0:
			return &WorkloadError{Fields: []string{"calls", w.openBy()}, Reason: "an open loop makes rate × duration calls; leave out {calls}"}
		case w.Concurrency > 0:
			return &WorkloadError{Fields: []string{"concurrency", w.openBy()}, Reason: "an open loop is not bounded by callers; bound what is outstanding with {max_in_flight}"}
		}
	} else if w.MaxInFlight > 0 {
		return &WorkloadError{Fields: []string{"max_in_flight"},
			Reason: "bounds an open loop only ({rate} or rate {stages}); a closed loop is bounded by {concurrency}"}
	}
	if w.Calls > 0 && w.Duration > 0 {
		return &WorkloadError{Fields: []string{"calls", "duration"}, Reason: "give a number of calls or a duration, not both"}
	}
	if len(w.Operations) > 0 {
		return validateMix(w.Operations)
	}
	if len(w.Args) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(w.Args, &obj); err != nil || obj == nil {
			return &WorkloadError{Fields: []string{"args"},
				Reason: fmt.Sprintf("the arguments of %s must be a JSON object like {\"n\": 5}: %s", w.Tool, describeJSONError(w.Args, err)), err: err}
		}
	}
	return nil
}

// openBy is the field that makes w an open loop: its rate, or its stages.
func (w Workload) openBy() string {
	if w.Rate > 0 {
		return "rate"
	}
	return "stages"
}

// WorkloadError is what [Workload.Validate] finds wrong with a workload:
// the fields at fault, by their JSON names ("rate", "max_in_flight"),
// the value at fault when there is one, and why. Reason names fields as
// {rate}, {max_in_flight}. A face that sets the fields under names of its
// own (a command's flags, a form's labels) words the error with
// [WorkloadError.Explain].
type WorkloadError struct {
	Fields []string
	Value  string
	Reason string
	err    error // the JSON error of bad Args
}

// Error words the error with the fields' names as words, as in
// "run: calls and duration: give a number of calls or a duration, not
// both".
func (e *WorkloadError) Error() string {
	return "run: " + e.Explain(func(field string) string { return strings.ReplaceAll(field, "_", " ") })
}

// Explain words the error with name's names for the fields: the fields
// at fault, the value at fault after the last, and the reason, as in
// "--rate 2e+06: at most 1000000 calls per second ...".
func (e *WorkloadError) Explain(name func(field string) string) string {
	names := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		names[i] = name(f)
	}
	subject := strings.Join(names, " and ")
	if e.Value != "" {
		subject += " " + e.Value
	}
	reason := e.Reason
	for _, f := range workloadFields {
		reason = strings.ReplaceAll(reason, "{"+f+"}", name(f))
	}
	return subject + ": " + reason
}

// workloadFields are the JSON names of a Workload's fields.
var workloadFields = []string{"tool", "args", "calls", "concurrency", "call_timeout", "duration", "rate", "max_in_flight", "stages", "ramp", "operations", "seed"}

// Unwrap returns the JSON error of arguments that do not parse.
func (e *WorkloadError) Unwrap() error { return e.err }

// MaxRate is the highest open-loop rate, in calls per second, one run
// accepts: far past what one machine can start, but a bound on the
// goroutines a mistyped rate would start.
const MaxRate = 1_000_000

// maxCallers bounds the callers of a concurrency ramp.
const maxCallers = 100_000

// maxErrors bounds RunResult.Errors: errors that each carry an id would
// otherwise grow it with every call.
const maxErrors = 50

// Progress is how far a [Run] has got. Total is 0 when the run
// is bounded by time, not by a number of calls; an open loop's Total is
// its rate times its duration.
type Progress struct {
	Total, Done, OK, Failed int
	// Dropped counts the open-loop arrivals dropped so far.
	Dropped int
	Elapsed time.Duration
}

// RunResult is the outcome of a [Run].
type RunResult struct {
	Total, OK, Failed int
	// Dropped counts the open-loop arrivals not sent because MaxInFlight
	// calls were outstanding.
	Dropped int
	// Elapsed runs from the first call sent to the last result received.
	Elapsed time.Duration
	// Errors are the distinct error texts of the failed calls, in the
	// order first seen, at most 50. A tool result with isError counts as
	// failed.
	Errors []string
	// Operations are a mix's outcomes, one per operation in the
	// workload's order; nil for a workload of one tool.
	Operations []recorder.OperationStats
}

func describeJSONError(b []byte, err error) string {
	if err == nil {
		return "got " + string(b)
	}
	return err.Error()
}
