package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestThresholdsPassAndFail: a person writes two thresholds under Load
// test, runs 40 echo calls, and sees under the verdict which held and
// which did not, with the figure found; fixing the failing one turns the
// line from red to green; a threshold on a figure that does not exist is
// refused under the field and the checks shown stay.
func TestThresholdsPassAndFail(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "echo", Args: []byte(`{"text":"x"}`), Calls: 40, Concurrency: 4})

	m.workload.thresholds.SetText("tool_calls.failed==0\ncall_ms.p50<0.000001")
	if m.timeline.stats.checks.Visible() {
		t.Errorf("the thresholds line shows before anything ran: %q", m.timeline.stats.checks.Text)
	}
	m.run()
	loop.waitFor(t, "the run to end", 15*time.Second, func() bool {
		return !m.workload.Running() && len(m.workload.History()) == 1 && !m.timeline.stats.Provisional()
	})
	loop.waitFor(t, "the thresholds line", 5*time.Second, func() bool { return m.timeline.stats.checks.Visible() })
	line := m.timeline.stats.checks.Text
	for _, want := range []string{"Thresholds: 1 of 2 pass", "✗ call_ms.p50<0.000001 (", "✓ tool_calls.failed==0 (0)"} {
		if !strings.Contains(line, want) {
			t.Errorf("thresholds line %q, want it to say %q", line, want)
		}
	}
	if strings.Index(line, "✗") > strings.Index(line, "✓") {
		t.Errorf("thresholds line %q: the failed one should come first", line)
	}
	if got := m.timeline.stats.checks.Importance; got != widget.DangerImportance {
		t.Errorf("a failed threshold shows with importance %v, want danger (red)", got)
	}
	if !strings.Contains(m.timeline.statsText(), "Thresholds: 1 of 2 pass") {
		t.Errorf("the stats text (what --stats-report prints) leaves the thresholds out: %q", m.timeline.statsText())
	}

	m.workload.thresholds.SetText("tool_calls.failed==0\ncall_ms.p50<60000")
	loop.waitFor(t, "the line to follow the new thresholds", 5*time.Second, func() bool {
		return strings.Contains(m.timeline.stats.checks.Text, "2 of 2 pass")
	})
	if got := m.timeline.stats.checks.Importance; got != widget.SuccessImportance {
		t.Errorf("thresholds that all pass show with importance %v, want success (green)", got)
	}

	m.workload.thresholds.SetText("p95<=200")
	if p := m.workload.thresholdsProblem; !p.Visible() || !strings.Contains(p.Text, `no figure "p95"`) || strings.Contains(p.Text, "the keys are") {
		t.Errorf("an unknown figure: shown %v, %q; want a short error naming it", p.Visible(), p.Text)
	}
	loop.settle(50 * time.Millisecond)
	if !strings.Contains(m.timeline.stats.checks.Text, "2 of 2 pass") {
		t.Errorf("a threshold that does not parse changed the checks shown: %q", m.timeline.stats.checks.Text)
	}
	m.workload.thresholds.SetText("call_ms.p95<=60000")
	if m.workload.thresholdsProblem.Visible() {
		t.Errorf("the problem stays shown once the thresholds parse: %q", m.workload.thresholdsProblem.Text)
	}
}

// TestThresholdsPreset: thresholds given at start (inspector gui
// --assert) fill the field and open the Load test section.
func TestThresholdsPreset(t *testing.T) {
	checks, err := recorder.ParseAssertions([]string{"call_ms.p95<=200", "dropped==0"})
	if err != nil {
		t.Fatal(err)
	}
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{Thresholds: checks})
	if got := m.workload.thresholds.Text; got != "call_ms.p95<=200\ndropped==0" {
		t.Errorf("Thresholds field %q, want the two preset a line each", got)
	}
	if !m.workload.loadTest.Items[0].Open {
		t.Error("the Load test section stays folded with thresholds preset in it")
	}
	if len(m.timeline.stats.thresholds) != 2 {
		t.Errorf("the stats bar checks %d thresholds, want 2", len(m.timeline.stats.thresholds))
	}
}

// TestThresholdNumber: figures read as in the JSON.
func TestThresholdNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 12: "12", 23.343: "23.34", 0.5: "0.5", 1011.84: "1011.84"} {
		if got := thresholdNumber(v); got != want {
			t.Errorf("thresholdNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestWorkloadPanelKeepsToItsColumn: with the demo fan-out's form, the
// Load test section open, a threshold that does not parse and the
// result of a run, the Workload panel still fits the column it has at 1024×700
// (about 460 units): a form hint does not wrap, and a long one widened
// it and cut its right side off (Raw JSON, Run again).
func TestWorkloadPanelKeepsToItsColumn(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: []byte(`{"n":3,"rounds":3,"kind":"sampling"}`)})
	m.run()
	loop.waitFor(t, "the run to end", 15*time.Second, func() bool { return !m.workload.Running() && len(m.workload.History()) == 1 })
	m.workload.loadTest.Open(0)
	m.workload.thresholds.SetText("by_method_ms.sampling/createMessage.serve_ms.p97<=200")
	if w := m.workload.below.MinSize().Width; w > 440 {
		t.Errorf("the Workload panel wants %v units of width, more than its column at 1024×700", w)
	}
}
