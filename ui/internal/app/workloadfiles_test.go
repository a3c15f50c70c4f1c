package app

import (
	"cmp"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/internal/workloadfile"
)

var updateWorkload = flag.Bool("update-workload", false, "rewrite testdata/panel_saved.toml from what the Workload panel saves")

// initDemoFile is what `inspector init --demo` writes (cmd/inspector's
// TestPanelWorkloadFiles checks it still is).
const initDemoFile = "testdata/init_demo.toml"

// TestWorkloadFileOpenEditSave: the file inspector init writes opens in
// the Workload panel, its operations, shape and thresholds shown; an edit
// marks the file unsaved; Save as writes a private file that reads back
// into the panel as it was (file → panel → file → panel), and Save writes
// the edits to the same file.
func TestWorkloadFileOpenEditSave(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	p := m.workload

	m.openWorkloadFile(initDemoFile)
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Fatalf("opening init's file: %q", errs)
	}
	f, err := workloadfile.Read(initDemoFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.mixRows) != len(f.Operations) {
		t.Fatalf("the panel shows %d operations, want the file's %d", len(p.mixRows), len(f.Operations))
	}
	for i, op := range f.Operations {
		r := p.mixRows[i]
		if r.method.Selected != op.Method || r.name.Text != op.Name || r.weight.Text != "1" {
			t.Errorf("row %d shows %s %s weight %s, want %s %s weight 1", i, r.method.Selected, r.name.Text, r.weight.Text, op.Method, op.Name)
		}
	}
	if p.calls.Text != "50" || p.concurrency.Text != "5" {
		t.Errorf("Calls %q, At once %q: want init's 50 and 5", p.calls.Text, p.concurrency.Text)
	}
	if got := p.FileName(); got != "init_demo.toml" {
		t.Errorf("file name shown %q, want init_demo.toml with no unsaved mark", got)
	}

	// An edit marks the file; a row's args as typed.
	typeInto(p.mixRows[0].weight, "70")
	typeInto(p.thresholds, "tool_calls.failed==0\noperations.0.failed==0")
	if got := p.FileName(); got != "init_demo.toml"+unsavedMark {
		t.Errorf("after an edit the file name shows %q, want the unsaved mark", got)
	}

	dir := t.TempDir()
	saved := filepath.Join(dir, "mix.toml")
	m.saveWorkloadTo(saved)
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Fatalf("saving: %q", errs)
	}
	if st, err := os.Stat(saved); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the saved file: %v, mode %v: want 0600", err, st.Mode().Perm())
	}
	if got := m.shownNotices(); len(got) != 1 || got[0] != "Saved to "+saved {
		t.Errorf("notices %q, want \"Saved to %s\"", got, saved)
	}
	if got := p.FileName(); got != "mix.toml" {
		t.Errorf("after saving the file name shows %q, want mix.toml unmarked", got)
	}
	first, _ := os.ReadFile(saved)
	back, err := workloadfile.Parse(saved, first)
	if err != nil {
		t.Fatalf("the saved file does not read back: %v\n%s", err, first)
	}
	if back.Operations[0].Weight != 70 || back.Load.Calls != 50 || len(back.Thresholds) != 2 || back.Thresholds[1] != "operations.0.failed==0" {
		t.Errorf("the saved file holds weight %v, calls %d, thresholds %q: want the edits\n%s", back.Operations[0].Weight, back.Load.Calls, back.Thresholds, first)
	}

	// file → panel → file: the same text.
	typeInto(p.calls, "3")
	m.openWorkloadFile(saved)
	if p.calls.Text != "50" {
		t.Errorf("reopened, Calls shows %q, want the file's 50", p.calls.Text)
	}
	again := filepath.Join(dir, "again.toml")
	m.saveWorkloadTo(again)
	second, _ := os.ReadFile(again)
	if string(second) != string(first) {
		t.Errorf("saved after reopening:\n%s\nwant the file opened:\n%s", second, first)
	}

	// Save writes to the file shown, which keeps its own permission.
	os.Chmod(again, 0o640)
	typeInto(p.concurrency, "9")
	test.Tap(p.saveFile)
	if got, _ := workloadfile.Read(again); got == nil || got.Load.Concurrency != 9 {
		t.Errorf("Save did not write the edit to %s", again)
	}
	if st, _ := os.Stat(again); st.Mode().Perm() != 0o640 {
		t.Errorf("Save changed the file's mode to %v", st.Mode().Perm())
	}
	if *updateWorkload {
		os.WriteFile("testdata/panel_saved.toml", first, 0o644)
	}
	if golden, err := os.ReadFile("testdata/panel_saved.toml"); err != nil || string(golden) != string(first) {
		t.Errorf("the file saved differs from testdata/panel_saved.toml (which cmd/inspector runs with run --workload); rerun with -update-workload if the change is meant: %v", err)
	}
}

// TestWorkloadFileBad: a file that cannot run is refused with the line
// at fault, and the panel keeps what it held.
func TestWorkloadFileBad(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	p := m.workload
	m.openWorkloadFile(initDemoFile)
	rows := len(p.mixRows)

	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"syntax.toml", "[load\ncalls = 5\n", "syntax.toml:2: "},
		{"weight.toml", "[[operations]]\nmethod = \"tools/call\"\nname = \"echo\"\nweight = 0\n", "weight.toml:4: operation 0 (tools/call echo): weight"},
		{"sessions.toml", "[load]\nsessions = 500\n[[operations]]\nmethod = \"tools/call\"\nname = \"echo\"\nweight = 1\n", "sessions.toml:2: load.sessions 500: the app spreads a run over at most"},
		{"missing.toml", "", "cannot read"},
	} {
		path := filepath.Join(dir, tc.name)
		if tc.text != "" {
			os.WriteFile(path, []byte(tc.text), 0o600)
		}
		before := len(m.errors.Shown())
		m.openWorkloadFile(path)
		errs := m.errors.Shown()
		if len(errs) != before+1 || !strings.Contains(errs[len(errs)-1], tc.want) {
			t.Errorf("%s: errors shown %q, want one with %q", tc.name, errs[before:], tc.want)
		}
		if len(p.mixRows) != rows || p.FileName() != "init_demo.toml" {
			t.Errorf("%s: the panel now has %d operations and file %q; want the %d and the file it had", tc.name, len(p.mixRows), p.FileName(), rows)
		}
	}
}

// TestWorkloadMixRunFromPanel: a person adds two operations in the
// Workload panel, tools/call echo 70 and resources/read demo://readme
// 30, and runs 200 calls against the demo server: each operation's
// calls, all ok, are shown after the run with their percentiles, and the
// run is named as a mix in the history. The demo server is in process,
// then over streamable HTTP.
func TestWorkloadMixRunFromPanel(t *testing.T) {
	srv := httptest.NewServer(demo.NewHTTPHandler())
	t.Cleanup(srv.Close)
	for _, target := range []engine.Target{{}, {Transport: engine.TransportHTTP, URL: srv.URL + "/mcp"}} {
		t.Run(cmp.Or(string(target.Transport), "demo in process"), func(t *testing.T) { testMixRunFromPanel(t, target) })
	}
}

func testMixRunFromPanel(t *testing.T, target engine.Target) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	p := m.workload
	m.connect(target)
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(p.tool.Options) > 0 })

	p.tool.SetSelected("echo")
	test.Tap(p.addOp)
	test.Tap(p.addOp)
	test.Tap(p.addOp)
	if len(p.mixRows) != 3 {
		t.Fatalf("%d rows after three taps on Add operation, want 3", len(p.mixRows))
	}
	test.Tap(p.mixRows[2].remove)
	if len(p.mixRows) != 2 {
		t.Fatalf("%d rows after removing one, want 2", len(p.mixRows))
	}
	loop.waitFor(t, "the server's resources offered as names", 15*time.Second, func() bool {
		return len(p.mixNames[engine.MethodReadResource]) > 0
	})
	typeInto(p.mixRows[0].args, `{"text":"hi"}`)
	typeInto(p.mixRows[0].weight, "70")
	p.mixRows[1].method.SetSelected(engine.MethodReadResource)
	if opts := p.mixRows[1].offered; len(opts) == 0 || !strings.Contains(strings.Join(opts, " "), "demo://readme") {
		t.Errorf("a read's names offered %q, want the server's resources", opts)
	}
	typeInto(p.mixRows[1].name, "demo://readme")
	typeInto(p.mixRows[1].weight, "30")
	typeInto(p.calls, "200")
	typeInto(p.concurrency, "8")

	test.Tap(p.runButton)
	loop.waitFor(t, "the mix run to end", 30*time.Second, func() bool {
		return !p.Running() && len(p.History()) == 1
	})
	ops := p.lastOps
	if len(ops) != 2 {
		t.Fatalf("%d operations after the run, want 2; status %q", len(ops), p.Status())
	}
	if ops[0].Total+ops[1].Total != 200 || ops[0].OK != ops[0].Total || ops[1].OK != ops[1].Total {
		t.Errorf("operations %+v: want 200 calls in all, every one ok", ops)
	}
	if ops[0].Total < 110 || ops[0].Total > 170 {
		t.Errorf("echo was picked %d times of 200, want about 140 (weight 70 of 100)", ops[0].Total)
	}
	if ops[0].CallMS.P50 <= 0 || ops[0].CallMS.P95 < ops[0].CallMS.P50 {
		t.Errorf("echo's times p50 %v p95 %v: want measured times", ops[0].CallMS.P50, ops[0].CallMS.P95)
	}
	table := p.OperationsText()
	t.Logf("the panel's operations table:\n%s", table)
	for _, want := range []string{fmt.Sprintf("0 · tools/call echo: %d calls, %[1]d ok, 0 failed · p50 ", ops[0].Total), " ms · p95 ",
		fmt.Sprintf("1 · resources/read demo://readme: %d calls, %[1]d ok, 0 failed", ops[1].Total)} {
		if !strings.Contains(table, want) {
			t.Errorf("the operations table %q lacks %q", table, want)
		}
	}
	if row := p.History()[0].text.Text; !strings.Contains(row, "mix of 2 operations") {
		t.Errorf("the history row %q does not name the mix", row)
	}
}

// TestWorkloadMixErrors: what the panel cannot run says which operation
// and field to fix.
func TestWorkloadMixErrors(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	p := m.workload
	test.Tap(p.addOp)
	r := p.mixRows[0]
	for _, tc := range []struct{ method, name, weight, args, want string }{
		{engine.MethodCallTool, "", "1", "", "Mix, operation 1 (tools/call (none)): name"},
		{engine.MethodCallTool, "echo", "abc", "", `weight: want a number above 0, as in 70, not "abc"`},
		{engine.MethodCallTool, "echo", "-2", "", "weight: -2: want a number above 0"},
		{engine.MethodCallTool, "echo", "1", "{", "args: not JSON"},
		{engine.MethodReadResource, "demo://readme", "1", `{"a":1}`, "a resource read takes no arguments"},
	} {
		r.method.SetSelected(tc.method)
		typeInto(r.name, tc.name)
		typeInto(r.weight, tc.weight)
		typeInto(r.args, tc.args)
		test.Tap(p.runButton)
		if got := p.problem.Text; !strings.Contains(got, tc.want) || p.problem.Hidden {
			t.Errorf("%s %q weight %q args %q: the panel says %q, want %q", tc.method, tc.name, tc.weight, tc.args, got, tc.want)
		}
	}
}

// TestGUIWorkloadOption: Options.WorkloadFile opens the file in the
// panel at start, before the connection is made; once it is, the rows
// offer the server's names.
func TestGUIWorkloadOption(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{WorkloadFile: initDemoFile, Connect: true})
	m.Start()
	if got := m.workload.FileName(); got != "init_demo.toml" || len(m.workload.mixRows) == 0 {
		t.Fatalf("at start the panel shows file %q with %d operations, want init_demo.toml and its mix", got, len(m.workload.mixRows))
	}
	var read, call *mixRow
	for _, r := range m.workload.mixRows {
		switch r.method.Selected {
		case engine.MethodReadResource:
			read = r
		case engine.MethodCallTool:
			call = r
		}
	}
	loop.waitFor(t, "the server's names offered in the rows", 15*time.Second, func() bool {
		return strings.Contains(strings.Join(read.offered, " "), "demo://readme") && strings.Contains(strings.Join(call.offered, " "), "echo")
	})
}

// TestWorkloadMixThresholds: a threshold on an operation is refused
// while the mix has no such row, and taken once the row is added.
func TestWorkloadMixThresholds(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	p := m.workload
	test.Tap(p.addOp)
	typeInto(p.thresholds, "operations.1.failed==0")
	if p.thresholdsProblem.Hidden || !strings.Contains(p.thresholdsProblem.Text, "N from 0 to 0") {
		t.Errorf("with one row, operations.1 shows %q, want it refused", p.thresholdsProblem.Text)
	}
	test.Tap(p.addOp)
	if !p.thresholdsProblem.Hidden {
		t.Errorf("with two rows, operations.1 still shows %q", p.thresholdsProblem.Text)
	}
}
