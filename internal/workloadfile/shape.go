package workloadfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fanout-inspector/inspector/engine/load"
)

// MaxSessions is the most sessions a load is spread over.
const MaxSessions = 1000

// ShapeOf reads the shape of a load from s, whose fields were given as
// set says (by their keys: "calls", "max_in_flight"), or says which do
// not go together, naming each field (a Workload's JSON name,
// "sessions") with name: the load flags and a workload file's [load]
// table share this one reading. [load.Workload.Validate] judges the
// shape; here only what a Workload cannot tell: a field given as 0 (a
// Workload's 0 means "not given") and the number of sessions. s.Calls,
// s.Concurrency and s.Sessions are the values to use, defaults filled in
// (1 each).
func ShapeOf(s Shape, set func(key string) bool, name func(field string) string) (load.Workload, error) {
	w := load.Workload{CallTimeout: s.CallTimeout, Duration: s.Duration, Rate: s.Rate, MaxInFlight: s.MaxInFlight}
	switch {
	case s.Calls < 1:
		return w, fmt.Errorf("%s %d: want 1 or more", name("calls"), s.Calls)
	case s.Concurrency < 1:
		return w, fmt.Errorf("%s %d: want 1 or more", name("concurrency"), s.Concurrency)
	case s.CallTimeout < 0:
		return w, fmt.Errorf("%s %v: must not be negative", name("call_timeout"), s.CallTimeout)
	case s.Sessions < 1 || s.Sessions > MaxSessions:
		return w, fmt.Errorf("%s %d: want 1 to %d", name("sessions"), s.Sessions, MaxSessions)
	case set("duration") && s.Duration == 0:
		return w, fmt.Errorf("%s 0: give how long to go on, as in 10s", name("duration"))
	case set("rate") && s.Rate == 0:
		return w, fmt.Errorf("%s 0: want calls per second above 0, as in 200", name("rate"))
	}
	// The fields given, as given: their defaults are filled in once the
	// shape is known to be a closed loop.
	if set("calls") {
		w.Calls = s.Calls
	}
	if set("concurrency") {
		w.Concurrency = s.Concurrency
	}
	if s.Stages != "" {
		stages, err := load.ParseStages(s.Stages)
		if err != nil {
			return w, fmt.Errorf("%s: %v", name("stages"), err)
		}
		w.Stages, w.Ramp = stages, load.RampRate
		if set("concurrency") {
			w.Ramp = load.RampConcurrency
		}
	}
	probe := w
	probe.Tool = "probe"
	if err := probe.Validate(); err != nil {
		var we *load.WorkloadError
		if errors.As(err, &we) {
			return w, errors.New(we.Explain(name))
		}
		return w, err
	}
	open := s.Rate > 0 || w.Ramp == load.RampRate
	if !open && w.Ramp == "" {
		w.Concurrency = s.Concurrency
		if s.Duration == 0 {
			w.Calls = s.Calls
		}
	}
	return w, nil
}

// Workload is the run the file describes on its own: its [load] shape
// (calls, concurrency and sessions 1 where not written), its mix and its
// seed, validated; the error places what is wrong in the file. Sessions
// is how many sessions to spread the calls over.
func (f *File) Workload() (w load.Workload, sessions int, err error) {
	s := f.Load
	for key, v := range map[string]*int{"calls": &s.Calls, "concurrency": &s.Concurrency, "sessions": &s.Sessions} {
		if !f.Defined("load." + key) {
			*v = 1
		}
	}
	first := "" // the first field an error names that the file gave
	name := func(field string) string {
		if field == "ramp" {
			field = "stages"
		}
		if first == "" && f.Defined("load."+field) {
			first = "load." + field
		}
		return "load." + field
	}
	if w, err = ShapeOf(s, func(key string) bool { return f.Defined("load." + key) }, name); err != nil {
		return w, 0, f.ErrorAt(first, "%v", err)
	}
	w.CallTimeout = s.CallTimeout
	if w.Operations, err = f.Mix(); err != nil {
		return w, 0, err
	}
	w.Seed = f.Seed
	if err := f.Check(w); err != nil {
		return w, 0, err
	}
	return w, s.Sessions, nil
}

// FromWorkload is the file that runs w over sessions sessions with the
// thresholds: the inverse of [File.Workload]. A workload of one tool is
// written as a mix of that one tool call.
func FromWorkload(w load.Workload, sessions int, thresholds []string) (*File, error) {
	f := &File{Seed: w.Seed, Thresholds: thresholds, defined: map[string]bool{}}
	def := func(key string) { f.defined[key] = true }
	if w.Seed != 0 {
		def("seed")
	}
	if len(thresholds) > 0 {
		def("thresholds")
	}
	s := &f.Load
	if w.Calls > 0 {
		s.Calls = w.Calls
		def("load.calls")
	}
	if w.Concurrency > 0 || w.Ramp == load.RampConcurrency {
		s.Concurrency = max(w.Concurrency, 1) // with stages, it says they ramp the callers
		def("load.concurrency")
	}
	if w.Duration > 0 {
		s.Duration = w.Duration
		def("load.duration")
	}
	if w.Rate > 0 {
		s.Rate = w.Rate
		def("load.rate")
	}
	if w.MaxInFlight > 0 {
		s.MaxInFlight = w.MaxInFlight
		def("load.max_in_flight")
	}
	if len(w.Stages) > 0 {
		s.Stages = StagesText(w.Stages)
		def("load.stages")
	}
	if sessions > 1 {
		s.Sessions = sessions
		def("load.sessions")
	}
	if w.CallTimeout > 0 {
		s.CallTimeout = w.CallTimeout
		def("load.call_timeout")
	}
	ops := w.Operations
	if len(ops) == 0 && w.Tool != "" {
		ops = []load.Operation{{Method: "tools/call", Name: w.Tool, Args: w.Args, Weight: 1}}
	}
	for i, op := range ops {
		fop := Operation{Method: op.Method, Name: op.Name, Weight: op.Weight}
		if len(bytes.TrimSpace(op.Args)) > 0 {
			d := json.NewDecoder(bytes.NewReader(op.Args))
			d.UseNumber() // whole numbers stay whole
			if err := d.Decode(&fop.Args); err != nil || fop.Args == nil {
				return nil, fmt.Errorf("operation %d (%s %s): the arguments are not a JSON object: %s", i, op.Method, op.Name, describe(op.Args, err))
			}
		}
		f.Operations = append(f.Operations, fop)
	}
	return f, nil
}

func describe(b []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	return "got " + string(b)
}

// StagesText writes stages as [load.ParseStages] reads them.
func StagesText(stages []load.Stage) string {
	parts := make([]string, len(stages))
	for i, st := range stages {
		parts[i] = st.Duration.String() + ":" + strconv.FormatFloat(st.Target, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}
