//go:build !nogui

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"github.com/fanout-inspector/inspector/assets"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui"
)

// appID identifies the app to the desktop and keys its preferences (the
// recent connections); it matches FyneApp.toml.
const appID = "io.github.fanout-inspector.inspector"

const guiUsage = `Usage: inspector [gui] [flags]

Opens the desktop app. With no flags it connects to the embedded demo
server and answers its requests after 500ms (--latency sets another), so
the first run shows something at once. The connection and
callback flags are the same as 'inspector run' takes; the rest preset the
Workload panel or script the window.

Examples:
  inspector
  inspector gui --autorun --dispatch serial --latency 500ms
  inspector gui --stdio 'node server.mjs' --tool fanout --args '{"n":5}'
  inspector gui --open run.fanout.json
  inspector gui --tab protocol          # open on the JSON-RPC transcript
  inspector gui --workload load.toml   # its mix, shape and thresholds in the Workload panel
  inspector gui --follow proxy.jsonl   # while inspector proxy --journal proxy.jsonl runs

Flags:
`

// guiPushFlush bounds the OTLP push's last send when a connection of the
// app closes: the app gives a closing connection 3 s when it quits.
const guiPushFlush = 2 * time.Second

// guiCommand runs the desktop app until its window closes.
func guiCommand(args []string) int {
	return guiMain(args, os.Stdout, os.Stderr)
}

// guiMain parses args, opens the window and runs the app.
func guiMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspector gui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conn := parseConnectionFlags(fs)
	var (
		autorun     = fs.Bool("autorun", false, "run the workload once connected (on the demo server: fanout with n=5 unless --tool/--args say otherwise)")
		exitAfter   = fs.Duration("exit-after", 0, "quit by itself after `D` with exit status 0 (for scripts and smoke tests)")
		open        = fs.String("open", "", "open the recording or journal `FILE` (and connect only if a server flag is given too)")
		compare     = fs.String("compare", "", "show the recording `FILE` under the one opened (or the live one), on the same time scale, with both verdicts")
		follow      = fs.String("follow", "", "follow the journal `FILE` as it grows (inspector proxy --journal FILE writes one) and draw it live; a file that does not exist yet is waited for")
		fpsReport   = fs.Bool("fps-report", false, "print how many frames the timeline drew per second when the app quits")
		again       = fs.String("autorun-again", "", "after the --autorun run, run the workload once more on the same connection with dispatch `MODE` (serial, concurrent, inline)")
		statsReport = fs.Bool("stats-report", false, "print the run the statistics describe and its figures when the app quits")
		windowSize  = fs.String("window-size", "", "open the window `WxH` units large (e.g. 1024x700) instead of 1400x900 made smaller to fit the screen")
		cpuProfile  = fs.String("cpuprofile", "", "write a CPU profile of the app to `FILE` (read it with go tool pprof), to see where a frame's time goes")
		push        = addOTLPPushFlag(fs)
		tab         = fs.String("tab", "", "show the `PANEL` at start: "+strings.ToLower(strings.Join(ui.TabNames, ", "))+" (default workload)")
		workload    = fs.String("workload", "", "open the workload `FILE` (TOML, as run --workload takes; inspector init writes one) in the Workload panel: Run runs its mix")
	)
	var lo runOptions
	addLoadFlags(fs, &lo, "preset the Workload panel: ")
	var asserts repeatedFlag
	fs.Var(&asserts, "assert", "preset the Load test's thresholds: `EXPR` = KEY OP NUMBER on the run's figures, e.g. 'call_ms.p95<=200', shown passed or failed under the verdict (repeatable)")
	maxSpans := addMaxSpansFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, guiUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	usageErr := func(format string, a ...any) int {
		return exitWith(stderr, "gui", usageError(format, a...), nil)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q: every option is a flag (to open a recording, use --open FILE)", fs.Arg(0))
	}
	target, policy, err := conn()
	if err != nil {
		return exitWith(stderr, "gui", asUsage(err), nil) // a config file that cannot be read is exit 1
	}
	spanCap, err := maxSpans()
	if err != nil {
		return usageErr("%v", err)
	}
	policy = guiDefaults(fs, policy)
	if *exitAfter < 0 || lo.callTimeout < 0 {
		return usageErr("--exit-after and --call-timeout must not be negative")
	}
	if lo.calls < 1 || lo.concurrency < 1 {
		return usageErr("--calls and --concurrency want 1 or more")
	}
	if lo.sessions > ui.MaxSessions {
		return usageErr("--sessions %d: the app spreads a run over at most %d sessions (inspector run takes up to 1000)", lo.sessions, ui.MaxSessions)
	}
	w, err := loadShape(fs, lo)
	if err != nil {
		return usageErr("%v", err)
	}
	w.Tool = lo.tool
	if lo.args != "" {
		if w.Args, err = readArgsFlag(lo.args); err != nil {
			return usageErr("%v", err)
		}
	}
	if w.Tool == "" && target.Transport == engine.TransportDemo {
		w.Tool = "fanout"
		if w.Args == nil {
			w.Args = json.RawMessage(`{"n":5,"kind":"sampling"}`)
		}
	}
	switch *again {
	case "", string(engine.Serial), string(engine.Concurrent), string(engine.Inline):
	default:
		return usageErr("--autorun-again %q: want serial, concurrent or inline", *again)
	}
	if *again != "" && !*autorun {
		return usageErr("--autorun-again runs after the --autorun run: add --autorun")
	}
	if w.Tool != "" {
		if err := w.Validate(); err != nil {
			return usageErr("%s", explainWorkload(err))
		}
	}
	if err := checkWorkloadFile(*workload, ui.CheckWorkloadFile); err != nil {
		return exitWith(stderr, "gui", err, nil)
	}
	if *autorun && w.Tool == "" && *workload == "" {
		return usageErr("--autorun: name the tool to run with --tool (only the demo server has a default)")
	}
	if err := push.check(); err != nil {
		return usageErr("%v", err)
	}
	thresholds, err := parseAssertions(asserts)
	if err != nil {
		return usageErr("%v", err)
	}
	winSize, err := parseWindowSize(*windowSize)
	if err != nil {
		return usageErr("%v", err)
	}
	if *tab != "" && !slices.ContainsFunc(ui.TabNames, func(n string) bool { return strings.EqualFold(n, *tab) }) {
		return usageErr("--tab %q: want one of %s", *tab, strings.ToLower(strings.Join(ui.TabNames, ", ")))
	}
	if *open != "" && *follow != "" {
		return usageErr("--open and --follow both show a file: give one")
	}
	for _, f := range []struct{ name, path string }{{"open", *open}, {"compare", *compare}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return usageErr("--%s %s: %v", f.name, f.path, err) // --open first, whichever is wrong
		}
	}
	if *compare != "" && *follow != "" {
		return usageErr("--compare shows a recording under another: give it with --open FILE or a server, not --follow")
	}
	serverFlag := false
	for _, name := range []string{"demo", "stdio", "url", "sse"} {
		serverFlag = serverFlag || flagWasSet(fs, name)
	}

	if msg := noDisplay(); msg != "" {
		fmt.Fprintln(stderr, "inspector gui: "+msg)
		return exitFailure
	}
	if *cpuProfile != "" {
		f, err := os.OpenFile(*cpuProfile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return usageErr("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return usageErr("--cpuprofile: %v", err)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	catchSignalsEarly()
	return runWindowSafely(func() int {
		return runWindow(target, policy, w, *open, serverFlag, *autorun, *exitAfter, *fpsReport, stdout,
			guiExtras{again: *again, statsReport: *statsReport, follow: *follow, sessions: lo.sessions, onRecording: push.observer("gui", stderr, guiPushFlush), maxSpans: spanCap, windowSize: winSize, thresholds: thresholds, compare: *compare, workloadFile: *workload, tab: *tab})
	}, stderr)
}

// guiDefaults gives the app the latency that shows the effect on a first
// run ([ui.FirstRunLatency]) unless --latency chose one.
func guiDefaults(fs *flag.FlagSet, policy engine.AnswerPolicy) engine.AnswerPolicy {
	if !flagWasSet(fs, "latency") {
		policy.Latency = ui.FirstRunLatency
	}
	return policy
}

// runWindowSafely runs the window; a window system that cannot be
// reached (a DISPLAY that does not answer) makes GLFW panic, which it
// turns into a message in words and exit status 1 instead of a stack
// trace.
func runWindowSafely(run func() int, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "inspector gui: the window system failed: %v\n"+
				"Check that the display is reachable, or use 'inspector run' for a headless run.\n", p)
			code = exitFailure
		}
	}()
	return run()
}

// runWindow opens the main window and runs the app until it quits.
func runWindow(target engine.Target, policy engine.AnswerPolicy, w load.Workload, open string, serverFlag, autorun bool, exitAfter time.Duration, fpsReport bool, stdout io.Writer, extras guiExtras) int {
	log.SetOutput(newLogFilter(log.Writer())) // no favourites noise from file dialogs
	a := app.NewWithID(appID)
	a.SetIcon(assets.Icon)
	m := ui.NewMainWindow(a, ui.Options{
		Target:       target,
		Policy:       policy,
		Workload:     w,
		Sessions:     extras.sessions,
		Connect:      (open == "" && extras.follow == "") || serverFlag,
		AutoRun:      autorun,
		AutoRunAgain: extras.again,
		Open:         open,
		Compare:      extras.compare,
		Follow:       extras.follow,
		Icon:         assets.Icon,
		Version:      version,
		OnRecording:  extras.onRecording,
		MaxSpans:     extras.maxSpans,
		WindowSize:   extras.windowSize,
		Screen:       func() fyne.Size { return screenRoom(a) },
		Thresholds:   extras.thresholds,
		WorkloadFile: extras.workloadFile,
		Tab:          extras.tab,
	})
	askNoDepthBuffer() // the window is made, not shown yet
	m.Start()

	var fps *fpsMeter
	if fpsReport {
		fps = startFPSMeter(m.FramesDrawn)
	}
	var (
		returned   atomic.Bool // ShowAndRun returned
		finishOnce sync.Once
	)
	finish := func() {
		finishOnce.Do(func() {
			m.Close() // in case the app quit without closing the window: end the connection and its journal cleanly
			if fps != nil {
				fmt.Fprintln(stdout, fps.report())
			}
			if extras.statsReport { // the main loop has ended: this goroutine reads the widgets alone
				stats := m.Stats()
				fmt.Fprint(stdout, statsReport(stats))
				if f, ok := m.Following(); ok {
					fmt.Fprint(stdout, followReport(f, stats.Summary))
				}
			}
		})
	}
	quit := func() {
		fyne.Do(m.Quit)
		exitIfStuck(quitGrace, &returned, finish, os.Stderr)
	}
	if exitAfter > 0 {
		time.AfterFunc(exitAfter, quit)
	}
	a.Lifecycle().SetOnStarted(func() {
		go func() {
			// Fyne registers its handler in a goroutine it starts just
			// before this hook: let it, then take the signals over.
			waitForGoroutine(fyneSignalHandler, "chan receive", 2*time.Second)
			quitOnSignal(quit)
		}()
	})
	m.Run()
	returned.Store(true)
	finish()
	return exitOK
}

// quitGrace is how long the app waits, once told to quit, for Fyne's main
// loop to hand control back before it exits by itself.
const quitGrace = 15 * time.Second

// exitIfStuck exits the process (status 0) when returned is still false
// grace from now, after running finish (at most 5 s more). Fyne 2.7's
// shutdown can hang: its main loop ends while its lifecycle goroutine
// waits for that loop to run one more function, and Run waits for that
// goroutine for ever. By then the app has closed its connection and its
// journal (the quit did), so exiting loses nothing.
func exitIfStuck(grace time.Duration, returned *atomic.Bool, finish func(), stderr io.Writer) {
	time.AfterFunc(grace, func() {
		if returned.Load() {
			return
		}
		done := make(chan struct{})
		go func() { finish(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		if returned.Load() {
			return
		}
		fmt.Fprintf(stderr, "inspector gui: the window system had not let go %v after quitting (a hang in Fyne's shutdown); exiting, the recording is closed\n", grace)
		os.Exit(exitOK)
	})
}

// guiExtras are the gui flags for scripts and smoke tests.
type guiExtras struct {
	again       string // --autorun-again
	statsReport bool   // --stats-report
	follow      string // --follow
	sessions    int    // --sessions

	onRecording  func(*recorder.Recording) func() // --otlp-endpoint
	maxSpans     int                              // --max-spans
	windowSize   fyne.Size                        // --window-size
	thresholds   []recorder.Assertion             // --assert
	compare      string                           // --compare
	workloadFile string                           // --workload
	tab          string                           // --tab
}

// followReport says how a followed journal grew, as a line "follow: …"
// a script can check: the numbers of ended spans of the frames drawn, in
// order (see [ui.Follow]), and the figures of sum.
func followReport(f ui.Follow, sum recorder.Summary) string {
	seen := f.EndedSpansSeen
	counts := make([]string, len(seen))
	for i, n := range seen {
		counts[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("follow: %s frames=%d ended_spans_seen=%s state=%q server_requests=%d peak=%d\n",
		f.Path, len(seen), strings.Join(counts, ","), f.State, sum.ServerRequests.Total, sum.PeakInFlight)
}

// statsReport says what the statistics describe and their figures, as
// lines "stats: …" a script can check.
func statsReport(s ui.Stats) string {
	sum := s.Summary
	return fmt.Sprintf("stats: describes %q of %q\nstats: verdict=%s elapsed_ms=%.0f tool_calls=%d provisional=%v\n",
		s.Run, strings.Join(s.Runs, " | "), sum.Verdict, sum.ElapsedMS, sum.ToolCalls.Total, s.Provisional)
}

// quitSignals are the signals that quit the app: Ctrl-C in the terminal,
// and the polite kill.
var quitSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// quitOnSignal makes SIGINT and SIGTERM call quit (which must hand the
// work to the main goroutine); a second signal exits at once, for a quit
// that hangs. It replaces Fyne's own handler, which stops the main loop
// without closing the window: the connection then closed after the loop
// ended, and its last reports ran off the main goroutine ("Error in Fyne
// call thread") and into a terminated GLFW (a panic). Call it once Fyne
// installed its handler (see waitForGoroutine): were both installed,
// Fyne's could still win and stop the loop first.
// A signal caught since catchSignalsEarly is handled at once.
func quitOnSignal(quit func()) {
	signal.Reset(quitSignals...) // drops Fyne's handler
	c := earlySignals
	if c == nil {
		c = make(chan os.Signal, 2)
	}
	signal.Notify(c, quitSignals...)
	go func() {
		<-c
		quit()
		s := <-c
		fmt.Fprintf(os.Stderr, "inspector gui: %v again: exiting without waiting for the connection to close\n", s)
		os.Exit(exitInterrupted)
	}()
}

// earlySignals holds SIGINT and SIGTERM from catchSignalsEarly until
// quitOnSignal takes over.
var earlySignals chan os.Signal

// catchSignalsEarly catches SIGINT and SIGTERM from before the window is
// up, so that one sent while the app starts is kept for quitOnSignal to
// act on once the app runs: without it such a signal was lost when the
// process had started with it ignored (a shell script's background job
// does), and the app ran on, or it killed the app midway, journal
// unclosed.
func catchSignalsEarly() {
	earlySignals = make(chan os.Signal, 2)
	signal.Notify(earlySignals, quitSignals...)
}

// fyneSignalHandler is the function of Fyne's GLFW driver that waits for
// SIGINT and SIGTERM.
const fyneSignalHandler = "glfw.(*gLDriver).catchTerm("

// waitForGoroutine waits until a goroutine running fn (as it appears in a
// stack trace) is blocked in state ("chan receive"), or timeout passed.
func waitForGoroutine(fn, state string, timeout time.Duration) bool {
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(timeout); ; time.Sleep(5 * time.Millisecond) {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			header, frames, _ := strings.Cut(g, "\n")
			if strings.Contains(header, "["+state) && strings.Contains(frames, fn) {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// noDisplay says why no window can open on a Unix desktop without a
// display, or "" when there may be one.
func noDisplay() string {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return "no display: neither DISPLAY nor WAYLAND_DISPLAY is set.\n" +
				"The desktop app needs one (run it in a desktop session, over ssh -X, or under Xvfb);\n" +
				"for a headless run use 'inspector run' (see 'inspector run -h')."
		}
	}
	return ""
}

// readArgsFlag reads --args: a JSON object, or @FILE holding one.
func readArgsFlag(s string) (json.RawMessage, error) {
	what, data := "--args", []byte(s)
	if path, ok := strings.CutPrefix(s, "@"); ok {
		what = "--args @" + path
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("%s: cannot read the file: %v", what, err)
		}
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%s: want a JSON object, as in '{\"n\": 5}'", what)
	}
	return json.RawMessage(data), nil
}
