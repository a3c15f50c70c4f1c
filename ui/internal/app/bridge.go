package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/internal/capture"
	"github.com/fanout-inspector/inspector/recorder"
)

// bridge is the small, widget-free layer between the window and the
// engine: it connects and disconnects, keeps the answer policy, runs and stops
// workloads, and journals each connection's recording. Its methods are
// safe from any goroutine; the On… hooks are called from engine
// goroutines (never the main one), so a hook that touches widgets must
// hand the work over with fyne.Do, and must not wait for the main
// goroutine (see [bridge.Quiet]).
type bridge struct {
	// OnSession is called after a connection is made (with the new
	// session) and after it ended (with nil and the reason, nil after a
	// Disconnect).
	OnSession func(s *engine.Session, err error)
	// onLog receives the server's stderr lines and log messages.
	onLog func(recorder.Event)
	// onToolsChanged is called when the server says its tools changed.
	onToolsChanged func()
	// onPending is called when a request waits for a person's answer.
	onPending func(*engine.PendingRequest)
	// onProgress is called as a run's calls finish.
	onProgress func(load.Progress)
	// onRunDone is called when a run ends, however it ended.
	onRunDone func(load.RunResult, error)
	// journalDir is where live recordings are journaled; "" turns
	// journaling off. newBridge sets it to [recorder.DefaultJournalDir].
	journalDir string
	// maxSpans caps the spans a connection's recording keeps
	// ([recorder.Recording.SetMaxSpans]); newBridge sets it to
	// [recorder.DefaultMaxSpans], 0 keeps every span.
	maxSpans int
	// inspector is the version written into recordings.
	inspector string
	// OnRecording, when set, is handed each live recording as its
	// connection is made or the hosted proxy starts (the OTLP push
	// observes it, a [capture.Observer]); the function it returns is
	// called once that connection or proxy is closed.
	onRecording func(*recorder.Recording) (done func())

	mu     sync.Mutex
	target engine.Target
	policy engine.AnswerPolicy
	sess   *engine.Session
	// extra are the sessions a run over several opened beside sess, while
	// it lasts.
	extra   []*engine.Session
	capture *capture.Capture   // of the current connection: its recording, journal, observers
	cancel  context.CancelFunc // of the running workload
	abandon context.CancelFunc // of a connection being made
	gen     int                // counts connections, to ignore stale endings

	// hookMu is held for reading while a hook runs and for writing by
	// Quiet, so that once Quiet returned no hook runs any more.
	hookMu sync.RWMutex
	quiet  bool
}

// Quiet stops calling the On… hooks: after it returns, none is running
// and none will be called again, while the bridge still works (a
// Disconnect still closes the connection and its journal). The window
// calls it when the app quits, because after Fyne's main loop ended a
// fyne.Do no longer waits for the main goroutine but runs the widget work
// at once on the caller's goroutine, where it races with the main one and
// may call a window system that is gone.
func (b *bridge) Quiet() {
	b.hookMu.Lock()
	b.quiet = true
	b.hookMu.Unlock()
}

// hook runs f, which calls one of the On… hooks, unless the bridge was
// made quiet.
func (b *bridge) hook(f func()) {
	b.hookMu.RLock()
	defer b.hookMu.RUnlock()
	if !b.quiet {
		f()
	}
}

// onSession calls OnSession, unless the bridge is quiet.
func (b *bridge) onSession(s *engine.Session, err error) {
	if b.OnSession != nil {
		b.hook(func() { b.OnSession(s, err) })
	}
}

// newBridge returns a disconnected bridge with the given answer policy.
func newBridge(policy engine.AnswerPolicy) *bridge {
	return &bridge{policy: policy, journalDir: recorder.DefaultJournalDir(), maxSpans: recorder.DefaultMaxSpans}
}

// errNotConnected is returned by [bridge.Run] without a connection.
var errNotConnected = errors.New("not connected: connect to a server first (Server panel)")

// errAbandoned is returned by [bridge.Connect] when a Disconnect or a
// newer Connect gave up the connection while it was being made: the
// person changed their mind, nothing failed.
var errAbandoned = errors.New("the connection was given up while it was being made")

// errConnectionEnded marks a run's error when the connection ended
// during the run (the connection's end is reported on its own).
var errConnectionEnded = errors.New("the connection ended")

// errRunning is returned by [bridge.Run] while a run is going on.
var errRunning = errors.New("a run is already going on: stop it first")

// Connect closes any previous connection, then connects to t with the
// bridge's answer policy, recording into a new [recorder.Recording]. It
// blocks until the server answered initialize (or ctx ends): call it from
// a goroutine.
func (b *bridge) Connect(ctx context.Context, t engine.Target) (*engine.Session, error) {
	b.disconnect()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.mu.Lock()
	policy := b.policy
	b.gen++
	gen := b.gen
	b.abandon = cancel
	b.mu.Unlock()

	c, err := capture.Start(capture.Options{
		Meta: recorder.Meta{Target: t.String(), Inspector: b.inspector}, MaxSpans: b.maxSpans, Secrets: t.Secrets(),
		// A journal that cannot be opened is no reason not to connect;
		// the recording is still kept in memory and can be saved.
		JournalDir: b.journalDir, JournalPrefix: "run",
		OnJournalError: func(err error) { b.note("no journal for this run: " + err.Error()) },
		Observers:      []capture.Observer{b.onRecording},
		Tell:           func(msg string) { b.note("OAuth: " + msg) }, OpenBrowser: openInBrowser,
		Log: log.Writer(), // net/http logs what peers send, through the app's log filter
	})
	if err != nil {
		return nil, err
	}
	s, err := c.Connect(ctx, t, policy)
	if err != nil {
		c.Close()
		if b.replaced(gen) {
			return nil, errAbandoned
		}
		return nil, err
	}
	if f := b.onLog; f != nil {
		s.OnLog(func(e recorder.Event) { b.hook(func() { f(e) }) })
	}
	if f := b.onToolsChanged; f != nil {
		s.OnToolsChanged(func() { b.hook(f) })
	}
	if f := b.onPending; f != nil {
		s.SetManualHandler(func(req *engine.PendingRequest) { b.hook(func() { f(req) }) })
	}
	b.mu.Lock()
	if gen != b.gen { // disconnected or reconnected meanwhile
		b.mu.Unlock()
		s.Close()
		c.Close()
		return nil, errAbandoned
	}
	b.sess, b.capture, b.target, b.abandon = s, c, t, nil
	b.mu.Unlock()
	b.onSession(s, nil)
	go b.watch(s, gen)
	return s, nil
}

// replaced reports whether connection gen was given up by a Disconnect
// or a newer Connect.
func (b *bridge) replaced(gen int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gen != gen
}

// watch reports when the connection ends by itself.
func (b *bridge) watch(s *engine.Session, gen int) {
	<-s.Done()
	b.mu.Lock()
	current := b.gen == gen && b.sess == s
	var c *capture.Capture
	if current {
		b.sess = nil
		c, b.capture = b.capture, nil
	}
	b.mu.Unlock()
	if !current {
		return
	}
	c.Close()
	b.onSession(nil, s.Err())
}

// disconnect stops a running workload and closes the connection (open
// requests end as aborted). It does nothing when not connected.
func (b *bridge) disconnect() error {
	b.mu.Lock()
	s, c, cancel, abandon := b.sess, b.capture, b.cancel, b.abandon
	b.sess, b.capture, b.abandon = nil, nil, nil
	b.gen++
	b.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if abandon != nil {
		abandon() // a connection still being made
	}
	if s == nil {
		return nil
	}
	err := s.Close()
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	b.onSession(nil, nil)
	return err
}

// session returns the current session, or nil when disconnected.
func (b *bridge) session() *engine.Session {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sess
}

// Target returns the target of the current (or last) connection.
func (b *bridge) Target() engine.Target {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.target
}

// journalPath returns the file the current connection is journaled to, or "".
func (b *bridge) journalPath() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.capture == nil {
		return ""
	}
	return b.capture.JournalPath()
}

// Policy returns the answer policy the next connection starts with.
func (b *bridge) Policy() engine.AnswerPolicy {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.policy
}

// setPolicy keeps policy for later connections and applies it to the
// current one: the change applies to the next request.
func (b *bridge) setPolicy(policy engine.AnswerPolicy) {
	b.mu.Lock()
	b.policy = policy
	s := b.sess
	extra := b.extra
	b.mu.Unlock()
	if s != nil {
		s.SetAnswerPolicy(policy)
	}
	for _, e := range extra {
		e.SetAnswerPolicy(policy)
	}
}

// running reports whether a workload is running.
func (b *bridge) running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cancel != nil
}

// Run starts w on the current session in a goroutine and returns at once;
// progress goes to onProgress and the end to onRunDone. It fails when not
// connected or while another run is going on.
func (b *bridge) Run(w load.Workload) error { return b.runOn(w, 1) }

// runOn is [bridge.Run] over n sessions: the current one and n-1 more
// connections to the same server, opened for the run (a server process
// each over stdio) and closed after it, recording into the same
// recording and answering under the same answer policy.
func (b *bridge) runOn(w load.Workload, n int) error {
	if n < 1 || n > MaxSessions {
		return fmt.Errorf("sessions: want 1 to %d, not %d", MaxSessions, n)
	}
	b.mu.Lock()
	s := b.sess
	if s == nil {
		b.mu.Unlock()
		return errNotConnected
	}
	if b.cancel != nil {
		b.mu.Unlock()
		return errRunning
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	b.mu.Unlock()

	go func() {
		var res load.RunResult
		err := errors.New("the run stopped unexpectedly")
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("internal error while running (please report it): %v", p)
			}
			cancel()
			b.mu.Lock()
			b.cancel = nil
			b.mu.Unlock()
			if b.onRunDone != nil {
				b.hook(func() { b.onRunDone(res, err) })
			}
		}()
		var progress func(load.Progress)
		if f := b.onProgress; f != nil {
			progress = func(p load.Progress) { b.hook(func() { f(p) }) }
		}
		if n == 1 {
			res, err = load.Run(ctx, []*engine.Session{s}, w, progress)
		} else {
			res, err = b.runWide(ctx, s, w, n, progress)
		}
		select {
		case <-s.Done():
			if err != nil {
				err = fmt.Errorf("%w: %w", errConnectionEnded, err)
			}
		default:
		}
		if ctx.Err() != nil && err != nil {
			err = fmt.Errorf("stopped: %w", err)
		}
	}()
	return nil
}

// MaxSessions is the most sessions one run of the app may spread its
// calls over.
const MaxSessions = 100

// runWide opens n-1 more sessions beside s, runs w over all n and closes
// the extra ones. While they live, a change of answer policy reaches them too.
func (b *bridge) runWide(ctx context.Context, s *engine.Session, w load.Workload, n int, progress func(load.Progress)) (load.RunResult, error) {
	b.mu.Lock()
	t, policy := b.target, b.policy
	b.mu.Unlock()
	g, err := engine.Widen(ctx, s, t, policy, n)
	if err != nil {
		return load.RunResult{}, fmt.Errorf("opening %d more sessions for the run: %w", n-1, err)
	}
	extra := g.Sessions()[1:]
	b.mu.Lock()
	b.extra = extra
	policy = b.policy // a change made while they connected
	b.mu.Unlock()
	for _, e := range extra {
		e.SetAnswerPolicy(policy)
		if f := b.onLog; f != nil {
			e.OnLog(func(ev recorder.Event) { b.hook(func() { f(ev) }) })
		}
		if f := b.onPending; f != nil {
			e.SetManualHandler(func(req *engine.PendingRequest) { b.hook(func() { f(req) }) })
		}
	}
	defer func() {
		b.mu.Lock()
		b.extra = nil
		b.mu.Unlock()
		(&closer{extra}).close()
	}()
	res, err := load.Run(ctx, g.Sessions(), w, progress)
	if err == nil {
		err = g.Err() // an extra session lost: say so even if the run ended
	}
	return res, err
}

// closer closes sessions at once.
type closer struct{ sessions []*engine.Session }

func (c *closer) close() {
	var wg sync.WaitGroup
	for _, s := range c.sessions {
		wg.Add(1)
		go func() { defer wg.Done(); s.Close() }()
	}
	wg.Wait()
}

// Stop cancels the running workload, if any; calls still out end as
// cancelled.
func (b *bridge) Stop() {
	b.mu.Lock()
	cancel := b.cancel
	b.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// note shows a notice in the log view.
func (b *bridge) note(msg string) {
	if f := b.onLog; f != nil {
		b.hook(func() { f(recorder.Event{Kind: recorder.EventOther, Text: msg}) })
	}
}
