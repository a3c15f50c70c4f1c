package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestServerPanelHostsTheHTTPProxy: Proxy (HTTP) in the Server panel
// starts the proxy in front of an HTTP server; a client that is not the
// inspector's window (here an engine session with serial dispatch)
// talks through it, and its fan-out is recorded into the window's live
// recording as a proxy recording; Run is off meanwhile, and Stop proxy
// ends it with the pending requests closed and Run back on.
func TestServerPanelHostsTheHTTPProxy(t *testing.T) {
	loop := newMainLoop(t)
	upstream := httptest.NewServer(demo.NewHTTPHandler())
	defer upstream.Close()
	m := openMainWindow(t, loop, Options{})

	m.connection.transport.SetSelected(proxyChoice)
	if m.connection.connectBtn.Text != "Start proxy" || !m.connection.rows["upstream"].Visible() || m.connection.rows["protocol"].Visible() {
		t.Fatalf("the Proxy (HTTP) choice shows button %q, upstream row %v, protocol row %v", m.connection.connectBtn.Text,
			m.connection.rows["upstream"].Visible(), m.connection.rows["protocol"].Visible())
	}
	if !m.connection.disconnect.Disabled() {
		t.Errorf("Stop proxy is enabled before the proxy was started")
	}
	test.Tap(m.connection.connectBtn)
	if !strings.Contains(m.connection.problem.Text, "upstream URL") {
		t.Errorf("Start proxy without an upstream: problem %q", m.connection.problem.Text)
	}
	m.connection.listen.SetText("127.0.0.1:0")
	m.connection.upstream.SetText(upstream.URL + "/mcp")
	test.Tap(m.connection.connectBtn)
	url := m.proxyURL()
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") || m.connection.proxyURL.Text != url {
		t.Fatalf("the proxy listens at %q, the panel says %q", url, m.connection.proxyURL.Text)
	}
	if m.connection.disconnect.Disabled() {
		t.Errorf("Stop proxy is disabled while the proxy runs")
	}
	if !strings.Contains(m.connection.Status(), "listening on "+url+" → ") || !strings.Contains(m.window.Title(), "proxy "+url) {
		t.Errorf("status %q, title %q: want them to say where the proxy listens", m.connection.Status(), m.window.Title())
	}
	if !m.workload.runButton.Disabled() || !strings.Contains(m.workload.problem.Text, "hosting the proxy") {
		t.Errorf("while proxying: Run disabled %v, note %q", m.workload.runButton.Disabled(), m.workload.problem.Text)
	}

	// the client: five sampling requests answered one at a time
	policy := engine.DefaultAnswerPolicy()
	var err error
	if policy.Dispatch, err = engine.ParseDispatch("serial"); err != nil {
		t.Fatal(err)
	}
	if policy.Latency, err = engine.ParseLatency("60ms"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportHTTP, URL: url}, policy, recorder.New(recorder.Meta{}))
		if err != nil {
			done <- err
			return
		}
		defer s.Close()
		_, err = load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":5,"kind":"sampling"}`)}, nil)
		done <- err
	}()
	var clientErr error
	loop.waitFor(t, "the client's run through the proxy", 20*time.Second, func() bool {
		select {
		case clientErr = <-done:
			return true
		default:
			return false
		}
	})
	if clientErr != nil {
		t.Fatalf("the client through the hosted proxy: %v", clientErr)
	}
	loop.waitFor(t, "the fan-out drawn", 5*time.Second, func() bool {
		return m.timeline.Summary().ServerRequests.Total == 5
	})
	snap := m.timeline.snapshot()
	if snap.Meta.Mode != recorder.ModeProxy {
		t.Errorf("the hosted proxy's recording has mode %q, want proxy", snap.Meta.Mode)
	}
	// peak pending is exact through a proxy (the in-flight peak is an
	// estimate, which a loaded machine's jitter can move: not this test's)
	if sum := m.timeline.Summary(); !sum.Estimated || sum.PeakPending != 5 {
		t.Errorf("the serial client through the hosted proxy: estimated %v, peak pending %d, verdict %q; want the proxy summary, 5",
			sum.Estimated, sum.PeakPending, sum.VerdictText)
	}

	test.Tap(m.connection.disconnect) // Stop proxy
	if m.proxyURL() != "" || m.workload.runButton.Disabled() || m.connection.connectBtn.Disabled() {
		t.Errorf("after Stop proxy: url %q, Run disabled %v, Start disabled %v", m.proxyURL(), m.workload.runButton.Disabled(), m.connection.connectBtn.Disabled())
	}
	if !strings.Contains(m.connection.Status(), "Proxy stopped") {
		t.Errorf("status after Stop proxy: %q", m.connection.Status())
	}
	if n := len(m.timeline.snapshot().Spans); n < 6 {
		t.Errorf("after Stop proxy the timeline shows %d spans: want the session kept", n)
	}
}

// TestHostedProxyIsGuarded: the app's proxy listens on loopback only,
// and turns away a request that names a foreign host (DNS rebinding) or
// comes from a foreign page, as `inspector proxy` does.
func TestHostedProxyIsGuarded(t *testing.T) {
	loop := newMainLoop(t)
	upstream := httptest.NewServer(demo.NewHTTPHandler())
	defer upstream.Close()
	m := openMainWindow(t, loop, Options{})
	err := m.startProxy("0.0.0.0:0", upstream.URL+"/mcp")
	if err == nil || !strings.Contains(err.Error(), "loopback only") {
		t.Errorf("StartProxy on 0.0.0.0: %v, want a refusal that says loopback only", err)
	}
	if err := m.startProxy("127.0.0.1:0", upstream.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	defer m.stopProxy()
	url := m.proxyURL()
	for _, c := range []struct{ host, origin string }{{"evil.example", ""}, {"", "http://evil.example"}} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host %q Origin %q: %d, want 403", c.host, c.origin, resp.StatusCode)
		}
	}
}

// TestStopProxyNeedsAProxy: with the window connected to the demo server,
// choosing Proxy (HTTP) shows Stop proxy disabled (there is no proxy to
// stop), and choosing the demo again shows Disconnect enabled.
func TestStopProxyNeedsAProxy(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "the demo server's tools", 15*time.Second, func() bool { return len(m.workload.tool.Options) > 0 })
	demoChoice := m.connection.transport.Selected
	if m.connection.disconnect.Disabled() {
		t.Fatalf("Disconnect is disabled while connected")
	}
	m.connection.transport.SetSelected(proxyChoice)
	if got := m.connection.disconnect.Text; got != "Stop proxy" || !m.connection.disconnect.Disabled() {
		t.Errorf("under Proxy (HTTP) before Start: %q enabled %v, want Stop proxy disabled", got, !m.connection.disconnect.Disabled())
	}
	m.connection.transport.SetSelected(demoChoice)
	if got := m.connection.disconnect.Text; got != "Disconnect" || m.connection.disconnect.Disabled() {
		t.Errorf("back on %s while connected: %q enabled %v, want Disconnect enabled", demoChoice, got, !m.connection.disconnect.Disabled())
	}
}
