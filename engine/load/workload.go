package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
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

// Validate says what is wrong with w, or nil.
func (w Workload) Validate() error {
	if w.Tool == "" {
		return errors.New("run: no tool named: say which tool to call")
	}
	if w.Calls < 0 || w.Concurrency < 0 || w.CallTimeout < 0 || w.Duration < 0 || w.MaxInFlight < 0 {
		return errors.New("run: calls, concurrency, call timeout, duration and max in flight must not be negative")
	}
	if !(w.Rate >= 0) || math.IsInf(w.Rate, 0) { // NaN too
		return fmt.Errorf("run: rate %v: want a number of calls per second above 0", w.Rate)
	}
	if w.Rate > MaxRate {
		return fmt.Errorf("run: rate %v: at most %d calls per second from one generator; spread a larger load over several machines", w.Rate, MaxRate)
	}
	for _, st := range w.Stages {
		if w.Ramp != RampConcurrency && st.Target > MaxRate {
			return fmt.Errorf("run: stage target %v: at most %d calls per second from one generator", st.Target, MaxRate)
		}
		if w.Ramp == RampConcurrency && st.Target > maxCallers {
			return fmt.Errorf("run: stage target %v: at most %d concurrent callers", st.Target, maxCallers)
		}
	}
	switch w.Ramp {
	case "", RampRate, RampConcurrency:
	default:
		return fmt.Errorf("run: ramp %q: want %q or %q", w.Ramp, RampRate, RampConcurrency)
	}
	if len(w.Stages) > 0 {
		switch {
		case w.Rate > 0:
			return errors.New("run: stages ramp the rate: leave the rate out")
		case w.Duration > 0:
			return errors.New("run: stages say how long the run lasts: leave the duration out")
		case w.Calls > 0:
			return errors.New("run: stages say how long the run lasts: leave the number of calls out")
		}
		for i, st := range w.Stages {
			if st.Duration <= 0 || !(st.Target >= 0) || math.IsInf(st.Target, 0) {
				return fmt.Errorf("run: stage %d (%v to %v): want a positive duration and a target of 0 or more", i+1, st.Duration, st.Target)
			}
		}
	}
	if w.Calls > 0 && w.Duration > 0 {
		return errors.New("run: give a number of calls or a duration, not both")
	}
	if w.open() {
		switch {
		case w.Rate > 0 && w.Duration == 0:
			return errors.New("run: an open loop (a rate) needs a duration: how long to keep starting calls")
		case w.Calls > 0:
			return errors.New("run: an open loop's calls are its rate times its duration: leave the number of calls out")
		case w.Concurrency > 0:
			return errors.New("run: an open loop is not bounded by concurrency: bound what is outstanding with max in flight")
		}
	} else if w.MaxInFlight > 0 {
		return errors.New("run: max in flight bounds an open loop (a rate or rate stages); a closed loop is bounded by its concurrency")
	}
	if len(w.Args) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(w.Args, &obj); err != nil || obj == nil {
			return fmt.Errorf("run: the arguments of %s must be a JSON object like {\"n\": 5}: %s", w.Tool, describeJSONError(w.Args, err))
		}
	}
	return nil
}

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
}

func describeJSONError(b []byte, err error) string {
	if err == nil {
		return "got " + string(b)
	}
	return err.Error()
}
