package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/engine/proxy"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// probeLatency is how long the probed clients' handlers take per request.
const probeLatency = 200 * time.Millisecond

// limited is a client whose sampling and elicitation handlers take
// probeLatency each, at most limit at once: 1 is a serial client, 0 no
// limit (a concurrent one). The limit is a channel of that many slots
// rather than a sync.Mutex, so that a handler waiting its turn is
// durably blocked and a synctest bubble's clock can move on.
type limited struct {
	slots chan struct{}
}

func newLimited(limit int) *limited {
	l := &limited{}
	if limit > 0 {
		l.slots = make(chan struct{}, limit)
	}
	return l
}

func (l *limited) work() {
	if l.slots != nil {
		l.slots <- struct{}{}
		defer func() { <-l.slots }()
	}
	time.Sleep(probeLatency) // the client's own latency: the behaviour the probe measures
}

func (l *limited) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			l.work()
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "ok"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			l.work()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "color": "red"}}, nil
		},
	}
}

// connectTo connects a client with opts to a fresh demo server in process.
func connectTo(t *testing.T, opts *mcp.ClientOptions, protocol string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := demo.NewServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "probed", Version: "1"}, opts).
		Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callProbe calls probe and decodes its structured result.
func callProbe(t *testing.T, cs *mcp.ClientSession, args map[string]any) (demo.ProbeResult, *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "probe", Arguments: args})
	if err != nil {
		t.Fatalf("probe %v: %v", args, err)
	}
	var out demo.ProbeResult
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("probe structured content %s: %v", b, err)
		}
	}
	return out, res
}

// checkVerdict checks that the probe called the client verdict, with
// the text beginning with it and numbers that fit a client serving
// atOnce of n requests at once.
func checkVerdict(t *testing.T, out demo.ProbeResult, res *mcp.CallToolResult, proto, kind string, n, atOnce int) {
	t.Helper()
	verdict := map[bool]string{true: "concurrent", false: "bounded"}[atOnce == n]
	if atOnce == 1 {
		verdict = "serialized"
	}
	if res.IsError {
		t.Fatalf("probe failed: %s", text(res))
	}
	if out.Verdict != verdict || !strings.HasPrefix(text(res), verdict+": ") {
		t.Fatalf("verdict %q, text:\n%s\nwant %q", out.Verdict, text(res), verdict)
	}
	if out.AtOnce != atOnce || out.N != n || out.Kind != kind || out.Protocol != proto {
		t.Errorf("result %+v, want at_once %d, n %d, kind %s, protocol %s", out, atOnce, n, kind, proto)
	}
	// Rounds of work one after another: ceil(n/atOnce) latencies.
	waves := float64((n + atOnce - 1) / atOnce)
	if out.Ratio < waves*0.8 || out.Ratio > waves*1.5 {
		t.Errorf("ratio %.2f (elapsed %.0f ms / single %.0f ms), want about %.0f", out.Ratio, out.ElapsedMS, out.SingleMS, waves)
	}
	if out.SingleMS < float64(probeLatency.Milliseconds()) || out.SingleMS > 1.5*float64(probeLatency.Milliseconds()) {
		t.Errorf("one request took %.0f ms, want about the client's %v", out.SingleMS, probeLatency)
	}
	wantMode := map[string]string{latest: "input_required", legacy: "requests"}[proto]
	if out.Mode != wantMode {
		t.Errorf("mode %q, want %q", out.Mode, wantMode)
	}
	if proto == legacy && len(out.RequestMS) != n {
		t.Errorf("%d request times, want %d", len(out.RequestMS), n)
	}
	if proto == latest && len(out.RoundMS) != 3 {
		t.Errorf("round times %v, want 3: two rounds of one, one of %d", out.RoundMS, n)
	}
	for _, want := range []string{fmt.Sprintf("%d %s", n, kind), fmt.Sprintf("%.1f×", out.Ratio)} {
		if !strings.Contains(text(res), want) {
			t.Errorf("text does not say %q:\n%s", want, text(res))
		}
	}
}

// TestProbeVerdicts probes a serial, a concurrent and a bounded client
// (a semaphore of 2) under both protocols, with sampling and
// elicitation: the probe names each for what it is. Each probe runs in a
// synctest bubble: the clients' 200 ms and the probe's timing are on the
// bubble's clock, so the measured ratio is the client's shape, not the
// machine's load (on the real clock a busy machine stretched one request
// past the 1.5 × slack).
func TestProbeVerdicts(t *testing.T) {
	cases := []struct {
		name         string
		limit, n, at int
		kinds        []string
	}{
		{"serial", 1, 5, 1, []string{"sampling", "elicitation"}},
		{"concurrent", 0, 5, 5, []string{"sampling", "elicitation"}},
		{"bounded2", 2, 6, 2, []string{"sampling"}},
	}
	for _, proto := range []string{legacy, latest} {
		for _, tc := range cases {
			for _, kind := range tc.kinds {
				t.Run(fmt.Sprintf("%s/%s/%s", proto, tc.name, kind), func(t *testing.T) {
					t.Parallel()
					synctest.Test(t, func(t *testing.T) {
						cs := connectTo(t, newLimited(tc.limit).options(), proto)
						out, res := callProbe(t, cs, map[string]any{"n": tc.n, "kind": kind})
						checkVerdict(t, out, res, proto, kind, tc.n, tc.at)
					})
				})
			}
		}
	}
}

// TestProbeWithoutCapability: a client that cannot be sent the kind (no
// handler, so no capability) gets a tool error that says so, at once.
func TestProbeWithoutCapability(t *testing.T) {
	for _, proto := range []string{legacy, latest} {
		for _, kind := range []string{"sampling", "elicitation"} {
			t.Run(proto+"/"+kind, func(t *testing.T) {
				cs := connectTo(t, &mcp.ClientOptions{}, proto)
				start := time.Now()
				_, res := callProbe(t, cs, map[string]any{"kind": kind})
				if !res.IsError || !strings.Contains(text(res), "did not declare the "+kind+" capability") {
					t.Errorf("isError %v, text %q; want an error naming the %s capability", res.IsError, text(res), kind)
				}
				if d := time.Since(start); d > time.Second {
					t.Errorf("the error took %v, want it at once", d)
				}
			})
		}
	}
}

// TestProbeArguments checks n's bounds and the kind.
func TestProbeArguments(t *testing.T) {
	cs := connectTo(t, newLimited(0).options(), legacy)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{{map[string]any{"n": 1}, "/properties/n"}, {map[string]any{"n": 101}, "/properties/n"}, {map[string]any{"kind": "roots"}, "/properties/kind"}} {
		_, res := callProbe(t, cs, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("probe %v: isError %v, %q; want a tool error naming %s", tc.args, res.IsError, text(res), tc.want)
		}
	}
}

// TestProbeClientErrors: a client that fails some requests is not
// measured; the error says how many failed and why.
func TestProbeClientErrors(t *testing.T) {
	var mu sync.Mutex
	k := 0
	cs := connectTo(t, &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		mu.Lock()
		k++
		odd := k%2 == 1
		mu.Unlock()
		if odd {
			return nil, fmt.Errorf("no model available")
		}
		return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "ok"}}, nil
	}}, legacy)
	_, res := callProbe(t, cs, map[string]any{"n": 4})
	if !res.IsError || !strings.Contains(text(res), "2 of 4 sampling requests failed") || !strings.Contains(text(res), "no model available") {
		t.Errorf("isError %v, %q; want 2 of 4 failed with the client's error", res.IsError, text(res))
	}
}

// stdioServer is the test binary run as `inspector demo-server` (see TestMain).
func stdioServer() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DEMO_TEST_STDIO=1")
	return cmd
}

// TestProbeOverStdio probes a serial and a concurrent client over stdio,
// the demo server a subprocess, under both protocols.
func TestProbeOverStdio(t *testing.T) {
	for _, proto := range []string{legacy, latest} {
		for _, limit := range []int{1, 0} {
			t.Run(fmt.Sprintf("%s/limit=%d", proto, limit), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "probed"}, newLimited(limit).options()).
					Connect(ctx, &mcp.CommandTransport{Command: stdioServer()}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				out, res := callProbe(t, cs, map[string]any{"n": 5})
				at := map[int]int{1: 1, 0: 5}[limit]
				checkVerdict(t, out, res, proto, "sampling", 5, at)
			})
		}
	}
}

// TestProbeThroughProxy probes a serial client through the stdio proxy
// and checks that the proxy's recording agrees with the probe: on
// 2025-11-25 there are n sampling spans whose waits at the client are
// the probe's answer times, spread the same way; on 2026-07-28 three
// fulfilment spans, of 1, 1 and n input requests, as long as the probe's
// three rounds.
func TestProbeThroughProxy(t *testing.T) {
	const n = 5
	for _, proto := range []string{legacy, latest} {
		t.Run(proto, func(t *testing.T) {
			rec := recorder.New(recorder.Meta{})
			clientR, proxyIn := io.Pipe()   // client → proxy
			proxyOut, clientIn := io.Pipe() // proxy → client
			p := &proxy.Stdio{Command: stdioServer().Args, Env: []string{"DEMO_TEST_STDIO=1"},
				ClientIn: clientR, ClientOut: clientIn, Stderr: io.Discard, Rec: rec}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				if _, err := p.Run(ctx); err != nil {
					t.Error(err)
				}
				clientIn.Close()
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "probed"}, newLimited(1).options()).
				Connect(ctx, &mcp.IOTransport{Reader: proxyOut, Writer: proxyIn}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				t.Fatal(err)
			}
			out, res := callProbe(t, cs, map[string]any{"n": n})
			cs.Close()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the proxy did not end 20 s after the client closed")
			}
			checkVerdict(t, out, res, proto, "sampling", n, 1)

			near := func(what string, recorded time.Duration, probedMS float64) {
				t.Helper()
				probed := time.Duration(probedMS * float64(time.Millisecond))
				// Within 10%, or 150 ms: the two clocks are in two processes,
				// which a loaded 2-core machine schedules up to 80 ms apart
				// (213 ms recorded against 280 ms probed); a proxy timing the
				// wrong messages would be off by a whole latency (200 ms or more).
				if d := (recorded - probed).Abs(); d > 150*time.Millisecond && d > probed/10 {
					t.Errorf("%s: the proxy recorded %v, the probe measured %v", what, recorded, probed)
				}
			}
			var spans []*recorder.Span
			for _, s := range rec.Snapshot().Spans {
				if s.Kind == recorder.KindSampling {
					spans = append(spans, s)
				}
			}
			if proto == legacy {
				if len(spans) != n {
					t.Fatalf("the proxy recorded %d sampling spans, want %d", len(spans), n)
				}
				first, last := spans[0].Received, spans[0].Answered
				var waits []time.Duration
				for _, s := range spans {
					first, last = min(first, s.Received), max(last, s.Answered)
					waits = append(waits, s.Answered-s.Received)
				}
				near("the spread from the first request to the last answer", last-first, out.ElapsedMS)
				near("the fastest answer", minOf(waits), out.SingleMS)
				near("the slowest answer", maxOf(waits), maxOf(out.RequestMS))
				return
			}
			if len(spans) != 3 || spans[0].InputRequests != 1 || spans[1].InputRequests != 1 || spans[2].InputRequests != n {
				for _, s := range spans {
					t.Logf("span %s round %d input_requests %d", s.Method, s.Round, s.InputRequests)
				}
				for _, e := range rec.Snapshot().Events {
					t.Logf("event %s: %s", e.Kind, e.Text)
				}
				t.Fatalf("the proxy recorded %d fulfilment spans, want 3: of 1, 1 and %d input requests", len(spans), n)
			}
			for i, s := range spans {
				near(fmt.Sprintf("round %d", i+1), s.Answered-s.Received, out.RoundMS[i])
			}
		})
	}
}

func minOf[T int64 | float64 | time.Duration](xs []T) T {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func maxOf[T int64 | float64 | time.Duration](xs []T) T {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
