package ui

import (
	"fyne.io/fyne/v2"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/internal/workloadfile"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/app"
)

// MaxSessions is the most sessions one run of the app may spread its
// calls over.
const MaxSessions = app.MaxSessions

// CheckWorkloadFile says whether the app can run the workload file f as
// the Workload panel would open it: its load, mix and thresholds valid
// and its sessions at most [MaxSessions]. The error names the line at
// fault.
func CheckWorkloadFile(f *workloadfile.File) error {
	_, _, err := app.CheckWorkloadFile(f)
	return err
}

// TabNames are the panels' tabs, in their order: what [Options.Tab] may
// name.
var TabNames = app.TabNames

// FirstRunLatency is the latency the desktop app answers with when the
// command line names none: long enough that serial and concurrent
// dispatch look and measure different at a glance (the README's 500 ms
// demo). `inspector run` keeps its own default of 0.
var FirstRunLatency = app.FirstRunLatency

// Options say what the main window does at start.
type Options struct {
	// Target is the server to connect to; the zero value is the demo server.
	Target engine.Target
	// Policy answers the server's requests; use [engine.DefaultAnswerPolicy]
	// when there is nothing better.
	Policy engine.AnswerPolicy
	// Workload presets the Workload panel (its tool is chosen once the
	// server lists it).
	Workload load.Workload
	// Sessions presets how many sessions a run spreads its calls over
	// (0 or 1: the connection alone).
	Sessions int
	// Connect connects to Target as soon as the window is up.
	Connect bool
	// AutoRun runs the workload once, as soon as the tools are listed.
	AutoRun bool
	// AutoRunAgain, after that run, runs the workload once more on the
	// same connection with this dispatch ("serial", "concurrent"): two
	// runs of one session, for smoke tests.
	AutoRunAgain string
	// Open is a recording or journal to show at once ("" for none).
	Open string
	// Compare is a recording to show under Open's (or the live one), on
	// the same time scale, with both verdicts ("" for none).
	Compare string
	// Follow is a journal to follow as it grows ("" for none).
	Follow string
	// WindowSize is the window's size at start; the zero value is 1400×900,
	// made smaller to fit Screen.
	WindowSize fyne.Size
	// Screen returns the room the screen gives a window (its work area,
	// in Fyne's units), or the zero size when it cannot be known; nil
	// means unknown. It is asked once the window exists.
	Screen func() fyne.Size
	// Icon is the window's icon (nil for Fyne's).
	Icon fyne.Resource
	// Version is the inspector's version, written into recordings.
	Version string
	// OnRecording is handed each live recording as its connection is
	// made or the hosted proxy starts; the function it returns is called
	// when the connection or proxy closes.
	OnRecording func(*recorder.Recording) func()
	// Thresholds preset the Workload panel's thresholds: checks on the
	// figures of each run, shown passed or failed ([recorder.Assertion],
	// as --assert).
	Thresholds []recorder.Assertion
	// WorkloadFile is a workload file (TOML, as inspector run --workload
	// takes) to open in the Workload panel at start ("" for none).
	WorkloadFile string
	// Tab is the panel shown at start, one of [TabNames] in any case
	// ("" for Workload, where Run is).
	Tab string
	// MaxSpans caps the spans a connection's recording keeps
	// ([recorder.Recording.SetMaxSpans]); 0 keeps every span.
	MaxSpans int
}

// MainWindow is Fanout Inspector's window. Its methods are called on
// Fyne's main goroutine, or after the app's main loop ended.
type MainWindow struct {
	m *app.MainWindow
}

// NewMainWindow builds the main window of a (not shown yet: call
// [MainWindow.Start], then [MainWindow.Run]).
func NewMainWindow(a fyne.App, o Options) *MainWindow {
	m := app.NewMainWindow(a, app.Options{
		Target:       o.Target,
		Policy:       o.Policy,
		Workload:     o.Workload,
		Sessions:     o.Sessions,
		Connect:      o.Connect,
		AutoRun:      o.AutoRun,
		AutoRunAgain: o.AutoRunAgain,
		Open:         o.Open,
		Compare:      o.Compare,
		Follow:       o.Follow,
		WindowSize:   o.WindowSize,
		Screen:       o.Screen,
		Icon:         o.Icon,
		Version:      o.Version,
		OnRecording:  o.OnRecording,
		Thresholds:   o.Thresholds,
		WorkloadFile: o.WorkloadFile,
		Tab:          o.Tab,
		MaxSpans:     &o.MaxSpans,
	})
	return &MainWindow{m: m}
}

// Start does what the options ask for at start: open a file, follow a
// journal, connect (and then maybe run). It returns at once.
func (w *MainWindow) Start() { w.m.Start() }

// Run shows the window as the app's master window (closing it quits the
// app) and runs Fyne's main loop until the app quits.
func (w *MainWindow) Run() { w.m.ShowAndRun() }

// Quit ends the connection (so that its journal ends cleanly), then quits
// the app.
func (w *MainWindow) Quit() { w.m.Quit() }

// Close stops the live view and closes the connection, so that its
// journal ends cleanly. Call it after the app quit (quitting does not
// always close windows); calling it again does nothing.
func (w *MainWindow) Close() { w.m.Close() }

// FramesDrawn returns how many frames the timeline has drawn; sample it
// twice during a live run to measure frames per second.
func (w *MainWindow) FramesDrawn() int64 { return w.m.FramesDrawn() }

// Stats is what the window's statistics describe.
type Stats struct {
	// Runs are the run picker's choices and Run the chosen one (none
	// while the recording has no runs).
	Runs []string
	Run  string
	// Summary holds the figures and the verdict shown.
	Summary recorder.Summary
	// Provisional is true when the verdict is of a run still going.
	Provisional bool
}

// Stats returns what the statistics describe and their figures.
func (w *MainWindow) Stats() Stats {
	var s Stats
	s.Runs, s.Run, s.Summary, s.Provisional = w.m.Stats()
	return s
}

// Follow is how following a journal went.
type Follow struct {
	// Path is the journal followed; State is how following it goes (as
	// the window's title says it, "the journal ended" once it did).
	Path, State string
	// EndedSpansSeen is the number of ended spans (answered, failed,
	// aborted) of each frame drawn that had a different number than the
	// frame before.
	EndedSpansSeen []int
}

// Following returns how following a journal went; ok is false when the
// window follows none.
func (w *MainWindow) Following() (f Follow, ok bool) {
	path, note, seen := w.m.Following()
	if path == "" {
		return Follow{}, false
	}
	return Follow{Path: path, State: note, EndedSpansSeen: seen}, true
}
