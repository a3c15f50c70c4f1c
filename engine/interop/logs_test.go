package interop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestEverythingLogs asks the TypeScript reference server (2025-11-25, over
// stdio) for its log messages at debug: its toggle-simulated-logging tool
// sends one at once, at a random level, and then one every 5 s. The
// message arrives recorded with its level and text, under the call that
// started it; a later level goes to the server with logging/setLevel,
// which it accepts.
func TestEverythingLogs(t *testing.T) {
	needEverything(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportStdio,
		Command: "node " + shellQuote(everythingEntry) + " stdio", LogLevel: "debug"}, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if route := s.LogLevelRoute(); route != "sent with logging/setLevel (2025-11-25)" {
		t.Errorf("LogLevelRoute() = %q", route)
	}
	logs := make(chan recorder.Event, 16)
	s.OnLog(func(e recorder.Event) {
		if e.Kind == recorder.EventLog {
			select {
			case logs <- e:
			default:
			}
		}
	})
	if out := s.CallTool(ctx, engine.ToolCall{Tool: "toggle-simulated-logging"}); out.Failure != "" {
		t.Fatalf("toggle-simulated-logging: %s", out.Failure)
	}
	var first recorder.Event
	select {
	case first = <-logs:
	case <-time.After(15 * time.Second):
		t.Fatal("no log message within 15 s of turning the server's simulated logging on")
	}
	m, _ := recorder.LogOf(first)
	if recorder.LogLevelRank(m.Level) < 0 || !strings.HasPrefix(strings.ToLower(m.Message), m.Level) || first.Text != m.Level+": "+m.Message {
		t.Errorf("the first log message reads level %q, message %q, text %q: want a level of the protocol's, and the server's message naming it", m.Level, m.Message, first.Text)
	}
	snap := rec.Snapshot()
	var call *recorder.Span
	for _, sp := range snap.Spans {
		if sp.Method == "tools/call" && sp.Name == "toggle-simulated-logging" {
			call = sp
		}
	}
	if call == nil || first.Span != call.ID {
		t.Errorf("the message sent while the toggle call was in flight is under span %d, want the call's (%v)", first.Span, call)
	}

	if err := s.SetLogLevel(ctx, "emergency"); err != nil {
		t.Fatalf("SetLogLevel(emergency): %v", err)
	}
	var levels []string
	for _, sp := range rec.Snapshot().Spans {
		if sp.Method == "logging/setLevel" {
			var p struct{ Level string }
			_ = json.Unmarshal(sp.Params, &p)
			levels = append(levels, p.Level+" "+sp.Status.String())
		}
	}
	if strings.Join(levels, ", ") != "debug ok, emergency ok" {
		t.Errorf("logging/setLevel requests: %v, want debug then emergency, both accepted", levels)
	}
	s.CallTool(ctx, engine.ToolCall{Tool: "toggle-simulated-logging"}) // off again
}
