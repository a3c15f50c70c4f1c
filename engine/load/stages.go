package load

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Stage is one step of a ramp: over Duration the load moves linearly
// from where the previous stage left it to Target (calls per second in
// an open loop, concurrent callers in a closed loop).
type Stage struct {
	Duration time.Duration `json:"duration"`
	Target   float64       `json:"target"`
}

// Ramp says what a [Workload]'s Stages ramp.
type Ramp string

// The two things stages can ramp.
const (
	// RampRate ramps the arrival rate of an open loop, from 0 calls per
	// second at the start of the first stage.
	RampRate Ramp = "rate"
	// RampConcurrency ramps the number of concurrent callers of a closed
	// loop, from the Workload's Concurrency at the start of the first
	// stage.
	RampConcurrency Ramp = "concurrency"
)

// maxStages bounds how many stages a ramp may have.
const maxStages = 1000

// ParseStages reads a ramp written as DURATION:TARGET,... such as
// "10s:50,30s:200,10s:0": ramp to 50 over 10 s, then to 200 over 30 s,
// then down to 0 over 10 s.
func ParseStages(spec string) ([]Stage, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("no stages: write DURATION:TARGET,..., as in 10s:50,30s:200,10s:0")
	}
	parts := strings.Split(spec, ",")
	if len(parts) > maxStages {
		return nil, fmt.Errorf("%d stages: at most %d", len(parts), maxStages)
	}
	stages := make([]Stage, 0, len(parts))
	for i, p := range parts {
		d, t, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			return nil, fmt.Errorf("stage %d %q: want DURATION:TARGET, as in 30s:200", i+1, p)
		}
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil || dur <= 0 {
			return nil, fmt.Errorf("stage %d %q: %q is not a positive duration like 10s or 1m30s", i+1, p, d)
		}
		target, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil || target < 0 || math.IsInf(target, 0) || math.IsNaN(target) {
			return nil, fmt.Errorf("stage %d %q: %q is not a target of 0 or more", i+1, p, t)
		}
		stages = append(stages, Stage{Duration: dur, Target: target})
	}
	return stages, nil
}

// stagesDuration is how long the stages last in all.
func stagesDuration(stages []Stage) time.Duration {
	var d time.Duration
	for _, s := range stages {
		d += s.Duration
	}
	return d
}

// level is the value a ramp from `from` through stages has at t after its
// start; past the last stage, the last target.
func level(from float64, stages []Stage, t time.Duration) float64 {
	for _, s := range stages {
		if t < s.Duration {
			return from + (s.Target-from)*float64(t)/float64(s.Duration)
		}
		t -= s.Duration
		from = s.Target
	}
	return from
}

// schedule is an open loop's arrival times: the i-th arrival (from 0) is
// at the instant t at which the integral of the rate from the start
// reaches i. A constant rate R gives i/R; a ramp solves the quadratic of
// each linear stage.
type schedule struct {
	stages []Stage
	from   float64 // the rate at the start of stages[k]

	k     int           // the stage of the last arrival asked for
	base  float64       // arrivals due by the start of stages[k]
	start time.Duration // when stages[k] starts
}

// newSchedule is a schedule at a constant rate for d, or along stages
// (from 0 calls per second) when rate is 0.
func newSchedule(rate float64, d time.Duration, stages []Stage) *schedule {
	if rate > 0 {
		return &schedule{stages: []Stage{{Duration: d, Target: rate}}, from: rate}
	}
	return &schedule{stages: stages}
}

// at returns the offset of arrival i from the start, and false when the
// schedule ends before it. Calls must ask for i in increasing order.
func (s *schedule) at(i int) (time.Duration, bool) {
	m := float64(i)
	for s.k < len(s.stages) {
		st := s.stages[s.k]
		secs := st.Duration.Seconds()
		count := (s.from + st.Target) / 2 * secs // arrivals due in this stage
		if m-s.base <= count {
			u := solveRamp(s.from, (st.Target-s.from)/secs, m-s.base)
			if off := s.start + time.Duration(u*float64(time.Second)); u <= secs && off < s.start+st.Duration {
				return off, true
			}
			if s.k == len(s.stages)-1 {
				return 0, false // the last arrival falls on the end: the run is over
			}
		}
		s.base += count
		s.start += st.Duration
		s.from = st.Target
		s.k++
	}
	return 0, false
}

// solveRamp returns u >= 0 with r0*u + a*u*u/2 = m: when, into a stage
// whose rate starts at r0 and grows by a per second, m arrivals are due.
// The form 2m/(r0+√(r0²+2am)) stays exact when a is tiny or 0.
func solveRamp(r0, a, m float64) float64 {
	if m <= 0 {
		return 0
	}
	den := r0 + math.Sqrt(math.Max(r0*r0+2*a*m, 0))
	if den <= 0 {
		return math.Inf(1)
	}
	return 2 * m / den
}
