package app

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// The shapes of load beyond calls × concurrency that the Workload panel
// offers, as `inspector run` does: several sessions, stages that ramp the
// rate or the callers, and a bound on what an open loop has outstanding.
type loadShapeInputs struct {
	// sessions spreads the run's calls over that many connections to the
	// server (the current one and more opened for the run).
	sessions *widget.Entry
	// stages ramps linearly through DURATION:TARGET,... stages; stagesRamp
	// says what they ramp: the rate (an open loop) or the callers.
	stages     *widget.Entry
	stagesRamp *widget.Select
	// maxInFlight bounds an open loop's outstanding calls; arrivals over
	// it are dropped and counted.
	maxInFlight *widget.Entry
	// thresholds are checks on the run's figures, one per line, shown
	// pass or fail under the verdict (see thresholds.go); onThresholds
	// is handed them each time they change and parse.
	thresholds        *widget.Entry
	thresholdsProblem *widget.Label // why the text does not parse
	onThresholds      func([]recorder.Assertion)
}

// The two choices of stagesRamp.
const (
	rampRateText    = "calls/s"
	rampCallersText = "callers"
)

func newLoadShapeInputs() loadShapeInputs {
	in := loadShapeInputs{
		sessions:    newEntry("1", nil),
		stages:      newEntry("e.g. 10s:50,30s:200", nil),
		stagesRamp:  widget.NewSelect([]string{rampRateText, rampCallersText}, nil),
		maxInFlight: newEntry("no bound", nil),
	}
	in.sessions.SetText("1")
	in.stagesRamp.SetSelected(rampRateText)
	return in
}

// sessionCount reads the Sessions field: how many sessions the next run
// spreads its calls over.
func (p *workloadPanel) sessionCount() (int, error) {
	text := strings.TrimSpace(p.sessions.Text)
	if text == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 1 || n > MaxSessions {
		return 0, fmt.Errorf("sessions: want a whole number from 1 to %d, not %q", MaxSessions, text)
	}
	return n, nil
}

// setSessions presets the Sessions field.
func (p *workloadPanel) setSessions(n int) {
	p.sessions.SetText(strconv.Itoa(max(n, 1)))
	if n > 1 {
		p.loadTest.Open(0) // a load over several sessions: show it
	}
}

// applyShape reads the stages and the bound on outstanding calls into w,
// which already holds calls, concurrency, duration and rate. Which fields
// go together is [load.Workload.Validate]'s to say.
func (p *workloadPanel) applyShape(w *load.Workload) error {
	if text := strings.TrimSpace(p.maxInFlight.Text); !p.maxInFlight.Disabled() && text != "" && !strings.EqualFold(text, "none") {
		k, err := strconv.Atoi(text)
		if err != nil {
			return fmt.Errorf("max in flight: want a whole number of calls (0 = no bound), not %q", text)
		}
		w.MaxInFlight = k
	}
	if !p.hasStages() {
		return nil
	}
	stages, err := load.ParseStages(strings.TrimSpace(p.stages.Text))
	if err != nil {
		return fmt.Errorf("stages: %v", err)
	}
	w.Stages, w.Calls = stages, 0 // the stages give the run's length
	if p.stagesRamp.Selected == rampCallersText {
		w.Ramp = load.RampConcurrency // from At once
		return nil
	}
	w.Ramp, w.Concurrency = load.RampRate, 0
	return nil
}

// hasStages reports whether the Stages field holds something to read.
func (p *workloadPanel) hasStages() bool {
	spec := strings.TrimSpace(p.stages.Text)
	return spec != "" && !strings.EqualFold(spec, "none")
}

// showShape presets the stages and the bound from w.
func (p *workloadPanel) showShape(w load.Workload) {
	p.maxInFlight.SetText("")
	if w.MaxInFlight > 0 {
		p.maxInFlight.SetText(strconv.Itoa(w.MaxInFlight))
	}
	p.stages.SetText(stagesText(w.Stages))
	if w.Ramp == load.RampConcurrency {
		p.stagesRamp.SetSelected(rampCallersText)
	} else {
		p.stagesRamp.SetSelected(rampRateText)
	}
}

// stagesText writes stages as ParseStages reads them.
func stagesText(stages []load.Stage) string {
	parts := make([]string, len(stages))
	for i, st := range stages {
		parts[i] = st.Duration.String() + ":" + strconv.FormatFloat(st.Target, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}

// showApplies greys out the load fields that the others make moot, as
// [workloadPanel.workload] then ignores them: Calls under a duration, a
// rate or stages; At once under a rate or rate stages (an open loop is
// bounded by Max in flight instead, which applies only there); Duration
// and Rate under stages.
func (p *workloadPanel) showApplies() {
	set := func(e *widget.Entry, applies bool) {
		if applies == e.Disabled() {
			if applies {
				e.Enable()
			} else {
				e.Disable()
			}
		}
	}
	filled := func(e *widget.Entry) bool {
		t := strings.TrimSpace(e.Text)
		return t != "" && !strings.EqualFold(t, "none")
	}
	stages := p.hasStages()
	rate, duration := !stages && filled(p.rate), !stages && filled(p.duration) // the stages give both
	openLoop := rate || stages && p.stagesRamp.Selected != rampCallersText
	set(p.calls, !stages && !rate && !duration)
	set(p.concurrency, !openLoop)
	set(p.duration, !stages)
	set(p.rate, !stages)
	set(p.maxInFlight, openLoop)
}

// usesLoad reports whether w asks for more than one call at a time
// (calls, callers, a duration, a rate, stages or a bound): the load
// test's fields are then shown unfolded.
func usesLoad(w load.Workload) bool {
	return w.Calls > 1 || w.Concurrency > 1 || w.Duration > 0 || w.Rate > 0 || len(w.Stages) > 0 || w.MaxInFlight > 0 || w.CallTimeout > 0
}
