package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// tsTarget is one way of reaching a TypeScript SDK server: its name and
// how to start it for a test.
type tsTarget struct {
	name   string
	target func(t *testing.T) engine.Target
}

// tsTargets are the two ways of reaching the TypeScript SDK (v1) test
// server: a node process over stdio, and one serving streamable HTTP.
func tsTargets() []tsTarget {
	return []tsTarget{
		{"stdio", func(*testing.T) engine.Target {
			return engine.Target{Transport: engine.TransportStdio, Command: tsStdioCommand()}
		}},
		{"http", func(t *testing.T) engine.Target {
			return engine.Target{Transport: engine.TransportHTTP, URL: startTSHTTP(t)}
		}},
	}
}

// TestTypeScriptServer runs the TypeScript SDK's fan-out server against the
// engine over stdio and streamable HTTP, for sampling and elicitation:
// under concurrent dispatch all n requests are served at once, under
// serial dispatch one at a time, and the client's answers reach the
// tool's result.
func TestTypeScriptServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	needTSServer(t)
	targets := tsTargets()
	const n, latency = 4, 200 * time.Millisecond
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			target := tg.target(t)
			for _, kind := range []string{"sampling", "elicitation"} {
				for _, tc := range []struct {
					dispatch engine.DispatchPolicy
					peak     int
				}{
					{engine.DispatchPolicy{Mode: engine.Concurrent}, n},
					{engine.DispatchPolicy{Mode: engine.Serial}, 1},
				} {
					t.Run(kind+"/"+tc.dispatch.String(), func(t *testing.T) {
						policy := engine.DefaultAnswerPolicy()
						policy.Dispatch = tc.dispatch
						policy.Latency = engine.LatencyModel{Dist: engine.Fixed, A: latency}
						policy.SamplingReply = "interop reply {{.Index}}"
						rec := recorder.New(recorder.Meta{Title: t.Name()})
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						defer cancel()
						s, err := engine.Connect(ctx, target, policy, rec)
						if err != nil {
							t.Fatalf("connect to %s: %v", target, err)
						}
						defer s.Close()
						if got := s.Info().Name; got != "ts-fanout" {
							t.Errorf("server name %q, want ts-fanout", got)
						}
						res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "fanout", Args: []byte(fmt.Sprintf(`{"n":%d,"kind":%q}`, n, kind))}, nil)
						if err != nil || res.OK != 1 {
							t.Fatalf("run: %+v, %v", res, err)
						}
						snap := rec.Snapshot()
						sum := recorder.Summarize(snap)
						if sum.PeakInFlight != tc.peak {
							t.Errorf("peak in flight %d, want %d", sum.PeakInFlight, tc.peak)
						}
						if sum.PeakPending != n {
							t.Errorf("peak pending %d, want %d: the TypeScript server sends all requests at once", sum.PeakPending, n)
						}
						method := map[string]string{"sampling": "sampling/createMessage", "elicitation": "elicitation/create"}[kind]
						if got := sum.ServerRequests.ByMethod[method]; got != n {
							t.Errorf("%d %s requests, want %d", got, method, n)
						}
						minElapsed := float64(latency/time.Millisecond) * float64(n/tc.peak)
						if sum.ElapsedMS < minElapsed || sum.ElapsedMS > 4*minElapsed+500 {
							t.Errorf("elapsed %.0f ms, want about %.0f", sum.ElapsedMS, minElapsed)
						}
						result := toolResult(snap)
						for i := 1; i <= n; i++ {
							want := fmt.Sprintf("interop reply %d", i)
							if kind == "elicitation" {
								want = fmt.Sprintf(`%d: accept {\"`, i)
							}
							if !strings.Contains(result, want) {
								t.Errorf("the tool result lacks the client's answer %q:\n%s", want, result)
							}
						}
					})
				}
			}
		})
	}
}

// toolResult returns the recorded result of the run's tools/call.
func toolResult(snap *recorder.Snapshot) string {
	for _, s := range snap.Spans {
		if s.Method == "tools/call" {
			return string(s.Result)
		}
	}
	return ""
}
