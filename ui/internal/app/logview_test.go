package app

import (
	"context"
	"encoding/json"
	"path/filepath"
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

// runTool calls tool once on the window's session and waits for it.
func runTool(t *testing.T, m *MainWindow, tool, args string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := load.Run(ctx, []*engine.Session{m.bridge.session()}, load.Workload{Tool: tool, Args: []byte(args)}, nil); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
}

// logLines are the lines of kind log among lines.
func logLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.Contains(l, " log ") {
			out = append(out, strings.TrimSpace(l[strings.Index(l, " log ")+len(" log "):]))
		}
	}
	return out
}

// TestLogsTab drives the Logs tab as a person would, on both protocol
// eras: with warning chosen before connecting, a fan-out whose
// elicitations are declined shows its warning and not its info line;
// choosing debug while connected asks the server at once (the label says
// how the era carries it), and the slow tool's debug and info lines
// follow; then the Show, level, logger and search filters narrow the
// list, and the warning is drawn in the warning colour.
func TestLogsTab(t *testing.T) {
	for _, tt := range []struct{ protocol, route string }{
		{"2025-11-25", "sent with logging/setLevel (2025-11-25)"},
		{"2026-07-28", "sent in each request's _meta (2026-07-28)"},
	} {
		t.Run(tt.protocol, func(t *testing.T) {
			policy := engine.DefaultAnswerPolicy()
			policy.Elicitation = engine.ElicitDecline
			loop := newMainLoop(t)
			m := openMainWindow(t, loop, Options{Policy: policy})
			m.window.Resize(fyne.NewSize(1200, 800))
			selectTabNamed(t, m, "Logs")
			v := m.log
			v.control.sel.SetSelected("warning") // before connecting: the next connection asks for it
			m.connect(engine.Target{Protocol: tt.protocol})
			loop.waitFor(t, "the session", 15*time.Second, func() bool { return m.bridge.session() != nil })
			loop.waitFor(t, "the route", 5*time.Second, func() bool { return v.control.route.Text == tt.route })
			if got := m.bridge.session().LogLevel(); got != "warning" {
				t.Fatalf("the session asked for %q, want warning as chosen in the Logs tab", got)
			}

			runTool(t, m, "fanout", `{"n":2,"kind":"elicitation"}`)
			runTool(t, m, "slow", `{"ms":20,"steps":2}`)
			loop.waitFor(t, "the warning", 10*time.Second, func() bool { return len(logLines(v.Lines())) > 0 })
			if got := logLines(v.Lines()); len(got) != 1 || got[0] != "warning fanout: 2 of 2 elicitation requests were declined or cancelled" {
				t.Fatalf("at warning the Logs tab shows log lines %q, want only the fan-out's warning", got)
			}

			v.control.sel.SetSelected("debug")
			loop.waitFor(t, "debug asked of the server", 10*time.Second, func() bool {
				return m.bridge.session().LogLevel() == "debug" && v.control.route.Text == tt.route
			})
			runTool(t, m, "slow", `{"ms":20,"steps":2}`)
			loop.waitFor(t, "the slow tool's lines", 10*time.Second, func() bool { return len(logLines(v.Lines())) == 5 })
			got := logLines(v.Lines())
			want := []string{"warning fanout: 2 of 2 elicitation requests were declined or cancelled",
				"debug slow: sleeping 20 ms in 2 steps of 10ms", "info slow: step 1 of 2", "info slow: step 2 of 2", "debug slow: slept "}
			for i := range want {
				if !strings.HasPrefix(got[i], want[i]) {
					t.Fatalf("log lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}

			v.show.SetSelected(showMessages)
			if n := len(v.Shown()); n != 5 {
				t.Errorf("Show %s lists %d lines, want the 5 log messages:\n%s", showMessages, n, strings.Join(v.Shown(), "\n"))
			}
			v.level.SetSelected("info")
			if got := logLines(v.Shown()); len(got) != 3 || !strings.HasPrefix(got[0], "warning") {
				t.Errorf("at least info lists %q, want the warning and the two steps", got)
			}
			v.logger.SetSelected("slow")
			if got := logLines(v.Shown()); len(got) != 2 || got[0] != "info slow: step 1 of 2" {
				t.Errorf("logger slow at least info lists %q, want the two steps", got)
			}
			v.search.SetText("STEP 2")
			if got := logLines(v.Shown()); len(got) != 1 || got[0] != "info slow: step 2 of 2" {
				t.Errorf("searching STEP 2 lists %q, want step 2 alone", got)
			}
			if c := v.count.Text; !strings.HasPrefix(c, "1 of ") || !strings.HasSuffix(c, " lines shown") {
				t.Errorf("the count says %q", c)
			}
			v.search.SetText("")
			v.logger.SetSelected(anyLogger)
			v.level.SetSelected(anyLevel)
			v.show.SetSelected(showConnection)
			for _, l := range v.Shown() {
				if !strings.Contains(l, " connection ") {
					t.Errorf("Show %s lists %q", showConnection, l)
				}
			}
			if len(v.Shown()) == 0 {
				t.Error("Show Connection lists nothing: the connection's events must stay reachable")
			}

			v.show.SetSelected(showMessages)
			item := v.list.CreateItem()
			v.list.UpdateItem(0, item)
			if l := item.(*widget.Label); !strings.Contains(l.Text, "warning fanout") || l.Importance != widget.WarningImportance {
				t.Errorf("the first message reads %q with importance %v, want the warning in the warning colour", l.Text, l.Importance)
			}
		})
	}
}

// TestLogsTabBounded: the tab keeps the last lines only, and says so.
func TestLogsTabBounded(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	for i := range maxLogLines + 10 {
		m.log.Append("line " + strings.Repeat("x", i%3))
	}
	loop.waitFor(t, "the lines", 5*time.Second, func() bool { return len(m.log.Lines()) == maxLogLines })
	if c := m.log.count.Text; !strings.Contains(c, "the last 5000 are kept") {
		t.Errorf("the count says %q", c)
	}
}

// TestLogsTabOpenedRecording: opening a recording lists its log messages
// and connection events in time order, in place of what was there; the
// window opens with the level --log-level gave.
func TestLogsTabOpenedRecording(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{Target: engine.Target{LogLevel: "error"}})
	if got := m.log.control.sel.Selected; got != "error" {
		t.Errorf("the level control shows %q, want error as the target asked", got)
	}
	m.log.Append("an older line")
	loop.waitFor(t, "the older line", 5*time.Second, func() bool { return len(m.log.Lines()) == 1 })

	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "saved"}}
	data, _ := json.Marshal(map[string]string{"level": "error", "logger": "db", "data": "connection refused"})
	snap.Events = []recorder.Event{
		{At: 20 * time.Millisecond, Session: "s1", Kind: recorder.EventLog, Method: "notifications/message", Level: "error", Logger: "db",
			Text: "error db: connection refused", Data: data},
		{At: 10 * time.Millisecond, Session: "s1", Kind: recorder.EventConnection, Text: "connected to db-server"},
	}
	path := filepath.Join(t.TempDir(), "saved.json")
	if err := recorder.SaveFile(path, snap); err != nil {
		t.Fatal(err)
	}
	if err := m.openFile(path); err != nil {
		t.Fatal(err)
	}
	want := []string{"the events of saved.json (2 shown)", "0.010s connection connected to db-server", "0.020s log error db: connection refused"}
	var got []string
	for _, l := range m.log.Lines() {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after opening the recording the Logs tab lists:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	m.log.logger.SetSelected("db")
	if shown := m.log.Shown(); len(shown) != 1 || !strings.Contains(shown[0], "connection refused") {
		t.Errorf("logger db shows %q", shown)
	}
}

// TestLogsTabGolden pins the tab's look on a saved recording: the level
// control and the filters above, the lines with a warning and an error
// in their colours and debug faint, and the count below.
func TestLogsTabGolden(t *testing.T) {
	test.NewTempApp(t)
	v := newLogView(nil)
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(900, 330))
	logAt := func(at time.Duration, level, logger, msg string) recorder.Event {
		data, _ := json.Marshal(map[string]string{"level": level, "logger": logger, "data": msg})
		return recorder.Event{At: at, Session: "s1", Kind: recorder.EventLog, Method: "notifications/message",
			Level: level, Logger: logger, Text: recorder.LogPrefix(level, logger) + msg, Data: data}
	}
	ms := time.Millisecond
	v.showRecording("run.json", []recorder.Event{
		{At: 2 * ms, Session: "s1", Kind: recorder.EventConnection, Text: "connected to fanout-demo 1.0.0 (legacy · 2025-11-25)"},
		{At: 3 * ms, Session: "s1", Kind: recorder.EventStderr, Text: "listening on stdio"},
		logAt(80*ms, "debug", "slow", "sleeping 300 ms in 3 steps of 100ms"),
		logAt(184*ms, "info", "slow", "step 1 of 3"),
		logAt(285*ms, "info", "slow", "step 2 of 3"),
		logAt(410*ms, "warning", "fanout", "2 of 3 elicitation requests were declined or cancelled"),
		logAt(412*ms, "error", "fanout", "1 of 3 elicitation requests failed: the person closed the form"),
		{At: 500 * ms, Session: "s1", Kind: recorder.EventConnection, Text: "disconnected: session closed"},
	})
	assertImage(t, "logs_tab.png", w.Canvas().Capture())
}

// TestLogLineNeutralised checks that a server's escape sequences and line
// breaks in a stderr line or a log message are shown as such in the Logs
// tab, not handed to the text as they came.
func TestLogLineNeutralised(t *testing.T) {
	l := eventLine(recorder.Event{At: time.Second, Kind: recorder.EventStderr, Text: "\x1b[31mred\x1b[0m\nnext"})
	if strings.ContainsAny(l.text, "\x1b\n") || !strings.Contains(l.text, "\uFFFD[31mred\uFFFD[0m next") {
		t.Errorf("the line reads %q, want its escapes shown as \uFFFD and the break as a space", l.text)
	}
}
