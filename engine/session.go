package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fanout-inspector/inspector/internal/wire"
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
	// Era is the era the session asked for (see [Target.ProtocolEra]);
	// [ServerInfo.EraBadge] says which one it got.
	Era Era `json:"era,omitempty"`
	// Capabilities lists what the server offers, as dotted names:
	// "tools", "tools.listChanged", "logging", "prompts", ...
	Capabilities []string `json:"capabilities,omitempty"`
	Instructions string   `json:"instructions,omitempty"`
}

// Session is one live connection to an MCP server. It answers the
// server's requests with its [AnswerPolicy], records every request and
// notification into its recording, and calls the server's tools. All its
// methods are safe for concurrent use.
type Session struct {
	rec    *recorder.Recording
	target Target
	name   string
	info   ServerInfo

	client *mcp.Client
	cs     *mcp.ClientSession
	wire   *wireState // nil when the transport's messages cannot be seen
	// exchanges records the session's HTTP exchanges (nil but over
	// HTTP); Close ends those still open.
	exchanges *ExchangeTap
	cmd       *exec.Cmd
	stderr    *stderrLines

	policy  policyBox    // how requests are answered (policy.go)
	gate    gate         // the dispatch gate (dispatch.go)
	calls   *wire.Calls  // tool calls in flight, for linking (call.go)
	callSeq atomic.Int64 // the last progress token number handed out
	hooks   hooks        // the user's callbacks and their queue (hooks.go)
	life    life         // the session's life and how it ended (life.go)

	subs subscriptions // resource subscriptions (subscribe.go)

	traceIDs recorder.TraceIDs // the recording's trace and span IDs (tracecontext.go)

	logLevel atomic.Pointer[string] // the log level asked of the server (loglevel.go)
}

// Connect connects to t, initializes the MCP session, and starts
// recording into rec: rec's Meta gets the target, the negotiated protocol,
// the server's name and version, and policy as JSON. Server requests are
// answered with policy until [Session.SetAnswerPolicy] changes it.
func Connect(ctx context.Context, t Target, policy AnswerPolicy, rec *recorder.Recording) (*Session, error) {
	return connect(ctx, t, policy, rec, nil)
}

// connect is Connect over a given transport (tests) or, when inner is nil,
// the target's.
func connect(ctx context.Context, t Target, policy AnswerPolicy, rec *recorder.Recording, inner mcp.Transport) (*Session, error) {
	return connectNamed(ctx, t, policy, rec, inner, fmt.Sprintf("s%d", sessionSeq.Add(1)))
}

// connectNamed is connect with the session's label in spans and events.
func connectNamed(ctx context.Context, t Target, policy AnswerPolicy, rec *recorder.Recording, inner mcp.Transport, name string) (*Session, error) {
	if rec == nil {
		return nil, errors.New("connect: no recording to write into (pass recorder.New(...))")
	}
	if err := policy.Validate(); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if t.LogLevel != "" {
		if err := recorder.CheckLogLevel(t.LogLevel); err != nil {
			return nil, fmt.Errorf("connect: %w", err)
		}
	}
	// Before anything is recorded: no secret of the target reaches the
	// recording, its journal or its exports.
	rec.AddSecrets(t.Secrets()...)
	era, pinned, err := t.ProtocolEra()
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	guard := &eraGuard{modern: era == EraModern}
	s := &Session{
		rec:      rec,
		target:   t,
		name:     name,
		calls:    wire.NewCalls(),
		hooks:    hooks{notices: newNoticeQueue(256)},
		traceIDs: rec.TraceIDs(),
	}
	// Transports keep the context they connect with for the whole session
	// (the SSE transport's event stream is a request made with it), so
	// they get one that lives until Close; ctx only bounds the connecting.
	s.life.start(ctx)
	s.gate.clock = rec.Now
	// Starting the transport and the initialize handshake end when ctx
	// does (an interrupt) or the connect timeout fires, whichever is
	// first; either way the wait is not blamed on the server.
	outer := ctx
	stopWatch := context.AfterFunc(outer, s.life.endClosed)
	defer stopWatch()
	timeout := time.AfterFunc(t.Limits.connectTimeout(), func() { s.life.stop(errConnectTimedOut) })
	defer timeout.Stop()
	ctx = s.life.ctx
	s.setAnswerPolicy(policy)

	transport, err := s.transport(ctx, inner)
	if err != nil {
		s.hooks.notices.stop()
		s.life.endClosed()
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
	s.client.AddRoots(rootsOf(policy.Roots)...) // so that changing them notifies the server
	s.client.AddSendingMiddleware(s.sendingMiddleware)
	s.client.AddReceivingMiddleware(s.receivingMiddleware)
	s.client.AddSendingMiddleware(guard.middleware) // outermost: see eraGuard

	rec.AddEvent(recorder.Event{At: rec.Now(), Session: s.name, Kind: recorder.EventConnection, Text: "connecting to " + t.String()})
	cs, err := s.client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: offer(era, pinned)})
	if err == nil && (!timeout.Stop() || !stopWatch()) {
		// The timeout fired, or ctx ended, just as the session started:
		// honour it.
		cs.Close()
		err = context.Cause(s.life.ctx)
	}
	if err != nil {
		if eerr := guard.explain(t); eerr != nil {
			err = s.redact(eerr)
		} else {
			err = s.explainConnectError(outer, err)
		}
		s.closeTransport()
		s.stderr.flush()
		s.abortOpen(rec.Now(), err.Error())
		rec.AddEvent(recorder.Event{At: rec.Now(), Session: s.name, Kind: recorder.EventConnection, Text: "connection failed: " + err.Error()})
		s.hooks.notices.stop()
		s.life.endClosed()
		return nil, err
	}
	s.cs = cs
	s.info = serverInfo(cs.InitializeResult())
	s.info.Era = era
	config, _ := json.Marshal(policy)
	rec.SetMeta(func(m *recorder.Meta) {
		m.Target = t.String()
		m.Protocol = s.info.Protocol
		m.Era = string(era)
		m.Server = strings.TrimSpace(s.info.Name + " " + s.info.Version)
		m.Config = config
	})
	rec.AddEvent(recorder.Event{At: rec.Now(), Session: s.name, Kind: recorder.EventConnection,
		Text: fmt.Sprintf("connected to %s (%s)", describeServer(s.info), s.info.EraBadge())})
	s.life.up.Store(true)
	go s.watch()
	if s.wire != nil && s.wire.failure() != nil && t.Limits.tooLarge(s.wire.failure()) != nil {
		// A limit was met between initialize and now (on the HTTP event
		// stream the session opens), when it could not end the session yet.
		s.overLimit(s.wire.failure())
	}
	// Ask for the server's log messages so that they reach the timeline
	// and OnLog.
	s.startLogging(ctx)
	return s, nil
}

// EraBadge says which era the session speaks, and for auto which one it
// fell to: "modern · 2026-07-28", "auto → legacy · 2025-11-25" (see
// [EraBadge]).
func (info ServerInfo) EraBadge() string { return EraBadge(info.Era, info.Protocol) }

func describeServer(info ServerInfo) string {
	if info.Name == "" {
		return "server"
	}
	return strings.TrimSpace(info.Name + " " + info.Version)
}

// Recording returns the recording the session writes into.
func (s *Session) Recording() *recorder.Recording { return s.rec }

// Name is the session's label in spans and events.
func (s *Session) Name() string { return s.name }

// Info returns what the server said about itself.
func (s *Session) Info() ServerInfo { return s.info }

// Tool is a tool the server offers, as the inspector uses it: the parts of
// the protocol's tool description that a person reads and that a call's
// arguments are built from.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the JSON Schema of the tool's arguments as the server
	// sent it, or nil.
	InputSchema json.RawMessage
}

// ListTools lists the server's tools, all pages. Each request is recorded
// as an outgoing span.
func (s *Session) ListTools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	for tool, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return tools, s.explainCallError("listing tools", err)
		}
		t := Tool{Name: tool.Name, Title: tool.Title, Description: tool.Description}
		if tool.InputSchema != nil {
			t.InputSchema, _ = json.Marshal(tool.InputSchema)
		}
		tools = append(tools, t)
	}
	return tools, nil
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
