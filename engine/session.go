package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the inspector's version, sent as the client's version.
var Version = "0.1.0"

// sessionSeq numbers sessions within the process, for span labels.
var sessionSeq atomic.Int64

// ServerInfo is what the server said about itself when the session
// started.
type ServerInfo struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Protocol string `json:"protocol"`
	// Capabilities lists what the server offers, as dotted names:
	// "tools", "tools.listChanged", "logging", "prompts", ...
	Capabilities []string `json:"capabilities,omitempty"`
	Instructions string   `json:"instructions,omitempty"`
}

// Session is one live connection to an MCP server. It answers the
// server's requests with its [Callbacks], records every request and
// notification into its recording, and calls the server's tools. All its
// methods are safe for concurrent use.
type Session struct {
	rec    *recorder.Recording
	target Target
	name   string

	client *mcp.Client
	cs     *mcp.ClientSession
	wire   *wire // nil when the transport's messages cannot be seen
	cmd    *exec.Cmd
	stderr *stderrLines

	cbMu sync.RWMutex
	cb   Callbacks

	gate gate

	arrivalMu sync.Mutex
	arrivals  map[string]int64

	hookMu  sync.Mutex
	onLog   func(recorder.Event)
	onTools func()
	manual  func(*PendingRequest)
	waiting map[*PendingRequest]struct{} // requests waiting for a person

	notices *noticeQueue

	callsMu sync.Mutex
	calls   map[*call]struct{} // tools/call requests in flight
	tokens  map[string]*call   // by progress token

	info ServerInfo

	life      context.Context // cancelled when the session ends, ending every wait
	stopLife  context.CancelCauseFunc
	endLife   context.CancelFunc // stopLife(errSessionClosed)
	endOnce   sync.Once
	done      chan struct{}
	errMu     sync.Mutex
	err       error
	closing   atomic.Bool
	watching  atomic.Bool // the session is up and watch will close done
	closeOnce sync.Once
	closeErr  error
}

// Connect connects to t, initializes the MCP session, and starts
// recording into rec: rec's Meta gets the target, the negotiated protocol,
// the server's name and version, and cb as JSON. Server requests are
// answered with cb until [Session.SetCallbacks] changes it.
func Connect(ctx context.Context, t Target, cb Callbacks, rec *recorder.Recording) (*Session, error) {
	return connect(ctx, t, cb, rec, nil)
}

// connect is Connect over a given transport (tests) or, when inner is nil,
// the target's.
func connect(ctx context.Context, t Target, cb Callbacks, rec *recorder.Recording, inner mcp.Transport) (*Session, error) {
	if rec == nil {
		return nil, errors.New("connect: no recording to write into (pass recorder.New(...))")
	}
	if err := cb.Validate(); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	// Before anything is recorded: no secret of the target reaches the
	// recording, its journal or its exports.
	rec.AddSecrets(t.Secrets()...)
	if p := t.Protocol; p != "" && p != "latest" && !slices.Contains(mcp.SupportedProtocolVersions(), p) {
		return nil, fmt.Errorf("connect: protocol %q is not one this inspector speaks; choose latest or one of %s",
			p, strings.Join(mcp.SupportedProtocolVersions(), ", "))
	}
	s := &Session{
		rec:      rec,
		target:   t,
		name:     fmt.Sprintf("s%d", sessionSeq.Add(1)),
		arrivals: make(map[string]int64),
		calls:    make(map[*call]struct{}),
		tokens:   make(map[string]*call),
		done:     make(chan struct{}),
		notices:  newNoticeQueue(256),
	}
	// Transports keep the context they connect with for the whole session
	// (the SSE transport's event stream is a request made with it), so
	// they get one that lives until Close; ctx only bounds the connecting.
	s.life, s.stopLife = context.WithCancelCause(context.WithoutCancel(ctx))
	s.endLife = func() { s.stopLife(errSessionClosed) }
	s.gate.clock = rec.Now
	// Starting the transport and the initialize handshake end when ctx
	// does (an interrupt) or the connect timeout fires, whichever is
	// first; either way the wait is not blamed on the server.
	outer := ctx
	stopWatch := context.AfterFunc(outer, s.endLife)
	defer stopWatch()
	timeout := time.AfterFunc(t.Limits.connectTimeout(), func() { s.stopLife(errConnectTimedOut) })
	defer timeout.Stop()
	ctx = s.life
	s.setCallbacks(cb)

	transport, err := s.transport(ctx, inner)
	if err != nil {
		s.notices.stop()
		s.endLife()
		return nil, err
	}
	s.client = mcp.NewClient(&mcp.Implementation{Name: "fanout-inspector", Version: Version}, &mcp.ClientOptions{
		CreateMessageHandler: s.createMessage,
		ElicitationHandler:   s.elicit,
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:  &mcp.RootCapabilities{ListChanged: true},
			Sampling: &mcp.SamplingCapabilities{},
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { s.toolsChanged() },
		// The session runs the multi-round-trip loop itself (see callRounds).
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	s.client.AddRoots(rootsOf(cb.Roots)...) // so that changing them notifies the server
	s.client.AddSendingMiddleware(s.sendingMiddleware)
	s.client.AddReceivingMiddleware(s.receivingMiddleware)

	rec.AddEvent(recorder.Event{At: rec.Now(), Session: s.name, Kind: recorder.EventConnection, Text: "connecting to " + t.String()})
	cs, err := s.client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: t.protocol()})
	if err == nil && (!timeout.Stop() || !stopWatch()) {
		// The timeout fired, or ctx ended, just as the session started:
		// honour it.
		cs.Close()
		err = context.Cause(s.life)
	}
	if err != nil {
		err = s.explainConnectError(outer, err)
		s.closeTransport()
		s.stderr.flush()
		rec.AbortOpen(rec.Now(), err.Error())
		rec.AddEvent(recorder.Event{At: rec.Now(), Session: s.name, Kind: recorder.EventConnection, Text: "connection failed: " + err.Error()})
		s.notices.stop()
		s.endLife()
		return nil, err
	}
	s.cs = cs
	s.info = serverInfo(cs.InitializeResult())
	config, _ := json.Marshal(cb)
	rec.SetMeta(func(m *recorder.Meta) {
		m.Target = t.String()
		m.Protocol = s.info.Protocol
		m.Server = strings.TrimSpace(s.info.Name + " " + s.info.Version)
		m.Config = config
	})
	rec.AddEvent(recorder.Event{At: rec.Now(), Session: s.name, Kind: recorder.EventConnection,
		Text: fmt.Sprintf("connected to %s (protocol %s)", describeServer(s.info), s.info.Protocol)})
	s.watching.Store(true)
	go s.watch()
	if s.wire != nil && s.wire.failure() != nil && t.Limits.tooLarge(s.wire.failure()) != nil {
		// A limit was met between initialize and now (on the HTTP event
		// stream the session opens), when it could not end the session yet.
		s.overLimit(s.wire.failure())
	}
	if s.info.hasCapability("logging") {
		// Ask for the server's log messages so that they reach the
		// timeline and OnLog; a server that refuses or does not answer
		// (within 5s) just sends none.
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = cs.SetLoggingLevel(lctx, &mcp.SetLoggingLevelParams{Level: "info"})
		cancel()
	}
	return s, nil
}

func describeServer(info ServerInfo) string {
	if info.Name == "" {
		return "server"
	}
	return strings.TrimSpace(info.Name + " " + info.Version)
}

// watch waits for the connection to end and records why, unless the
// read side of the wire saw the end first (see [Session.lose]).
func (s *Session) watch() {
	waitErr := s.cs.Wait()
	switch {
	case s.closing.Load():
		s.closeTransport()
		s.end(s.rec.Now(), nil)
	case !s.isDone():
		// Lost where the tap could not see it (an HTTP transport), or
		// before the session was up.
		var cause error
		if s.wire != nil && s.wire.failure() != nil {
			// The cause is known; a stdio server still running is reaped
			// (which may take its terminate timeout) in the background.
			cause = s.explainWireError(s.wire.failure())
			go s.closeTransport()
		} else {
			s.closeTransport() // quick: the server has gone, reap it
			cause = s.lostCause(waitErr)
		}
		s.end(s.rec.Now(), cause)
	}
	// Every handler has returned: nothing will claim a request any more.
	if s.wire != nil {
		s.wire.reset()
	}
}

// lose ends the session the moment reading from the server fails while
// the session is up and not being closed: a server that exited, closed
// its output or wrote something that is not JSON-RPC. Without this the
// session would end only once every request being served had returned
// and the server process had been reaped, which a slow latency, a server
// slow to exit or a helper process holding its stderr can stretch by
// seconds. It runs on the reading goroutine before the SDK learns of the
// error, so a call that fails because of the loss returns after Done is
// closed and Err says why.
func (s *Session) lose() {
	if !s.watching.Load() || s.closing.Load() || s.isDone() {
		return // not up yet (connect reports it), or Close is ending it
	}
	at := s.rec.Now()
	var cause error
	if err := s.wire.failure(); err != nil {
		// The server is still running: stop it in the background.
		go s.closeTransport()
		cause = s.explainWireError(err)
	} else {
		// The server's output ended: it has exited, or is exiting. Reap
		// it for its exit status, but do not wait long for one that
		// lingers.
		reaped := make(chan struct{})
		go func() {
			s.closeTransport()
			close(reaped)
		}()
		t := time.NewTimer(time.Second)
		select {
		case <-reaped:
			t.Stop()
			cause = s.lostCause(nil)
		case <-t.C:
			cause = errors.New("the server closed its output (stdout) but did not exit; it is being stopped")
		}
	}
	s.end(at, cause)
}

// end ends the session, once: spans still open are aborted as of at with
// the reason, the disconnection is recorded, every wait of the session
// (latencies, queues, people, calls) is cut short and Done is closed.
// cause is why the connection was lost, nil when Close ended it.
func (s *Session) end(at time.Duration, cause error) {
	s.endOnce.Do(func() {
		reason := "session closed"
		ev := recorder.Event{At: at, Session: s.name, Kind: recorder.EventConnection}
		if cause != nil {
			cause = s.redact(cause)
			s.errMu.Lock()
			s.err = cause
			s.errMu.Unlock()
			reason = cause.Error()
			ev.Text = "connection lost: " + reason
		} else {
			ev.Text = "disconnected: " + reason
		}
		s.rec.AbortOpen(at, reason)
		s.stderr.flush()
		s.rec.AddEvent(ev)
		s.emitLog(ev)
		if cause != nil {
			s.stopLife(&lostError{cause})
		} else {
			s.endLife()
		}
		// Requests waiting for a person stop waiting now, not when their
		// handlers next run: whoever shows them sees Done closed before
		// the session's.
		s.hookMu.Lock()
		for p := range s.waiting {
			p.end()
		}
		s.waiting = nil
		s.hookMu.Unlock()
		close(s.done)
		s.notices.stop()
	})
}

// lostError is the cause of the session's contexts when the connection
// was lost.
type lostError struct{ err error }

func (e *lostError) Error() string { return e.err.Error() }
func (e *lostError) Unwrap() error { return e.err }

// lostCause says, as well as can be known, why the connection ended
// without Close being called.
func (s *Session) lostCause(waitErr error) error {
	if s.wire != nil {
		if err := s.wire.failure(); err != nil {
			return s.explainWireError(err)
		}
	}
	if s.cmd != nil && s.cmd.ProcessState != nil {
		msg := "server exited: " + s.cmd.ProcessState.String()
		if tail := s.stderr.last(); tail != "" {
			msg += " (last stderr line: " + tail + ")"
		}
		return errors.New(msg)
	}
	if waitErr != nil && !errors.Is(waitErr, io.EOF) {
		return fmt.Errorf("connection lost: %w", waitErr)
	}
	return errors.New("connection closed by the server")
}

// Recording returns the recording the session writes into.
func (s *Session) Recording() *recorder.Recording { return s.rec }

// Name is the session's label in spans and events.
func (s *Session) Name() string { return s.name }

// Callbacks returns the callbacks in use.
func (s *Session) Callbacks() Callbacks {
	s.cbMu.RLock()
	cb := s.cb
	s.cbMu.RUnlock()
	return cb.clone()
}

// clone copies cb's map and slice, so that a caller changing them does
// not change the session's.
func (cb Callbacks) clone() Callbacks {
	cb.Roots = append([]string(nil), cb.Roots...)
	if cb.MethodLatency != nil {
		ml := make(map[string]LatencyModel, len(cb.MethodLatency))
		for k, v := range cb.MethodLatency {
			ml[k] = v
		}
		cb.MethodLatency = ml
	}
	return cb
}

// current is the callbacks as they are, for a request about to be
// served; the caller must not change them.
func (s *Session) current() Callbacks {
	s.cbMu.RLock()
	defer s.cbMu.RUnlock()
	return s.cb
}

// SetCallbacks changes how the server's requests are answered, from the
// next request on, without reconnecting. Requests already being served
// keep the callbacks they started with; a larger dispatch limit lets
// queued requests in at once. An invalid sampling reply template makes
// sampling answers fail with the template's error; check
// [Callbacks.Validate] first to tell the user.
func (s *Session) SetCallbacks(cb Callbacks) {
	old := s.Callbacks()
	s.setCallbacks(cb)
	if s.client != nil && !equalStrings(old.Roots, cb.Roots) {
		s.client.RemoveRoots(old.Roots...)
		s.client.AddRoots(rootsOf(cb.Roots)...)
	}
	config, _ := json.Marshal(cb)
	s.rec.SetMeta(func(m *recorder.Meta) { m.Config = config })
}

func (s *Session) setCallbacks(cb Callbacks) {
	cb = cb.clone()
	cb.reply, _ = parseReply(cb.SamplingReply)
	s.cbMu.Lock()
	s.cb = cb
	s.cbMu.Unlock()
	s.gate.setLimit(cb.Dispatch.Slots())
}

// Info returns what the server said about itself.
func (s *Session) Info() ServerInfo { return s.info }

// ListTools lists the server's tools, all pages. Each request is recorded
// as an outgoing span.
func (s *Session) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for tool, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return tools, s.explainCallError("listing tools", err)
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// OnToolsChanged sets f to be called, from its own goroutine, when the
// server says its tool list changed.
func (s *Session) OnToolsChanged(f func()) {
	s.hookMu.Lock()
	s.onTools = f
	s.hookMu.Unlock()
}

// OnLog sets f to be called with each line the server writes to stderr,
// each log message it sends, and connection changes. f runs on its own
// goroutine and never holds up the session; if f falls far behind, events
// are dropped (see [Session.DroppedLogs]) rather than slowing the reader.
func (s *Session) OnLog(f func(recorder.Event)) {
	s.hookMu.Lock()
	s.onLog = f
	s.hookMu.Unlock()
}

// DroppedLogs reports how many OnLog and OnToolsChanged calls were
// dropped because the callback could not keep up.
func (s *Session) DroppedLogs() int64 { return s.notices.dropped.Load() }

// SetManualHandler sets f to be called, from its own goroutine, with each
// request that waits for a person (manual sampling or elicitation).
func (s *Session) SetManualHandler(f func(*PendingRequest)) {
	s.hookMu.Lock()
	s.manual = f
	s.hookMu.Unlock()
}

// Done is closed when the connection has ended, closed or lost. A loss
// over stdio or in memory (the server exited, closed its output or wrote
// something that is not JSON-RPC) closes it the moment the read fails,
// with Err already set: a call or Run that fails because of the loss
// returns after Done is closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err says why the connection was lost; it is nil while connected and
// after Close.
func (s *Session) Err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// Close disconnects. Spans still open end as aborted. Close is idempotent.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		select {
		case <-s.done:
			return // already lost; Err keeps saying why
		default:
		}
		s.closing.Store(true)
		s.endLife()
		err := s.cs.Close()
		<-s.done
		if err != nil && !s.closedCleanly(err) {
			s.closeErr = err
		}
	})
	return s.closeErr
}

// closedCleanly reports whether err from closing is just the server
// process ending because we closed its stdin.
func (s *Session) closedCleanly(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, exec.ErrWaitDelay)
}

func (s *Session) closeTransport() {
	if s.wire != nil {
		s.wire.closeInner()
	}
}

func (s *Session) toolsChanged() {
	s.hookMu.Lock()
	f := s.onTools
	s.hookMu.Unlock()
	if f != nil {
		s.notices.push(f)
	}
}

func (s *Session) emitLog(e recorder.Event) {
	s.hookMu.Lock()
	f := s.onLog
	s.hookMu.Unlock()
	if f != nil {
		e = s.rec.ScrubEvent(e) // the copy the log shows is as clean as the stored one
		s.notices.push(func() { f(e) })
	}
}

// nextIndex returns the 1-based arrival index of a new request of method.
func (s *Session) nextIndex(method string) int64 {
	s.arrivalMu.Lock()
	defer s.arrivalMu.Unlock()
	s.arrivals[method]++
	return s.arrivals[method]
}

func (info ServerInfo) hasCapability(name string) bool {
	for _, c := range info.Capabilities {
		if c == name {
			return true
		}
	}
	return false
}

func serverInfo(res *mcp.InitializeResult) ServerInfo {
	var info ServerInfo
	if res == nil {
		return info
	}
	info.Protocol = res.ProtocolVersion
	info.Instructions = res.Instructions
	if res.ServerInfo != nil {
		info.Name, info.Version = res.ServerInfo.Name, res.ServerInfo.Version
	}
	if c := res.Capabilities; c != nil {
		add := func(name string, ok bool) {
			if ok {
				info.Capabilities = append(info.Capabilities, name)
			}
		}
		add("tools", c.Tools != nil)
		add("tools.listChanged", c.Tools != nil && c.Tools.ListChanged)
		add("prompts", c.Prompts != nil)
		add("prompts.listChanged", c.Prompts != nil && c.Prompts.ListChanged)
		add("resources", c.Resources != nil)
		add("resources.subscribe", c.Resources != nil && c.Resources.Subscribe)
		add("resources.listChanged", c.Resources != nil && c.Resources.ListChanged)
		add("logging", c.Logging != nil)
		add("completions", c.Completions != nil)
		for k := range c.Experimental {
			info.Capabilities = append(info.Capabilities, "experimental."+k)
		}
		sort.Strings(info.Capabilities)
	}
	return info
}

func rootsOf(uris []string) []*mcp.Root {
	roots := make([]*mcp.Root, 0, len(uris))
	for _, u := range uris {
		roots = append(roots, &mcp.Root{URI: u})
	}
	return roots
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// noticeQueue runs callbacks on one goroutine, in order, dropping (and
// counting) what does not fit rather than blocking whoever pushes.
type noticeQueue struct {
	ch      chan func()
	quit    chan struct{}
	once    sync.Once
	dropped atomic.Int64
}

func newNoticeQueue(n int) *noticeQueue {
	q := &noticeQueue{ch: make(chan func(), n), quit: make(chan struct{})}
	go q.run()
	return q
}

func (q *noticeQueue) run() {
	for {
		select {
		case f := <-q.ch:
			f()
		case <-q.quit:
			for { // deliver what was queued before the stop
				select {
				case f := <-q.ch:
					f()
				default:
					return
				}
			}
		}
	}
}

func (q *noticeQueue) push(f func()) {
	select {
	case q.ch <- f:
	default:
		q.dropped.Add(1)
	}
}

func (q *noticeQueue) stop() { q.once.Do(func() { close(q.quit) }) }

// waitDone waits up to d for the session to end.
func (s *Session) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

func (s *Session) isDone() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
