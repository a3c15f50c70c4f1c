// Package demo is Fanout Inspector's embedded demo server: a real MCP server
// (built with the Go MCP SDK) whose tools make the server send requests to
// the client, so that the inspector always has something to fan out against.
//
// [NewServer] returns the server; the engine connects to it in process over
// [mcp.NewInMemoryTransports]. [ServeStdio] and [ServeHTTP] serve it to any
// other MCP client (for example `inspector demo-server --http 127.0.0.1:8080`).
//
// Tools:
//
//   - fanout {"n": 5, "kind": "sampling"|"elicitation"|"roots"|"mixed",
//     "rounds": 1} asks the client for n things at once (a mixed round asks
//     for sampling, elicitation and roots in turn), rounds times one after
//     another, and returns what came back and, per round, how long it
//     waited, as the server saw it, as text and as structured content
//     ([FanoutResult]). Each request it sends carries the call's progress
//     token (when the call has one) in its _meta, so that a client with
//     several calls in flight can tell which call a request belongs to.
//   - probe {"n": 5, "kind": "sampling"|"elicitation"} measures what the
//     calling client does with a fan-out and says it in words: the result
//     text begins with "concurrent:", "serialized:" or "bounded:", and
//     the structured content ([ProbeResult]) carries the times. On
//     2025-11-25 it sends n requests at once and compares their answer
//     times; on 2026-07-28 it asks a round of one input request, then a
//     round of n, and compares the two rounds' fulfilment times.
//   - echo {"text": "..."} answers at once.
//   - slow {"ms": 1000, "steps": 10} sleeps, sending a progress notification
//     per step when the call carries a progress token, and log messages
//     when the client has asked for them: how it will sleep and how long
//     it slept (debug), and each step (info).
//
// fanout logs what was answered (info), elicitations a person declined or
// cancelled (warning) and requests that failed (error). The level a client
// asks for is honoured the way its protocol era carries it: logging/setLevel
// up to 2025-11-25, each request's _meta from 2026-07-28.
//
// Resources and prompts, for a load mix that reads and gets beside its
// tool calls (content.go):
//
//   - demo://readme, a short text/plain resource;
//   - demo://clock, a text/plain resource that changes every 2 seconds
//     while a client is subscribed to it (resources/subscribe up to
//     2025-11-25, subscriptions/listen from 2026-07-28), with a
//     notifications/resources/updated each time;
//   - demo://item/{id}, a resource template: any id reads as a small JSON
//     object;
//   - greet {"name": "Ada", "style": "plain"|"formal"}, a prompt of one
//     user message; name is required.
//
// # Protocol eras
//
// Up to protocol 2025-11-25 the fanout tool sends sampling/createMessage,
// elicitation/create or roots/list requests to the client while it serves the
// tools/call, the classic way, n at once per round. A client that offers
// 2026-07-28 (stateless, multi round-trip requests, SEP-2322) gets no
// server-initiated requests: the Go SDK refuses to send them on that
// protocol ("cannot be sent while serving a request"). For such a client
// the fanout tool answers each round with an input_required result holding
// n input requests keyed "r1-0", "r1-1", … (round 2: "r2-0", …) and a
// signed requestState that carries the round, and gives its final result
// when the client retries the call with the last round's answers. Each
// round's wait is then the client's fulfilment time as the server saw it.
// See [FanoutResult.Mode] and [FanoutResult.Rounds].
//
// Over streamable HTTP ([NewHTTPHandler]) a 2026-07-28 request (one whose
// MCP-Protocol-Version header names 2026-07-28 or later) is served
// statelessly, as the protocol wants; older requests get sessions, which a
// server needs to send requests to the client.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the server name the demo server reports.
const Name = "fanout-demo"

// Version is the server version the demo server reports.
const Version = "1.0.0"

// NewServer returns a new demo server with the tools fanout, probe, echo
// and slow, the resources demo://readme and demo://clock, the resource template
// demo://item/{id} and the prompt greet.
// One server may serve many sessions at once.
func NewServer() *mcp.Server {
	clock := newClock()
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Fanout Inspector demo server", Version: Version}, &mcp.ServerOptions{
		Instructions: "Call fanout to make this server send n concurrent sampling, elicitation or roots requests to you; slow to watch progress; echo for a quick round trip.",
		Logger:       nil,

		SubscribeHandler:   clock.subscribe, // demo://clock ticks while subscribed to
		UnsubscribeHandler: clock.unsubscribe,
	})
	f := newFanout()
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "fanout",
		Title:       "Fan out requests to the client",
		Description: "Sends n concurrent requests of one kind (sampling, elicitation or roots) to the client and reports the replies and how long they took, as the server saw it.",
		InputSchema: json.RawMessage(fanoutSchema),
	}, f.handle)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "probe",
		Title:       "Probe the client's fan-out",
		Description: "Measures how the calling client serves n requests (sampling or elicitation) sent at once, from the server's side, and says it in words: concurrent, serialized or bounded.",
		InputSchema: json.RawMessage(probeSchema),
	}, newProbe().handle)
	addEcho(srv)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "slow",
		Title:       "Slow",
		Description: "Sleeps for ms milliseconds in steps, reporting progress (with a progress token) and logging each step.",
		InputSchema: json.RawMessage(slowSchema),
	}, slow)
	addContent(srv, clock)
	return srv
}

const fanoutSchema = `{
  "type": "object",
  "properties": {
    "n":    {"type": "integer", "minimum": 1, "maximum": 100000, "default": 5, "description": "how many requests to send at once"},
    "kind": {"type": "string", "enum": ["sampling", "elicitation", "roots", "mixed"], "default": "sampling", "description": "which request to send; mixed sends sampling, elicitation and roots in turn"},
    "rounds": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1, "description": "how many rounds of n requests, one after another"}
  },
  "additionalProperties": false
}`

const echoSchema = `{
  "type": "object",
  "properties": {"text": {"type": "string", "description": "what to send back"}},
  "additionalProperties": false
}`

const slowSchema = `{
  "type": "object",
  "properties": {
    "ms":    {"type": "integer", "minimum": 0, "maximum": 600000, "default": 1000, "description": "how long to sleep, in milliseconds"},
    "steps": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 10, "description": "how many progress steps"}
  },
  "additionalProperties": false
}`

// SlowArgs are the arguments of the slow tool.
type SlowArgs struct {
	MS    int `json:"ms"`
	Steps int `json:"steps"`
}

// SlowResult is the structured result of the slow tool.
type SlowResult struct {
	MS    int     `json:"ms"`
	Steps int     `json:"steps"`
	Slept float64 `json:"slept_ms"`
}

func slow(ctx context.Context, req *mcp.CallToolRequest, in SlowArgs) (*mcp.CallToolResult, SlowResult, error) {
	if in.Steps <= 0 {
		in.Steps = 1
	}
	start := time.Now()
	step := time.Duration(in.MS) * time.Millisecond / time.Duration(in.Steps)
	token := req.Params.GetProgressToken()
	meta := callMeta(token) // in its log messages too, for a client with several calls in flight
	_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Meta: meta, Level: "debug", Logger: "slow",
		Data: fmt.Sprintf("sleeping %d ms in %d steps of %v", in.MS, in.Steps, step)})
	t := time.NewTimer(step)
	defer t.Stop()
	for i := 1; i <= in.Steps; i++ {
		select {
		case <-ctx.Done():
			return nil, SlowResult{}, fmt.Errorf("slow: stopped after %d of %d steps: %w", i-1, in.Steps, ctx.Err())
		case <-t.C:
		}
		t.Reset(step)
		msg := fmt.Sprintf("step %d of %d", i, in.Steps)
		if token != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: msg,
			})
		}
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Meta: meta, Level: "info", Logger: "slow", Data: msg})
	}
	out := SlowResult{MS: in.MS, Steps: in.Steps, Slept: ms(time.Since(start))}
	text := fmt.Sprintf("slept %.0f ms in %d steps", out.Slept, in.Steps)
	_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Meta: meta, Level: "debug", Logger: "slow", Data: text})
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// ServeHTTP serves a new demo server over streamable HTTP at
// http://ADDR/mcp until ctx is done. addr is a host:port ("127.0.0.1:0"
// picks a free port); ready, if not nil, is called with the endpoint's URL
// once the server is listening.
func ServeHTTP(ctx context.Context, addr string, ready func(url string)) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", NewHTTPHandler())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("demo server: cannot listen on %s: %w (pick another address, e.g. 127.0.0.1:0 for any free port)", addr, err)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(os.Stderr, "demo-server: ", 0)}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	if ready != nil {
		ready(endpointURL(ln.Addr()))
	}
	select {
	case err := <-done:
		return fmt.Errorf("demo server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return nil
}

// NewHTTPHandler returns a streamable HTTP handler serving a new demo
// server in both protocol eras.
//
// The Go SDK's streamable handler serves 2026-07-28 only when it is
// stateless: a stateful one answers server/discover (without 2026-07-28
// among its versions) but rejects every other 2026-07-28 call with
// -32022, so a client that reads a successful discover as "this server
// speaks 2026-07-28" cannot call a tool. A stateless one, in turn, cannot
// send requests to the client, which 2025-era fan-out needs. So requests
// whose MCP-Protocol-Version header names 2026-07-28 or later go to a
// stateless handler, and all others (initialize, session traffic) to a
// stateful one; both serve the same server, so a retry may reach either.
func NewHTTPHandler() http.Handler {
	srv := NewServer()
	get := func(*http.Request) *mcp.Server { return srv }
	stateful := mcp.NewStreamableHTTPHandler(get, nil)
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("MCP-Protocol-Version") >= multiRoundTripProtocol {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// multiRoundTripProtocol is the first protocol version with multi
// round-trip requests and no sessions.
const multiRoundTripProtocol = "2026-07-28"

// endpointURL gives the URL a person types to reach the listener; an
// unspecified host (":8080", "0.0.0.0:8080") is shown as 127.0.0.1.
func endpointURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String() + "/mcp"
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/mcp"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
