package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestMain lets the test binary double as a demo server over stdio (for
// tests that need a server process that can die): with
// UI_TEST_DEMO_STDIO set it serves until UI_TEST_DEMO_EXIT_AFTER passes.
func TestMain(m *testing.M) {
	if os.Getenv("UI_TEST_DEMO_STDIO") != "" {
		d, _ := time.ParseDuration(os.Getenv("UI_TEST_DEMO_EXIT_AFTER"))
		ctx, cancel := context.WithTimeout(context.Background(), max(d, time.Second))
		defer cancel()
		if err := demo.ServeStdio(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mainLoop is a test app whose fyne.Do queues work for the test
// goroutine, which runs it while it waits, as the real driver's main
// loop does: so widgets are only ever touched by one goroutine, and the
// race detector sees the same discipline as in the real app.
type mainLoop struct {
	fyne.App
	drv *loopDriver
}

type loopDriver struct {
	fyne.Driver
	queue chan func()
	// ended makes fyne.Do behave as Fyne's does once its main loop
	// ended: it runs f at once, on the caller's goroutine.
	ended atomic.Bool
}

func (a *mainLoop) Driver() fyne.Driver { return a.drv }

// DoFromGoroutine queues f for the test goroutine.
func (d *loopDriver) DoFromGoroutine(f func(), wait bool) {
	if d.ended.Load() {
		f()
		return
	}
	if !wait {
		d.queue <- f
		return
	}
	done := make(chan struct{})
	d.queue <- func() { defer close(done); f() }
	<-done
}

// newMainLoop makes the app current for the test.
func newMainLoop(t *testing.T) *mainLoop {
	t.Helper()
	a := test.NewTempApp(t)
	l := &mainLoop{App: a, drv: &loopDriver{Driver: a.Driver(), queue: make(chan func(), 4096)}}
	fyne.SetCurrentApp(l)
	return l
}

// waitFor runs queued UI work until cond holds, failing after timeout.
func (l *mainLoop) waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.After(timeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return
		}
		select {
		case f := <-l.drv.queue:
			f()
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
	}
}

// settle runs queued UI work for d.
func (l *mainLoop) settle(d time.Duration) {
	end := time.After(d)
	for {
		select {
		case f := <-l.drv.queue:
			f()
		case <-end:
			return
		}
	}
}

// openSnapshot saves snap to a file and opens it in a new main window,
// as File › Open would.
func openSnapshot(t *testing.T, snap *recorder.Snapshot) *MainWindow {
	t.Helper()
	file := filepath.Join(t.TempDir(), "recording.json")
	if err := recorder.SaveFile(file, snap); err != nil {
		t.Fatal(err)
	}
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	if err := m.openFile(file); err != nil {
		t.Fatal(err)
	}
	return m
}

// connectedWindow opens the main window with opts at size, connects it
// to target (the demo server when it is empty) and waits for the
// server's tools.
func connectedWindow(t *testing.T, loop *mainLoop, opts Options, size fyne.Size, target engine.Target) *MainWindow {
	t.Helper()
	m := openMainWindow(t, loop, opts)
	m.window.Resize(size)
	m.connect(target)
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	return m
}

// openMainWindow builds the main window on the loop's app and, when the
// test ends, closes it and runs the UI work still queued, so that no
// timer of this test touches widgets while the next test runs.
func openMainWindow(t *testing.T, loop *mainLoop, opts Options) *MainWindow {
	t.Helper()
	if opts.journalDir == nil {
		off := ""
		opts.journalDir = &off
	}
	if opts.settingsFile == nil {
		file := filepath.Join(t.TempDir(), "settings.json")
		opts.settingsFile = &file
	}
	if opts.Policy.Dispatch.Mode == "" {
		opts.Policy = engine.DefaultAnswerPolicy()
	}
	m := NewMainWindow(loop, opts)
	t.Cleanup(func() {
		m.Close()
		loop.settle(300 * time.Millisecond)                        // longer than any throttle or flush delay
		if slices.Contains(loop.Driver().AllWindows(), m.window) { // not closed by the test
			m.window.Close()
		}
	})
	return m
}

// typeInto replaces an entry's text the way a person does: select all
// and type.
func typeInto(e interface {
	fyne.Focusable
	SetText(string)
}, text string) {
	e.SetText("")
	test.Type(e, text)
}

func TestPolicyPanelChangesTheSessionsPolicy(t *testing.T) {
	newMainLoop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := engine.Connect(ctx, engine.Target{}, engine.DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	p := newPolicyPanel(s.AnswerPolicy())
	p.onChanged = s.SetAnswerPolicy
	w := test.NewWindow(p)
	defer w.Close()

	tests := []struct {
		name  string
		do    func()
		check func(engine.AnswerPolicy) string
	}{
		{"serial dispatch", func() { p.dispatch.SetSelected("serial") }, func(policy engine.AnswerPolicy) string {
			if policy.Dispatch.Mode != engine.Serial {
				return "dispatch " + policy.Dispatch.String()
			}
			return ""
		}},
		{"fixed latency 300 ms", func() { typeInto(p.latency.a, "300ms") }, func(policy engine.AnswerPolicy) string {
			if policy.Latency.Dist != engine.Fixed || policy.Latency.A != 300*time.Millisecond || policy.Dispatch.Mode != engine.Serial {
				return "latency " + policy.Latency.String() + ", dispatch " + policy.Dispatch.String()
			}
			return ""
		}},
		{"bounded 3", func() { p.dispatch.SetSelected("bounded"); typeInto(p.slots, "3") }, func(policy engine.AnswerPolicy) string {
			if policy.Dispatch.String() != "bounded:3" {
				return "dispatch " + policy.Dispatch.String()
			}
			return ""
		}},
		{"uniform sampling override", func() {
			in := p.overrides["sampling/createMessage"]
			in.dist.SetSelected("uniform")
			typeInto(in.a, "100ms")
			typeInto(in.b, "200")
		}, func(policy engine.AnswerPolicy) string {
			if m := policy.MethodLatency["sampling/createMessage"]; m.Dist != engine.Uniform || m.A != 100*time.Millisecond || m.B != 200*time.Millisecond {
				return "sampling latency " + m.String()
			}
			return ""
		}},
		{"manual elicitation, fail rate, timeout, roots", func() {
			p.elicitation.SetSelected("manual")
			typeInto(p.failRate, "10%")
			typeInto(p.timeout, "5s")
			typeInto(p.roots, "file:///a\nfile:///b")
		}, func(policy engine.AnswerPolicy) string {
			if policy.Elicitation != engine.ElicitManual || policy.FailRate != 0.1 || policy.RequestTimeout != 5*time.Second || strings.Join(policy.Roots, " ") != "file:///a file:///b" {
				return "got elicitation " + string(policy.Elicitation) + ", roots " + strings.Join(policy.Roots, " ")
			}
			return ""
		}},
		{"invalid latency keeps the last valid policy", func() { test.Type(p.latency.a, " soon") }, func(policy engine.AnswerPolicy) string {
			if policy.Latency.A != 300*time.Millisecond {
				return "latency changed to " + policy.Latency.String()
			}
			if !strings.Contains(p.Problem(), "not a duration") {
				return "problem shown: " + p.Problem()
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.do()
			if msg := tt.check(s.AnswerPolicy()); msg != "" {
				t.Errorf("session answer policy: %s", msg)
			}
		})
	}
}

// TestMainWindowEndToEnd drives the whole window as a person would:
// connect to the demo server, choose serial dispatch with 300 ms latency,
// run fanout n=4, see it serialized; switch to concurrent, run again, see
// the four requests overlap.
func TestMainWindowEndToEnd(t *testing.T) {
	loop := newMainLoop(t)
	journals := filepath.Join(t.TempDir(), "not", "made", "yet")
	m := openMainWindow(t, loop, Options{journalDir: &journals, Version: "test"})
	m.window.Resize(fyne.NewSize(1400, 900))

	test.Tap(m.connection.connectBtn)
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool {
		return m.bridge.session() != nil && len(m.workload.tool.Options) > 0
	})
	if got := m.connection.Status(); !strings.Contains(got, "Connected to") || !strings.Contains(got, "Protocol: 2025-11-25") || !strings.Contains(got, "tools") {
		t.Errorf("connection status = %q, want the server's name, protocol and capabilities", got)
	}
	if !strings.Contains(m.window.Title(), "demo") {
		t.Errorf("window title %q does not name the target", m.window.Title())
	}

	m.policy.dispatch.SetSelected("serial")
	typeInto(m.policy.latency.a, "300ms")
	if policy := m.bridge.session().AnswerPolicy(); policy.Dispatch.Mode != engine.Serial || policy.Latency.A != 300*time.Millisecond {
		t.Fatalf("after choosing serial and 300ms the session has %v, %v", policy.Dispatch, policy.Latency)
	}

	m.workload.tool.SetSelected("fanout")
	form := m.workload.Form()
	if form == nil || form.Field("n") == nil || form.Field("kind") == nil {
		t.Fatalf("the fanout tool's arguments form lacks n or kind")
	}
	typeInto(form.Field("n").Entry, "4")
	if f := form.Field("kind"); f.Entry != nil {
		typeInto(f.Entry, "sampling")
	} else {
		f.Select.SetSelected("sampling")
	}

	run := func(wantCalls, wantPeak int) *recorder.Span {
		t.Helper()
		test.Tap(m.workload.runButton)
		if !m.workload.Running() {
			t.Fatalf("Run did not start: %v", m.workload.problem.Text)
		}
		loop.waitFor(t, "the run to end", 20*time.Second, func() bool { return !m.workload.Running() })
		if !strings.HasPrefix(m.workload.Status(), "Done: 1 of 1 calls ok") {
			t.Errorf("workload status = %q", m.workload.Status())
		}
		var last *recorder.Span
		loop.waitFor(t, "the timeline to show the run", 5*time.Second, func() bool {
			var calls, samples int
			last = nil
			for _, r := range m.timeline.Rows() {
				switch {
				case r.Depth == 0 && r.Span.Kind == recorder.KindTool && !r.Span.Open():
					calls++
					if last == nil || r.Span.Received > last.Received {
						last = r.Span
					}
				case r.Depth == 1 && r.Span.Kind == recorder.KindSampling && !r.Span.Open():
					samples++
				}
			}
			return calls == wantCalls && samples == 4*calls && m.timeline.Summary().PeakInFlight == wantPeak
		})
		var children int
		for _, r := range m.timeline.Rows() {
			if r.Depth == 1 && r.Span.Parent == last.ID && r.Span.Kind == recorder.KindSampling {
				children++
			}
		}
		if children != 4 {
			t.Errorf("the last tool call has %d sampling rows under it, want 4", children)
		}
		return last
	}

	serial := run(1, 1)
	if !strings.Contains(m.timeline.statsText(), "1") {
		t.Errorf("stats text %q", m.timeline.statsText())
	}
	if serial.Total() < 1100*time.Millisecond {
		t.Errorf("4 serial requests of 300 ms took %v, want at least 1.2 s", serial.Total())
	}

	m.policy.dispatch.SetSelected("concurrent")
	concurrent := run(2, 4)
	if concurrent.Total()*2 > serial.Total() {
		t.Errorf("concurrent run took %v, serial %v: want concurrent well under half", concurrent.Total(), serial.Total())
	}

	// The run was journaled as it happened.
	if files, _ := filepath.Glob(filepath.Join(journals, "*.jsonl")); len(files) != 1 {
		t.Errorf("journals written: %v, want one", files)
	}
	// Save, then open the saved recording: the same rows come back.
	saved := filepath.Join(t.TempDir(), "run.json")
	if err := m.saveFile(saved); err != nil {
		t.Fatal(err)
	}
	rows := len(m.timeline.Rows())
	if err := m.openFile(saved); err != nil {
		t.Fatal(err)
	}
	if got := len(m.timeline.Rows()); got != rows {
		t.Errorf("the saved recording shows %d rows, the live one %d", got, rows)
	}
	if !strings.Contains(m.window.Title(), "run.json") {
		t.Errorf("title %q does not name the opened file", m.window.Title())
	}
	// Dropping two recordings on the window shows the second for comparison.
	m.dropped([]fyne.URI{storage.NewFileURI(saved), storage.NewFileURI(saved)})
	if m.compare == nil || len(m.errors.Shown()) > 0 {
		t.Errorf("dropping two recordings: compare %v, errors %q", m.compare != nil, m.errors.Shown())
	}
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Errorf("errors shown: %q", errs)
	}
}

func TestMainWindowExports(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	dir := t.TempDir()
	if err := m.saveFile(filepath.Join(dir, "empty.json")); err == nil || !strings.Contains(err.Error(), "nothing to save") {
		t.Errorf("saving with nothing recorded: %v, want 'nothing to save'", err)
	}
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: []byte(`{"n":3,"kind":"sampling"}`), Calls: 2, Concurrency: 2})
	m.run()
	loop.waitFor(t, "the run", 15*time.Second, func() bool { return !m.workload.Running() })
	for _, e := range exports {
		t.Run(e.name, func(t *testing.T) {
			path := filepath.Join(dir, "out"+e.ext)
			if err := m.exportFile(e, path); err != nil {
				t.Fatalf("export: %v", err)
			}
			if st, err := os.Stat(path); err != nil || st.Size() < 50 {
				t.Errorf("exported file %s: %v, %d bytes", path, err, st.Size())
			}
			if st, err := os.Stat(path); err == nil && st.Mode().Perm() != 0o600 {
				t.Errorf("exported file %s: mode %v, want -rw-------", path, st.Mode().Perm())
			}
		})
	}
	if err := m.openFile(filepath.Join(dir, "out.csv")); err == nil {
		t.Errorf("opening a CSV as a recording gave no error")
	}
}

// TestSaveDialogFiles answers the save dialog as Fyne does, with the file
// it opened for writing (created readable by all): the recording and an
// export are written there private (0600) and whole, a notice says where,
// and a failed export says why and shows no notice.
func TestSaveDialogFiles(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: []byte(`{"n":3,"kind":"sampling"}`)})
	m.run()
	loop.waitFor(t, "the run", 15*time.Second, func() bool { return !m.workload.Running() })

	dir := t.TempDir()
	answer := func(name string, save func(string) error) string {
		t.Helper()
		path := filepath.Join(dir, name)
		wc, err := storage.Writer(storage.NewFileURI(path)) // what the dialog hands over
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Mode().Perm()&0o044 == 0 {
			t.Fatalf("the dialog's file %s: %v, mode %v: want one readable by others, as Fyne creates it", path, err, st.Mode().Perm())
		}
		m.savedAs("Saving", wc, nil, save) // on the test goroutine, the window's main one
		return path
	}
	saved := answer("session.json", m.saveFile)
	report := answer("report.html", func(p string) error { return m.exportFile(exports[exportHTML], p) })
	for _, p := range []string{saved, report} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 || st.Size() < 100 {
			t.Errorf("%s: %v, mode %v, %d bytes: want a private, whole file", p, err, st.Mode().Perm(), st.Size())
		}
	}
	shown, _ := m.shown()
	if snap, err := recorder.LoadFile(saved); err != nil || len(snap.Spans) != len(shown.Spans) {
		t.Errorf("the saved recording: %v, want it to load with the %d spans shown", err, len(shown.Spans))
	}
	if got := m.shownNotices(); len(got) != 2 || got[0] != "Saved to "+saved || got[1] != "Saved to "+report {
		t.Errorf("notices %q, want one 'Saved to' per file", got)
	}
	if !m.notices.layer.Visible() || m.notices.label.Text != "Saved to "+report {
		t.Errorf("the last notice is not on the window")
	}

	answer("broken.html", func(string) error { return errors.New("disk full") })
	if errs := m.errors.Shown(); len(errs) != 1 || !strings.Contains(errs[0], "Saving as broken.html: disk full") {
		t.Errorf("errors shown %q, want the failed save named with its cause", errs)
	}
	if n := len(m.shownNotices()); n != 2 {
		t.Errorf("%d notices after a failed save, want still 2", n)
	}
}

// TestLogAndRecentConnections checks that the server's log messages reach
// the Log panel and that a connection is remembered for the next start.
func TestLogAndRecentConnections(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "slow", Args: []byte(`{"ms":200,"steps":4}`)})
	m.run()
	loop.waitFor(t, "the slow tool's log messages in the Log panel", 10*time.Second, func() bool {
		n, ended := 0, false
		for _, l := range m.log.Lines() {
			if strings.Contains(l, " log ") {
				n++
			}
			ended = ended || strings.Contains(l, "run ended")
		}
		return n >= 4 && ended
	})

	var connected, ran bool
	for _, l := range m.log.Lines() {
		connected = connected || strings.Contains(l, "connected to demo: fanout-demo")
		ran = ran || strings.Contains(l, "run ended: Done: 1 of 1 calls ok")
	}
	if !connected || !ran {
		t.Errorf("the log lacks the connection or the run's end:\n%s", strings.Join(m.log.Lines(), "\n"))
	}

	again := newConnectionPanel(engine.Target{}, openSettings(m.settings.Path(), nil)) // as the next start reads them
	if recent := again.recentTargets(); len(recent) != 1 || recent[0].String() != "demo" {
		t.Errorf("recent connections on the next start: %v, want [demo]", recent)
	}
}

// TestStopAndNewRun stops a long run from the Stop button, then starts a
// new run (a fresh recording on a fresh connection).
func TestStopAndNewRun(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	first := m.bridge.session()
	m.workload.setWorkload(load.Workload{Tool: "slow", Args: []byte(`{"ms":30000,"steps":3}`)})
	test.Tap(m.workload.runButton)
	loop.settle(300 * time.Millisecond)
	if !m.workload.Running() || m.workload.stopButton.Disabled() {
		t.Fatal("the run did not start, or Stop is not enabled")
	}
	start := time.Now()
	test.Tap(m.workload.stopButton)
	loop.waitFor(t, "the run to stop", 5*time.Second, func() bool { return !m.workload.Running() })
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("stopping took %v", took)
	}
	if st := m.workload.Status(); !strings.HasPrefix(st, "Stopped after") || !strings.Contains(st, "0 of 1 calls had finished ok") {
		t.Errorf("status after Stop: %q", st)
	}
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Errorf("Stop showed errors: %q", errs)
	}

	m.newRun()
	loop.waitFor(t, "a new connection", 15*time.Second, func() bool {
		s := m.bridge.session()
		return s != nil && s != first && len(m.workload.tool.Options) > 0
	})
	loop.waitFor(t, "the timeline to show the new recording", 5*time.Second, func() bool {
		for _, r := range m.timeline.Rows() {
			if r.Span.Kind == recorder.KindTool {
				return false
			}
		}
		return len(m.timeline.Rows()) > 0
	})
}

// TestConnectFailureShowsOneDialog connects to a command that does not
// exist: the person gets one dialog saying what failed, and the panel
// offers Connect again.
func TestConnectFailureShowsOneDialog(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connection.setTarget(engine.Target{Transport: engine.TransportStdio, Command: "/no/such/mcp-server --flag"})
	test.Tap(m.connection.connectBtn)
	loop.waitFor(t, "the error dialog", 15*time.Second, func() bool { return len(m.errors.Shown()) > 0 })
	loop.settle(100 * time.Millisecond)
	errs := m.errors.Shown()
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "Connecting to stdio: /no/such/mcp-server") {
		t.Errorf("errors shown: %q, want one that says what was being connected to", errs)
	}
	overlays := m.window.Canvas().Overlays().List()
	if len(overlays) == 0 {
		t.Errorf("no dialog on the window")
	}
	if m.connection.connectBtn.Disabled() || !strings.HasPrefix(m.connection.Status(), "Not connected") {
		t.Errorf("after the failure: connect disabled %v, status %q", m.connection.connectBtn.Disabled(), m.connection.Status())
	}
	if !strings.Contains(m.window.Title(), "not connected") {
		t.Errorf("title %q", m.window.Title())
	}
}

// TestCompareAndReport opens a saved run as the comparison and exports
// the HTML report of both.
func TestCompareAndReport(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: []byte(`{"n":3,"kind":"roots"}`)})
	m.run()
	loop.waitFor(t, "the run", 15*time.Second, func() bool { return !m.workload.Running() })
	dir := t.TempDir()
	first := filepath.Join(dir, "first.json")
	if err := m.saveFile(first); err != nil {
		t.Fatal(err)
	}
	if err := m.openCompare(first); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.html")
	if err := m.exportFile(exports[exportHTML], report); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Comparison of two recordings") {
		t.Errorf("with a comparison open, the HTML report is not a comparison")
	}
	m.setCompare(nil)
	single := filepath.Join(dir, "single.html")
	if err := m.exportFile(exports[exportHTML], single); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(single); strings.Contains(string(b), "Comparison of two recordings") {
		t.Errorf("after closing the comparison the report still compares")
	}
	if err := m.openCompare(filepath.Join(dir, "missing.json")); err == nil {
		t.Errorf("comparing with a missing file gave no error")
	}
}

// TestMenuAndShortcuts checks the File menu's items and that the keyboard
// shortcuts reach them: Ctrl+R runs the workload, Ctrl+S opens the save
// dialog.
func TestMenuAndShortcuts(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	var file []string
	for _, it := range m.window.MainMenu().Items[0].Items {
		file = append(file, it.Label)
	}
	for _, want := range []string{"Open recording…", "Open second recording to compare…", "Save recording…", "Export", "New run", "Quit"} {
		if !slices.Contains(file, want) {
			t.Errorf("File menu %q lacks %q", file, want)
		}
	}
	press := func(key fyne.KeyName) {
		m.window.Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShortcutDefault})
	}
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	press(fyne.KeyR)
	if !m.workload.Running() {
		t.Fatalf("Ctrl+R did not start the run: %q", m.workload.problem.Text)
	}
	loop.waitFor(t, "the run", 15*time.Second, func() bool { return !m.workload.Running() })
	press(fyne.KeyS)
	if len(m.window.Canvas().Overlays().List()) == 0 {
		t.Errorf("Ctrl+S opened no save dialog")
	}
}

// TestDisconnectWhileConnecting gives up a connection that hangs (a
// server that never answers initialize): no error dialog, and the panel
// offers Connect again at once.
func TestDisconnectWhileConnecting(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connection.setTarget(engine.Target{Transport: engine.TransportStdio, Command: "sleep 30"})
	test.Tap(m.connection.connectBtn)
	loop.settle(300 * time.Millisecond)
	if !strings.HasPrefix(m.connection.Status(), "Connecting to stdio: sleep 30") {
		t.Fatalf("status while connecting: %q", m.connection.Status())
	}
	start := time.Now()
	test.Tap(m.connection.disconnect)
	loop.waitFor(t, "Connect to be offered again", 5*time.Second, func() bool { return !m.connection.connectBtn.Disabled() })
	loop.settle(300 * time.Millisecond)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("giving up took %v", took)
	}
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Errorf("giving up a connection showed errors: %q", errs)
	}
	if !strings.HasPrefix(m.connection.Status(), "Not connected") {
		t.Errorf("status after giving up: %q", m.connection.Status())
	}
}

// TestConnectionLostMidRun runs against a server process that exits
// while its requests are being served: one dialog says the connection
// ended, the run ends, and the panel offers Connect again.
func TestConnectionLostMidRun(t *testing.T) {
	loop := newMainLoop(t)
	policy := engine.DefaultAnswerPolicy()
	policy.Latency = engine.LatencyModel{Dist: engine.Fixed, A: 2 * time.Second}
	m := openMainWindow(t, loop, Options{Policy: policy})
	target := engine.Target{Transport: engine.TransportStdio, Command: os.Args[0],
		Env: []string{"UI_TEST_DEMO_STDIO=1", "UI_TEST_DEMO_EXIT_AFTER=1500ms"}}
	m.connect(target)
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: []byte(`{"n":3,"kind":"sampling"}`)})
	m.run()
	start := time.Now()
	loop.waitFor(t, "the run to end with the connection", 15*time.Second, func() bool {
		return !m.workload.Running() && m.bridge.session() == nil
	})
	t.Logf("the run and the connection ended %v after the run started (the server exited after 1.5 s of life)", time.Since(start))
	loop.settle(300 * time.Millisecond)
	errs := m.errors.Shown()
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "The connection to stdio:") {
		t.Errorf("errors shown: %q, want one saying the connection ended", errs)
	}
	if st := m.workload.Status(); !strings.HasPrefix(st, "Ended after") {
		t.Errorf("workload status %q", st)
	}
	if !strings.HasPrefix(m.connection.Status(), "Connection lost") || m.connection.connectBtn.Disabled() {
		t.Errorf("connection status %q, connect disabled %v", m.connection.Status(), m.connection.connectBtn.Disabled())
	}
}

// TestInheritEnvToggle: a stdio server gets only the allowlisted
// environment and its own lines, unless "Pass my whole environment" is
// checked. The server here is this test binary, which serves the demo
// only when UI_TEST_DEMO_STDIO is in its environment: set in the app's,
// it reaches the server only through the toggle.
func TestInheritEnvToggle(t *testing.T) {
	t.Setenv("UI_TEST_DEMO_STDIO", "1")
	t.Setenv("UI_TEST_DEMO_EXIT_AFTER", "30s")
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connection.setTarget(engine.Target{Transport: engine.TransportStdio, Command: os.Args[0] + " -test.run=^$"})
	if m.connection.inheritEnv.Checked {
		t.Fatal("the whole environment is passed before anyone asked for it")
	}

	test.Tap(m.connection.connectBtn)
	loop.waitFor(t, "the connection without the variable to fail", 15*time.Second, func() bool {
		return !m.connection.connectBtn.Disabled() && len(m.errors.Shown()) > 0
	})
	if m.bridge.session() != nil {
		t.Fatal("connected although the server did not get UI_TEST_DEMO_STDIO")
	}
	failed := m.errors.Shown()
	t.Logf("without the toggle: %q", failed)

	test.Tap(m.connection.inheritEnv)
	if tg, err := m.connection.target(); err != nil || !tg.InheritEnv {
		t.Fatalf("target %+v (%v) after checking the box: want InheritEnv", tg, err)
	}
	test.Tap(m.connection.connectBtn)
	loop.waitFor(t, "the demo server's tools over stdio", 15*time.Second, func() bool {
		return m.bridge.session() != nil && len(m.workload.tool.Options) > 0
	})
	if errs := m.errors.Shown(); len(errs) != len(failed) {
		t.Errorf("errors shown with the toggle: %q", errs[len(failed):])
	}
}

// TestStopAfterTheRunEnded presses Stop once the run has ended but
// before its record is shown (it is made off the main goroutine): the
// run finished, so the panel says Done, not that it was stopped.
func TestStopAfterTheRunEnded(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	m.workload.setWorkload(load.Workload{Tool: "echo", Args: []byte(`{"text":"hi"}`)})
	test.Tap(m.workload.runButton)
	if !m.workload.Running() || m.workload.current.when.IsZero() {
		t.Fatalf("the run did not start: %v", m.workload.problem.Text)
	}
	// waitFor runs the queued UI work one piece at a time and looks
	// between two: it returns right after the run's end reached the
	// main goroutine, before the record made meanwhile is shown.
	loop.waitFor(t, "the run's end on the main goroutine", 15*time.Second, func() bool { return m.workload.current.when.IsZero() })
	if !m.workload.Running() || m.workload.stopButton.Disabled() {
		t.Fatal("the panel stopped showing the run before its record was shown")
	}
	test.Tap(m.workload.stopButton)
	loop.waitFor(t, "the run's record", 15*time.Second, func() bool { return !m.workload.Running() })
	if st := m.workload.Status(); !strings.HasPrefix(st, "Done: 1 of 1 calls ok") {
		t.Errorf("status after a Stop pressed once the run had ended: %q, want Done", st)
	}
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Errorf("errors shown: %q", errs)
	}
}
