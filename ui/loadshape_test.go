package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestWorkloadRateAndDuration: a person types a rate and a duration in
// the Workload panel and gets an open-loop run of rate × duration calls,
// listed in the history as such; a rate without a duration says what is
// missing.
func TestWorkloadRateAndDuration(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.Window.Resize(fyne.NewSize(1024, 700))
	m.Connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.Workload.Tool.Options) > 0 })
	m.Workload.SetWorkload(engine.Workload{Tool: "echo", Args: []byte(`{"text":"x"}`)})

	typeInto(m.Workload.Rate, "50")
	if _, err := m.Workload.Workload(); err == nil || !strings.Contains(err.Error(), "give a duration too") {
		t.Errorf("a rate without a duration: %v, want it to ask for a duration", err)
	}
	typeInto(m.Workload.Duration, "1s")
	w, err := m.Workload.Workload()
	if err != nil || w.Rate != 50 || w.Duration != time.Second || w.Calls != 0 {
		t.Fatalf("Workload() = %+v, %v; want 50 calls/s for 1s", w, err)
	}
	m.Run()
	loop.waitFor(t, "the open-loop run to end", 15*time.Second, func() bool {
		return !m.Workload.Running() && len(m.Workload.History()) == 1
	})
	h := m.Workload.History()[0]
	if h.Run.OK != 50 {
		t.Errorf("the run made %d calls, want 50 (50/s for 1 s)", h.Run.OK)
	}
	if sum := recorder.Summarize(h.Run.Segment); sum.ToolCalls.Total != 50 {
		t.Errorf("the run's segment has %d tool calls, want 50", sum.ToolCalls.Total)
	}
	if row := h.Text.Text; !strings.Contains(row, "at 50/s for 1s") {
		t.Errorf("the history row says %q, want it to say the rate and duration", row)
	}
}
