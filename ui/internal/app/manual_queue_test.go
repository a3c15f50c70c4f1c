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

// queueOf16 connects a window to the demo server with kind answered by
// hand and runs one fanout call of 16 such requests, returning once all
// 16 wait in the Manual panel.
func queueOf16(t *testing.T, kind string) (*mainLoop, *MainWindow) {
	t.Helper()
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	if kind == "elicitation" {
		m.policy.elicitation.SetSelected("manual")
	} else {
		test.Tap(m.policy.samplingManual)
	}
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":16,"kind":"` + kind + `"}`)})
	test.Tap(m.workload.runButton)
	loop.waitFor(t, "16 requests waiting in the Manual panel", 15*time.Second, func() bool { return len(m.manual.Pending()) == 16 })
	if got := m.tabs.Selected().Text; got != "Manual (16)" {
		t.Errorf("selected tab %q, want %q", got, "Manual (16)")
	}
	if m.manual.acceptAll.Disabled() {
		t.Errorf("Accept all is disabled with 16 requests waiting")
	}
	return loop, m
}

// spansOf returns the status and error (or answer) of the spans of kind.
func spansOf(m *MainWindow, kind recorder.Kind) []recorder.Span {
	var out []recorder.Span
	for _, s := range m.bridge.session().Recording().Snapshot().Spans {
		if s.Kind == kind {
			out = append(out, *s)
		}
	}
	return out
}

// TestManualQueueAcceptAll answers a queue of 16 elicitations with one
// click: every one is accepted with content built from its schema and the
// call completes.
func TestManualQueueAcceptAll(t *testing.T) {
	loop, m := queueOf16(t, "elicitation")
	test.Tap(m.manual.acceptAll)
	if n := len(m.manual.Pending()); n != 0 {
		t.Errorf("%d requests still listed right after Accept all", n)
	}
	loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })
	if !strings.HasPrefix(m.workload.Status(), "Done: 1 of 1 calls ok") {
		t.Errorf("status %q, want the call done ok", m.workload.Status())
	}
	spans := spansOf(m, recorder.KindElicitation)
	if len(spans) != 16 {
		t.Fatalf("%d elicitation spans, want 16", len(spans))
	}
	for _, s := range spans {
		if s.Status != recorder.StatusOK || !strings.Contains(string(s.Result), `"action":"accept"`) {
			t.Errorf("span %d: %s %s %s, want accepted", s.ID, s.Status, s.Error, s.Result)
		}
	}
	if m.tabs.Items[3].Text != "Manual" || !m.manual.acceptAll.Disabled() {
		t.Errorf("after Accept all: tab %q, Accept all disabled %v; want %q and disabled", m.tabs.Items[3].Text, m.manual.acceptAll.Disabled(), "Manual")
	}
}

// TestManualQueueDeclineAllSampling turns down 16 sampling requests with
// one click.
func TestManualQueueDeclineAllSampling(t *testing.T) {
	loop, m := queueOf16(t, "sampling")
	test.Tap(m.manual.declineAll)
	loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })
	for _, s := range spansOf(m, recorder.KindSampling) {
		if s.Status != recorder.StatusError || s.Error != engine.SamplingRejected {
			t.Errorf("span %d: %s %q, want error %q", s.ID, s.Status, s.Error, engine.SamplingRejected)
		}
	}
}

// TestManualQueueStop stops the run while 16 requests wait for a person:
// they leave the queue at once and their spans end cancelled, saying why.
func TestManualQueueStop(t *testing.T) {
	loop, m := queueOf16(t, "elicitation")
	test.Tap(m.workload.stopButton)
	if n := len(m.manual.Pending()); n != 0 {
		t.Errorf("%d requests still waiting for a person after Stop", n)
	}
	loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })
	loop.waitFor(t, "the 16 spans to end", 10*time.Second, func() bool {
		for _, s := range spansOf(m, recorder.KindElicitation) {
			if s.Open() {
				return false
			}
		}
		return true
	})
	spans := spansOf(m, recorder.KindElicitation)
	if len(spans) != 16 {
		t.Fatalf("%d elicitation spans, want 16", len(spans))
	}
	for _, s := range spans {
		if s.Status != recorder.StatusCancelled || !strings.Contains(s.Error, "run was stopped") {
			t.Errorf("span %d: %s %q, want cancelled because the run was stopped", s.ID, s.Status, s.Error)
		}
	}
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Errorf("errors shown: %q", errs)
	}
}

// TestManualQueuePolicyChange switches the policy back from manual while
// 16 requests wait: they are answered at once as the new policy answers.
func TestManualQueuePolicyChange(t *testing.T) {
	t.Run("elicitation accept", func(t *testing.T) {
		loop, m := queueOf16(t, "elicitation")
		m.policy.elicitation.SetSelected("accept")
		loop.waitFor(t, "the queue to empty", 30*time.Second, func() bool { return len(m.manual.Pending()) == 0 })
		loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })
		for _, s := range spansOf(m, recorder.KindElicitation) {
			if s.Status != recorder.StatusOK || !strings.Contains(string(s.Result), `"action":"accept"`) {
				t.Errorf("span %d: %s %s %s, want accepted by the new policy", s.ID, s.Status, s.Error, s.Result)
			}
		}
	})
	t.Run("sampling automatic", func(t *testing.T) {
		loop, m := queueOf16(t, "sampling")
		test.Tap(m.policy.samplingManual) // untick: answer sampling automatically
		loop.waitFor(t, "the queue to empty", 30*time.Second, func() bool { return len(m.manual.Pending()) == 0 })
		loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })
		for _, s := range spansOf(m, recorder.KindSampling) {
			if s.Status != recorder.StatusOK || !strings.Contains(string(s.Result), "reply ") {
				t.Errorf("span %d: %s %s %s, want the reply template's answer", s.ID, s.Status, s.Error, s.Result)
			}
		}
	})
}

// TestManualFormInlineValidation answers an elicitation whose form is not
// filled in: nothing is sent and no dialog opens; the message shows under
// the field, the field takes the focus, and Enter in it sends the answer
// once it is valid. The request's timeout counts down above the form, and
// the form does not widen the left column.
func TestManualFormInlineValidation(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.window.Resize(fyne.NewSize(1024, 700))
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.policy.elicitation.SetSelected("manual")
	typeInto(m.policy.timeout, "30s")
	// The split gives the left column at least the room its panels ask
	// for: a form that asks for more widens it and squeezes the timeline.
	leftBefore := m.manual.MinSize().Width
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":1,"kind":"elicitation"}`)})
	test.Tap(m.workload.runButton)
	loop.waitFor(t, "the form", 10*time.Second, func() bool { return m.manual.form != nil })
	if got := m.manual.MinSize().Width; got > leftBefore {
		t.Errorf("the Manual panel asks for %v wide instead of %v when the form appears", got, leftBefore)
	}
	if got := m.manual.Clock.Text; !strings.HasPrefix(got, "Times out in 30s") && !strings.HasPrefix(got, "Times out in 29s") {
		t.Errorf("clock %q, want the 30 s request timeout counting down", got)
	}

	form := m.manual.form
	name := form.Field("name")
	form.Field("color").Select.SetSelected("green") // the name is left empty
	test.Tap(findButton(m.manual.detail, "Accept"))
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Errorf("a dialog opened for an invalid form: %q", errs)
	}
	if len(m.manual.Pending()) != 1 {
		t.Fatalf("the invalid answer was sent")
	}
	if !strings.Contains(name.Message(), "Required") {
		t.Errorf("message under the name field %q, want it to say it is required", name.Message())
	}
	if got := m.window.Canvas().Focused(); got != name.Entry {
		t.Errorf("focus on %T, want the name field's entry", got)
	}
	if !m.manual.problem.Visible() || !strings.Contains(m.manual.problem.Text, name.title) {
		t.Errorf("line under the buttons %q (shown %v), want it to name the field", m.manual.problem.Text, m.manual.problem.Visible())
	}

	test.Type(name.Entry, "Ada")
	name.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })
	spans := spansOf(m, recorder.KindElicitation)
	if len(spans) != 1 || !strings.Contains(string(spans[0].Result), `"name":"Ada"`) {
		t.Errorf("elicitation answers %v, want one accepted with name Ada after Enter", spans)
	}
}

func TestWaitText(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	req := &engine.PendingRequest{Since: now.Add(-3 * time.Second)}
	if got := waitText(req, now); got != "Waiting for you for 3s" {
		t.Errorf("no timeout: %q", got)
	}
	req.Deadline = now.Add(20 * time.Second)
	if got := waitText(req, now); !strings.HasPrefix(got, "Times out in 20s") {
		t.Errorf("20 s left: %q", got)
	}
}
