package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestRunShowsResultAndHistory runs on the in-process demo server and
// checks what a person sees in the Workload panel after each run: the
// last call's result (or error) without looking for its bar, Copy
// putting it on the clipboard, and a history row per run whose Run
// again repeats the run with its settings and whose Compare shows it.
func TestRunShowsResultAndHistory(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.window.Resize(fyne.NewSize(1024, 600)) // too short for the whole panel
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	if !m.workload.copyResult.Disabled() {
		t.Errorf("Copy is enabled before anything ran")
	}

	runOnce := func(what string) {
		t.Helper()
		loop.waitFor(t, "no run going on", 10*time.Second, func() bool { return !m.workload.Running() })
		n := len(m.workload.History())
		m.run()
		if !m.workload.Running() {
			t.Fatalf("%s did not start: %s", what, m.workload.problem.Text)
		}
		loop.waitFor(t, what+" to end", 15*time.Second, func() bool {
			return !m.workload.Running() && len(m.workload.History()) == n+1
		})
	}

	// 1. echo: its result shows, pretty-printed, and Copy copies it.
	m.workload.setWorkload(load.Workload{Tool: "echo", Args: []byte(`{"text":"hello from the test"}`)})
	m.policy.dispatch.SetSelected("serial")
	runOnce("the echo run")
	res := m.workload.resultText()
	if !strings.Contains(res, "hello from the test") || !strings.HasPrefix(res, "hello from the test\n") || !strings.Contains(res, "structuredContent:\n{\n  \"text\"") {
		t.Errorf("after the echo run the result area shows %q, want its text, then its structured content indented", res)
	}
	if strings.Contains(res, `\"`) {
		t.Errorf("the result shows escaped JSON: %q", res)
	}
	if sc := m.workload.scroller; sc.Size().Height > 0 {
		top := m.workload.results.Position().Y
		if top < sc.Offset.Y || top+40 > sc.Offset.Y+sc.Size().Height {
			t.Errorf("the result (at y=%v) is out of view (showing %v to %v): a person must scroll to find it",
				top, sc.Offset.Y, sc.Offset.Y+sc.Size().Height)
		}
	} else {
		t.Errorf("the Workload panel's results have no room on the window")
	}
	test.Tap(m.workload.copyResult)
	if got := loop.Clipboard().Content(); got != res {
		t.Errorf("Copy put %q on the clipboard, want the result %q", got, res)
	}

	// 2. fanout with arguments its schema refuses: the error shows.
	m.workload.tool.SetSelected("fanout")
	m.workload.rawJSON.SetChecked(true) // the form would refuse them
	typeInto(m.workload.raw, `{"n":"many"}`)
	runOnce("the bad fanout run")
	if got := m.workload.resultText(); !strings.Contains(got, "The call failed") || !strings.Contains(got, `want "integer"`) || m.workload.result.Importance != widget.DangerImportance {
		t.Errorf("after a call with bad arguments the result area shows %q (importance %v), want the error", got, m.workload.result.Importance)
	}
	if !strings.HasPrefix(m.workload.resultWhat.Text, "Error of the last call") {
		t.Errorf("the result's heading says %q, want it to say it is an error", m.workload.resultWhat.Text)
	}

	h := m.workload.History()
	if len(h) != 2 {
		t.Fatalf("after two runs the history has %d rows, want 2", len(h))
	}
	if !strings.Contains(h[0].text.Text, "fanout") || !strings.Contains(h[1].text.Text, "echo") {
		t.Errorf("history not newest first: %q, %q", h[0].text.Text, h[1].text.Text)
	}
	for _, r := range h {
		if !strings.Contains(r.text.Text, "serial") || !strings.Contains(r.text.Text, r.run.verdict) || r.run.verdict == "" {
			t.Errorf("history row %q lacks the dispatch or the verdict %q", r.text.Text, r.run.verdict)
		}
	}
	if !strings.Contains(h[0].text.Text, "1 failed") || !strings.Contains(h[1].text.Text, "1 ok") {
		t.Errorf("history rows do not say how the calls went: %q, %q", h[0].text.Text, h[1].text.Text)
	}

	// 3. Run again on the echo row, after changing the form and the
	// dispatch: it runs echo again, serial, with its arguments.
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: []byte(`{"n":2}`)})
	m.policy.dispatch.SetSelected("concurrent")
	test.Tap(h[1].runAgain)
	if !m.workload.Running() {
		t.Fatalf("Run again did not start a run: %s", m.workload.problem.Text)
	}
	loop.waitFor(t, "the run again to end", 15*time.Second, func() bool {
		return !m.workload.Running() && len(m.workload.History()) == 3
	})
	again := m.workload.History()[0]
	if again.run.workload.Tool != "echo" || string(again.run.workload.Args) != `{"text":"hello from the test"}` ||
		again.run.policy.Dispatch.Mode != engine.Serial {
		t.Errorf("Run again ran %s %s under %v, want echo with its arguments, serial",
			again.run.workload.Tool, again.run.workload.Args, again.run.policy.Dispatch)
	}
	if m.bridge.Policy().Dispatch.Mode != engine.Serial || m.workload.dispatch.Selected != "serial" {
		t.Errorf("after Run again the session answers %v and the toggle says %q, want serial", m.bridge.Policy().Dispatch, m.workload.dispatch.Selected)
	}
	if !strings.Contains(m.workload.resultText(), "hello from the test") {
		t.Errorf("after Run again the result area shows %q", m.workload.resultText())
	}

	// 4. Compare shows that run's own spans beside the live recording.
	test.Tap(m.workload.History()[2].compare)
	cmp := m.compare
	if cmp == nil {
		t.Fatal("Compare showed nothing")
	}
	var calls []*recorder.Span
	for _, s := range cmp.Spans {
		if s.Kind == recorder.KindTool {
			calls = append(calls, s)
		}
	}
	if len(calls) != 1 || calls[0].Name != "echo" || calls[0].Received < 0 || calls[0].Received > time.Second {
		t.Errorf("the compared run holds %d tool calls (%v), want its one echo call starting near 0", len(calls), calls)
	}
}
