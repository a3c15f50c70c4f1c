package main

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
)

func parseConn(t *testing.T, args ...string) (engine.Target, engine.AnswerPolicy, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	get := parseConnectionFlags(fs)
	if err := fs.Parse(args); err != nil {
		return engine.Target{}, engine.AnswerPolicy{}, err
	}
	return get()
}

func TestParseConnectionFlags(t *testing.T) {
	def := engine.DefaultAnswerPolicy()
	cases := []struct {
		args   []string
		target engine.Target
		check  func(engine.AnswerPolicy) bool
	}{
		{nil, engine.Target{Transport: engine.TransportDemo}, func(policy engine.AnswerPolicy) bool { return reflect.DeepEqual(policy, def) }},
		{[]string{"--stdio", `node "my server.js" --x`, "--env", "A=1", "--env", "B=x=y"},
			engine.Target{Transport: engine.TransportStdio, Command: `node "my server.js" --x`, Env: []string{"A=1", "B=x=y"}}, nil},
		{[]string{"--url", "https://h/mcp", "--header", "Authorization: Bearer abc", "--protocol", "latest"},
			engine.Target{Transport: engine.TransportHTTP, URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer abc"}, Protocol: "latest"}, nil},
		{[]string{"--stdio", "srv", "--max-message-size", "4MiB", "--max-stderr-lines", "20", "--connect-timeout", "2s"},
			engine.Target{Transport: engine.TransportStdio, Command: "srv", Limits: engine.Limits{MaxMessageSize: 4 << 20, MaxStderrLines: 20, ConnectTimeout: 2 * time.Second}}, nil},
		{[]string{"--url", "http://h/mcp", "--max-message-size", "1000000"},
			engine.Target{Transport: engine.TransportHTTP, URL: "http://h/mcp", Limits: engine.Limits{MaxMessageSize: 1e6, MaxStderrLines: engine.DefaultMaxStderrLines, ConnectTimeout: engine.DefaultConnectTimeout}}, nil},
		{[]string{"--sse", "http://h/sse", "--protocol", "2025-06-18"}, engine.Target{Transport: engine.TransportSSE, URL: "http://h/sse", Protocol: "2025-06-18"}, nil},
		{[]string{"--dispatch", "bounded:3", "--latency", "uniform:1ms-2ms", "--sampling-latency", "exp:5ms", "--seed", "7",
			"--elicitation", "decline", "--roots", "file:///a, file:///b", "--fail-rate", "0.5", "--request-timeout", "2s", "--sampling-reply", "hi {{.Index}}"},
			engine.Target{Transport: engine.TransportDemo}, func(policy engine.AnswerPolicy) bool {
				return policy.Dispatch == engine.DispatchPolicy{Mode: engine.Bounded, Limit: 3} &&
					policy.Latency == engine.LatencyModel{Dist: engine.Uniform, A: time.Millisecond, B: 2 * time.Millisecond} &&
					policy.MethodLatency["sampling/createMessage"] == engine.LatencyModel{Dist: engine.Exponential, A: 5 * time.Millisecond} &&
					policy.Seed == 7 && policy.Elicitation == engine.ElicitDecline && reflect.DeepEqual(policy.Roots, []string{"file:///a", "file:///b"}) &&
					policy.FailRate == 0.5 && policy.RequestTimeout == 2*time.Second && policy.SamplingReply == "hi {{.Index}}"
			}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			target, policy, err := parseConn(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.target.Limits == (engine.Limits{}) {
				tc.target.Limits = engine.Limits{MaxMessageSize: engine.DefaultMaxMessageSize,
					MaxStderrLines: engine.DefaultMaxStderrLines, ConnectTimeout: engine.DefaultConnectTimeout}
			}
			if !reflect.DeepEqual(target, tc.target) {
				t.Errorf("target = %+v, want %+v", target, tc.target)
			}
			if tc.check != nil && !tc.check(policy) {
				t.Errorf("answer policy = %+v, not as the flags say", policy)
			}
		})
	}
}

// TestLimitFlagErrors: a bad limit is a usage error that names the flag
// or says what it wants.
func TestLimitFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-message-size", "lots"}, "want a number of bytes"},
		{[]string{"--max-message-size", "100"}, "want at least 1KiB"},
		{[]string{"--max-message-size", "0"}, "want between 1 byte"},
		{[]string{"--max-stderr-lines", "0"}, "--max-stderr-lines 0: want 1 or more"},
		{[]string{"--connect-timeout", "0s"}, "--connect-timeout 0s: want a positive duration"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, _, err := parseConn(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestAssertFlagErrors: a bad --assert names the flag and what to write.
func TestAssertFlagErrors(t *testing.T) {
	_, err := parseAssertions([]string{"peak_in_flight>=5", "peak_in_flight=5"})
	if err == nil || !strings.HasPrefix(err.Error(), `--assert "peak_in_flight=5": no comparison`) {
		t.Fatalf("error = %v, want it to name --assert and the expression", err)
	}
}
