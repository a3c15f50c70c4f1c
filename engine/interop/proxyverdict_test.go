package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
)

// verdictRow is one client, transport and protocol of the table in
// docs/proxy.md "What real clients do".
type verdictRow struct {
	client, transport, protocol string
	// From the fanout call through the proxy: the proxy's verdict on
	// the client, its estimated peak in flight, peak pending, the call's
	// elapsed time and the demo server's own report of it.
	verdict              string
	peakInFlight, peakPd int
	elapsedMS, serverMS  float64
	// From the probe call: the demo server's verdict, and the proxy's
	// verdict on the same call's recording.
	probe, probeProxy string
	probeRatio        float64
}

// TestProxyVerdicts runs every real client through `inspector proxy`,
// over stdio and over HTTP, calling the demo server's fanout tool and
// then its probe tool (5 × 500 ms each), and checks the verdict the
// proxy's recording gives on the client ([recorder.Summarize]): the
// deliberately serial Go client is serialized, the others concurrent
// (the Vercel AI SDK's on 2026-07-28 awaits each input request in turn);
// the proxy's elapsed time agrees with the server's own report; and the
// probe's verdict, from the server's side, agrees with the proxy's.
// Run with -v to see the table of docs/proxy.md.
func TestProxyVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes and measures for several seconds")
	}
	needNodePackages(t, clientsDir, filepath.Join("@modelcontextprotocol", "inspector"))
	bin := buildInspector(t)
	upstream := httptest.NewServer(demo.NewHTTPHandler())
	defer upstream.Close()

	const (
		old  = "2025-11-25"
		mrtr = "2026-07-28"
	)
	type client struct {
		name     string
		protocol string
		kind     string // what the client answers: sampling or elicitation
		run      func(*testing.T, realClient, []string) (json.RawMessage, error)
	}
	clients := []client{
		{"ts-sdk", old, "sampling", nodeClient("ts-sdk")},
		{"ts-sdk-v2", old, "sampling", nodeClient("ts-sdk-v2")},
		{"ts-sdk-v2", mrtr, "sampling", nodeClient("ts-sdk-v2")},
		{"go-sdk", old, "sampling", goSDKClient},
		{"go-sdk", mrtr, "sampling", goSDKClient},
		{"go-sdk-locked", old, "sampling", serialGoSDKClient},
		{"go-sdk-locked", mrtr, "sampling", serialGoSDKClient},
		{"mcp-go", old, "sampling", mcpgoClient},
		{"mcp-go", mrtr, "sampling", mcpgoClient},
		{"ai-sdk", old, "elicitation", nodeClient("ai-sdk")},
		{"ai-sdk", mrtr, "elicitation", nodeClient("ai-sdk")},
		{"mastra", old, "elicitation", nodeClient("mastra")},
		{"mastra", mrtr, "elicitation", nodeClient("mastra")},
	}
	// want is what each client does with a fan-out: the locked Go client
	// serves one request at a time, and @ai-sdk/mcp fulfils a round's
	// input requests one at a time (its requests on 2025-11-25 it
	// serves at once).
	want := func(c client) string {
		if c.name == "go-sdk-locked" || c.name == "ai-sdk" && c.protocol == mrtr {
			return recorder.VerdictSerialized
		}
		return recorder.VerdictConcurrent
	}

	var (
		mu   sync.Mutex
		rows = map[string]*verdictRow{}
		slot = make(chan struct{}, 2) // clients measured at once
	)
	row := func(c client, transport string) *verdictRow {
		mu.Lock()
		defer mu.Unlock()
		key := c.name + "/" + transport + "/" + c.protocol
		if rows[key] == nil {
			rows[key] = &verdictRow{client: c.name, transport: transport, protocol: c.protocol}
		}
		return rows[key]
	}
	t.Run("clients", func(t *testing.T) {
		for _, transport := range []string{"stdio", "http"} {
			for _, c := range clients {
				for _, tool := range []string{"fanout", "probe"} {
					t.Run(c.name+"/"+transport+"/"+c.protocol+"/"+tool, func(t *testing.T) {
						t.Parallel()
						slot <- struct{}{}
						defer func() { <-slot }()
						rc := realClient{name: c.name, protocol: c.protocol, args: fmt.Sprintf(`{"n":5,"kind":%q}`, c.kind),
							server: "demo", run: c.run, tool: tool}
						var (
							raw  json.RawMessage
							snap *recorder.Snapshot
						)
						if transport == "stdio" {
							raw, snap = throughStdioProxy(t, bin, rc)
						} else {
							raw, snap = throughHTTPProxy(t, bin, upstream.URL, rc)
						}
						sum := recorder.Summarize(snap)
						if !sum.Estimated {
							t.Errorf("the proxy's summary is not marked estimated: %+v", sum)
						}
						r := row(c, transport)
						if tool == "fanout" {
							checkFanoutVerdict(t, c.protocol == mrtr, want(c), raw, sum, r)
						} else {
							checkProbeVerdict(t, c.protocol == mrtr, want(c), raw, sum, r)
						}
					})
				}
			}
		}
	})

	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	table := []string{
		"| client | transport | protocol | proxy verdict | peak in flight (estimated) | peak pending | elapsed via proxy | elapsed (demo server) | probe verdict (server, ratio / proxy) |",
		"|---|---|---|---|---|---|---|---|---|",
	}
	for _, k := range keys {
		r := rows[k]
		peaks := fmt.Sprintf("%d | %d", r.peakInFlight, r.peakPd)
		if r.verdict == recorder.VerdictUnseen {
			peaks = "— | —" // the round's input requests never cross the wire
		}
		table = append(table, fmt.Sprintf("| %s | %s | %s | %s | %s | %.0f ms | %.0f ms | %s, %.1f× / %s |",
			r.client, r.transport, r.protocol, r.verdict, peaks, r.elapsedMS, r.serverMS, r.probe, r.probeRatio, r.probeProxy))
	}
	t.Logf("the proxy's verdicts on real clients, 5 × 500 ms:\n%s", strings.Join(table, "\n"))
}

// checkFanoutVerdict checks the proxy's verdict on a fanout call: on
// 2025-11-25 the requests cross the wire and the proxy judges the
// client from them; on 2026-07-28 the one round of input requests is
// fulfilled inside the client, and the proxy says it cannot see how.
func checkFanoutVerdict(t *testing.T, rounds bool, want string, raw json.RawMessage, sum recorder.Summary, r *verdictRow) {
	t.Helper()
	out := new(demo.FanoutResult)
	if err := structured(raw, out); err != nil || out.Failed > 0 || len(out.Rounds) != 1 {
		t.Fatalf("the fan-out failed or has no round (%v): %.400s", err, raw)
	}
	r.verdict, r.peakInFlight, r.peakPd, r.elapsedMS, r.serverMS = sum.Verdict, sum.PeakInFlight, sum.PeakPending, sum.ElapsedMS, out.ElapsedMS
	t.Logf("verdict %s (%s), peak in flight %d, pending %d, elapsed %.1f ms; the server reports %.1f ms",
		sum.Verdict, sum.VerdictText, sum.PeakInFlight, sum.PeakPending, sum.ElapsedMS, out.ElapsedMS)
	if !rounds {
		agree(t, "the fanout call", time.Duration(sum.ElapsedMS*float64(time.Millisecond)), out.ElapsedMS)
	} else if len(sum.Fulfilments) == 1 {
		// With rounds the server times its wait for the round's answers,
		// the proxy that same stretch as the fulfilment (input_required
		// answer → retry); the call as a whole adds the client's own time
		// before and after, which a loaded machine stretches (a node
		// client took 325 ms more there).
		agree(t, "round 1's fulfilment", time.Duration(sum.Fulfilments[0].MS*float64(time.Millisecond)), out.Rounds[0].WaitMS)
		if sum.ElapsedMS+20 < out.ElapsedMS {
			t.Errorf("the call took %.1f ms through the proxy, less than the %.1f ms the server reports inside it", sum.ElapsedMS, out.ElapsedMS)
		}
	}
	serial := want == recorder.VerdictSerialized
	took, what := sum.ElapsedMS, "the fanout call"
	if rounds && len(sum.Fulfilments) == 1 {
		took, what = sum.Fulfilments[0].MS, "round 1's fulfilment" // the stretch where the client serves the 5
	}
	switch {
	case serial && took < 2400, !serial && took > 1000:
		t.Errorf("%s took %.0f ms through the proxy; a %s client takes ≥ 2400 ms if serialized, < 1000 ms if concurrent", what, took, want)
	}
	if rounds {
		if sum.Verdict != recorder.VerdictUnseen || len(sum.Fulfilments) != 1 || sum.Fulfilments[0].Requests != 5 {
			t.Errorf("one round of 5 input requests: verdict %q, fulfilments %+v; want %q and one fulfilment of 5", sum.Verdict, sum.Fulfilments, recorder.VerdictUnseen)
		}
		return
	}
	wantPeak := 5
	if serial {
		wantPeak = 1
	}
	if sum.Verdict != want || sum.PeakInFlight != wantPeak || sum.PeakPending != 5 {
		t.Errorf("the proxy says %q, peak in flight %d, peak pending %d; want %q, %d, 5: %s", sum.Verdict, sum.PeakInFlight, sum.PeakPending, want, wantPeak, sum.VerdictText)
	}
}

// checkProbeVerdict checks the demo server's probe verdict on the
// client, and that the proxy's recording of the same call agrees: on
// 2026-07-28 from the three rounds' fulfilments (1, 1 and 5 input
// requests), before from the requests on the wire.
func checkProbeVerdict(t *testing.T, rounds bool, want string, raw json.RawMessage, sum recorder.Summary, r *verdictRow) {
	t.Helper()
	out := new(demo.ProbeResult)
	if err := structured(raw, out); err != nil || out.Verdict == "" {
		t.Fatalf("the probe gave no verdict (%v): %.400s", err, raw)
	}
	r.probe, r.probeProxy, r.probeRatio = out.Verdict, sum.Verdict, out.Ratio
	t.Logf("probe: %s (ratio %.2f, mode %s); proxy: %s (%s)", out.Verdict, out.Ratio, out.Mode, sum.Verdict, sum.VerdictText)
	if out.Verdict != want {
		t.Errorf("the probe says %q (ratio %.2f: %.0f ms against %.0f ms), want %q", out.Verdict, out.Ratio, out.ElapsedMS, out.SingleMS, want)
	}
	if sum.Verdict != out.Verdict {
		t.Errorf("the proxy says %q, the probe %q: %s", sum.Verdict, out.Verdict, sum.VerdictText)
	}
	if !rounds {
		agree(t, "the probe's requests", time.Duration(sum.ElapsedMS*float64(time.Millisecond)), out.ElapsedMS)
		return
	}
	var sizes []int
	for _, f := range sum.Fulfilments {
		sizes = append(sizes, f.Requests)
	}
	if !slices.Equal(sizes, []int{1, 1, 5}) {
		t.Fatalf("the proxy saw rounds of %v input requests, want [1 1 5]", sizes)
	}
	agree(t, "the probe's round of 5", time.Duration(sum.Fulfilments[2].MS*float64(time.Millisecond)), out.ElapsedMS)
}

// structured reads a tool's structured result from what a client
// returned: a CallToolResult, or (Mastra) its structured content alone.
func structured(raw json.RawMessage, v any) error {
	var res struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("the tool failed")
	}
	if len(res.StructuredContent) > 0 {
		return json.Unmarshal(res.StructuredContent, v)
	}
	return json.Unmarshal(raw, v)
}

// throughStdioProxy runs the client on `inspector proxy --stdio
// 'inspector demo-server'` and returns its result and the proxy's
// recording. Each proxy records to a file of its own: the TypeScript
// SDK v2 and Mastra start the server's command twice on 2026-07-28,
// and the recording wanted is the one with the tool call.
func throughStdioProxy(t *testing.T, bin string, c realClient) (json.RawMessage, *recorder.Snapshot) {
	t.Helper()
	dir := t.TempDir()
	line := fmt.Sprintf(`exec %s proxy --stdio %s --journal off --record "$(mktemp %s)"`,
		shellQuote(bin), shellQuote(bin+" demo-server"), shellQuote(filepath.Join(dir, "rec-XXXXXX.json")))
	raw, err := c.run(t, c, []string{"sh", "-c", line})
	if err != nil {
		t.Fatalf("%s through the stdio proxy: %v", c.name, err)
	}
	// A client may exit without waiting for the proxy to write its file.
	deadline := time.Now().Add(10 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "rec-*.json"))
		for _, f := range files {
			if snap, err := recorder.LoadFile(f); err == nil && hasCall(snap, c.toolName()) {
				return raw, snap
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("none of the %d recordings the stdio proxy wrote has the %s call", len(files), c.toolName())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// throughHTTPProxy starts `inspector proxy --listen 127.0.0.1:0
// --upstream URL`, reads the address it listens on from its stderr,
// runs the client against it, then stops the proxy (SIGINT, as a
// person's Ctrl-C) and returns the client's result and the recording.
func throughHTTPProxy(t *testing.T, bin, upstream string, c realClient) (json.RawMessage, *recorder.Snapshot) {
	t.Helper()
	rec := filepath.Join(t.TempDir(), "rec.json")
	cmd := exec.Command(bin, "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--journal", "off", "--record", rec)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		log     strings.Builder
		logMu   sync.Mutex
		urlCh   = make(chan string, 1)
		drained = make(chan struct{})
	)
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			l := sc.Text()
			logMu.Lock()
			log.WriteString(l + "\n")
			logMu.Unlock()
			// inspector proxy: listening on http://127.0.0.1:PORT/PATH → UPSTREAM
			if _, rest, ok := strings.Cut(l, "listening on "); ok {
				u, _, _ := strings.Cut(rest, " ")
				urlCh <- u
			}
		}
		io.Copy(io.Discard, stderr) //nolint:errcheck // until the proxy exits
	}()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { <-drained; done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("the HTTP proxy did not stop within 10 s of SIGINT")
		}
		logMu.Lock()
		t.Logf("the HTTP proxy's stderr:\n%s", tail(log.String(), 1500))
		logMu.Unlock()
	}
	var url string
	select {
	case url = <-urlCh:
	case <-time.After(10 * time.Second):
		stop()
		t.Fatalf("the HTTP proxy did not say where it listens within 10 s")
	}
	raw, err := c.run(t, c, []string{url})
	stop()
	if err != nil {
		t.Fatalf("%s through the HTTP proxy at %s: %v", c.name, url, err)
	}
	snap, err := recorder.LoadFile(rec)
	if err != nil {
		t.Fatalf("the HTTP proxy's recording: %v", err)
	}
	if !hasCall(snap, c.toolName()) {
		t.Fatalf("the HTTP proxy's recording has no %s call", c.toolName())
	}
	return raw, snap
}

func hasCall(snap *recorder.Snapshot, tool string) bool {
	for _, s := range snap.Spans {
		if s.Direction == recorder.Outgoing && s.Kind == recorder.KindTool && s.Name == tool && s.Answered != recorder.Unset {
			return true
		}
	}
	return false
}
