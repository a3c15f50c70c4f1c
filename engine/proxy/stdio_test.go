package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets the test binary double as the proxied server: with
// PROXY_TEST_ROLE=demo it is `inspector demo-server` over stdio; with
// PROXY_TEST_ROLE=script it copies its stdin to the file PROXY_TEST_IN,
// writes the file PROXY_TEST_OUT to stdout in small pieces, a line to
// stderr, and exits with status 3; with proxy, dup-server and
// trace-server it plays the parts of the agreement tests (agree_test.go).
func TestMain(m *testing.M) {
	switch os.Getenv("PROXY_TEST_ROLE") {
	case "demo":
		if err := demo.ServeStdio(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	case "script":
		script()
		return
	case "proxy":
		proxyRole()
	case "dup-server":
		dupStdioRole()
	case "trace-server":
		traceStdioRole()
	case "httpproxy":
		httpProxyProcess()
		return
	}
	os.Exit(m.Run())
}

func script() {
	out, err := os.ReadFile(os.Getenv("PROXY_TEST_OUT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	in, err := os.Create(os.Getenv("PROXY_TEST_IN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	done := make(chan struct{})
	go func() { io.Copy(in, os.Stdin); in.Close(); close(done) }()
	// Pieces of 7 bytes with pauses now and then: messages split across
	// reads on the proxy's side.
	for i := 0; i < len(out); i += 7 {
		os.Stdout.Write(out[i:min(i+7, len(out))])
		if i%700 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	fmt.Fprintln(os.Stderr, "script server: done writing")
	<-done
	os.Exit(3)
}

// slowWriter writes to w in pieces of n bytes.
func writeInPieces(w io.Writer, b []byte, n int) {
	for i := 0; i < len(b); i += n {
		w.Write(b[i:min(i+n, len(b))])
	}
}

// TestStdioPassesBytesUnchanged: what the client writes reaches the
// server byte for byte and what the server writes reaches the client
// byte for byte — requests, a line that is not JSON, a message over the
// recording limit, a last message without a newline — and the recording
// says what it could and could not read.
func TestStdioPassesBytesUnchanged(t *testing.T) {
	dir := t.TempDir()
	big := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 3<<20) + `"}}` + "\n"
	clientStream := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" +
		"this is not json\n" +
		big +
		`{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`) // no newline at the end
	serverStream := []byte(`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}` + "\r\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}` + "\n" +
		"\x00\xff garbage \n" +
		big)
	outFile, inFile := dir+"/out", dir+"/in"
	if err := os.WriteFile(outFile, serverStream, 0o600); err != nil {
		t.Fatal(err)
	}

	clientR, clientW := io.Pipe()
	var toClient, stderr bytes.Buffer
	rec := recorder.New(recorder.Meta{})
	p := &Stdio{Command: []string{os.Args[0], "-test.run=^$"}, ClientIn: clientR, ClientOut: &toClient,
		Env:    []string{"PROXY_TEST_ROLE=script", "PROXY_TEST_OUT=" + outFile, "PROXY_TEST_IN=" + inFile},
		Stderr: &stderr, Rec: rec, Limits: engine.Limits{MaxMessageSize: 1 << 20}}
	go func() {
		writeInPieces(clientW, clientStream, 5)
		clientW.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := p.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(toClient.Bytes(), serverStream) {
		t.Errorf("the client got %d bytes, the server wrote %d: not the same", toClient.Len(), len(serverStream))
	}
	got, err := os.ReadFile(inFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, clientStream) {
		t.Errorf("the server got %d bytes, the client wrote %d: not the same", len(got), len(clientStream))
	}
	if res.ExitCode != 3 || !strings.Contains(res.Reason, "exited with status 3") {
		t.Errorf("result %+v, want exit 3 said in the reason", res)
	}
	if !strings.Contains(stderr.String(), "script server: done writing") {
		t.Errorf("the server's stderr did not pass through: %q", stderr.String())
	}

	snap := rec.Snapshot()
	var texts []string
	for _, e := range snap.Events {
		texts = append(texts, string(e.Kind)+": "+e.Text)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{
		`the client wrote a line that is not JSON`,
		`the server wrote a line that is not JSON`,
		"the client wrote a message of at least 3.0 MiB, over --max-message-size 1 MiB",
		"the server wrote a message of at least 3.0 MiB",
		"stderr: script server: done writing",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("events lack %q:\n%s", want, all)
		}
	}
	// tools/list (client) answered by the server; roots/list (server)
	// answered by the client.
	var list, roots *recorder.Span
	for _, s := range snap.Spans {
		switch s.Method {
		case "tools/list":
			list = s
		case "roots/list":
			roots = s
		}
	}
	if list == nil || list.Direction != recorder.Outgoing || list.Status != recorder.StatusOK {
		t.Errorf("tools/list span %+v, want an outgoing span answered ok", list)
	}
	if roots == nil || roots.Direction != recorder.Incoming || roots.Status != recorder.StatusOK || roots.RequestID != `"s1"` {
		t.Errorf("roots/list span %+v, want an incoming span with id \"s1\" answered ok", roots)
	}
	if snap.Meta.Mode != recorder.ModeProxy {
		t.Errorf("meta mode %q, want %q", snap.Meta.Mode, recorder.ModeProxy)
	}
}

// proxiedClient connects an SDK client, with the given sampling handler,
// through a Stdio proxy to the demo server run as a subprocess. It
// returns the session and a function that closes it and waits for the
// proxy to finish.
func proxiedClient(t *testing.T, rec *recorder.Recording, protocol string, sample func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)) (*mcp.ClientSession, func() Result) {
	t.Helper()
	return proxiedClientWith(t, rec, protocol, sample, nil)
}

// proxiedClientWith is [proxiedClient] with set, when not nil, changing
// the proxy before it runs.
func proxiedClientWith(t *testing.T, rec *recorder.Recording, protocol string, sample func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error), set func(*Stdio)) (*mcp.ClientSession, func() Result) {
	t.Helper()
	clientR, proxyIn := io.Pipe()   // client → proxy
	proxyOut, clientIn := io.Pipe() // proxy → client
	p := &Stdio{Command: []string{os.Args[0], "-test.run=^$"}, ClientIn: clientR, ClientOut: clientIn,
		Env: []string{"PROXY_TEST_ROLE=demo"}, Stderr: io.Discard, Rec: rec}
	if set != nil {
		set(p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	done := make(chan Result, 1)
	go func() {
		res, err := p.Run(ctx)
		if err != nil {
			t.Error(err)
		}
		clientIn.Close()
		done <- res
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1"}, &mcp.ClientOptions{CreateMessageHandler: sample})
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: proxyOut, Writer: proxyIn}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return cs, func() Result {
		cs.Close()
		defer cancel()
		select {
		case r := <-done:
			return r
		case <-time.After(20 * time.Second):
			t.Fatal("the proxy did not end 20 s after the client closed")
			return Result{}
		}
	}
}

func sampleAfter(d time.Duration, mu *sync.Mutex) func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		if mu != nil {
			mu.Lock()
			defer mu.Unlock()
		}
		time.Sleep(d)
		return &mcp.CreateMessageResult{Model: "test", Role: "assistant", Content: &mcp.TextContent{Text: "ok"}}, nil
	}
}

// proxiedFanout calls the demo server's fanout tool (5 samplings)
// through the stdio proxy on protocol, from a client that samples after
// latency, one at a time when serial, and returns the proxy's recording.
func proxiedFanout(t *testing.T, protocol string, latency time.Duration, serial bool) *recorder.Snapshot {
	t.Helper()
	var mu *sync.Mutex
	if serial {
		mu = &sync.Mutex{}
	}
	rec := recorder.New(recorder.Meta{})
	cs, closeAll := proxiedClient(t, rec, protocol, sampleAfter(latency, mu))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": 5}}); err != nil {
		t.Fatal(err)
	}
	closeAll()
	return rec.Snapshot()
}

// TestStdioRecordsClientFanout: through the proxy, a client that serves
// sampling one at a time (a lock around its handler) answers the demo
// server's five pushed requests (protocol 2025-11-25) a latency apart; a
// concurrent one answers them together. Every sampling span is a child
// of its tool call.
func TestStdioRecordsClientFanout(t *testing.T) {
	const latency = 200 * time.Millisecond
	spread := func(serial bool) (time.Duration, *recorder.Snapshot) {
		snap := proxiedFanout(t, "2025-11-25", latency, serial)
		var call *recorder.Span
		var first, last time.Duration = -1, 0
		n := 0
		for _, s := range snap.Spans {
			if s.Kind == recorder.KindTool {
				call = s
			}
		}
		for _, s := range snap.Spans {
			if s.Kind != recorder.KindSampling {
				continue
			}
			n++
			if call == nil || s.Parent != call.ID {
				t.Errorf("sampling span %d has parent %d, want the tool call", s.ID, s.Parent)
			}
			if s.Status != recorder.StatusOK {
				t.Errorf("sampling span %d: %s %s", s.ID, s.Status, s.Error)
			}
			if first < 0 || s.Answered < first {
				first = s.Answered
			}
			last = max(last, s.Answered)
		}
		if n != 5 {
			t.Fatalf("recorded %d sampling spans, want 5", n)
		}
		return last - first, snap
	}
	serial, snap := spread(true)
	concurrent, _ := spread(false)
	// Serial: answers a latency apart, 4 gaps. Concurrent: together.
	if serial < 3*latency {
		t.Errorf("serial client: answers spread over %v, want at least %v", serial, 3*latency)
	}
	if concurrent > latency/2 {
		t.Errorf("concurrent client: answers spread over %v, want under %v", concurrent, latency/2)
	}
	if snap.Meta.Protocol != "2025-11-25" || !strings.HasPrefix(snap.Meta.Server, "fanout-demo") {
		t.Errorf("meta %+v: want the protocol and server read from initialize", snap.Meta)
	}
}

// TestStdioRecordsRounds: on protocol 2026-07-28 the demo server asks
// for its five samplings in a tool result; the proxy records one logical
// call with two rounds, and between them the time the five spent inside
// the client, which is about five latencies for a serial client and
// about one for a concurrent one.
func TestStdioRecordsRounds(t *testing.T) {
	const latency = 200 * time.Millisecond
	fulfil := func(serial bool) time.Duration {
		snap := proxiedFanout(t, "2026-07-28", latency, serial)
		if snap.Meta.Protocol != "2026-07-28" {
			t.Errorf("protocol %q, want 2026-07-28", snap.Meta.Protocol)
		}
		var call, inside *recorder.Span
		var rounds []*recorder.Span
		for _, s := range snap.Spans {
			switch s.Kind {
			case recorder.KindTool:
				call = s
			case recorder.KindRound:
				rounds = append(rounds, s)
			case recorder.KindSampling:
				inside = s
			}
		}
		if call == nil || len(rounds) != 2 || inside == nil {
			t.Fatalf("call %v, %d rounds, fulfilment %v: want one call, two rounds and the fulfilment", call, len(rounds), inside)
		}
		if rounds[0].Parent != call.ID || rounds[1].Parent != call.ID || rounds[0].Outcome != recorder.OutcomeInputRequired ||
			rounds[0].InputRequests != 5 || rounds[1].Outcome != recorder.OutcomeResult || rounds[1].RequestID == rounds[0].RequestID {
			t.Errorf("rounds %+v\n%+v: want two children of the call, input_required with 5 then the result, each with its id", *rounds[0], *rounds[1])
		}
		if inside.Parent != rounds[0].ID || inside.InputRequests != 5 || inside.Status != recorder.StatusOK ||
			inside.Received != rounds[0].Answered || inside.Answered != rounds[1].Received {
			t.Errorf("fulfilment %+v: want the 5 input requests from round 1's answer to round 2's send", *inside)
		}
		return inside.Total()
	}
	serial, concurrent := fulfil(true), fulfil(false)
	if serial < 4*latency || concurrent > 2*latency {
		t.Errorf("fulfilment: serial %v (want ≥ %v), concurrent %v (want ≤ %v)", serial, 4*latency, concurrent, 2*latency)
	}
}

// TestStdioProtocolEventsAreBounded: a server that writes garbage without
// end cannot grow the proxy's recording without end: the first
// [wire.MaxProtocolEvents] protocol events are recorded, then one says
// the rest were not, as the client engine does; every byte still passes.
func TestStdioProtocolEventsAreBounded(t *testing.T) {
	dir := t.TempDir()
	serverStream := []byte(strings.Repeat("progress: not a JSON-RPC message\n", wire.MaxProtocolEvents+500))
	outFile, inFile := dir+"/out", dir+"/in"
	if err := os.WriteFile(outFile, serverStream, 0o600); err != nil {
		t.Fatal(err)
	}
	var toClient bytes.Buffer
	rec := recorder.New(recorder.Meta{})
	p := &Stdio{Command: []string{os.Args[0], "-test.run=^$"}, ClientIn: strings.NewReader(""), ClientOut: &toClient,
		Env:    []string{"PROXY_TEST_ROLE=script", "PROXY_TEST_OUT=" + outFile, "PROXY_TEST_IN=" + inFile},
		Stderr: io.Discard, Rec: rec}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(toClient.Bytes(), serverStream) {
		t.Errorf("the client got %d bytes, the server wrote %d: not the same", toClient.Len(), len(serverStream))
	}
	var evs []recorder.Event
	for _, e := range rec.Snapshot().Events {
		if e.Kind == recorder.EventProtocol {
			evs = append(evs, e)
		}
	}
	if len(evs) != wire.MaxProtocolEvents+1 {
		t.Fatalf("%d protocol events, want %d", len(evs), wire.MaxProtocolEvents+1)
	}
	if last := evs[len(evs)-1].Text; !strings.Contains(last, "only the first 1000 are recorded") {
		t.Errorf("last protocol event %q does not say the rest were dropped", last)
	}
}
