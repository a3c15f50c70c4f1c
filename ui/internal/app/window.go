package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// connectTimeout bounds how long listing the tools may take before the
// attempt is given up with an error. (Connecting has its own timeout,
// [engine.Limits.ConnectTimeout].)
const connectTimeout = 30 * time.Second

// Options are what the main window starts with, usually from the command
// line.
type Options struct {
	// Target is the server to connect to; the zero value is the demo server.
	Target engine.Target
	// Policy answers the server's requests; use [engine.DefaultAnswerPolicy]
	// when there is nothing better.
	Policy engine.AnswerPolicy
	// Workload presets the Workload panel (its tool is chosen once the
	// server lists it).
	Workload engine.Workload
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
	// Follow is a journal to follow as it grows ("" for none): see
	// [MainWindow.FollowFile].
	Follow string
	// Icon is the window's icon (nil for Fyne's).
	Icon fyne.Resource
	// Version is the inspector's version, written into recordings.
	Version string
	// OnRecording is handed each live recording as its connection is
	// made or the hosted proxy starts; the function it returns is called
	// when the connection or proxy closes ([Bridge.OnRecording]).
	OnRecording func(*recorder.Recording) func()
	// JournalDir is where live runs are journaled; nil means
	// [recorder.DefaultJournalDir], "" turns journaling off.
	JournalDir *string
	// SettingsFile keeps the recent connections and the last folder; nil
	// means [DefaultSettingsFile], "" keeps them in memory only.
	SettingsFile *string
	// MaxSpans caps the spans a connection's recording keeps; nil means
	// [recorder.DefaultMaxSpans], 0 keeps every span.
	MaxSpans *int
}

// MainWindow is Fanout Inspector's window: the panels on the left
// (Server, Callbacks, Workload, Manual, Log), the [TimelineView] on
// the right, and the File, Run and View menus. Its methods are called on
// Fyne's main goroutine; the work that blocks (connecting, running)
// happens in goroutines that report back through fyne.Do.
type MainWindow struct {
	// App and Window are the Fyne app and the window; Bridge talks to the
	// engine; Errors shows every error.
	App    fyne.App
	Window fyne.Window
	Bridge *Bridge
	Errors *ErrorReporter
	// Settings is what the window remembers between starts.
	Settings *Settings

	// The panels and the timeline; Tabs holds the panels.
	Connection *ConnectionPanel
	Policy     *PolicyPanel
	Workload   *WorkloadPanel
	Manual     *ManualPanel
	Log        *LogView
	Timeline   *TimelineView
	Tabs       *container.AppTabs

	opts       Options
	panes      *sidePanes // the panels, the timeline and the details
	manualTab  *container.TabItem
	opened     string             // base name of the file shown, "" when live
	following  string             // the journal followed (path), "" when none
	followNote string             // how following it goes, for the title
	compare    *recorder.Snapshot // the recording shown for comparison
	connecting bool               // a Connect is under way: ignore the old session's end
	stopping   bool               // the person pressed Stop
	autoRan    bool
	ranAgain   bool // the run of Options.AutoRunAgain began
	live       *recorder.Recording
	proxy      *hostedProxy // the HTTP proxy the window hosts, nil when none
	closeOnce  sync.Once
	stopped    atomic.Bool // Close began: background work no longer reaches the widgets
}

// NewMainWindow builds the main window of app a (not shown yet: call
// [MainWindow.Start], then [MainWindow.ShowAndRun]; tests show its window).
func NewMainWindow(a fyne.App, opts Options) *MainWindow {
	w := a.NewWindow("Fanout Inspector")
	m := &MainWindow{App: a, Window: w, opts: opts}
	if opts.Icon != nil {
		w.SetIcon(opts.Icon)
	}
	m.Errors = NewErrorReporter(w)
	m.Bridge = NewBridge(opts.Policy)
	m.Bridge.Inspector = opts.Version
	m.Bridge.OnRecording = opts.OnRecording
	if opts.JournalDir != nil {
		m.Bridge.JournalDir = *opts.JournalDir
	}
	if opts.MaxSpans != nil {
		m.Bridge.MaxSpans = *opts.MaxSpans
	}

	settings := DefaultSettingsFile()
	if opts.SettingsFile != nil {
		settings = *opts.SettingsFile
	}
	m.Settings = OpenSettings(settings, a.Preferences()) // Fyne's preferences held them before
	m.Connection = NewConnectionPanel(opts.Target, m.Settings)
	m.Policy = NewPolicyPanel(opts.Policy)
	m.Workload = NewWorkloadPanel()
	m.Workload.SetWorkload(opts.Workload)
	m.Workload.SetSessions(opts.Sessions)
	m.Manual = NewManualPanel()
	m.Log = NewLogView()
	m.Timeline = NewTimelineView()
	m.wire()

	m.manualTab = container.NewTabItem("Manual", m.Manual)
	// the panels scroll sideways too when the window leaves them less
	// than their width (the tab bar folds its tabs into a menu by itself)
	workloadScroll := container.NewScroll(m.Workload)
	m.Workload.ShowIn(workloadScroll) // to scroll a run's result into view
	workloadTab := container.NewTabItem("Workload", workloadScroll)
	m.Tabs = container.NewAppTabs(
		container.NewTabItem("Server", container.NewScroll(m.Connection)), // the connection; short so all five tabs fit,
		container.NewTabItem("Callbacks", container.NewScroll(m.Policy)),
		workloadTab,
		m.manualTab,
		container.NewTabItem("Log", m.Log),
	)
	m.Tabs.Select(workloadTab) // open where Run is: the first thing to do is run
	m.Workload.ShowPolicy(opts.Policy)
	// the panels, the timeline and its details side by side: the sides
	// fold, and give up their room first when the window is narrow
	panelsWidth := func() float32 { // what the panels would like
		return max(m.Connection.MinSize().Width, m.Policy.MinSize().Width, m.Workload.MinSize().Width, m.Manual.MinSize().Width)
	}
	m.panes = newSidePanes(m.Tabs, panelsWidth, m.Timeline, m.Timeline.detachDetails())
	w.SetContent(m.panes)
	w.Resize(fyne.NewSize(1400, 900))
	m.buildMenu()
	w.SetOnClosed(m.Close)
	w.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { m.Dropped(uris) })
	m.updateTitle()
	return m
}

// wire connects the panels to the bridge and the bridge back to the panels.
func (m *MainWindow) wire() {
	m.Connection.OnConnect = m.Connect
	m.Connection.OnDisconnect = m.Disconnect
	m.Connection.OnStartProxy = func(listen, upstream string) {
		m.Errors.Show("Starting the proxy", m.StartProxy(listen, upstream))
	}
	m.Connection.OnStopProxy = m.StopProxy
	m.Policy.OnChanged = func(policy engine.AnswerPolicy) {
		m.Bridge.SetPolicy(policy)
		m.Workload.ShowPolicy(policy)
	}
	m.Workload.OnDispatch = func(mode string) { m.Policy.Dispatch.SetSelected(mode) }
	m.Workload.OnRun = func(engine.Workload) { m.Run() }
	m.Workload.OnStop = m.Stop
	m.Workload.OnPolicy = func(policy engine.AnswerPolicy) {
		m.Policy.SetPolicy(policy)
		m.Policy.OnChanged(policy)
	}
	m.Workload.OnCompare = m.setCompare
	m.Workload.OnRefresh = func() {
		if s := m.Bridge.Session(); s != nil {
			go m.listTools(s)
		}
	}
	m.Manual.OnError = m.Errors.Show
	m.Manual.OnCountChanged = func(n int) {
		m.manualTab.Text = "Manual"
		if n > 0 {
			m.manualTab.Text = fmt.Sprintf("Manual (%d)", n)
		}
		m.Tabs.Refresh()
	}

	m.Bridge.OnSession = func(s *engine.Session, err error) {
		m.do(func() { m.sessionChanged(s, err) })
	}
	m.Bridge.OnLog = m.Log.AppendEvent
	m.Bridge.OnToolsChanged = func() {
		if s := m.Bridge.Session(); s != nil {
			go m.listTools(s)
		}
	}
	m.Bridge.OnPending = func(req *engine.PendingRequest) {
		m.do(func() {
			defer m.Errors.Recover("showing a request that waits for you") // its schema is the server's data
			m.Manual.Add(req)
			m.Tabs.Select(m.manualTab)
		})
	}
	m.Bridge.OnProgress = m.Workload.ReportProgress
	m.Bridge.OnRunDone = func(res engine.RunResult, err error) {
		m.do(func() { m.runDone(res, err) })
	}
}

// Start does what the options ask for at start: open a file, connect (and
// then maybe run). It returns at once.
func (m *MainWindow) Start() {
	if m.opts.Open != "" {
		m.Errors.Show("Opening "+m.opts.Open, m.OpenFile(m.opts.Open))
	}
	if m.opts.Follow != "" {
		m.FollowFile(m.opts.Follow)
	}
	if m.opts.Connect {
		m.Connect(m.opts.Target)
	}
}

// ShowAndRun shows the window as the app's master window (closing it
// quits the app) and runs Fyne's main loop until the app quits.
func (m *MainWindow) ShowAndRun() {
	m.Window.SetMaster()
	m.Window.ShowAndRun()
}

// FramesDrawn returns how many frames the timeline has drawn.
func (m *MainWindow) FramesDrawn() int64 { return m.Timeline.FramesDrawn() }

// Stats returns the run picker's choices and the run chosen ("" while
// the recording has no runs), the statistics shown, and whether their
// verdict is of a run still going.
func (m *MainWindow) Stats() (runs []string, chosen string, sum recorder.Summary, provisional bool) {
	runs, chosen = m.Timeline.RunPicker()
	return runs, chosen, m.Timeline.Summary(), m.Timeline.Provisional()
}

// Dropped opens a recording or journal dropped on the window: the first
// file shows, a second one is shown for comparison.
func (m *MainWindow) Dropped(uris []fyne.URI) {
	for i, u := range uris {
		switch i {
		case 0:
			m.Errors.Show("Opening "+u.Name(), m.OpenFile(u.Path()))
		case 1:
			m.Errors.Show("Opening "+u.Name()+" to compare", m.OpenCompare(u.Path()))
		}
	}
}

// Connect connects to t in the background, replacing any connection. A
// target without limits (from the Server panel) gets those the window
// was started with.
func (m *MainWindow) Connect(t engine.Target) {
	m.StopProxy() // one live recording at a time
	if t.Limits == (engine.Limits{}) {
		t.Limits = m.opts.Target.Limits
	}
	m.connecting = true
	m.Connection.SetConnecting(t)
	go func() {
		defer m.Errors.Recover("connecting")
		s, err := m.Bridge.Connect(context.Background(), t)
		m.do(func() {
			m.connecting = false
			if err != nil {
				m.Connection.SetConnected(t, nil, nil)
			}
		})
		if errors.Is(err, ErrAbandoned) {
			return // Disconnect pressed, or another Connect: not an error
		}
		if err != nil {
			m.Errors.Show("Connecting to "+t.String(), err)
			return
		}
		m.listTools(s)
	}()
}

// Disconnect closes the connection in the background.
func (m *MainWindow) Disconnect() {
	go func() {
		defer m.Errors.Recover("disconnecting")
		m.Errors.Show("Disconnecting", m.Bridge.Disconnect())
	}()
}

// listTools asks the server for its tools and shows them; call it from a
// goroutine.
func (m *MainWindow) listTools(s *engine.Session) {
	defer m.Errors.Recover("listing the tools")
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	tools, err := s.ListTools(ctx)
	if err != nil {
		if m.Bridge.Session() == s { // not an old session's late answer
			m.Errors.Show("Listing the server's tools", err)
		}
		return
	}
	m.do(func() {
		defer m.Errors.Recover("showing the server's tools") // their schemas are the server's data
		if m.Bridge.Session() != s {
			return
		}
		m.Workload.SetTools(tools)
		if m.opts.AutoRun && !m.autoRan {
			m.autoRan = true
			m.Tabs.SelectIndex(2) // show the run's progress
			m.Run()
		}
	})
}

// sessionChanged follows a new or ended session on the main goroutine.
func (m *MainWindow) sessionChanged(s *engine.Session, err error) {
	target := m.Bridge.Target()
	if s != nil {
		info := s.Info()
		m.live = s.Recording()
		m.opened, m.following = "", ""
		m.Timeline.SetRecording(m.live)
		m.Connection.SetConnected(target, &info, nil)
		m.logNote(recorder.EventConnection, fmt.Sprintf("connected to %s: %s %s, protocol %s", target, info.Name, info.Version, info.Protocol))
		if p := m.Bridge.JournalPath(); p != "" {
			m.logNote(recorder.EventOther, "journaling this connection's recording to "+p)
		}
		m.updateTitle()
		return
	}
	if m.connecting && err == nil {
		return // the old connection closed to make way for the new one
	}
	if m.proxy != nil && err == nil {
		return // closed to make way for the hosted proxy, which the panel and timeline show
	}
	if m.live != nil && m.opened == "" {
		m.Timeline.SetSnapshot(m.live.Snapshot()) // stop following, keep showing it
	}
	m.Connection.SetConnected(target, nil, err)
	m.updateTitle()
	if err != nil {
		m.logNote(recorder.EventConnection, "connection lost: "+err.Error())
	} else {
		m.logNote(recorder.EventConnection, "disconnected from "+target.String())
	}
	if err != nil {
		m.Errors.Show("The connection to "+target.String()+" ended", err)
	}
}

// Run runs the Workload panel's workload on the current connection.
func (m *MainWindow) Run() {
	if m.proxy != nil {
		m.Workload.ShowProblem(proxyNoRun)
		m.Tabs.SelectIndex(2)
		return
	}
	w, err := m.Workload.Workload()
	if err == nil {
		n, _ := m.Workload.SessionCount()                   // checked by Workload()
		m.Workload.RunStarted(w, m.Bridge.Policy(), m.live) // before its first call: opens the run's segment
		if err = m.Bridge.RunOn(w, n); err != nil {
			m.Workload.RunNotStarted() // closes it
		}
	}
	if err != nil {
		m.Workload.ShowProblem(err.Error())
		m.Tabs.SelectIndex(2)
		return
	}
	m.Workload.ShowProblem("")
	m.stopping = false
	m.Workload.SetRunning(true)
	m.logNote(recorder.EventOther, fmt.Sprintf("run: %s %s, %d calls, %d at once", w.Tool, w.Args, max(w.Calls, 1), max(w.Concurrency, 1)))
	if m.opened != "" && m.live != nil { // a file was shown: go back to the live recording
		m.opened, m.following = "", ""
		m.Timeline.SetRecording(m.live)
		m.updateTitle()
	}
}

// Stop cancels the running workload; the requests its calls left
// waiting for a person end cancelled.
func (m *MainWindow) Stop() {
	m.stopping = true
	// First, so that their spans say why even when the server cancels
	// them too once its call is cancelled.
	m.Manual.WithdrawAll("cancelled: the run was stopped (Stop) before anyone answered")
	m.Bridge.Stop()
}

// runDone shows how a run ended.
func (m *MainWindow) runDone(res engine.RunResult, err error) {
	m.Workload.SetResult(res, err, m.stopping)
	if m.proxy != nil {
		m.Workload.SetProxying(true) // a run the proxy's start ended: Run stays off
	}
	m.logNote(recorder.EventOther, "run ended: "+m.Workload.Status())
	if err != nil && !m.stopping && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrConnectionEnded) {
		m.Errors.Show("Running the workload", err) // a lost connection has its own dialog
	}
	m.stopping = false
	if again := m.opts.AutoRunAgain; again != "" && m.autoRan && !m.ranAgain {
		m.ranAgain = true
		m.Policy.Dispatch.SetSelected(again)
		m.Run()
	}
}

// NewRun starts a fresh recording: reconnects to the same server (a
// session records into one recording), or clears the timeline when not
// connected.
func (m *MainWindow) NewRun() {
	if m.proxy != nil {
		m.Errors.Show("Starting a new recording", errors.New("the proxy is recording: stop it first (Server panel, Stop proxy), then start a new run"))
		return
	}
	m.opened, m.following = "", ""
	if m.Bridge.Session() != nil {
		m.Connect(m.Bridge.Target())
		return
	}
	m.live = nil
	m.Timeline.SetSnapshot(nil)
	m.updateTitle()
}

// logNote adds a line of the app's own to the Log panel, timed like the
// recording's events.
func (m *MainWindow) logNote(kind recorder.EventKind, text string) {
	var at time.Duration
	if rec := m.liveRecording(); rec != nil {
		at = rec.Now()
	}
	m.Log.AppendEvent(recorder.Event{At: at, Kind: kind, Text: text})
}

// liveRecording is the current connection's recording, or nil.
func (m *MainWindow) liveRecording() *recorder.Recording {
	if s := m.Bridge.Session(); s != nil {
		return s.Recording()
	}
	return m.live
}

// updateTitle shows what the window shows: a file or a target.
func (m *MainWindow) updateTitle() {
	title := "Fanout Inspector"
	switch {
	case m.proxy != nil:
		title += " — proxy " + m.proxy.url + " → " + recorder.RedactURL(m.proxy.upstream)
	case m.following != "":
		title += " — following " + m.following
		if m.followNote != "" {
			title += " (" + m.followNote + ")"
		}
	case m.opened != "":
		title += " — " + m.opened
	case m.Bridge.Session() != nil:
		title += " — " + m.Bridge.Target().String()
	default:
		title += " — not connected"
	}
	m.Window.SetTitle(title)
}

// do runs f on the main goroutine, unless the window was closed by then.
// Background work reports through it: once Close began, what it hands
// over is dropped, because after Fyne's main loop ended fyne.Do runs f at
// once on the caller's goroutine instead of the main one.
func (m *MainWindow) do(f func()) {
	fyne.Do(func() {
		if !m.stopped.Load() {
			f()
		}
	})
}

// Quit ends the connection (so that its journal ends cleanly), then quits
// the app. Call it on the main goroutine: the File menu's Quit (Ctrl+Q)
// does, and so does the command for SIGINT and SIGTERM, through fyne.Do.
func (m *MainWindow) Quit() {
	m.Close()
	m.App.Quit()
}

// Close stops the live view and closes the connection, so that its
// journal ends cleanly; from then on no background work touches the
// widgets. The window calls it when it closes; call it also after the
// app quit (quitting does not always close windows). Calling it again
// does nothing. Call it on the main goroutine, or after the app's main
// loop ended.
func (m *MainWindow) Close() { m.closeOnce.Do(m.shutdown) }

// shutdown is Close's work: first cut the background off the widgets,
// then close the connection, waiting a little for its journal to end.
func (m *MainWindow) shutdown() {
	m.stopped.Store(true)
	m.Bridge.Quiet()
	m.Errors.Stop()
	m.Log.Stop()
	m.Timeline.Stop()
	m.Workload.Stop()
	if h := m.proxy; h != nil {
		m.proxy = nil
		h.stop("the app quit while proxying")
	}
	if m.Workload.Running() {
		m.Workload.SetRunning(false) // stops its elapsed-time ticker
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Bridge.Disconnect()
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
	}
}
