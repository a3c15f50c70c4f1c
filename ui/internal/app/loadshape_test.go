package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestWorkloadRateAndDuration: a person types a rate and a duration in
// the Workload panel and gets an open-loop run of rate × duration calls,
// listed in the history as such; a rate without a duration says what is
// missing.
func TestWorkloadRateAndDuration(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.window.Resize(fyne.NewSize(1024, 700))
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "echo", Args: []byte(`{"text":"x"}`)})

	typeInto(m.workload.rate, "50")
	if _, err := m.workload.workload(); err == nil || !strings.Contains(err.Error(), "Rate: an open loop needs Duration too") {
		t.Errorf("a rate without a duration: %v, want it to ask for a duration", err)
	}
	typeInto(m.workload.duration, "1s")
	w, err := m.workload.workload()
	if err != nil || w.Rate != 50 || w.Duration != time.Second || w.Calls != 0 {
		t.Fatalf("Workload() = %+v, %v; want 50 calls/s for 1s", w, err)
	}
	m.run()
	loop.waitFor(t, "the open-loop run to end", 15*time.Second, func() bool {
		return !m.workload.Running() && len(m.workload.History()) == 1
	})
	h := m.workload.History()[0]
	if h.run.ok != 50 {
		t.Errorf("the run made %d calls, want 50 (50/s for 1 s)", h.run.ok)
	}
	if sum := recorder.Summarize(h.run.segment); sum.ToolCalls.Total != 50 {
		t.Errorf("the run's segment has %d tool calls, want 50", sum.ToolCalls.Total)
	}
	if row := h.text.Text; !strings.Contains(row, "at 50/s for 1s") {
		t.Errorf("the history row says %q, want it to say the rate and duration", row)
	}
}

// TestWorkloadOverSessions: a person asks for 30 calls over 3 sessions
// and gets them spread over three connections to the server, all in the
// one recording, named in the history; the extra connections close when
// the run ends and the app is left with the one it had.
func TestWorkloadOverSessions(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	first := m.bridge.session()
	m.workload.setWorkload(load.Workload{Tool: "echo", Args: []byte(`{"text":"x"}`), Calls: 30, Concurrency: 3})

	typeInto(m.workload.sessions, "0")
	if _, err := m.workload.workload(); err == nil || !strings.Contains(err.Error(), "sessions") {
		t.Errorf("0 sessions: %v, want an error about sessions", err)
	}
	typeInto(m.workload.sessions, "3")
	m.run()
	loop.waitFor(t, "the run over 3 sessions to end", 20*time.Second, func() bool {
		return !m.workload.Running() && len(m.workload.History()) == 1
	})
	h := m.workload.History()[0]
	if h.run.ok != 30 {
		t.Fatalf("the run made %d calls ok, want 30", h.run.ok)
	}
	if sum := recorder.Summarize(h.run.segment); sum.Sessions != 3 {
		t.Errorf("the run's calls went over %d sessions, want 3", sum.Sessions)
	}
	if row := h.text.Text; !strings.Contains(row, "over 3 sessions") {
		t.Errorf("the history row says %q, want it to name the 3 sessions", row)
	}
	if m.bridge.session() != first {
		t.Error("the app's own connection changed with the run")
	}
	select {
	case <-first.Done():
		t.Error("the app's own connection closed with the run's extra sessions")
	default:
	}
	m.bridge.mu.Lock()
	extra := len(m.bridge.extra)
	m.bridge.mu.Unlock()
	if extra != 0 {
		t.Errorf("%d extra sessions still held after the run", extra)
	}
}

// TestWorkloadStages: stages typed in the panel ramp the rate (or the
// callers), and the fields that do not go with them say so.
func TestWorkloadStages(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "echo", Args: []byte(`{"text":"x"}`)})

	// What does not go with stages is greyed out, and not read.
	typeInto(m.workload.rate, "10")
	typeInto(m.workload.duration, "5s")
	if m.workload.calls.Disabled() == false || m.workload.concurrency.Disabled() == false || m.workload.maxInFlight.Disabled() {
		t.Errorf("with a rate: Calls greyed %v, At once greyed %v, Max in flight greyed %v; want Calls and At once greyed, Max in flight not",
			m.workload.calls.Disabled(), m.workload.concurrency.Disabled(), m.workload.maxInFlight.Disabled())
	}
	typeInto(m.workload.stages, "1s:40")
	if !m.workload.rate.Disabled() || !m.workload.duration.Disabled() {
		t.Errorf("with stages: Rate greyed %v, Duration greyed %v; want both greyed (the stages give them)", m.workload.rate.Disabled(), m.workload.duration.Disabled())
	}
	if w, err := m.workload.workload(); err != nil || w.Rate != 0 || w.Duration != 0 || len(w.Stages) != 1 {
		t.Errorf("stages with a greyed rate and duration: %+v, %v; want the stages alone", w, err)
	}
	typeInto(m.workload.maxInFlight, "5")
	w, err := m.workload.workload()
	if err != nil || len(w.Stages) != 1 || w.Ramp != load.RampRate || w.MaxInFlight != 5 || w.Concurrency != 0 {
		t.Fatalf("Workload() = %+v, %v; want one rate stage to 40/s, at most 5 in flight", w, err)
	}
	m.workload.stagesRamp.SetSelected(rampCallersText)
	if w, err := m.workload.workload(); !m.workload.maxInFlight.Disabled() || m.workload.concurrency.Disabled() || err != nil || w.MaxInFlight != 0 {
		t.Errorf("stages of callers: Max in flight greyed %v, At once greyed %v, workload %+v, %v; want Max in flight greyed and left out, At once open",
			m.workload.maxInFlight.Disabled(), m.workload.concurrency.Disabled(), w, err)
	}
	m.workload.stagesRamp.SetSelected(rampRateText)
	typeInto(m.workload.maxInFlight, "")
	m.run()
	loop.waitFor(t, "the ramp to end", 15*time.Second, func() bool {
		return !m.workload.Running() && len(m.workload.History()) == 1
	})
	h := m.workload.History()[0]
	// A ramp from 0 to 40 calls/s over 1 s starts about 20 calls.
	if h.run.ok < 15 || h.run.ok > 25 {
		t.Errorf("the ramp made %d calls, want about 20 (0 to 40/s over 1 s)", h.run.ok)
	}
	if row := h.text.Text; !strings.Contains(row, "ramping calls/s 1s:40") {
		t.Errorf("the history row says %q, want it to name the ramp", row)
	}
	m.workload.setWorkload(h.run.workload)
	if got := m.workload.stages.Text; got != "1s:40" {
		t.Errorf("the stages field shows %q after presetting the run, want 1s:40", got)
	}
}
