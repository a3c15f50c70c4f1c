package app

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestFirstRunOpensWhereRunIs opens the window as `inspector gui` does
// with no flags: it shows the Workload panel with Run, the latency that
// shows the effect is in the Callbacks panel's field and said next to
// Run, and the dispatch toggle next to Run sets the Callbacks panel.
func TestFirstRunOpensWhereRunIs(t *testing.T) {
	loop := newMainLoop(t)
	policy := engine.DefaultAnswerPolicy()
	policy.Latency = FirstRunLatency
	m := openMainWindow(t, loop, Options{Policy: policy})

	if got := m.tabs.Selected().Text; got != "Workload" {
		t.Errorf("the window opens on the %q tab, want Workload (where Run is)", got)
	}
	if m.tabs.Selected().Content != m.workload {
		t.Errorf("the tab the window opens on does not hold the Workload panel and its Run button")
	}
	if got := m.policy.latency.a.Text; got != "500ms" {
		t.Errorf("latency field %q, want 500ms", got)
	}
	if got := m.workload.answering.Text; !strings.Contains(got, "after 500ms, at once") {
		t.Errorf("line next to Run %q, want it to say 500ms, at once", got)
	}
	if got := m.workload.dispatch.Selected; got != "concurrent" {
		t.Errorf("dispatch toggle %q, want concurrent", got)
	}
	m.workload.dispatch.SetSelected("serial") // one click
	if got := m.policy.dispatch.Selected; got != "serial" {
		t.Errorf("Callbacks dispatch %q after choosing serial next to Run", got)
	}
	if got := m.workload.answering.Text; !strings.Contains(got, "one at a time") {
		t.Errorf("line next to Run %q after choosing serial", got)
	}
	m.policy.dispatch.SetSelected("bounded")
	if got := m.workload.dispatch.Selected; got != "" {
		t.Errorf("dispatch toggle %q while Callbacks says bounded, want neither", got)
	}
	if got := m.workload.answering.Text; !strings.Contains(got, "at most 4 at once") {
		t.Errorf("line next to Run %q with bounded:4", got)
	}
}

// TestSerialConcurrentOneClickApart runs the demo fan-out of 5, once
// concurrent and once serial, switching with the toggle next to Run: the
// serial run takes several times as long.
func TestSerialConcurrentOneClickApart(t *testing.T) {
	loop := newMainLoop(t)
	policy := engine.DefaultAnswerPolicy()
	// The elapsed times are the tool calls' as recorded, which the UI
	// loop's delays on a loaded machine do not reach.
	policy.Latency = engine.LatencyModel{Dist: engine.Fixed, A: 300 * time.Millisecond}
	m := openMainWindow(t, loop, Options{Policy: policy, Workload: load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":5,"kind":"sampling"}`)}})
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })

	elapsed := func(mode string) time.Duration {
		t.Helper()
		m.workload.dispatch.SetSelected(mode)
		start := time.Now()
		test.Tap(m.workload.runButton)
		loop.waitFor(t, "the "+mode+" run to end", 30*time.Second, func() bool { return !m.workload.Running() })
		if !strings.HasPrefix(m.workload.Status(), "Done: 1 of 1 calls ok") {
			t.Fatalf("%s run: %q", mode, m.workload.Status())
		}
		// The call's time as the recording has it: what the person sees
		// on the timeline, without the test loop's own delays.
		calls := spansOf(m, recorder.KindTool)
		if len(calls) == 0 || calls[len(calls)-1].Open() {
			t.Fatalf("%s run: no ended tool call in the recording", mode)
		}
		t.Logf("%s: the run took %v seen through the UI loop", mode, time.Since(start))
		return calls[len(calls)-1].Total()
	}
	conc, serial := elapsed("concurrent"), elapsed("serial")
	t.Logf("fanout n=5 at 300ms: concurrent %v, serial %v", conc, serial)
	if serial < 2*conc || serial < 1350*time.Millisecond {
		t.Errorf("serial %v, concurrent %v: want serial about 5× longer (at least 2×)", serial, conc)
	}
}

// TestRunStaysInView opens the window at 1024×700, as on a small
// screen: Run, Stop and the dispatch toggle are in view without
// scrolling, the load test's fields are folded away, the stats line says
// what to do rather than showing figures of nothing, and after a run
// (whose result scrolls into view below) Run is where it was.
func TestRunStaysInView(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{Workload: load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":3,"kind":"sampling"}`)}})
	m.window.Resize(fyne.NewSize(1024, 700))
	loop.settle(50 * time.Millisecond)
	drv := fyne.CurrentApp().Driver()
	inView := func(what string, o fyne.CanvasObject) fyne.Position {
		t.Helper()
		pos, size := drv.AbsolutePositionForObject(o), o.Size()
		if !o.Visible() || size.Height == 0 || pos.Y < 0 || pos.Y+size.Height > m.window.Canvas().Size().Height {
			t.Errorf("%s is not in view at 1024×700: at y %v, %v tall, the window %v tall", what, pos.Y, size.Height, m.window.Canvas().Size().Height)
		}
		return pos
	}
	before := inView("Run", m.workload.runButton)
	inView("Stop", m.workload.stopButton)
	inView("the dispatch toggle", m.workload.dispatch)
	if m.workload.loadTest.Items[0].Open {
		t.Errorf("the load test's fields are unfolded on a first run")
	}
	if text := m.timeline.statsText(); !strings.Contains(text, "Nothing has run yet") || strings.Contains(text, "peak in flight") {
		t.Errorf("before the first run the stats line says %q, want what to do and no figures", text)
	}

	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	loop.waitFor(t, "the connection's requests on the timeline", 5*time.Second, func() bool {
		snap := m.timeline.snapshot()
		return snap != nil && len(snap.Spans) >= 2 // initialize, tools/list
	})
	if text := m.timeline.statsText(); !strings.Contains(text, "Nothing has run yet") || strings.Contains(text, "fan-out") {
		t.Errorf("connected, before the first run, the stats line says %q, want what to do and no verdict", text)
	}
	test.Tap(m.workload.runButton)
	loop.waitFor(t, "the run to end", 30*time.Second, func() bool { return !m.workload.Running() && len(m.workload.History()) == 1 })
	loop.settle(50 * time.Millisecond)
	if after := inView("Run after the run", m.workload.runButton); after != before {
		t.Errorf("Run moved from %v to %v with the run's result", before, after)
	}
	if strings.Contains(m.timeline.statsText(), "Nothing has run yet") {
		t.Errorf("after a run the stats line still says nothing has run:\n%s", m.timeline.statsText())
	}
}
