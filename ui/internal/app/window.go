package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
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
	// Compare is a recording to show under the one opened (or the live
	// one), on the same time scale ("" for none): see
	// [MainWindow.openCompare].
	Compare string
	// Follow is a journal to follow as it grows ("" for none): see
	// [MainWindow.followFile].
	Follow string
	// WindowSize is the window's size at start; the zero value is
	// [DefaultWindowSize], made smaller to fit Screen.
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
	// when the connection or proxy closes ([bridge.onRecording]).
	OnRecording func(*recorder.Recording) func()
	// journalDir is where live runs are journaled; nil means
	// [recorder.DefaultJournalDir], "" turns journaling off.
	journalDir *string
	// settingsFile keeps the recent connections and the last folder; nil
	// means [defaultSettingsFile], "" keeps them in memory only.
	settingsFile *string
	// Thresholds preset the Load test's Thresholds, checked on each run
	// the statistics describe (as --assert).
	Thresholds []recorder.Assertion
	// WorkloadFile is a workload file to open in the Workload panel at
	// start (workloadfiles.go).
	WorkloadFile string
	// Tab is the panel shown at start, one of [TabNames] in any case;
	// "" (or a name not among them) shows Workload, where Run is.
	Tab string
	// MaxSpans caps the spans a connection's recording keeps; nil means
	// [recorder.DefaultMaxSpans], 0 keeps every span.
	MaxSpans *int
}

// MainWindow is Fanout Inspector's window: the panels on the left
// (Server, Callbacks, Workload, Manual, Log), the [TimelineView] on
// the right, and the File, Run and View menus. Its methods are called on
// Fyne's main goroutine; the work that blocks (connecting, running)
// happens in goroutines that report back through its gate (see [MainWindow.do]).
type MainWindow struct {
	// app and window are the Fyne app and the window; bridge talks to the
	// engine; errors shows every error.
	app    fyne.App
	window fyne.Window
	bridge *bridge
	errors *errorReporter
	// notices shows what went well and needs no answer ("Saved to …").
	notices notices
	// settings is what the window remembers between starts.
	settings *settings

	// The panels and the timeline; tabs holds the panels.
	connection *connectionPanel
	policy     *policyPanel
	workload   *workloadPanel
	manual     *manualPanel
	resources  *resourcesPanel
	prompts    *promptsPanel
	log        *logView
	network    *networkView // the Network tab (networkview.go)
	protocol   *protocolView
	timeline   *TimelineView
	tabs       *container.AppTabs

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
	// gate hands background work to the main goroutine; Close closes it,
	// so that nothing reaches the widgets after the app quit
	gate mainloop.Gate
}

// NewMainWindow builds the main window of app a (not shown yet: call
// [MainWindow.Start], then [MainWindow.ShowAndRun]).
func NewMainWindow(a fyne.App, opts Options) *MainWindow {
	w := a.NewWindow("Fanout Inspector")
	m := &MainWindow{app: a, window: w, opts: opts}
	if opts.Icon != nil {
		w.SetIcon(opts.Icon)
	}
	m.errors = newErrorReporter(w, &m.gate)
	m.bridge = newBridge(opts.Policy)
	m.bridge.inspector = opts.Version
	m.bridge.onRecording = opts.OnRecording
	if opts.journalDir != nil {
		m.bridge.journalDir = *opts.journalDir
	}
	if opts.MaxSpans != nil {
		m.bridge.maxSpans = *opts.MaxSpans
	}

	settings := defaultSettingsFile()
	if opts.settingsFile != nil {
		settings = *opts.settingsFile
	}
	m.settings = openSettings(settings, a.Preferences()) // Fyne's preferences held them before
	m.connection = newConnectionPanel(opts.Target, m.settings)
	m.policy = newPolicyPanel(opts.Policy)
	m.workload = newWorkloadPanel()
	m.workload.setWorkload(opts.Workload)
	m.workload.setSessions(opts.Sessions)
	m.manual = newManualPanel(&m.gate)
	m.resources, m.prompts = newResourcesPanel(), newPromptsPanel()
	m.log = newLogView(&m.gate)
	m.network = newNetworkView(m.networkSource)
	m.network.follow(m.gate.Closed)
	m.log.control.setLevel(opts.Target.LogLevel)
	m.timeline = NewTimelineView()
	m.timeline.setGate(&m.gate)
	m.protocol = newProtocolView(m.timeline.snapshot)
	m.protocol.linkTimeline(m.timeline)
	m.network.linkTimeline(m.timeline)
	m.protocol.start()
	m.wire()
	m.workload.setThresholds(opts.Thresholds)

	m.manualTab = container.NewTabItem("Manual", m.manual)
	// the panels scroll sideways too when the window leaves them less
	// than their width (the tab bar folds its tabs into a menu by itself)
	workloadTab := container.NewTabItem("Workload", m.workload) // it scrolls under its pinned Run
	m.tabs = container.NewAppTabs(
		container.NewTabItem("Server", container.NewScroll(m.connection)), // the connection; short so all five tabs fit,
		container.NewTabItem("Callbacks", container.NewScroll(m.policy)),
		workloadTab,
		m.manualTab,
		container.NewTabItem("Resources", m.resources),
		container.NewTabItem("Prompts", m.prompts),
		container.NewTabItem("Logs", m.log),
		container.NewTabItem("Network", m.network),
		container.NewTabItem("Protocol", m.protocol),
	)
	m.wireContentTabs()
	m.tabs.Select(workloadTab) // open where Run is: the first thing to do is run
	for _, item := range m.tabs.Items {
		if opts.Tab != "" && strings.EqualFold(item.Text, opts.Tab) {
			m.tabs.Select(item)
		}
	}
	m.workload.showPolicy(opts.Policy)
	// the panels, the timeline and its details side by side: the sides
	// fold, and give up their room first when the window is narrow
	panelsWidth := func() float32 { // what the panels would like
		return max(m.connection.MinSize().Width, m.policy.MinSize().Width, m.workload.MinSize().Width, m.manual.MinSize().Width)
	}
	m.panes = newSidePanes(m.tabs, panelsWidth, m.timeline, m.timeline.detachDetails())
	w.SetContent(container.NewStack(m.panes, m.notices.newNoticeLayer()))
	w.Resize(windowSize(opts))
	m.buildMenu()
	w.SetOnClosed(m.Close)
	w.SetCloseIntercept(m.closeAsked) // a person's close asks about unsaved workload changes
	w.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { m.dropped(uris) })
	m.updateTitle()
	return m
}

// TabNames are the panels' tabs, in their order: what [Options.Tab] may
// name.
var TabNames = []string{"Server", "Callbacks", "Workload", "Manual", "Resources", "Prompts", "Logs", "Network", "Protocol"}

// DefaultWindowSize is the window's size at start on a screen that has
// room for it.
var DefaultWindowSize = fyne.NewSize(1400, 900)

// windowSize is the size the window opens at: the one asked for, or the
// default made smaller to fit the screen when the screen is known.
func windowSize(opts Options) fyne.Size {
	if opts.WindowSize.Width > 0 && opts.WindowSize.Height > 0 {
		return opts.WindowSize
	}
	size := DefaultWindowSize
	if opts.Screen != nil {
		if screen := opts.Screen(); screen.Width > 0 && screen.Height > 0 {
			size = size.Min(screen)
		}
	}
	return size
}

// wire connects the panels to the bridge and the bridge back to the panels.
func (m *MainWindow) wire() {
	m.connection.onConnect = m.connect
	m.connection.onDisconnect = m.disconnect
	m.connection.onStartProxy = func(listen, upstream string) {
		m.errors.Show("Starting the proxy", m.startProxy(listen, upstream))
	}
	m.connection.onStopProxy = m.stopProxy
	m.policy.onChanged = func(policy engine.AnswerPolicy) {
		m.bridge.setPolicy(policy)
		m.workload.showPolicy(policy)
	}
	m.workload.onDispatch = func(mode string) { m.policy.dispatch.SetSelected(mode) }
	m.workload.onRun = func(load.Workload) { m.run() }
	m.workload.onStop = m.stop
	m.workload.onPolicy = func(policy engine.AnswerPolicy) {
		m.policy.setPolicy(policy)
		m.policy.onChanged(policy)
	}
	m.workload.onCompare = m.compareRun
	m.wireWorkloadFile()
	m.workload.onThresholds = m.timeline.setThresholds
	m.workload.onRefresh = func() {
		if s := m.bridge.session(); s != nil {
			go m.listTools(s)
		}
	}
	m.manual.onError = m.errors.Show
	m.manual.onCountChanged = func(n int) {
		m.manualTab.Text = "Manual"
		if n > 0 {
			m.manualTab.Text = fmt.Sprintf("Manual (%d)", n)
		}
		m.tabs.Refresh()
	}

	m.bridge.OnSession = func(s *engine.Session, err error) {
		m.do(func() { m.sessionChanged(s, err) })
	}
	m.bridge.onLog = m.log.appendEvent
	m.log.control.session = m.bridge.session
	m.bridge.onToolsChanged = func() {
		if s := m.bridge.session(); s != nil {
			go m.listTools(s)
		}
	}
	m.bridge.onPending = func(req *engine.PendingRequest) {
		m.do(func() {
			defer m.errors.recover("showing a request that waits for you") // its schema is the server's data
			m.manual.Add(req)
			m.tabs.Select(m.manualTab)
		})
	}
	m.bridge.onProgress = m.workload.reportProgress
	m.bridge.onRunDone = func(res load.RunResult, err error) {
		m.do(func() {
			// The run's segment ends now; making its record walks the
			// whole recording, off the main goroutine, and the panel
			// shows the run going on until it is made. Whether the
			// person stopped it is settled now too: a Stop pressed
			// meanwhile comes after the run's end and stops nothing.
			e, stopped := m.workload.endRun(), m.stopping
			go func() {
				e.complete()
				m.do(func() { m.runDone(e, res, err, stopped) })
			}()
		})
	}
}

// Start does what the options ask for at start: open a file, connect (and
// then maybe run). It returns at once.
func (m *MainWindow) Start() {
	if m.opts.Open != "" {
		m.errors.Show("Opening "+m.opts.Open, m.openFile(m.opts.Open))
	}
	if m.opts.Compare != "" {
		m.errors.Show("Comparing with "+m.opts.Compare, m.openCompare(m.opts.Compare))
	}
	if m.opts.WorkloadFile != "" {
		m.openWorkloadFile(m.opts.WorkloadFile)
	}
	if m.opts.Follow != "" {
		m.followFile(m.opts.Follow)
	}
	if m.opts.Connect {
		m.connect(m.opts.Target)
	}
}

// ShowAndRun shows the window as the app's master window (closing it
// quits the app) and runs Fyne's main loop until the app quits.
func (m *MainWindow) ShowAndRun() {
	m.window.SetMaster()
	m.window.ShowAndRun()
}

// FramesDrawn returns how many frames the timeline has drawn.
func (m *MainWindow) FramesDrawn() int64 { return m.timeline.framesDrawn() }

// Stats returns the run picker's choices and the run chosen ("" while
// the recording has no runs), the statistics shown, and whether their
// verdict is of a run still going.
func (m *MainWindow) Stats() (runs []string, chosen string, sum recorder.Summary, provisional bool) {
	runs, chosen = m.timeline.runPicker()
	return runs, chosen, m.timeline.Summary(), m.timeline.provisional()
}

// dropped opens a recording or journal dropped on the window: the first
// file shows, a second one is shown for comparison.
func (m *MainWindow) dropped(uris []fyne.URI) {
	for i, u := range uris {
		switch i {
		case 0:
			m.errors.Show("Opening "+u.Name(), m.openFile(u.Path()))
		case 1:
			m.errors.Show("Opening "+u.Name()+" to compare", m.openCompare(u.Path()))
		}
	}
}

// connect connects to t in the background, replacing any connection. A
// target without limits (from the Server panel) gets those the window
// was started with.
func (m *MainWindow) connect(t engine.Target) {
	m.stopProxy() // one live recording at a time
	m.timeline.setIdle(idleRun)
	if t.Limits == (engine.Limits{}) {
		t.Limits = m.opts.Target.Limits
	}
	t.LogLevel = m.log.control.Level()
	m.connecting = true
	m.connection.setConnecting(t)
	go func() {
		defer m.errors.recover("connecting")
		s, err := m.bridge.Connect(context.Background(), t)
		m.do(func() {
			m.connecting = false
			if err != nil {
				m.connection.setConnected(t, nil, nil)
			}
		})
		if errors.Is(err, errAbandoned) {
			return // Disconnect pressed, or another Connect: not an error
		}
		if err != nil {
			m.errors.Show("Connecting to "+t.String(), err)
			return
		}
		m.listTools(s)
	}()
}

// disconnect closes the connection in the background.
func (m *MainWindow) disconnect() {
	go func() {
		defer m.errors.recover("disconnecting")
		m.errors.Show("Disconnecting", m.bridge.disconnect())
	}()
}

// listTools asks the server for its tools and shows them; call it from a
// goroutine.
func (m *MainWindow) listTools(s *engine.Session) {
	defer m.errors.recover("listing the tools")
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	tools, err := s.ListTools(ctx)
	if err != nil {
		if m.bridge.session() == s { // not an old session's late answer
			m.errors.Show("Listing the server's tools", err)
		}
		return
	}
	m.do(func() {
		defer m.errors.recover("showing the server's tools") // their schemas are the server's data
		if m.bridge.session() != s {
			return
		}
		m.workload.setTools(tools)
		if m.opts.AutoRun && !m.autoRan {
			m.autoRan = true
			if m.opts.Tab == "" {
				m.tabs.SelectIndex(2) // show the run's progress, unless another panel was asked for
			}
			m.run()
		}
	})
}

// sessionChanged follows a new or ended session on the main goroutine.
func (m *MainWindow) sessionChanged(s *engine.Session, err error) {
	target := m.bridge.Target()
	m.log.control.setSession(s)
	if s != nil {
		info := s.Info()
		m.live = s.Recording()
		m.opened = ""
		m.setFollowing("")
		m.timeline.setRecording(m.live)
		m.connection.setConnected(target, &info, nil)
		m.logNote(recorder.EventConnection, fmt.Sprintf("connected to %s: %s %s, %s", target, info.Name, info.Version, info.EraBadge()))
		if p := m.bridge.journalPath(); p != "" {
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
		m.timeline.SetSnapshot(m.live.Snapshot()) // stop following, keep showing it
	}
	m.connection.setConnected(target, nil, err)
	m.updateTitle()
	if err != nil {
		m.logNote(recorder.EventConnection, "connection lost: "+err.Error())
	} else {
		m.logNote(recorder.EventConnection, "disconnected from "+target.String())
	}
	if err != nil {
		m.errors.Show("The connection to "+target.String()+" ended", err)
	}
}

// run runs the Workload panel's workload on the current connection.
func (m *MainWindow) run() {
	if m.proxy != nil {
		m.workload.showProblem(proxyNoRun)
		m.tabs.SelectIndex(2)
		return
	}
	w, err := m.workload.workload()
	if err == nil {
		n, _ := m.workload.sessionCount()                   // checked by Workload()
		m.workload.runStarted(w, m.bridge.Policy(), m.live) // before its first call: opens the run's segment
		if err = m.bridge.runOn(w, n); err != nil {
			m.workload.runNotStarted() // closes it
		}
	}
	if err != nil {
		m.workload.showProblem(err.Error())
		m.tabs.SelectIndex(2)
		return
	}
	m.workload.showProblem("")
	m.stopping = false
	m.workload.setRunning(true)
	m.logNote(recorder.EventOther, fmt.Sprintf("run: %s %s, %d calls, %d at once", m.workload.runName(w), w.Args, max(w.Calls, 1), max(w.Concurrency, 1)))
	if m.opened != "" && m.live != nil { // a file was shown: go back to the live recording
		m.opened = ""
		m.setFollowing("")
		m.timeline.setRecording(m.live)
		m.updateTitle()
	}
}

// stop cancels the running workload; the requests its calls left
// waiting for a person end cancelled.
func (m *MainWindow) stop() {
	m.stopping = true
	// First, so that their spans say why even when the server cancels
	// them too once its call is cancelled.
	m.manual.withdrawAll("cancelled: the run was stopped (Stop) before anyone answered")
	m.bridge.Stop()
}

// runDone shows how a run ended, e its record (nil: the run was not
// started through the Workload panel); stopped says the person pressed
// Stop before it ended.
func (m *MainWindow) runDone(e *endedRun, res load.RunResult, err error, stopped bool) {
	m.workload.setResult(e, res, err, stopped)
	if m.proxy != nil {
		m.workload.setProxying(true) // a run the proxy's start ended: Run stays off
	}
	m.logNote(recorder.EventOther, "run ended: "+m.workload.Status())
	if err != nil && !stopped && !errors.Is(err, context.Canceled) && !errors.Is(err, errConnectionEnded) {
		m.errors.Show("Running the workload", err) // a lost connection has its own dialog
	}
	m.stopping = false
	if again := m.opts.AutoRunAgain; again != "" && m.autoRan && !m.ranAgain {
		m.ranAgain = true
		m.policy.dispatch.SetSelected(again)
		m.run()
	}
}

// newRun starts a fresh recording: reconnects to the same server (a
// session records into one recording), or clears the timeline when not
// connected.
func (m *MainWindow) newRun() {
	if m.proxy != nil {
		m.errors.Show("Starting a new recording", errors.New("the proxy is recording: stop it first (Server panel, Stop proxy), then start a new run"))
		return
	}
	m.opened = ""
	m.setFollowing("")
	if m.bridge.session() != nil {
		m.connect(m.bridge.Target())
		return
	}
	m.live = nil
	m.timeline.SetSnapshot(nil)
	m.updateTitle()
}

// logNote adds a line of the app's own to the Log panel, timed like the
// recording's events.
func (m *MainWindow) logNote(kind recorder.EventKind, text string) {
	var at time.Duration
	if rec := m.liveRecording(); rec != nil {
		at = rec.Now()
	}
	m.log.appendEvent(recorder.Event{At: at, Kind: kind, Text: text})
}

// liveRecording is the current connection's recording, or nil.
func (m *MainWindow) liveRecording() *recorder.Recording {
	if s := m.bridge.session(); s != nil {
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
	case m.bridge.session() != nil:
		title += " — " + m.bridge.Target().String()
	default:
		title += " — not connected"
	}
	m.window.SetTitle(title)
}

// do runs f on the main goroutine, unless the window was closed by then
// (see [mainloop.Gate]).
func (m *MainWindow) do(f func()) { m.gate.Do(f) }

// Quit ends the connection (so that its journal ends cleanly), then quits
// the app, without asking about unsaved workload changes. Call it on the
// main goroutine: the command does for SIGINT, SIGTERM and --exit-after,
// through fyne.Do, and the File menu's Quit (Ctrl+Q) once it asked.
func (m *MainWindow) Quit() {
	m.Close()
	m.app.Quit()
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
	m.gate.Close()
	m.bridge.Quiet()
	m.protocol.Stop()
	m.timeline.Stop()
	m.workload.Stop()
	if h := m.proxy; h != nil {
		m.proxy = nil
		h.stop("the app quit while proxying")
	}
	if m.workload.Running() {
		m.workload.setRunning(false) // stops its elapsed-time ticker
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.bridge.disconnect()
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
	}
}
