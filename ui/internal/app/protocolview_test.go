package app

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// protocolSession records a session with the demo server run as a stdio
// subprocess (this test binary) on protocol 2026-07-28, which writes a
// line to stderr as it starts, in red (a terminal's escape sequences): a
// fan-out of two rounds of three sampling requests, then a call of a
// tool the server lacks.
func protocolSession(t *testing.T) *recorder.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	target := engine.Target{Transport: engine.TransportStdio, Protocol: "2026-07-28",
		Command: fmt.Sprintf(`sh -c 'printf "\\033[31mdemo starting\\033[0m on stdio\\n" >&2; exec %q -test.run=^$'`, os.Args[0]),
		Env:     []string{"UI_TEST_DEMO_STDIO=1", "UI_TEST_DEMO_EXIT_AFTER=30s"}}
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	s, err := engine.Connect(ctx, target, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatal(err)
	}
	if out := s.CallTool(ctx, engine.ToolCall{Tool: "fanout", Args: []byte(`{"n":3,"rounds":2}`)}); out.Failure != "" {
		t.Fatalf("fanout: %s", out.Failure)
	}
	if out := s.CallTool(ctx, engine.ToolCall{Tool: "no-such-tool"}); out.Failure == "" {
		t.Fatal("a tool the server lacks was called without an error")
	}
	s.Close()
	// the stderr line is read on its own goroutine: wait for it
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, e := range rec.Snapshot().Events {
			if e.Kind == recorder.EventStderr && strings.Contains(e.Text, "demo starting") {
				return rec.Snapshot()
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the server's stderr line was not recorded within 10s")
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
}

// TestProtocolView checks the Protocol tab on a real session: the
// transcript's lines, the filters by method, direction and errors, the
// search, the JSON of a message clicked, the selection linked both ways
// with the Gantt, and the server's stderr in the Stderr tab.
func TestProtocolView(t *testing.T) {
	test.NewTempApp(t)
	snap := protocolSession(t)
	tv := NewTimelineView()
	p := newProtocolView(tv.snapshot)
	p.linkTimeline(tv)
	w := test.NewTempWindow(t, container.NewHSplit(p, tv))
	w.Resize(fyne.NewSize(1400, 800))
	tv.SetSnapshot(snap)
	p.refresh()

	all := p.Lines()
	for _, want := range []string{"→ #1 server/discover", "tools/call  call of several rounds: fanout", "round 2: fanout",
		"input request r2-1 of round 2", "[unknown tool -32602]"} {
		if !containsLine(all, want) {
			t.Errorf("no line says %q:\n%s", want, strings.Join(all, "\n"))
		}
	}
	if got, want := p.count.Text, fmt.Sprintf("%d messages", len(all)); got != want {
		t.Errorf("count says %q, want %q", got, want)
	}
	if containsLine(all, " stderr ") {
		t.Error("a stderr line is among the messages; it belongs in the Stderr tab")
	}

	t.Run("filters", func(t *testing.T) {
		p.errorsBox.SetChecked(true)
		errs := p.Lines()
		if len(errs) != 1 || !strings.Contains(errs[0], "no-such-tool") && !strings.Contains(errs[0], "[unknown tool") {
			t.Errorf("errors only shows %q, want the unknown tool's answer alone", errs)
		}
		if got := p.count.Text; got != fmt.Sprintf("1 of %d messages", len(all)) {
			t.Errorf("count says %q", got)
		}
		p.errorsBox.SetChecked(false)

		p.direction.SetSelected(serverToClient)
		for _, l := range p.Lines() {
			if !strings.Contains(l, "← ") {
				t.Errorf("server → client shows %q", l)
			}
		}
		p.direction.SetSelected(bothWays)

		p.method.SetSelected("sampling/createMessage")
		if got := len(p.Lines()); got != 6 {
			t.Errorf("method sampling/createMessage shows %d lines, want the 6 input requests:\n%s", got, strings.Join(p.Lines(), "\n"))
		}
		p.method.SetSelected(allMethods)

		test.Type(p.search, "r2-1")
		if got := p.Lines(); len(got) != 1 || !strings.Contains(got[0], "input request r2-1") {
			t.Errorf("search r2-1 shows %q", got)
		}
		p.search.SetText("")
		if got := len(p.Lines()); got != len(all) {
			t.Errorf("%d lines once the filters are cleared, want %d", got, len(all))
		}
	})

	t.Run("message selects its request in the Gantt", func(t *testing.T) {
		row := indexOfLine(p.Lines(), "round 2: fanout")
		if row < 0 {
			t.Fatal("no round 2 line")
		}
		p.list.Select(row)
		sel := tv.gantt.Selected()
		if sel == nil || sel.Kind != recorder.KindRound || sel.Round != 2 {
			t.Fatalf("the Gantt selected %v, want the round 2 span", sel)
		}
		if d := tv.Details().Span(); d == nil || d.ID != sel.ID {
			t.Errorf("the details show %v, want the round", d)
		}
		if got := p.json.Text(); !strings.Contains(got, `"method": "tools/call"`) || !strings.Contains(got, `"name": "fanout"`) {
			t.Errorf("the message's JSON shows:\n%s", got)
		}
	})

	t.Run("request selected in the Gantt scrolls to its message", func(t *testing.T) {
		var input *recorder.Span
		for _, s := range snap.Spans {
			if s.InputKey == "r1-2" {
				input = s
			}
		}
		if input == nil {
			t.Fatal("no input request r1-2 recorded")
		}
		tv.gantt.Select(input.ID)
		if got := p.SelectedLine(); !strings.Contains(got, "input request r1-2 of round 1") {
			t.Errorf("the transcript selected %q, want input request r1-2", got)
		}
	})

	t.Run("log messages under their call", func(t *testing.T) {
		call := indexOfLine(all, "tools/call  call of several rounds: fanout")
		logs := 0
		for i, l := range all {
			if !strings.Contains(l, "notifications/message") {
				continue
			}
			logs++
			if !strings.Contains(l, "←   notifications/message") || i < call {
				t.Errorf("log message %q (line %d) is not indented under the fan-out's call (line %d)", l, i, call)
			}
		}
		if logs == 0 {
			t.Errorf("the fan-out's log messages are not in the transcript:\n%s", strings.Join(all, "\n"))
		}
	})

	t.Run("stderr", func(t *testing.T) {
		if len(p.stderr) == 0 {
			t.Fatal("the Stderr tab is empty")
		}
		if got := p.model.Messages[p.stderr[0]].Event.Text; got != "\x1b[31mdemo starting\x1b[0m on stdio" {
			t.Errorf("the recording holds the stderr line %q, want it as the server wrote it", got)
		}
		got := p.stderrLine(0)
		if !strings.HasSuffix(got, " \uFFFD[31mdemo starting\uFFFD[0m on stdio") || strings.ContainsRune(got, 0x1b) {
			t.Errorf("the Stderr tab shows %q, want the escape sequences neutralised", got)
		}
		for _, l := range all {
			if strings.ContainsRune(l, 0x1b) {
				t.Errorf("a transcript line holds an escape character: %q", l)
			}
		}
	})
}

func containsLine(lines []string, s string) bool { return indexOfLine(lines, s) >= 0 }

func indexOfLine(lines []string, s string) int {
	for i, l := range lines {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// TestProtocolTabLive opens the main window on the demo server and runs
// the workload with the Protocol tab shown: the tab follows the live
// connection by itself (its ticker), a message selected stays selected
// while new ones arrive, and clicking a request in the Gantt scrolls the
// tab to it.
func TestProtocolTabLive(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{Connect: true})
	m.window.Resize(fyne.NewSize(1400, 900))
	showProtocol := func() {
		for _, tab := range m.tabs.Items {
			if tab.Text == "Protocol" {
				m.tabs.Select(tab)
			}
		}
		if m.tabs.Selected().Content != m.protocol {
			t.Fatal("the window has no Protocol tab")
		}
	}
	showProtocol()
	m.Start()
	loop.waitFor(t, "the handshake in the Protocol tab", 15*time.Second, func() bool {
		return containsLine(m.protocol.Lines(), "→ notifications/initialized")
	})
	row := indexOfLine(m.protocol.Lines(), "→ #1 initialize")
	if row < 0 {
		t.Fatalf("no initialize line:\n%s", strings.Join(m.protocol.Lines(), "\n"))
	}
	m.protocol.list.Select(row)
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.tool.SetSelected("fanout")
	m.run()
	showProtocol() // the run shows its progress in the Workload tab
	loop.waitFor(t, "the run's answer in the Protocol tab", 20*time.Second, func() bool {
		return containsLine(m.protocol.Lines(), "tools/call answered") && !m.workload.Running()
	})
	if got := m.protocol.SelectedLine(); !strings.Contains(got, "→ #1 initialize") {
		t.Errorf("after new messages arrived the selection is %q, want the initialize request", got)
	}
	var sampling *recorder.Span
	for _, r := range m.timeline.Rows() {
		if r.Span.Kind == recorder.KindSampling {
			sampling = r.Span
		}
	}
	if sampling == nil {
		t.Fatal("the Gantt has no sampling request")
	}
	m.timeline.gantt.Select(sampling.ID)
	if got := m.protocol.SelectedLine(); !strings.Contains(got, "#"+sampling.RequestID+" sampling/createMessage") {
		t.Errorf("clicking sampling request %s in the Gantt selected %q in the Protocol tab", sampling.RequestID, got)
	}
}
