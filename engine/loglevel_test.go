package engine

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logsAfter returns the log messages among the events of snap recorded
// after the first n events, as "level logger: message" lines, and the
// events themselves.
func logsAfter(snap *recorder.Snapshot, n int) ([]string, []recorder.Event) {
	var lines []string
	var evs []recorder.Event
	for _, e := range snap.Events[n:] {
		if m, ok := recorder.LogOf(e); ok {
			lines = append(lines, recorder.LogPrefix(m.Level, m.Logger)+m.Message)
			evs = append(evs, e)
		}
	}
	return lines, evs
}

// lastCall is the span of the last tools/call recorded.
func lastCall(t *testing.T, snap *recorder.Snapshot) *recorder.Span {
	t.Helper()
	calls := spansOf(snap, "tools/call")
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Kind == recorder.KindTool {
			return calls[i]
		}
	}
	t.Fatal("no tool call recorded")
	return nil
}

// TestLogLevelFollowsEra connects to the demo server on both protocol eras,
// in process, over stdio and over streamable HTTP, asking for warning and
// above: a fan-out whose elicitations are declined logs its warning but
// not its info line, and the slow tool logs nothing. Set to debug, the
// slow tool's debug and info lines all arrive, each under the
// call that made it. On 2025-11-25 the level goes in logging/setLevel, on
// 2026-07-28 in the _meta of every request.
func TestLogLevelFollowsEra(t *testing.T) {
	transports := []struct {
		name   string
		target func(t *testing.T) Target
	}{
		{"in-process", func(*testing.T) Target { return Target{} }},
		{"stdio", func(*testing.T) Target { return stdioTarget("demo") }},
		{"http", func(t *testing.T) Target {
			srv := httptest.NewServer(demo.NewHTTPHandler())
			t.Cleanup(srv.Close)
			return Target{Transport: TransportHTTP, URL: srv.URL}
		}},
	}
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		for _, tr := range transports {
			t.Run(protocol+"/"+tr.name, func(t *testing.T) {
				t.Parallel()
				target := tr.target(t)
				target.Protocol, target.LogLevel = protocol, "warning"
				policy := DefaultAnswerPolicy()
				policy.Elicitation = ElicitDecline
				s := connectTarget(t, target, policy)
				if got := s.LogLevel(); got != "warning" {
					t.Fatalf("LogLevel() = %q after connecting with warning", got)
				}
				wantRoute := map[string]string{"2025-11-25": "logging/setLevel", "2026-07-28": "_meta"}[protocol]
				if route := s.LogLevelRoute(); !strings.Contains(route, wantRoute) {
					t.Errorf("LogLevelRoute() = %q, want it to say %s", route, wantRoute)
				}

				if res := run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(2, "elicitation")}); res.OK != 1 {
					t.Fatalf("fanout: %+v", res)
				}
				if res := run(t, s, testCalls{Tool: "slow", Args: json.RawMessage(`{"ms":20,"steps":2}`)}); res.OK != 1 {
					t.Fatalf("slow: %+v", res)
				}
				snap := s.Recording().Snapshot()
				lines, _ := logsAfter(snap, 0)
				want := []string{"warning fanout: 2 of 2 elicitation requests were declined or cancelled"}
				if strings.Join(lines, "\n") != strings.Join(want, "\n") {
					t.Fatalf("at warning the server sent:\n%s\nwant only:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
				}

				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := s.SetLogLevel(ctx, "debug"); err != nil {
					t.Fatalf("SetLogLevel(debug): %v", err)
				}
				seen := len(snap.Events)
				if res := run(t, s, testCalls{Tool: "slow", Args: json.RawMessage(`{"ms":20,"steps":2}`)}); res.OK != 1 {
					t.Fatalf("slow: %+v", res)
				}
				snap = s.Recording().Snapshot()
				call := lastCall(t, snap)
				lines, evs := logsAfter(snap, seen)
				want = []string{"debug slow: sleeping 20 ms in 2 steps of 10ms", "info slow: step 1 of 2", "info slow: step 2 of 2"}
				if len(lines) != 4 || strings.Join(lines[:3], "\n") != strings.Join(want, "\n") || !strings.HasPrefix(lines[3], "debug slow: slept ") {
					t.Fatalf("at debug the slow tool's logs were:\n%s\nwant:\n%s\ndebug slow: slept …", strings.Join(lines, "\n"), strings.Join(want, "\n"))
				}
				for _, e := range evs {
					if e.Span != call.ID {
						t.Errorf("log %q is under span %d, want the slow call's %d", e.Text, e.Span, call.ID)
					}
				}

				switch protocol {
				case "2025-11-25":
					var levels []string
					for _, sp := range spansOf(snap, "logging/setLevel") {
						var p struct{ Level string }
						_ = json.Unmarshal(sp.Params, &p)
						levels = append(levels, p.Level)
					}
					if strings.Join(levels, " ") != "warning debug" {
						t.Errorf("logging/setLevel sent with %v, want warning then debug", levels)
					}
				case "2026-07-28":
					if n := len(spansOf(snap, "logging/setLevel")); n != 0 {
						t.Errorf("%d logging/setLevel requests on 2026-07-28, want none", n)
					}
					if !strings.Contains(string(call.Params), `"io.modelcontextprotocol/logLevel":"debug"`) {
						t.Errorf("the call's params carry no log level in _meta: %s", call.Params)
					}
				}
			})
		}
	}
}

// TestSetLogLevelRefused checks what a person is told: a level the
// protocol does not name, and a 2025-11-25 server without logging.
func TestSetLogLevelRefused(t *testing.T) {
	s := connectDemo(t, DefaultAnswerPolicy())
	ctx := context.Background()
	err := s.SetLogLevel(ctx, "verbose")
	if err == nil || !strings.Contains(err.Error(), `"verbose"`) || !strings.Contains(err.Error(), "debug, info, notice, warning") {
		t.Errorf("SetLogLevel(verbose) = %v, want an error naming the levels", err)
	}
	if s.LogLevel() != "info" {
		t.Errorf("LogLevel() = %q after a refused level, want info kept", s.LogLevel())
	}

	// A server with a tool but no logging capability (capabilities of
	// its own: the SDK's default would declare logging).
	quiet := mcp.NewServer(&mcp.Implementation{Name: "quiet", Version: "1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{}})
	mcp.AddTool(quiet, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	q := connectServer(t, quiet, DefaultAnswerPolicy())
	if q.Info().hasCapability("logging") {
		t.Fatalf("the quiet server declares %v", q.Info().Capabilities)
	}
	if err := q.SetLogLevel(ctx, "debug"); !errors.Is(err, ErrNoLogging) {
		t.Errorf("SetLogLevel on a server without logging = %v, want ErrNoLogging", err)
	}
	if q.LogLevel() != "" || !strings.Contains(q.LogLevelRoute(), "does not offer logging") {
		t.Errorf("LogLevel() = %q, route %q: want none, and why", q.LogLevel(), q.LogLevelRoute())
	}
	if n := len(spansOf(q.Recording().Snapshot(), "logging/setLevel")); n != 0 {
		t.Errorf("%d logging/setLevel requests sent to a server without logging", n)
	}
}

// TestConnectRefusesUnknownLogLevel: a level that is not the protocol's
// is refused before anything is sent.
func TestConnectRefusesUnknownLogLevel(t *testing.T) {
	_, err := Connect(context.Background(), Target{LogLevel: "loud"}, DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
	if err == nil || !strings.Contains(err.Error(), `log level "loud": want one of debug, info,`) {
		t.Fatalf("Connect with log level loud = %v", err)
	}
}

// TestLogsLinkedByStream: a server whose log messages name no call (no
// progress token in their _meta, as most servers send them) serves three
// calls at once over streamable HTTP; each call's messages come on its own
// POST's event stream, and each is shown under the call that made it.
func TestLogsLinkedByStream(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tokenless-logs", Version: "1"}, nil)
	var started sync.WaitGroup
	started.Add(3)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	mcp.AddTool(srv, &mcp.Tool{Name: "work"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Name string `json:"name"`
	}) (*mcp.CallToolResult, any, error) {
		log := func(msg string) {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "work", Data: in.Name + ": " + msg})
		}
		log("started")
		started.Done()
		select { // all three in flight before any goes on
		case <-all:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		log("done")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Name}}}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	s := connectTarget(t, Target{Transport: TransportHTTP, URL: ts.URL}, DefaultAnswerPolicy())

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out := s.CallTool(ctx, ToolCall{Tool: "work", Args: json.RawMessage(`{"name":"` + name + `"}`)}); out.Failure != "" {
				t.Errorf("work %s: %s", name, out.Failure)
			}
		}()
	}
	wg.Wait()
	snap := s.Recording().Snapshot()
	byName := map[recorder.SpanID]string{}
	for _, c := range spansOf(snap, "tools/call") {
		var p struct {
			Arguments struct{ Name string } `json:"arguments"`
		}
		_ = json.Unmarshal(c.Params, &p)
		byName[c.ID] = p.Arguments.Name
	}
	_, evs := logsAfter(snap, 0)
	if len(evs) != 6 {
		t.Fatalf("%d log messages recorded, want 6", len(evs))
	}
	for _, e := range evs {
		m, _ := recorder.LogOf(e)
		if owner, _, _ := strings.Cut(m.Message, ":"); byName[e.Span] != owner {
			t.Errorf("%q is under span %d (the call of %q), want the call of %q", m.Message, e.Span, byName[e.Span], owner)
		}
	}
}
