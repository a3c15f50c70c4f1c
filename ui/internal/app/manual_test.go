package app

import (
	"encoding/json"
	"slices"
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

// TestManualAnswers answers the demo server's requests by hand through
// the Manual panel: an elicitation with the generated form (refused while
// a required field is empty), one declined, and a sampling request with
// an edited reply. The time spent waiting shows as the requests' serving
// time.
func TestManualAnswers(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })

	m.policy.elicitation.SetSelected("manual")
	test.Tap(m.policy.samplingManual)
	if got := m.bridge.session().AnswerPolicy(); got.Elicitation != engine.ElicitManual || !got.SamplingManual {
		t.Fatalf("session answer policy after choosing manual: %+v", got)
	}

	run := func(kind string, n int) {
		t.Helper()
		m.workload.setWorkload(load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":` + string(rune('0'+n)) + `,"kind":"` + kind + `"}`)})
		m.run()
		loop.waitFor(t, "requests waiting in the Manual panel", 10*time.Second, func() bool { return len(m.manual.Pending()) == n })
		if m.tabs.Selected().Text != "Manual ("+string(rune('0'+n))+")" {
			t.Errorf("selected tab %q, want the Manual tab with its count", m.tabs.Selected().Text)
		}
	}

	t.Run("elicitation", func(t *testing.T) {
		run("elicitation", 2)
		time.Sleep(200 * time.Millisecond) // the person reads the form
		form := m.manual.form
		if form == nil {
			t.Fatal("no form for the selected elicitation")
		}
		if err := m.manual.answerSelected(); err == nil || !strings.Contains(err.Error(), "Required") {
			t.Errorf("answering with required fields empty: %v, want a 'Required' refusal", err)
		}
		typeInto(form.Field("name").Entry, "Ada")
		form.Field("color").Select.SetSelected("green")
		if err := m.manual.answerSelected(); err != nil {
			t.Fatalf("answering the filled form: %v", err)
		}
		loop.waitFor(t, "the second request to be selected", 5*time.Second, func() bool {
			return len(m.manual.Pending()) == 1 && m.manual.Selected() != nil
		})
		m.manual.declineSelected()
		loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })

		var actions []string
		for _, s := range m.bridge.session().Recording().Snapshot().Spans {
			if s.Kind != recorder.KindElicitation {
				continue
			}
			if s.ServeTime() < 150*time.Millisecond {
				t.Errorf("span %d served in %v: the person's time should count as serving", s.ID, s.ServeTime())
			}
			var res struct {
				Action  string         `json:"action"`
				Content map[string]any `json:"content"`
			}
			json.Unmarshal(s.Result, &res)
			actions = append(actions, res.Action)
			if res.Action == "accept" && (res.Content["name"] != "Ada" || res.Content["color"] != "green" || res.Content["count"] != 3.0) {
				t.Errorf("accepted content %v, want name Ada, color green and the default count 3", res.Content)
			}
		}
		slices.Sort(actions)
		if strings.Join(actions, " ") != "accept decline" {
			t.Errorf("elicitation answers %q, want one accept and one decline", actions)
		}
	})

	t.Run("sampling", func(t *testing.T) {
		run("sampling", 1)
		typeInto(m.manual.replyText, "typed by hand")
		if err := m.manual.answerSelected(); err != nil {
			t.Fatal(err)
		}
		loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })
		found := false
		for _, s := range m.bridge.session().Recording().Snapshot().Spans {
			if s.Kind == recorder.KindSampling && strings.Contains(string(s.Result), "typed by hand") {
				found = true
			}
		}
		if !found {
			t.Errorf("no sampling answer carries the typed reply")
		}
		if m.tabs.Items[3].Text != "Manual" {
			t.Errorf("manual tab %q after answering everything", m.tabs.Items[3].Text)
		}
	})
	t.Run("sampling declined and cancelled", func(t *testing.T) {
		run("sampling", 2)
		// A person turns both down with the buttons under the reply.
		for _, label := range []string{"Decline", "Cancel"} {
			loop.waitFor(t, "a sampling request to be selected", 5*time.Second, func() bool { return m.manual.Selected() != nil })
			b := findButton(m.manual.detail, label)
			if b == nil {
				t.Fatalf("no %q button for the selected sampling request", label)
			}
			test.Tap(b)
		}
		loop.waitFor(t, "the run to end", 10*time.Second, func() bool { return !m.workload.Running() })
		if n := len(m.manual.Pending()); n != 0 {
			t.Errorf("%d requests still waiting after declining and cancelling", n)
		}
		var got []string
		for _, s := range m.bridge.session().Recording().Snapshot().Spans {
			if s.Kind == recorder.KindSampling && s.Status != recorder.StatusOK {
				got = append(got, s.Status.String()+": "+s.Error)
			}
		}
		slices.Sort(got)
		want := []string{"error: " + engine.SamplingCancelled, "error: " + engine.SamplingRejected}
		if !slices.Equal(got, want) {
			t.Errorf("refused sampling spans %q, want %q", got, want)
		}
	})
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Errorf("errors shown: %q", errs)
	}
}

// findButton returns the button labelled text inside o, or nil.
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	switch v := o.(type) {
	case *widget.Button:
		if v.Text == text {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
	}
	return nil
}
