package app

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/engine"
)

func TestTimelineRoundDetails(t *testing.T) {
	test.NewTempApp(t)
	tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
	tv.SetSnapshot(roundsSnapshot())
	rowY := func(row int) float32 { return ganttRulerH + ganttLaneH + (float32(row)+0.5)*ganttRowH }
	tests := []struct {
		name string
		row  int
		want []string
	}{
		{"the call", 0, []string{"#1 tools/call fanout", "rounds     3 (2 input_required)",
			"fulfilment 1.30 s in all (the client, between rounds)", "caused     3 (0 failed)"}},
		{"round 1", 1, []string{"kind       round", "request    1", "round      1", "outcome    input_required with 2 requests",
			"fulfilment 1.05 s after it: the client fulfilling its input (round 1 answered → round 2 sent)", "caused     2 (0 failed)"}},
		{"round 3", 6, []string{"round      3", "outcome    the result",
			"fulfilment 250 ms before it: the client fulfilling round 2's input (round 2 answered → round 3 sent)"}},
		{"an input request", 5, []string{"#6 elicitation/create", "parent     #5 tools/call fanout", "round      2", "input key  r2-0"}},
		{"a stalled request", 9, []string{"stalled    450 ms (read, not yet seen by the client)", "hand-off   0 µs"}},
		{"a stalled response", 10, []string{"stalled    300 ms (response read, not yet seen by the client)"}},
		{"a call whose progress was stalled", 7, []string{"Notifications\n2.000 s  notifications/progress (stalled 250 ms)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			test.TapAt(tv.Gantt(), fyne.NewPos(300, rowY(tt.row)))
			text := tv.Details().Text()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("details do not show %q:\n%s", w, text)
				}
			}
		})
	}
}

func TestPolicyInlineDispatch(t *testing.T) {
	test.NewTempApp(t)
	p := newPolicyPanel(engine.DefaultAnswerPolicy())
	var got []engine.AnswerPolicy
	p.onChanged = func(policy engine.AnswerPolicy) { got = append(got, policy) }
	w := test.NewTempWindow(t, p)
	w.Resize(fyne.NewSize(500, 900))
	if !slices.Contains(p.dispatch.Options, "inline") {
		t.Fatalf("dispatch choices %q lack inline", p.dispatch.Options)
	}
	p.dispatch.SetSelected("inline")
	if want := "a client whose receive loop awaits each request: nothing else is read while one is served"; p.dispatchHint.Text != want {
		t.Errorf("hint under inline = %q, want %q", p.dispatchHint.Text, want)
	}
	if p.dispatch.Selected != "inline" {
		t.Errorf("the choice did not stay: %q", p.dispatch.Selected)
	}
	// the engine decides whether it knows inline; the panel shows its
	// answer either way
	if _, err := engine.ParseDispatch("inline"); err != nil {
		if p.Problem() != err.Error() || len(got) != 0 {
			t.Errorf("the engine does not know inline (%v): panel shows %q and reported %d changes; want the engine's error and none", err, p.Problem(), len(got))
		}
	} else if p.Problem() != "" || len(got) != 1 || got[0].Dispatch.String() != "inline" {
		t.Errorf("inline: problem %q, changes %v; want one change with dispatch inline", p.Problem(), got)
	}
	p.dispatch.SetSelected("serial")
	if !strings.Contains(p.dispatchHint.Text, "keeps reading") || p.Problem() != "" {
		t.Errorf("serial: hint %q, problem %q", p.dispatchHint.Text, p.Problem())
	}
}

func TestProtocolChoicesSayTheirEra(t *testing.T) {
	test.NewTempApp(t)
	for _, c := range protocolChoices {
		if !strings.Contains(c, eraSep) {
			t.Errorf("choice %q does not say its era", c)
		}
	}
	tests := []struct {
		name   string
		target string // the target's protocol
		typed  string // what the person chose or typed, "" to keep it
		shown  string
		want   string // Target().Protocol
	}{
		{"the default: the era's own", "", "", "", ""},
		{"multi round-trip", "2026-07-28", "", "2026-07-28 — input_required rounds (multi round-trip)", "2026-07-28"},
		{"latest chosen", "", "latest — the SDK's newest version", "latest — the SDK's newest version", "latest"},
		{"a version typed", "", "2025-06-18", "2025-06-18", "2025-06-18"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newConnectionPanel(engine.Target{Protocol: tt.target}, nil)
			if tt.typed != "" {
				p.protocol.SetText(tt.typed)
			}
			if p.protocol.Text != tt.shown {
				t.Errorf("shows %q, want %q", p.protocol.Text, tt.shown)
			}
			tg, err := p.target()
			if err != nil || tg.Protocol != tt.want {
				t.Errorf("target protocol %q (%v), want %q", tg.Protocol, err, tt.want)
			}
		})
	}
}
