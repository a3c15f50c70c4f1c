package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/internal/workloadfile"
)

// shownDialog is what the window's top dialog shows: its texts and its
// buttons by label (nil when no dialog is open).
type shownDialog struct {
	texts   []string
	buttons map[string]*widget.Button
}

func topDialog(m *MainWindow) *shownDialog {
	top := m.window.Canvas().Overlays().Top()
	if top == nil {
		return nil
	}
	d := &shownDialog{buttons: map[string]*widget.Button{}}
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Button:
			d.buttons[v.Text] = v
		case *widget.Label:
			d.texts = append(d.texts, v.Text)
		case *canvas.Text:
			d.texts = append(d.texts, v.Text)
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	walk(top)
	return d
}

// says reports whether one of the dialog's texts holds s.
func (d *shownDialog) says(s string) bool {
	return slices.ContainsFunc(d.texts, func(t string) bool { return strings.Contains(t, s) })
}

// answer taps the dialog's button labelled label, which must be there
// with Save and Discard and Cancel.
func (d *shownDialog) answer(t *testing.T, label string) {
	t.Helper()
	for _, want := range []string{"Save", "Discard", "Cancel"} {
		if d.buttons[want] == nil {
			t.Fatalf("the dialog has no %s button: buttons %v, texts %q", want, keys(d.buttons), d.texts)
		}
	}
	test.Tap(d.buttons[label])
}

func keys(m map[string]*widget.Button) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// callsIn returns the load.calls of the workload file at path.
func callsIn(t *testing.T, path string) int {
	t.Helper()
	f, err := workloadfile.Read(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return f.Load.Calls
}

// twoWorkloadFiles opens inspector init's file as first.toml in a
// temporary directory, saves it with 7 calls as second.toml, and opens
// first.toml again, unedited.
func twoWorkloadFiles(t *testing.T, m *MainWindow) (first, second string) {
	t.Helper()
	dir := t.TempDir()
	first, second = filepath.Join(dir, "first.toml"), filepath.Join(dir, "second.toml")
	b, err := os.ReadFile(initDemoFile)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(first, b, 0o600)
	m.openWorkloadFile(first)
	typeInto(m.workload.calls, "7")
	m.saveWorkloadTo(second)
	m.openWorkloadAsked(first) // second.toml is saved: no question
	if d := topDialog(m); d != nil {
		t.Fatalf("opening a file over a saved one asked: %q", d.texts)
	}
	if m.workload.calls.Text != "50" || m.workload.FileName() != "first.toml" {
		t.Fatalf("first.toml shows Calls %q, file %q: want 50 and first.toml unmarked", m.workload.calls.Text, m.workload.FileName())
	}
	return first, second
}

// TestWorkloadUnsavedOpenAsks: opening another workload file while the
// panel holds unsaved edits asks first. Cancel keeps the edits and the
// file shown; Discard opens the other file and leaves the first as it was
// on disk; Save writes the edits to the first file, then opens the other.
// A Save that cannot write (a field that is not a number) shows why and
// opens nothing.
func TestWorkloadUnsavedOpenAsks(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	p := m.workload
	first, second := twoWorkloadFiles(t, m)

	typeInto(p.calls, "33")
	m.openWorkloadAsked(second)
	d := topDialog(m)
	if d == nil {
		t.Fatal("opening a file over unsaved edits did not ask")
	}
	if !d.says("Save changes to first.toml?") || !d.says("Opening second.toml loses them") {
		t.Errorf("the question shows %q: want it to name first.toml and what opening second.toml does", d.texts)
	}
	d.answer(t, "Cancel")
	if topDialog(m) != nil {
		t.Error("Cancel left the dialog open")
	}
	if p.calls.Text != "33" || p.FileName() != "first.toml"+unsavedMark {
		t.Errorf("after Cancel: Calls %q, file %q; want the edit 33 and first.toml marked unsaved", p.calls.Text, p.FileName())
	}

	m.openWorkloadAsked(second)
	topDialog(m).answer(t, "Discard")
	if p.calls.Text != "7" || p.FileName() != "second.toml" {
		t.Errorf("after Discard: Calls %q, file %q; want second.toml's 7", p.calls.Text, p.FileName())
	}
	if got := callsIn(t, first); got != 50 {
		t.Errorf("Discard wrote first.toml: calls %d, want 50", got)
	}

	m.openWorkloadAsked(first) // second.toml unedited: no question
	typeInto(p.calls, "44")
	m.openWorkloadAsked(second)
	topDialog(m).answer(t, "Save")
	if got := callsIn(t, first); got != 44 {
		t.Errorf("Save: first.toml holds calls %d, want the edit 44", got)
	}
	if p.calls.Text != "7" || p.FileName() != "second.toml" {
		t.Errorf("after Save: Calls %q, file %q; want second.toml opened", p.calls.Text, p.FileName())
	}
	if n := m.shownNotices(); len(n) == 0 || n[len(n)-1] != "Saved to "+first {
		t.Errorf("notices %q, want the last to say Saved to %s", n, first)
	}
	if errs := m.errors.Shown(); len(errs) > 0 {
		t.Fatalf("errors shown: %q", errs)
	}

	typeInto(p.calls, "many")
	m.openWorkloadAsked(first)
	topDialog(m).answer(t, "Save")
	errs := m.errors.Shown()
	if len(errs) != 1 || !strings.Contains(errs[0], "Saving the workload to second.toml") || !strings.Contains(errs[0], "calls") {
		t.Errorf("a Save that cannot write showed %q; want one error naming second.toml and the Calls field", errs)
	}
	if p.calls.Text != "many" || !strings.HasPrefix(p.FileName(), "second.toml") {
		t.Errorf("after a failed Save: Calls %q, file %q; want the panel as it was", p.calls.Text, p.FileName())
	}
	if got := callsIn(t, second); got != 7 {
		t.Errorf("a failed Save changed second.toml: calls %d", got)
	}
}

// TestWorkloadUnsavedQuitAsks: a person closing the window, or choosing
// File > Quit, with unsaved workload edits is asked first; Cancel keeps
// the window open, Discard and Save quit (Save after writing the file).
// Quitting by itself (--exit-after, a signal: Quit) never asks, nor does
// a close with nothing unsaved.
func TestWorkloadUnsavedQuitAsks(t *testing.T) {
	cases := []struct {
		name   string
		edit   bool
		quit   func(t *testing.T, m *MainWindow)
		answer string // "" for no question
		calls  int    // first.toml's calls after quitting
	}{
		{"window closed, Cancel then Discard", true, func(t *testing.T, m *MainWindow) {
			m.closeAsked()
			d := topDialog(m)
			if d == nil || !d.says("Quitting loses them") {
				t.Fatalf("closing the window with unsaved edits showed %v", d)
			}
			d.answer(t, "Cancel")
			if m.gate.Closed() || topDialog(m) != nil {
				t.Fatal("Cancel closed the window, or left the question open")
			}
			m.closeAsked()
		}, "Discard", 50},
		{"File > Quit, Save", true, func(t *testing.T, m *MainWindow) { quitItem(t, m).Action() }, "Save", 12},
		{"Quit by itself (--exit-after, a signal)", true, func(t *testing.T, m *MainWindow) { m.Quit() }, "", 50},
		{"window closed, nothing unsaved", false, func(t *testing.T, m *MainWindow) { m.closeAsked() }, "", 50},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loop := newMainLoop(t)
			m := openMainWindow(t, loop, Options{})
			first, _ := twoWorkloadFiles(t, m)
			if tc.edit {
				typeInto(m.workload.calls, "12")
			}
			tc.quit(t, m)
			d := topDialog(m)
			switch {
			case tc.answer == "" && d != nil:
				t.Fatalf("quitting asked %q, want no question", d.texts)
			case tc.answer != "" && d == nil:
				t.Fatal("quitting with unsaved edits did not ask")
			case tc.answer != "":
				if !d.says("Save changes to first.toml?") {
					t.Errorf("the question shows %q", d.texts)
				}
				d.answer(t, tc.answer)
			}
			if !m.gate.Closed() {
				t.Error("the app did not quit")
			}
			if got := callsIn(t, first); got != tc.calls {
				t.Errorf("first.toml holds calls %d after quitting, want %d", got, tc.calls)
			}
		})
	}
}

// TestWorkloadArgsGreyedByMix: while the Mix has operations the Tool's
// arguments are greyed out, with a note that says why (Run runs the mix
// and does not send them), whether shown as the form, as raw JSON, or
// for a tool chosen afterwards; typing into them changes nothing. With
// the last operation removed they are enabled again.
func TestWorkloadArgsGreyedByMix(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	p := m.workload
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(p.tool.Options) > 0 })
	p.tool.SetSelected("echo")

	inputs := func() map[string]fyne.Disableable {
		in := map[string]fyne.Disableable{"Raw JSON": p.rawJSON, "the raw entry": p.raw}
		if p.form == nil {
			t.Fatalf("%s has no form", p.tool.Selected)
		}
		for _, f := range p.form.Fields() {
			in["field "+f.name] = f.Input().(fyne.Disableable)
		}
		return in
	}
	expect := func(when string, greyed bool) {
		t.Helper()
		for name, in := range inputs() {
			if in.Disabled() != greyed {
				t.Errorf("%s: %s disabled %v, want %v", when, name, in.Disabled(), greyed)
			}
		}
		if p.argsNote.Visible() != greyed {
			t.Errorf("%s: the note on the arguments shown %v, want %v", when, p.argsNote.Visible(), greyed)
		}
	}
	expect("no operations", false)
	text := p.form.Field("text").Entry
	typeInto(text, "hello")

	test.Tap(p.addOp)
	expect("one operation", true)
	if !strings.Contains(p.argsNote.Text, "Not sent while the Mix below has operations") {
		t.Errorf("the note says %q", p.argsNote.Text)
	}
	test.Type(text, " more")
	if text.Text != "hello" {
		t.Errorf("typing into a greyed field changed it to %q", text.Text)
	}
	if got := string(p.mixRows[0].args.Text); !strings.Contains(got, "hello") {
		t.Errorf("the operation added took args %q, want the Tool's arguments", got)
	}

	p.tool.SetSelected("fanout") // a new form, made while the mix has rows
	expect("another tool chosen", true)
	p.rawJSON.SetChecked(true)
	expect("raw JSON shown", true)

	test.Tap(p.mixRows[0].remove)
	expect("the operation removed", false)

	m.openWorkloadFile(initDemoFile) // a file's mix
	expect("a workload file opened", true)
}

// TestWorkloadUnsavedLook pins what a person sees when opening another
// file over unsaved edits of a file with a mix: the question, with Save,
// Discard and Cancel, over the Workload panel whose Tool arguments are
// greyed out under their note (docs/load/workload-unsaved.png is this
// picture).
func TestWorkloadUnsavedLook(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{WindowSize: fyne.NewSize(1024, 700)})
	m.panes.setRight(false)
	dir := t.TempDir()
	b, err := os.ReadFile(initDemoFile)
	if err != nil {
		t.Fatal(err)
	}
	mix := filepath.Join(dir, "mix.toml")
	os.WriteFile(mix, b, 0o600)
	m.openWorkloadFile(mix)
	m.workload.calls.SetText("200")
	m.openWorkloadAsked(filepath.Join(dir, "other.toml"))
	if topDialog(m) == nil {
		t.Fatal("no question")
	}
	// The desktop driver lays out again, each frame, what grew (the Mix
	// of eight rows); the test canvas does not: ask for it here.
	m.workload.below.Refresh()
	assertImage(t, "workload_unsaved.png", m.window.Canvas().Capture())
}
