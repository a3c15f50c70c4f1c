package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientsDir holds the scripts that drive real MCP clients none of us
// wrote (testdata/clients/*.mjs) and their npm packages.
var clientsDir = filepath.Join("testdata", "clients")

// realClient is one real client run against a server through
// `inspector proxy --stdio`.
type realClient struct {
	name     string
	protocol string // the protocol the client is asked to speak
	args     string // the fanout tool's arguments
	server   string // "demo" (inspector demo-server) or "ts" (the TypeScript fan-out server)
	// run starts the client on the proxy's command line and returns
	// when its call is over.
	run func(t *testing.T, c realClient, proxy []string) (json.RawMessage, error)
	// tool is the tool the client calls with args: "fanout" when empty.
	tool string
}

// The protocol eras and the fanout arguments the real-client tables use.
const (
	old      = "2025-11-25"
	mrtr     = "2026-07-28"
	sampling = `{"n":5}`
	elicit   = `{"n":5,"kind":"elicitation"}`
)

func (c realClient) toolName() string {
	if c.tool == "" {
		return "fanout"
	}
	return c.tool
}

// nodeClient runs the script testdata/clients/SCRIPT.mjs (see args.mjs
// there for its command line) on a command line (stdio) or a URL.
func nodeClient(script string) func(*testing.T, realClient, []string) (json.RawMessage, error) {
	return func(t *testing.T, c realClient, server []string) (json.RawMessage, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		args := []string{script + ".mjs", "--latency-ms", "500", "--protocol", c.protocol, "--tool", c.toolName(), "--args", c.args}
		if isURL(server) {
			args = append(args, "--url", server[0])
		} else {
			args = append(append(args, "--"), server...)
		}
		cmd := exec.CommandContext(ctx, "node", args...)
		cmd.Dir = clientsDir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		t.Logf("%s: %s\n%s", script, tail(stderr.String(), 3000), tail(string(out), 300))
		var line struct {
			Result json.RawMessage `json:"result"`
		}
		if err == nil {
			err = json.Unmarshal(out, &line)
		}
		return line.Result, err
	}
}

// isURL says whether a client is given a URL (streamable HTTP) rather
// than a command line to start.
func isURL(server []string) bool {
	return len(server) == 1 && strings.HasPrefix(server[0], "http")
}

// inspectorCLI runs the official Inspector's CLI: one tools/call, no
// handlers (it advertises no sampling).
func inspectorCLI(t *testing.T, c realClient, proxy []string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{filepath.Join("node_modules", ".bin", "mcp-inspector"), "--cli"}, proxy...)
	args = append(args, "--method", "tools/call", "--tool-name", "fanout", "--tool-arg", "n=5")
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = clientsDir
	out, err := cmd.CombinedOutput()
	t.Logf("inspector --cli (exit %v): %s", err, tail(string(out), 600))
	return nil, nil // it exits non-zero when the tool fails, which is the point
}

// goSDKClient is the Go SDK's client as an application would write it:
// a sampling handler that sleeps 500 ms; the SDK serves it concurrently.
func goSDKClient(t *testing.T, c realClient, proxy []string) (json.RawMessage, error) {
	return goSDK(c, proxy, nil)
}

// serialGoSDKClient is the same client with a lock around its handler:
// the deliberately serial client the proxy must call serialized.
func serialGoSDKClient(t *testing.T, c realClient, proxy []string) (json.RawMessage, error) {
	return goSDK(c, proxy, new(sync.Mutex))
}

func goSDK(c realClient, proxy []string, lock *sync.Mutex) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			if lock != nil {
				lock.Lock()
				defer lock.Unlock()
			}
			time.Sleep(500 * time.Millisecond)
			return &mcp.CreateMessageResult{Model: "go-sdk", Role: "assistant", Content: &mcp.TextContent{Text: "hello from the Go SDK"}}, nil
		},
	})
	var tr mcp.Transport = &mcp.CommandTransport{Command: exec.Command(proxy[0], proxy[1:]...)}
	if isURL(proxy) {
		tr = &mcp.StreamableClientTransport{Endpoint: proxy[0]}
	}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: c.protocol})
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var args map[string]any
	_ = json.Unmarshal([]byte(c.args), &args)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.toolName(), Arguments: args})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// mcpgoSampler answers sampling after 500 ms, as an application using
// github.com/mark3labs/mcp-go would.
type mcpgoSampler struct{}

func (mcpgoSampler) CreateMessage(context.Context, mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	time.Sleep(500 * time.Millisecond)
	return &mcpgo.CreateMessageResult{Model: "mcp-go",
		SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent("hello from mcp-go")}}, nil
}

// mcpgoClient is github.com/mark3labs/mcp-go's client over stdio.
func mcpgoClient(t *testing.T, c realClient, proxy []string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var tr mcpgotransport.Interface = mcpgotransport.NewStdio(proxy[0], nil, proxy[1:]...)
	if isURL(proxy) {
		h, err := mcpgotransport.NewStreamableHTTP(proxy[0])
		if err != nil {
			return nil, err
		}
		tr = h
	}
	client := mcpgoclient.NewClient(tr, mcpgoclient.WithSamplingHandler(mcpgoSampler{}), mcpgoclient.WithProtocolVersion(c.protocol))
	if err := client.Start(ctx); err != nil {
		return nil, err
	}
	defer client.Close()
	if _, err := client.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ClientInfo: mcpgo.Implementation{Name: "mcp-go-client", Version: "1"}}}); err != nil {
		return nil, err
	}
	var args map[string]any
	_ = json.Unmarshal([]byte(c.args), &args)
	res, err := client.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: c.toolName(), Arguments: args}})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// measured is what the proxy's recording says of one fan-out, and what
// the server said of it.
type measured struct {
	peak       int           // most server requests waiting at the client at once
	spread     time.Duration // first to last answer of the server's requests
	wire       time.Duration // first request read to last answer passed back
	fulfil     []time.Duration
	inputs     []int         // input requests per fulfilled round (2026-07-28)
	elapsed    time.Duration // the fanout tools/call, sent to answered (all rounds)
	failed     int           // server requests the client answered with an error
	errText    string
	isError    bool
	callStatus string            // the fanout call's status and error in the recording
	server     demo.FanoutResult // the tool's structured result as it crossed the proxy
	serverRaw  string
}

func measure(t *testing.T, snap *recorder.Snapshot) measured {
	t.Helper()
	var m measured
	type edge struct {
		at time.Duration
		d  int
	}
	var edges []edge
	first, lastAns, firstAns := time.Duration(-1), time.Duration(0), time.Duration(-1)
	for _, s := range snap.Spans {
		switch {
		case s.Direction == recorder.Outgoing && s.Kind == recorder.KindTool && s.Name == "fanout":
			m.elapsed = s.Answered - s.Received
			m.callStatus = fmt.Sprintf("%s %s", s.Status, s.Error)
			var res struct {
				IsError           bool              `json:"isError"`
				StructuredContent demo.FanoutResult `json:"structuredContent"`
			}
			_ = json.Unmarshal(s.Result, &res)
			m.isError, m.server, m.serverRaw = res.IsError, res.StructuredContent, string(s.Result)
		case s.Direction == recorder.Incoming && s.InputRequests > 0:
			m.fulfil = append(m.fulfil, s.Answered-s.Received)
			m.inputs = append(m.inputs, int(s.InputRequests))
		case s.Direction == recorder.Incoming && (s.Kind == recorder.KindSampling || s.Kind == recorder.KindElicitation):
			edges = append(edges, edge{s.Received, 1}, edge{s.Answered, -1})
			if first < 0 || s.Received < first {
				first = s.Received
			}
			if firstAns < 0 || s.Answered < firstAns {
				firstAns = s.Answered
			}
			lastAns = max(lastAns, s.Answered)
			if s.Status != recorder.StatusOK {
				m.failed++
				m.errText = s.Error
			}
		}
	}
	// Sweep: an answer at the same instant as a request ends first.
	for i := range edges {
		for j := i + 1; j < len(edges); j++ {
			if edges[j].at < edges[i].at || edges[j].at == edges[i].at && edges[j].d < edges[i].d {
				edges[i], edges[j] = edges[j], edges[i]
			}
		}
	}
	n := 0
	for _, e := range edges {
		n += e.d
		m.peak = max(m.peak, n)
	}
	if first >= 0 {
		m.spread, m.wire = lastAns-firstAns, lastAns-first
	}
	return m
}

// TestRealClientsThroughProxy runs real MCP clients none of us wrote
// against the demo server and the TypeScript fan-out server through
// `inspector proxy --stdio --record`, with a 5 × 500 ms fan-out, and
// checks what the recording says each client did against what the
// server itself reports. Run with -v to see the table of docs/proxy.md.
func TestRealClientsThroughProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes and measures for several seconds")
	}
	needNodePackages(t, clientsDir, filepath.Join("@modelcontextprotocol", "inspector"))
	needTSServer(t)
	bin := buildInspector(t)
	tsServer, err := filepath.Abs(filepath.Join(tsServerDir, "server.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []realClient{
		{"ts-sdk", old, sampling, "demo", nodeClient("ts-sdk"), ""},
		{"ts-sdk", old, sampling, "ts", nodeClient("ts-sdk"), ""},
		{"ts-sdk-v2", old, sampling, "demo", nodeClient("ts-sdk-v2"), ""},
		{"ts-sdk-v2", mrtr, sampling, "demo", nodeClient("ts-sdk-v2"), ""},
		{"go-sdk", old, sampling, "demo", goSDKClient, ""},
		{"go-sdk", mrtr, sampling, "demo", goSDKClient, ""},
		{"go-sdk", old, sampling, "ts", goSDKClient, ""},
		{"go-sdk-locked", old, sampling, "demo", serialGoSDKClient, ""},
		{"go-sdk-locked", mrtr, sampling, "demo", serialGoSDKClient, ""},
		{"mcp-go", old, sampling, "demo", mcpgoClient, ""},
		{"mcp-go", mrtr, sampling, "demo", mcpgoClient, ""},
		{"mcp-go", old, sampling, "ts", mcpgoClient, ""},
		{"ai-sdk", old, elicit, "demo", nodeClient("ai-sdk"), ""},
		{"ai-sdk", mrtr, elicit, "demo", nodeClient("ai-sdk"), ""},
		{"ai-sdk", old, elicit, "ts", nodeClient("ai-sdk"), ""},
		{"mastra", old, elicit, "demo", nodeClient("mastra"), ""},
		{"mastra", mrtr, elicit, "demo", nodeClient("mastra"), ""},
		{"inspector-cli", old, sampling, "demo", inspectorCLI, ""},
	}
	table := []string{
		"| client | server | protocol | kind | peak pending (proxy) | answers spread / round fulfilment (proxy) | elapsed (proxy) | elapsed (server's report) |",
		"|---|---|---|---|---|---|---|---|",
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.server+"/"+c.protocol, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "rec.json")
			server := bin + " demo-server"
			if c.server == "ts" {
				server = "node " + tsServer
			}
			// A journal only for mcp-go, which closes the proxy's stderr
			// as it stops it (the proxy used to die of SIGPIPE there
			// before it wrote --record). A fixed journal file cannot serve the
			// TypeScript SDK v2 and Mastra on 2026-07-28: they start the
			// server's command twice, and the second proxy refuses to
			// overwrite the first one's journal.
			journal := "off"
			if c.name == "mcp-go" {
				journal = filepath.Join(t.TempDir(), "journal.jsonl")
			}
			proxy := []string{bin, "proxy", "--stdio", server, "--journal", journal, "--record", rec}
			if _, err := c.run(t, c, proxy); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			snap, err := recorder.LoadFile(rec)
			if err != nil {
				// mcp-go's client closes the proxy's stderr pipe as it
				// stops it: a proxy that dies of SIGPIPE writing its
				// summary there writes no --record.
				t.Errorf("the proxy wrote no --record after %s closed it: %v; measuring from the journal", c.name, err)
				if snap, err = recorder.LoadFile(journal); err != nil {
					t.Fatalf("the proxy's journal: %v", err)
				}
				for _, s := range snap.Spans {
					if s.Method == "tools/call" && s.Answered == recorder.Unset {
						t.Fatalf("the proxy's journal has the tools/call of %s not ended, though the client got its answer: the journal lost what the proxy had seen when it died", c.name)
					}
				}
			}
			m := measure(t, snap)
			kind := "sampling"
			if strings.Contains(c.args, "elicitation") {
				kind = "elicitation"
			}
			serverMS := m.server.ElapsedMS
			if c.server == "ts" {
				var res struct {
					StructuredContent struct {
						ElapsedMS float64 `json:"elapsed_ms"`
					} `json:"structuredContent"`
				}
				_ = json.Unmarshal([]byte(m.serverRaw), &res)
				serverMS = res.StructuredContent.ElapsedMS
			}
			var shape string
			switch {
			case len(m.fulfil) > 0:
				shape = fmt.Sprintf("1 round of %d: fulfilled in %s", m.inputs[0], ms(m.fulfil[0]))
			case m.failed > 0:
				shape = fmt.Sprintf("%d failed within %s: %s", m.failed, ms(m.wire), firstLine(m.errText))
			default:
				shape = ms(m.spread)
			}
			peak := fmt.Sprint(m.peak)
			if len(m.fulfil) > 0 {
				peak = "not on the wire"
			}
			table = append(table, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %.0f ms |",
				c.name, c.server, c.protocol, kind, peak, shape, ms(m.elapsed), serverMS))
			t.Logf("peak %d, spread %v, wire %v, fulfilment %v, elapsed %v, failed %d, server's elapsed %.1f ms",
				m.peak, m.spread, m.wire, m.fulfil, m.elapsed, m.failed, serverMS)

			if c.name == "inspector-cli" {
				// It advertises no sampling: the server's requests fail
				// at once and so does the tool.
				if m.failed != 5 || !m.isError || m.elapsed > time.Second {
					t.Errorf("inspector --cli: %d of 5 sampling requests failed, tool isError %v, elapsed %v; want 5 failed, isError, under 1 s", m.failed, m.isError, m.elapsed)
				}
				if !strings.Contains(m.serverRaw, "sampling") {
					t.Errorf("the failed fanout's result %.300s does not mention sampling", m.serverRaw)
				}
				return
			}
			if m.isError || m.failed > 0 {
				t.Fatalf("the fan-out failed: %d requests failed (%s); result %.400s", m.failed, m.errText, m.serverRaw)
			}
			if c.protocol == mrtr && c.server == "demo" {
				if len(m.fulfil) != 1 || m.inputs[0] != 5 {
					t.Fatalf("recorded fulfilments %v of %v input requests, want one round of 5", m.fulfil, m.inputs)
				}
				if len(m.server.Rounds) != 1 {
					t.Fatalf("the server reports %d rounds, want 1; the recorded call: %s, result %.400s", len(m.server.Rounds), m.callStatus, m.serverRaw)
				}
				// The server's wait for the retry is the proxy's fulfilment span.
				agree(t, "round fulfilment", m.fulfil[0], m.server.Rounds[0].WaitMS)
				if c.name == "ai-sdk" || c.name == "go-sdk-locked" {
					// @ai-sdk/mcp awaits each input request in turn.
					if m.fulfil[0] < 2400*time.Millisecond {
						t.Errorf("@ai-sdk/mcp fulfilled 5 × 500 ms input requests in %v; it used to take ≥ 2.4 s (one at a time)", m.fulfil[0])
					}
				} else if m.fulfil[0] > time.Second {
					t.Errorf("%s fulfilled 5 × 500 ms input requests in %v, want under 1 s (at once)", c.name, m.fulfil[0])
				}
				return
			}
			if c.name == "go-sdk-locked" {
				// All five wait at the client at once; it answers them
				// one per 500 ms.
				if m.peak != 5 || m.spread < 1900*time.Millisecond || m.elapsed < 2400*time.Millisecond {
					t.Errorf("serial client: peak pending %d, answers spread over %v, elapsed %v; want 5 pending, answers over ≥ 1.9 s, ≥ 2.4 s", m.peak, m.spread, m.elapsed)
				}
				agree(t, "fan-out", m.wire, serverMS)
				return
			}
			if m.peak != 5 || m.spread > 250*time.Millisecond || m.elapsed > time.Second {
				t.Errorf("%s: peak %d, answers spread over %v, elapsed %v; want 5 overlapped, answers together, under 1 s", c.name, m.peak, m.spread, m.elapsed)
			}
			if c.server == "demo" {
				agree(t, "fan-out", m.wire, serverMS)
			} else {
				// The TypeScript server's clock starts before it builds and
				// sends its requests and stops after it has parsed the
				// answers, in JavaScript: it sees more than the wire, and no
				// more than the whole call.
				server := time.Duration(serverMS * float64(time.Millisecond))
				if server < m.wire-20*time.Millisecond || server > m.elapsed+20*time.Millisecond {
					t.Errorf("the TypeScript server reports %v, outside the proxy's %v (wire) to %v (the call)", server, m.wire, m.elapsed)
				}
			}
		})
	}
	t.Logf("what real clients do with a 5 × 500 ms fan-out, through inspector proxy --stdio:\n%s", strings.Join(table, "\n"))
}

// agree checks the proxy's measure against the server's own report,
// within 5% or [clockSlack].
func agree(t *testing.T, what string, proxy time.Duration, serverMS float64) {
	t.Helper()
	server := time.Duration(serverMS * float64(time.Millisecond))
	diff := (proxy - server).Abs()
	t.Logf("%s: the proxy measured %v, the server reports %v (%v apart)", what, proxy, server, diff)
	if diff > clockSlack && float64(diff) > 0.10*float64(server) {
		t.Errorf("%s: the proxy measured %v, the server reports %v: more than %v and 10%% apart", what, proxy, server, clockSlack)
	}
}

// clockSlack is how far the proxy's and the server's times of one call
// may differ when 10% of it is less: two processes' clocks, the pipe or
// HTTP exchange between them, and a real client (node) between the
// rounds of a call. On a quiet machine they agree within a few
// milliseconds (the log says how far apart they were); on a busy one a
// process was seen scheduled ~100 ms late. A proxy that timed the wrong
// events would be off by a whole latency (500 ms here), which this still
// catches.
const clockSlack = 250 * time.Millisecond

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestRealClientsOverHTTP runs the same real clients against the demo
// server over streamable HTTP, without the proxy, and checks what the
// server reports: the numbers the HTTP proxy's recordings are to be
// compared with.
func TestRealClientsOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes and measures for several seconds")
	}
	needNodePackages(t, clientsDir, filepath.Join("@modelcontextprotocol", "inspector"))
	srv := httptest.NewServer(demo.NewHTTPHandler())
	defer srv.Close()
	cases := []realClient{
		{"ts-sdk", old, sampling, "demo", nodeClient("ts-sdk"), ""},
		{"ts-sdk-v2", old, sampling, "demo", nodeClient("ts-sdk-v2"), ""},
		{"ts-sdk-v2", mrtr, sampling, "demo", nodeClient("ts-sdk-v2"), ""},
		{"go-sdk", old, sampling, "demo", goSDKClient, ""},
		{"go-sdk", mrtr, sampling, "demo", goSDKClient, ""},
		{"mcp-go", old, sampling, "demo", mcpgoClient, ""},
		{"mcp-go", mrtr, sampling, "demo", mcpgoClient, ""},
		{"ai-sdk", old, elicit, "demo", nodeClient("ai-sdk"), ""},
		{"ai-sdk", mrtr, elicit, "demo", nodeClient("ai-sdk"), ""},
		{"mastra", old, elicit, "demo", nodeClient("mastra"), ""},
		{"mastra", mrtr, elicit, "demo", nodeClient("mastra"), ""},
	}
	var table []string
	for _, c := range cases {
		t.Run(c.name+"/"+c.protocol, func(t *testing.T) {
			raw, err := c.run(t, c, []string{srv.URL})
			if err != nil {
				t.Fatalf("%s over HTTP: %v", c.name, err)
			}
			// A CallToolResult, or (Mastra) its structured content alone.
			var res struct {
				IsError           bool               `json:"isError"`
				StructuredContent *demo.FanoutResult `json:"structuredContent"`
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatalf("%s's result %.300s: %v", c.name, raw, err)
			}
			out := res.StructuredContent
			if out == nil {
				out = new(demo.FanoutResult)
				_ = json.Unmarshal(raw, out)
			}
			if res.IsError || out.Failed > 0 || len(out.Rounds) != 1 {
				t.Fatalf("%s over HTTP: the fan-out failed or has no round: %.400s", c.name, raw)
			}
			wait := time.Duration(out.Rounds[0].WaitMS * float64(time.Millisecond))
			table = append(table, fmt.Sprintf("| %s | %s | %s | %s | %s |", c.name, c.protocol, out.Mode, ms(wait), ms(time.Duration(out.ElapsedMS*float64(time.Millisecond)))))
			t.Logf("mode %s, round wait %v, elapsed %.1f ms", out.Mode, wait, out.ElapsedMS)
			if out.Protocol != c.protocol {
				t.Errorf("%s spoke %q, want %q", c.name, out.Protocol, c.protocol)
			}
			if c.name == "ai-sdk" && c.protocol == mrtr {
				if wait < 2400*time.Millisecond {
					t.Errorf("@ai-sdk/mcp fulfilled 5 × 500 ms input requests in %v over HTTP; it used to take ≥ 2.4 s (one at a time)", wait)
				}
				return
			}
			if wait < 450*time.Millisecond || wait > time.Second {
				t.Errorf("%s over HTTP: the server waited %v for 5 × 500 ms answers, want about 500 ms (at once)", c.name, wait)
			}
		})
	}
	t.Logf("the same clients over streamable HTTP, no proxy (the demo server's report):\n| client | protocol | mode | round wait | elapsed |\n|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// inspectorBuild is cmd/inspector, built once for the package's tests
// into a folder [TestMain] removes.
var inspectorBuild struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildInspector builds cmd/inspector (once per test binary) and returns
// its path.
func buildInspector(t *testing.T) string {
	t.Helper()
	b := &inspectorBuild
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "interop-inspector-"); b.err != nil {
			return
		}
		b.bin = filepath.Join(b.dir, "inspector")
		if out, err := exec.Command("go", "build", "-o", b.bin, "../../cmd/inspector").CombinedOutput(); err != nil {
			b.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatalf("building the inspector: %v", b.err)
	}
	return b.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if inspectorBuild.dir != "" {
		os.RemoveAll(inspectorBuild.dir)
	}
	os.Exit(code)
}

// TestProxyOutlivesAClosedStderr: github.com/mark3labs/mcp-go's stdio
// client closes its end of the server's stderr pipe before it waits for
// the server to exit. A proxy between them must still write --record
// and end its journal's spans; today its summary on stderr kills it
// (SIGPIPE) first, and its journal has not yet written the tool call.
func TestProxyOutlivesAClosedStderr(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the inspector")
	}
	bin := buildInspector(t)
	dir := t.TempDir()
	rec, journal := filepath.Join(dir, "rec.json"), filepath.Join(dir, "journal.jsonl")
	cmd := exec.Command(bin, "proxy", "--stdio", bin+" demo-server", "--journal", journal, "--record", rec)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	go io.Copy(io.Discard, r) //nolint:errcheck // read until closed below
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "closes-stderr", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": 2}}); err != nil {
		t.Fatal(err)
	}
	r.Close() // as mcp-go does: stop reading the server's stderr, then close
	cs.Close()
	w.Close()
	if _, err := os.Stat(rec); err != nil {
		t.Errorf("the proxy wrote no --record when its stderr was closed (%v; exit %v)", err, cmd.ProcessState)
	}
	snap, err := recorder.LoadFile(journal)
	if err != nil {
		t.Fatalf("the journal: %v", err)
	}
	// The Go SDK client offers 2026-07-28: the call is one logical
	// tools/call span and a round span per wire round; count the former.
	ended := 0
	for _, s := range snap.Spans {
		if s.Method == "tools/call" && s.Kind == recorder.KindTool && s.Answered != recorder.Unset {
			ended++
		}
	}
	if ended != 1 {
		t.Errorf("the journal has %d ended tools/call calls of the 1 the client made", ended)
	}
}
