package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

// TestTwoRunsStatsDescribeTheLatest makes two runs on one connection to
// the demo server, serial then concurrent, and checks what a person sees:
// mid-run the verdict says it is so far; after the second run the stats
// describe it, not the whole session; the run picker lists both runs and
// the whole session, and switching changes the stats; comparing the first
// run labels the panes by run and aligns them at their first tool call.
func TestTwoRunsStatsDescribeTheLatest(t *testing.T) {
	loop := newMainLoop(t)
	policy := engine.DefaultAnswerPolicy()
	policy.Latency = engine.LatencyModel{Dist: engine.Fixed, A: 300 * time.Millisecond}
	m := connectedWindow(t, loop, Options{Policy: policy}, fyne.NewSize(1400, 900), engine.Target{})

	run := func(dispatch string) {
		t.Helper()
		loop.waitFor(t, "no run going on", 10*time.Second, func() bool { return !m.workload.Running() })
		m.workload.setWorkload(load.Workload{Tool: "fanout", Args: []byte(`{"n":3,"kind":"sampling"}`)})
		m.policy.dispatch.SetSelected(dispatch)
		m.run()
		if !m.workload.Running() {
			t.Fatalf("the %s run did not start: %s", dispatch, m.workload.problem.Text)
		}
		loop.waitFor(t, "the "+dispatch+" run's verdict marked as so far", 10*time.Second, func() bool {
			return m.timeline.provisional() && strings.Contains(m.timeline.statsText(), provisionalPrefix)
		})
		loop.waitFor(t, "the "+dispatch+" run to end and be shown", 15*time.Second, func() bool {
			return !m.workload.Running() && !m.timeline.provisional() && m.timeline.Summary().ToolCalls.Total == 1 &&
				m.timeline.Summary().Verdict != ""
		})
	}
	run("serial")
	if got := m.timeline.Summary().Verdict; got != recorder.VerdictSerialized {
		t.Fatalf("after the serial run the verdict is %q, want %q", got, recorder.VerdictSerialized)
	}
	loop.settle(300 * time.Millisecond) // idle time between the runs
	run("concurrent")

	sum := m.timeline.Summary()
	if sum.Verdict != recorder.VerdictConcurrent {
		t.Errorf("after the concurrent run the verdict is %q, want %q (the last run, not the session)\n%s", sum.Verdict, recorder.VerdictConcurrent, m.timeline.statsText())
	}
	if sum.ElapsedMS > 800 { // one latency (300 ms) and overhead, not 3 latencies plus the serial run
		t.Errorf("elapsed %.0f ms: want the concurrent run's own (about 300 ms)", sum.ElapsedMS)
	}
	if strings.Contains(m.timeline.statsText(), provisionalPrefix) {
		t.Errorf("an ended run's verdict still says so far:\n%s", m.timeline.statsText())
	}
	opts, chosen := m.timeline.runPicker()
	want := []string{"Run 1 · fanout · serial", "Run 2 · fanout · concurrent", wholeSession}
	if strings.Join(opts, "|") != strings.Join(want, "|") || chosen != want[1] {
		t.Fatalf("run picker offers %q with %q chosen, want %q with the latest chosen", opts, chosen, want)
	}
	// The run followed live was fitted when it ended: the view shows the
	// latest run, not the whole connection (as Fit does)
	start, end := m.timeline.Gantt().VisibleRange()
	latest := m.timeline.snapshot().LatestRun()
	if start < latest.Start-latest.Start/10 || end > latest.End+(latest.End-latest.Start) {
		t.Errorf("Fit shows %v – %v, want about the latest run %v – %v", start, end, latest.Start, latest.End)
	}

	m.timeline.PickRun(wholeSession)
	whole := m.timeline.Summary()
	// one verdict per run, not one of the two runs judged together: the
	// first shows, the other unfolds under it
	if text := m.timeline.statsText(); !strings.Contains(text, "\nRun 1 · fanout · serial — serialized") || strings.Contains(text, "Run 2 ·") ||
		m.timeline.stats.more.Text != "▸ 1 more" {
		t.Errorf("the whole session's stats, folded: %q, button %q; want run 1's verdict and 1 more", text, m.timeline.stats.more.Text)
	}
	test.Tap(m.timeline.stats.more)
	for _, want := range []string{"\nRun 1 · fanout · serial — serialized", "\nRun 2 · fanout · concurrent — concurrent"} {
		if !strings.Contains(m.timeline.statsText(), want) {
			t.Errorf("the whole session's stats, unfolded, do not say %q:\n%s", want, m.timeline.statsText())
		}
	}
	test.Tap(m.timeline.stats.more) // fold again
	if whole.ToolCalls.Total != 2 || whole.ElapsedMS < 900+sum.ElapsedMS {
		t.Errorf("whole session: %d tool calls over %.0f ms, want both runs' 2 calls over more than both runs' time", whole.ToolCalls.Total, whole.ElapsedMS)
	}
	m.timeline.PickRun(want[0])
	if got := m.timeline.Summary().Verdict; got != recorder.VerdictSerialized {
		t.Errorf("run 1 picked: verdict %q, want %q", got, recorder.VerdictSerialized)
	}
	m.timeline.PickRun(want[1])

	// Compare run 1 (the older history row) with the live session.
	h := m.workload.History()
	if len(h) != 2 {
		t.Fatalf("history has %d rows, want 2", len(h))
	}
	test.Tap(h[1].compare)
	if got := m.timeline.title.Text; got != "A: Run 2 · fanout · concurrent — demo" {
		t.Errorf("pane A labelled %q, want the latest run's name", got)
	}
	if got := m.timeline.cmpTtl.Text; !strings.HasPrefix(got, "B: Run 1 · fanout · serial — demo (moved ") {
		t.Errorf("pane B labelled %q, want run 1's name and that it was moved", got)
	}
	a, _ := firstCall(m.timeline.snapshot(), m.timeline.scope)
	b, ok := firstCall(m.timeline.cmpShown, runScope{whole: true})
	if !ok || a != b {
		t.Errorf("first tool calls start at %v (A) and %v (B), want them aligned", a, b)
	}

	// The exports are what the screen shows: the HTML report compares
	// run 2 (A) with run 1 (B), and its default name says so.
	if got, want := m.suggestedName(".html", true), "fanout-demo-run-2-fanout-concurrent-vs-run-1-fanout-serial.html"; got != want {
		t.Errorf("the report's default name is %q, want %q", got, want)
	}
	if got, want := m.suggestedName(".json", false), "fanout-demo.json"; got != want {
		t.Errorf("the recording's default name is %q, want %q", got, want)
	}
	report := filepath.Join(t.TempDir(), "report.html")
	if err := m.exportFile(exports[exportHTML], report); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(report)
	for _, want := range []string{"Run 2 · fanout · concurrent", "Run 1 · fanout · serial"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the HTML report does not name %q", want)
		}
	}
	// The CSV of run 2 holds its one tool call; of the whole session, both.
	m.setCompare(nil)
	toolCalls := func(pick string) int {
		t.Helper()
		m.timeline.PickRun(pick)
		path := filepath.Join(t.TempDir(), "spans.csv")
		if err := m.exportFile(exports[2], path); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return strings.Count(string(b), ",tools/call,")
	}
	if n := toolCalls(want[1]); n != 1 {
		t.Errorf("the CSV of run 2 has %d tool calls, want 1", n)
	}
	if n := toolCalls(wholeSession); n != 2 {
		t.Errorf("the CSV of the whole session has %d tool calls, want 2", n)
	}

	// Comparing run 2 while the picker is on the whole session (which
	// holds run 2) compares it with run 1, not with itself.
	m.timeline.PickRun(wholeSession)
	test.Tap(h[0].compare)
	if got := m.timeline.title.Text; got != "A: Run 1 · fanout · serial — demo" {
		t.Errorf("comparing run 2 from the whole session: pane A labelled %q, want run 1", got)
	}
	if got := m.timeline.cmpTtl.Text; !strings.HasPrefix(got, "B: Run 2 · fanout · concurrent — demo") {
		t.Errorf("pane B labelled %q, want run 2", got)
	}
}

// TestCompareFilesLabelledByName opens two recordings as a person does
// from the File menu and checks each pane carries its file's name.
func TestCompareFilesLabelledByName(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	dir := t.TempDir()
	a, b := dir+"/serial.json", dir+"/concurrent.json"
	if err := recorder.SaveFile(a, fixedSnapshot()); err != nil {
		t.Fatal(err)
	}
	late := shifted(fanoutSnapshot(5, 5, 500*ms), 2*time.Second) // its call starts 2 s later
	if err := recorder.SaveFile(b, late); err != nil {
		t.Fatal(err)
	}
	if err := m.openFile(a); err != nil {
		t.Fatal(err)
	}
	if err := m.openCompare(b); err != nil {
		t.Fatal(err)
	}
	if got := m.timeline.title.Text; got != "A: serial.json" {
		t.Errorf("pane A labelled %q, want its file name", got)
	}
	if got := m.timeline.cmpTtl.Text; !strings.HasPrefix(got, "B: concurrent.json (moved 2") || !strings.Contains(got, "earlier") {
		t.Errorf("pane B labelled %q, want its file name and that it was moved 2 s earlier", got)
	}
	x, _ := firstCall(m.timeline.snapshot(), runScope{whole: true})
	y, _ := firstCall(m.timeline.cmpShown, runScope{whole: true})
	if x != y {
		t.Errorf("first tool calls at %v and %v: not aligned", x, y)
	}
}

// TestCompareAtStart: inspector gui --open A --compare B opens with the
// two recordings compared, each pane named by its file and both verdicts
// shown.
func TestCompareAtStart(t *testing.T) {
	dir := t.TempDir()
	a, b := dir+"/serial.json", dir+"/concurrent.json"
	if err := recorder.SaveFile(a, fixedSnapshot()); err != nil {
		t.Fatal(err)
	}
	if err := recorder.SaveFile(b, fanoutSnapshot(5, 5, 500*ms)); err != nil {
		t.Fatal(err)
	}
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{Open: a, Compare: b})
	m.Start()
	if got := m.timeline.title.Text; got != "A: serial.json" {
		t.Errorf("pane A labelled %q, want the file opened", got)
	}
	if got := m.timeline.cmpTtl.Text; !strings.HasPrefix(got, "B: concurrent.json") {
		t.Errorf("pane B labelled %q, want the file compared", got)
	}
	if text := m.timeline.statsText(); !strings.Contains(text, "\nB: concurrent") {
		t.Errorf("the stats give no verdict for B: %q", text)
	}
}

// TestCompareFitsSmallScreen checks that two compared recordings fit a
// 1024×700 screen: the window asks no more height than the screen has
// (a window taller than its screen cut the stats' foot off, the
// verdict's last line), and a stats bar taller than the room left under
// the two Gantts scrolls, holding B's line, rather than growing.
func TestCompareFitsSmallScreen(t *testing.T) {
	dir := t.TempDir()
	a, b := dir+"/serial.json", dir+"/concurrent.json"
	if err := recorder.SaveFile(a, fixedSnapshot()); err != nil {
		t.Fatal(err)
	}
	if err := recorder.SaveFile(b, fanoutSnapshot(5, 5, 500*ms)); err != nil {
		t.Fatal(err)
	}
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{Open: a, Compare: b})
	m.Start()
	m.window.Resize(fyne.NewSize(1024, 700))
	m.window.Canvas().Capture()
	if h := m.window.Content().MinSize().Height; h > 700 {
		t.Errorf("the window asks %.0f px of height, more than the 700 of the screen", h)
	}
	bar := m.timeline.left.Objects[3]
	_, top, _, bottom := absRect(bar)
	if bottom > m.window.Canvas().Size().Height+1 {
		t.Errorf("the stats bar ends at y=%.0f, below the window's %.0f", bottom, m.window.Canvas().Size().Height)
	}
	if bottom-top < statsFloor {
		t.Errorf("the stats bar is %.0f px tall, want at least %d", bottom-top, statsFloor)
	}
	scroll, ok := bar.(*container.Scroll)
	if !ok {
		t.Fatalf("the stats bar is a %T, want it in a scroll", bar)
	}
	if scroll.Content.Size().Height < bar.Size().Height {
		t.Errorf("the stats' text is %.0f px tall in a bar of %.0f", scroll.Content.Size().Height, bar.Size().Height)
	}
	if text := m.timeline.statsText(); !strings.Contains(text, "\nB: concurrent") {
		t.Errorf("the stats give no verdict for B: %q", text)
	}
	if g := m.timeline.Gantt().Size().Height; g < ganttFloor {
		t.Errorf("Gantt A is %.0f px tall, want at least %d", g, ganttFloor)
	}
}

// TestStatsLineWraps checks that every figure of the stats line is shown
// whole at a narrow width (on more lines) and at a wide one (on one).
func TestStatsLineWraps(t *testing.T) {
	test.NewTempApp(t)
	sum := recorder.Summarize(fixedSnapshot())
	for _, c := range []struct {
		width    float32
		minLines int
		maxLines int
	}{{360, 3, 7}, {1024, 1, 2}, {1600, 1, 1}} {
		s := newStatsBar()
		w := test.NewWindow(s)
		s.setSummary(sum)
		w.Resize(fyne.NewSize(c.width, 400))
		s.Resize(fyne.NewSize(c.width, s.MinSize().Height))
		lines := map[float32]bool{}
		for _, l := range s.numberParts {
			if !l.Visible() {
				continue
			}
			pos := l.Position()
			right := pos.X + l.Size().Width
			if right > c.width || l.Size().Width < l.MinSize().Width {
				t.Errorf("width %v: %q ends at %v or is narrower than its text: cut off", c.width, l.Text, right)
			}
			lines[pos.Y] = true
		}
		if n := len(lines); n < c.minLines || n > c.maxLines {
			t.Errorf("width %v: the figures take %d lines, want %d to %d", c.width, n, c.minLines, c.maxLines)
		}
		if s.MinSize().Height > s.Size().Height+1 {
			t.Errorf("width %v: the bar needs %v high but has %v", c.width, s.MinSize().Height, s.Size().Height)
		}
		w.Close()
	}
}

// TestChartsFollowTheRun: a fan-out, then a load of echo calls on the same
// connection. With the load run picked the concurrency chart draws its
// tool calls in flight (not the server's requests, of which the run has
// none); with the fan-out picked it draws that run's requests; the whole
// session draws both.
func TestChartsFollowTheRun(t *testing.T) {
	loop := newMainLoop(t)
	policy := engine.DefaultAnswerPolicy()
	policy.Latency = engine.LatencyModel{Dist: engine.Fixed, A: 200 * time.Millisecond}
	m := openMainWindow(t, loop, Options{Policy: policy})
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	run := func(w load.Workload, n int) {
		t.Helper()
		m.workload.setWorkload(w)
		m.run()
		loop.waitFor(t, "the run to end and be shown", 30*time.Second, func() bool {
			return !m.workload.Running() && len(m.workload.History()) == n && !m.timeline.provisional()
		})
	}
	run(load.Workload{Tool: "fanout", Args: []byte(`{"n":5,"kind":"sampling"}`)}, 1)
	run(load.Workload{Tool: "slow", Args: []byte(`{"ms":300,"steps":1}`), Calls: 12, Concurrency: 4}, 2)

	chart := m.timeline.chart
	kinds := func() (in, out int) {
		for _, s := range chart.Snapshot().Spans {
			if s.Direction == recorder.Incoming {
				in++
			} else if s.Kind == recorder.KindTool {
				out++
			}
		}
		return
	}
	// the load run (the latest, picked by default)
	if in, calls := kinds(); in != 0 || calls != 12 {
		t.Errorf("with the load run picked the chart holds %d server requests and %d calls, want 0 and 12", in, calls)
	}
	latest := m.timeline.snapshot().LatestRun()
	if inFlight, _ := chart.ValueAt(latest.Start + (latest.End-latest.Start)/2); inFlight < 1 || inFlight > 4 {
		t.Errorf("mid-load the chart says %d in flight, want the load's calls (1 to 4)", inFlight)
	}
	m.timeline.PickRun(m.timeline.snapshot().Runs[0].Label())
	if in, calls := kinds(); in != 5 || calls != 1 {
		t.Errorf("with the fan-out picked the chart holds %d server requests and %d calls, want 5 and 1", in, calls)
	}
	m.timeline.PickRun(wholeSession)
	if in, calls := kinds(); in != 5 || calls != 13 {
		t.Errorf("the whole session's chart holds %d server requests and %d calls, want 5 and 13", in, calls)
	}
}

// TestWholeSessionFoldsIdle: a recording of two fan-outs 40 s apart,
// seen whole, folds the idle time between them (each run drawn at a
// readable width); a single run picked is drawn to scale.
func TestWholeSessionFoldsIdle(t *testing.T) {
	a, b := fanoutSnapshot(5, 5, 500*ms), fanoutSnapshot(5, 1, 500*ms)
	snap := &recorder.Snapshot{Meta: a.Meta, Spans: a.Spans}
	offset := recorder.SpanID(len(a.Spans))
	later := func(d time.Duration) time.Duration {
		if d == recorder.Unset {
			return d
		}
		return d + 40*time.Second
	}
	for _, s := range b.Spans {
		c := *s
		c.ID += offset
		if c.Parent != 0 {
			c.Parent += offset
		}
		c.Received, c.Queued, c.Serving, c.Answered = later(c.Received), later(c.Queued), later(c.Serving), later(c.Answered)
		snap.Spans = append(snap.Spans, &c)
	}
	snap.Runs = []recorder.Run{
		{Name: "Run 1", Start: 0, End: timeline.Extent(a), Tool: "fanout", Dispatch: "concurrent"},
		{Name: "Run 2", Start: 40 * time.Second, End: 40*time.Second + timeline.Extent(b), Tool: "fanout", Dispatch: "serial"},
	}
	snap.Now = snap.Runs[1].End
	m := openSnapshot(t, snap)
	if f := m.timeline.gantt.Folds(); len(f) != 0 {
		t.Errorf("with the latest run picked the Gantt folds %v", f)
	}
	m.timeline.PickRun(wholeSession)
	folds := m.timeline.gantt.Folds()
	if len(folds) != 1 || folds[0][0] < snap.Runs[0].End || folds[0][1] > 40*time.Second || folds[0][1]-folds[0][0] < 30*time.Second {
		t.Fatalf("the whole session folds %v, want the idle stretch between the runs", folds)
	}
	if start, end := m.timeline.gantt.VisibleRange(); start > 0 || end < snap.Runs[1].End {
		t.Errorf("the whole session, fitted, shows %v–%v, want all of it", start, end)
	}
	m.timeline.PickRun(snap.Runs[0].Label())
	if f := m.timeline.gantt.Folds(); len(f) != 0 {
		t.Errorf("with run 1 picked the Gantt still folds %v", f)
	}
}

// TestAnEndedRunShowsItsCall runs one call of three rounds (protocol
// 2026-07-28) in a 1024×700 window, where its rows do not all fit, with
// Follow live on: once it has ended and been fitted, its tool call (the
// row that gives each round's time) is in view, not scrolled off above
// the newest rows.
func TestAnEndedRunShowsItsCall(t *testing.T) {
	loop := newMainLoop(t)
	policy := engine.DefaultAnswerPolicy()
	policy.Latency = engine.LatencyModel{Dist: engine.Fixed, A: 100 * time.Millisecond}
	m := connectedWindow(t, loop, Options{Policy: policy}, windowSizes[0], engine.Target{Protocol: "latest"})
	m.workload.setWorkload(load.Workload{Tool: "fanout", Args: []byte(`{"n":3,"rounds":3,"kind":"sampling"}`)})
	m.policy.dispatch.SetSelected("concurrent")
	m.run()
	loop.waitFor(t, "the run to end and be shown", 15*time.Second, func() bool {
		return !m.workload.Running() && !m.timeline.provisional() && m.timeline.Summary().ToolCalls.Total == 1
	})
	g := m.timeline.Gantt()
	rows, in := g.Rows(), g.RowsInView()
	var shown []string
	call := false
	for _, r := range in {
		shown = append(shown, fmt.Sprintf("%s %s (%v)", r.Span.Method, r.Span.Name, r.Span.Kind))
		call = call || (r.Span.Kind == recorder.KindTool && r.Span.Name == "fanout")
	}
	if len(in) >= len(rows) {
		t.Fatalf("all %d rows are in view: the window is too tall to tell", len(rows))
	}
	if !call {
		t.Errorf("the ended run's tool call is not in view; the rows in view are %q", shown)
	}
}

// TestEndedLoadRunOpensItsChart runs 3,000 echo calls, 50 at once, with
// two thresholds, in a 1024×700 window. Once it has ended its rows are a
// few groups, and the chart of tool calls in flight under them is drawn
// at its full height, or shrunk no more than the groups need: it had
// been shrunk (or folded, "to leave the Gantt its room") to give the
// Gantt a height the groups do not need.
func TestEndedLoadRunOpensItsChart(t *testing.T) {
	loop := newMainLoop(t)
	m := connectedWindow(t, loop, Options{}, windowSizes[0], engine.Target{})
	m.workload.setWorkload(load.Workload{Tool: "echo", Args: []byte(`{"text":"x"}`), Calls: 3000, Concurrency: 50})
	m.workload.thresholds.SetText("call_ms.p95<=50\ntool_calls.failed==0") // a line each under the stats
	m.run()
	loop.waitFor(t, "the load run to end and be shown", 60*time.Second, func() bool {
		return !m.workload.Running() && !m.timeline.provisional() && m.timeline.Summary().ToolCalls.Total == 3000
	})
	m.window.Resize(fyne.NewSize(1024, 701)) // lay everything out for the final stats
	m.window.Resize(windowSizes[0])
	m.window.Canvas().Capture()
	g, c := m.timeline.Gantt(), m.timeline.Chart()
	// (the chart of calls per second shows under it too when the run
	// lasted two seconds: then both may shrink, but only as far as the
	// Gantt's rows need)
	if !c.Visible() || (c.Size().Height < c.MinSize().Height && g.Size().Height > g.RowsHeight()+1) {
		t.Errorf("the chart of tool calls is drawn %.0f px tall (shown %v), not its %.0f, beside a Gantt of %.0f px whose rows need %.0f",
			c.Size().Height, c.Visible(), c.MinSize().Height, g.Size().Height, g.RowsHeight())
	}
	if h := g.Size().Height; h < g.RowsHeight() {
		t.Errorf("the Gantt is %.0f px tall: its rows need %.0f", h, g.RowsHeight())
	}
}

// TestComparedPanesShowTheirCalls compares two fan-outs recorded as a
// connection records them (initialize, logging/setLevel and tools/list,
// then the tool call in a run of its own) at 1024×700, where neither
// pane has room for all its rows: both Gantts are as tall as each other
// (the overview is over both), and each shows its run's tool call at
// the top, so that the two calls are side by side.
func TestComparedPanesShowTheirCalls(t *testing.T) {
	dir := t.TempDir()
	a, b := dir+"/serial.json", dir+"/concurrent.json"
	for path, snap := range map[string]*recorder.Snapshot{a: withSetUp(fanoutSnapshot(5, 1, 300*ms)), b: withSetUp(fanoutSnapshot(5, 5, 300*ms))} {
		if err := recorder.SaveFile(path, snap); err != nil {
			t.Fatal(err)
		}
	}
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{Open: a, Compare: b})
	m.window.Resize(windowSizes[0])
	m.Start()
	m.window.Canvas().Capture()
	for name, g := range map[string]*timeline.Gantt{"A": m.timeline.Gantt(), "B": m.timeline.cmpGantt} {
		in := g.RowsInView()
		if len(in) == 0 || len(in) >= len(g.Rows()) {
			t.Fatalf("pane %s shows %d of its %d rows: the window does not tell", name, len(in), len(g.Rows()))
		}
		if first := in[0].Span; first.Kind != recorder.KindTool {
			t.Errorf("pane %s's first row in view is %s, want its run's tool call", name, first.Method)
		}
	}
	if ha, hb := m.timeline.Gantt().Size().Height, m.timeline.cmpGantt.Size().Height; ha < hb-1 || ha > hb+1 {
		t.Errorf("Gantt A is %.0f px tall, B %.0f: want them alike", ha, hb)
	}
}

// withSetUp is snap, one tool call, as a connection records it: its
// initialize, logging/setLevel and tools/list first, then the call in a
// run of its own.
func withSetUp(snap *recorder.Snapshot) *recorder.Snapshot {
	moved := shifted(snap, 10*ms)
	out := *moved
	out.Spans = nil
	for i, m := range []string{"initialize", "logging/setLevel", "tools/list"} {
		at := time.Duration(i) * 2 * ms
		out.Spans = append(out.Spans, &recorder.Span{ID: recorder.SpanID(i + 1), Direction: recorder.Outgoing, Method: m, Kind: recorder.KindOther,
			Received: at, Queued: at, Serving: at, Answered: at + ms, Status: recorder.StatusOK})
	}
	for _, s := range moved.Spans {
		c := *s
		c.ID += 3
		if c.Parent != 0 {
			c.Parent += 3
		}
		out.Spans = append(out.Spans, &c)
	}
	out.Runs = []recorder.Run{{Name: "Run 1", Start: 8 * ms, End: out.Now, Tool: "fanout"}}
	return &out
}
