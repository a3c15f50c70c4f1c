package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// The agreement tests run the inspector's own client (what `inspector
// run` is) through the proxy to a scripted server and compare the two
// recordings of the same traffic: the client's, which sees what it sent
// and received, and the proxy's, which sees what passed. Both feed one
// model of the wire (internal/wire), so they must agree on the tool
// calls, their rounds, the server requests, which call each is linked to
// (or why not), which are duplicates, how each ended, the protocol
// events, and the verdict kind.

// The roles of the test binary (see TestMain) are named so that no tool
// name holds them: the client registers its server's environment values
// as secrets, and would redact them in its recording.

// proxyRole is the test binary as `inspector proxy --stdio`: it proxies
// its stdin and stdout to the test binary in the role PROXY_TEST_SERVE
// and saves its recording to PROXY_TEST_RECORD when the client goes.
func proxyRole() {
	os.Setenv("PROXY_TEST_ROLE", os.Getenv("PROXY_TEST_SERVE"))
	rec := recorder.New(recorder.Meta{})
	p := &Stdio{Command: []string{os.Args[0], "-test.run=^$"}, ClientIn: os.Stdin, ClientOut: os.Stdout,
		Stderr: os.Stderr, Rec: rec, InheritEnv: true} // the server's role is in the environment
	_, err := p.Run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
	}
	if err := recorder.SaveFile(os.Getenv("PROXY_TEST_RECORD"), rec.Snapshot()); err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// dupScript is a scripted server that, asked to call its tool, sends
// two sampling requests with the same id "dup" (a protocol error), waits
// for the first one's result and answers the call. send writes a
// message to the client; it returns what to do with each message the
// client sends.
type dupScript struct {
	send   func(msg string)
	result chan struct{} // the first "dup" request was answered with a result
	once   sync.Once
}

func newDupScript(send func(string)) *dupScript {
	return &dupScript{send: send, result: make(chan struct{})}
}

// handle answers one message from the client; call writes the tool
// call's requests and answer (on stdio, send; over HTTP, its stream).
func (d *dupScript) handle(raw []byte, call func(id json.RawMessage)) (answer string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	switch m.Method {
	case "initialize":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"dup","version":"1"}}}`,
			m.ID, m.Params.ProtocolVersion)
	case "tools/list":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"dup","inputSchema":{"type":"object"}}]}}`, m.ID)
	case "tools/call":
		call(m.ID)
	case "":
		if string(m.ID) == `"dup"` && m.Result != nil {
			d.once.Do(func() { close(d.result) })
		}
	}
	return ""
}

// dupLine is sampling request "dup" asking text.
func dupLine(text string) string {
	return `{"jsonrpc":"2.0","id":"dup","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"` +
		text + `"}}],"maxTokens":10}}`
}

// callDone is the tool call's answer.
func callDone(id json.RawMessage) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`, id)
}

// dupStdioRole is the test binary as the duplicate-id script over stdio.
func dupStdioRole() {
	var mu sync.Mutex
	send := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		os.Stdout.WriteString(msg + "\n")
	}
	d := newDupScript(send)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if a := d.handle(sc.Bytes(), func(id json.RawMessage) {
			send(dupLine("first"))
			send(dupLine("second"))
			go func() {
				<-d.result
				send(callDone(id))
			}()
		}); a != "" {
			send(a)
		}
	}
	os.Exit(0)
}

// dupHTTP serves the duplicate-id script over streamable HTTP: the tool
// call's POST is answered with an event stream carrying both requests
// and then the call's answer.
func dupHTTP(t *testing.T) string {
	d := newDupScript(nil)
	return scriptHTTP(t, "dup-1", func(body []byte, stream func() eventStream, gone <-chan struct{}) string {
		return d.handle(body, func(id json.RawMessage) {
			es := stream()
			es.send(dupLine("first"), dupLine("second"))
			select {
			case <-d.result:
				es.send(callDone(id))
			case <-gone:
			}
		})
	})
}

// eventStream is the event stream of one POST to a scripted server.
type eventStream struct{ w http.ResponseWriter }

// send writes msgs as events and flushes them to the client.
func (es eventStream) send(msgs ...string) {
	for _, m := range msgs {
		fmt.Fprintf(es.w, "data: %s\n\n", m)
	}
	es.w.(http.Flusher).Flush()
}

// scriptHTTP serves a scripted server over streamable HTTP, as session:
// handle takes each POST's body and returns the JSON answer, or "" for
// 202 Accepted; a tool call instead opens the POST's event stream
// (stream) and writes on it until the call is done or the client is gone.
func scriptHTTP(t *testing.T, session string, handle func(body []byte, stream func() eventStream, gone <-chan struct{}) string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Mcp-Session-Id", session)
		streamed := false
		a := handle(body, func() eventStream {
			streamed = true
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			return eventStream{w}
		}, r.Context().Done())
		switch {
		case streamed:
		case a != "":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, a)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// traceScript is a scripted server whose tool, called twice at once,
// sends one sampling request per call carrying the call's traceparent
// in its _meta and no progress token: only the trace tells which call
// it is for. It waits for both calls before sending, so that both are
// in flight, then answers each call once its request is answered.
type traceScript struct {
	mu      sync.Mutex
	calls   []json.RawMessage // the traceparents of the calls so far
	both    chan struct{}     // closed when both calls came
	answers map[string]chan struct{}
}

func newTraceScript() *traceScript {
	return &traceScript{both: make(chan struct{}), answers: map[string]chan struct{}{}}
}

// call notes a tools/call with id and params and returns the sampling
// request to send for it, once both calls came, and a channel closed
// when that request is answered.
func (ts *traceScript) call(id, params json.RawMessage) (request string, answered chan struct{}) {
	var p struct {
		Meta struct {
			Traceparent json.RawMessage `json:"traceparent"`
		} `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	reqID := fmt.Sprintf(`"t-%s"`, strings.Trim(string(id), `"`))
	ts.mu.Lock()
	ts.calls = append(ts.calls, p.Meta.Traceparent)
	if len(ts.calls) == 2 {
		close(ts.both)
	}
	answered = make(chan struct{})
	ts.answers[reqID] = answered
	ts.mu.Unlock()
	<-ts.both
	return `{"jsonrpc":"2.0","id":` + reqID + `,"method":"sampling/createMessage","params":{"_meta":{"traceparent":` + string(p.Meta.Traceparent) +
		`},"messages":[{"role":"user","content":{"type":"text","text":"traced"}}],"maxTokens":10}}`, answered
}

// handle answers one message from the client; call runs a tool call.
func (ts *traceScript) handle(raw []byte, call func(id, params json.RawMessage)) (answer string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Params, &p)
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"trace","version":"1"}}}`,
			m.ID, p.ProtocolVersion)
	case "tools/list":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"traced","inputSchema":{"type":"object"}}]}}`, m.ID)
	case "tools/call":
		call(m.ID, m.Params)
	case "":
		ts.mu.Lock()
		if ch := ts.answers[string(m.ID)]; ch != nil && m.Result != nil {
			close(ch)
			delete(ts.answers, string(m.ID))
		}
		ts.mu.Unlock()
	}
	return ""
}

// traceStdioRole is the test binary as the trace script over stdio.
func traceStdioRole() {
	var mu sync.Mutex
	send := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		os.Stdout.WriteString(msg + "\n")
	}
	ts := newTraceScript()
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if a := ts.handle(sc.Bytes(), func(id, params json.RawMessage) {
			go func() {
				req, answered := ts.call(id, params)
				send(req)
				<-answered
				send(callDone(id))
			}()
		}); a != "" {
			send(a)
		}
	}
	os.Exit(0)
}

// traceHTTP serves the trace script over streamable HTTP: each call's
// request and answer go on its POST's event stream.
func traceHTTP(t *testing.T) string {
	ts := newTraceScript()
	return scriptHTTP(t, "trace-1", func(body []byte, stream func() eventStream, gone <-chan struct{}) string {
		return ts.handle(body, func(id, params json.RawMessage) {
			es := stream()
			req, answered := ts.call(id, params)
			es.send(req)
			select {
			case <-answered:
				es.send(callDone(id))
			case <-gone:
			}
		})
	})
}

// agreement is one scripted server and what the client does with it.
// The fan-out and the rounds, judged by their verdict, answer after 1 s:
// the proxy judges a fan-out from when the answers came back (a request's
// work is the fastest wait less a quarter, so answers more than a quarter
// of the latency apart read as waiting) and rounds from their times alone
// (a round of 3 against a round of 1, concurrent under 1.5×). On a busy
// machine 100 ms rounds came out 4× apart for a concurrent client, and a
// round of three 400 ms requests took 0.63 s (its requests started 0.22 s
// apart in the client): against 1 s, that is 1.2×, and within a quarter.
type agreement struct {
	name     string
	server   string // the test binary's role serving it over stdio
	http     func(t *testing.T) string
	protocol string
	work     load.Workload
	latency  time.Duration
	// verdict is the verdict kind both recordings must give; "" when
	// only links and counts are compared (the proxy's verdict on many
	// requests pending at once is an estimate from the order of the
	// answers, which a busy machine can sway between concurrent and
	// bounded).
	verdict string
}

func agreements() []agreement {
	fanout := json.RawMessage(`{"n":5,"kind":"sampling"}`)
	demoHTTP := func(t *testing.T) string {
		srv := httptest.NewServer(demo.NewHTTPHandler())
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	return []agreement{
		{name: "fanout", server: "demo", http: demoHTTP, protocol: "2025-11-25",
			work: load.Workload{Tool: "fanout", Args: fanout}, latency: time.Second, verdict: recorder.VerdictConcurrent},
		{name: "fanout-concurrent-calls", server: "demo", http: demoHTTP, protocol: "2025-11-25",
			work: load.Workload{Tool: "fanout", Args: fanout, Calls: 4, Concurrency: 2}, latency: 100 * time.Millisecond},
		{name: "rounds", server: "demo", http: demoHTTP, protocol: "2026-07-28",
			work: load.Workload{Tool: "probe", Args: json.RawMessage(`{"n":3,"kind":"sampling"}`)}, latency: time.Second, verdict: recorder.VerdictConcurrent},
		{name: "duplicate-ids", server: "dup-server", http: dupHTTP, protocol: "2025-11-25",
			work: load.Workload{Tool: "dup"}, latency: 50 * time.Millisecond, verdict: recorder.VerdictNoFanout},
		{name: "traceparent", server: "trace-server", http: traceHTTP, protocol: "2025-11-25",
			work: load.Workload{Tool: "traced", Calls: 2, Concurrency: 2}, latency: 50 * time.Millisecond},
		{name: "load", server: "demo", http: demoHTTP, protocol: "2025-11-25",
			work: load.Workload{Tool: "echo", Args: json.RawMessage(`{"text":"hi"}`), Calls: 6, Concurrency: 3}, verdict: recorder.VerdictLoad},
	}
}

// TestClientAndProxyAgree runs each agreement through the stdio proxy
// and the HTTP proxy and compares the client's recording with the
// proxy's.
func TestClientAndProxyAgree(t *testing.T) {
	for _, a := range agreements() {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(a.name+"/"+transport, func(t *testing.T) {
				client, proxied := throughProxy(t, a, transport)
				compareRecordings(t, a, client, proxied)
			})
		}
	}
}

// TestDuplicateIDsOverHTTPRepeat: the duplicate-id script over HTTP
// gives the same spans, in the client's recording and the proxy's, ten
// runs out of ten.
func TestDuplicateIDsOverHTTPRepeat(t *testing.T) {
	var a agreement
	for _, x := range agreements() {
		if x.name == "duplicate-ids" {
			a = x
		}
	}
	var first []string
	for i := range 10 {
		client, proxied := throughProxy(t, a, "http")
		compareRecordings(t, a, client, proxied)
		got := requestLines(client)
		if i == 0 {
			first = got
			continue
		}
		if !slices.Equal(got, first) {
			t.Fatalf("run %d recorded the server's requests as\n  %s\nrun 1 as\n  %s", i+1, strings.Join(got, "\n  "), strings.Join(first, "\n  "))
		}
	}
}

// throughProxy runs a's workload with the inspector's client through
// the proxy and returns the client's recording and the proxy's.
func throughProxy(t *testing.T, a agreement, transport string) (client, proxied *recorder.Snapshot) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	policy := engine.DefaultAnswerPolicy()
	policy.Latency = engine.LatencyModel{Dist: engine.Fixed, A: a.latency}
	var (
		target  engine.Target
		prec    *recorder.Recording
		hp      *HTTP
		recFile = filepath.Join(t.TempDir(), "proxy.json")
	)
	switch transport {
	case "stdio":
		target = engine.Target{Transport: engine.TransportStdio, Command: os.Args[0] + " -test.run=^$",
			Env: []string{"PROXY_TEST_ROLE=proxy", "PROXY_TEST_SERVE=" + a.server, "PROXY_TEST_RECORD=" + recFile}}
	default:
		prec = recorder.New(recorder.Meta{})
		var front *httptest.Server
		hp, front = proxyTo(t, a.http(t), prec)
		target = engine.Target{Transport: engine.TransportHTTP, URL: front.URL + "/mcp"}
	}
	target.Protocol = a.protocol
	rec := recorder.New(recorder.Meta{})
	s, err := engine.Connect(ctx, target, policy, rec)
	if err != nil {
		t.Fatalf("connecting through the %s proxy: %v", transport, err)
	}
	if _, err := load.Run(ctx, []*engine.Session{s}, a.work, nil); err != nil {
		t.Errorf("the run through the %s proxy: %v", transport, err)
	}
	s.Close()
	client = rec.Snapshot()
	if hp != nil {
		hp.Close("test over")
		return client, prec.Snapshot()
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if snap, err := recorder.LoadFile(recFile); err == nil {
			return client, snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stdio proxy wrote no recording within 20 s of the client closing")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// requestLines describes the server requests that crossed the wire and
// the tool calls, one line each, in a form both recordings share: a
// call is named by the JSON-RPC id of its (first) request.
func requestLines(snap *recorder.Snapshot) []string {
	calls := map[recorder.SpanID]string{0: "none"}
	for _, s := range snap.Spans {
		if s.Direction == recorder.Outgoing && s.Kind == recorder.KindTool {
			calls[s.ID] = s.RequestID
		}
	}
	var out []string
	for _, s := range snap.Spans {
		switch {
		case s.Direction == recorder.Outgoing && s.Kind == recorder.KindTool:
			out = append(out, fmt.Sprintf("call %s %s: %s", calls[s.ID], s.Name, s.Status))
		case s.Direction == recorder.Outgoing && s.Kind == recorder.KindRound:
			parent := snap.SpanByID(s.Parent)
			out = append(out, fmt.Sprintf("call %s round %d: %s %s", calls[parent.ID], s.Round, s.Outcome, s.Status))
		case s.Direction == recorder.Incoming && s.RequestID != "":
			out = append(out, fmt.Sprintf("%s id %s duplicate=%v under call %s (unlinked %q): %s",
				s.Method, s.RequestID, s.Duplicate, calls[rootCall(snap, s)], s.Unlinked, s.Status))
		}
	}
	slices.Sort(out)
	return out
}

// rootCall is the tool call a span is under (through a round), or 0.
func rootCall(snap *recorder.Snapshot, s *recorder.Span) recorder.SpanID {
	for p := snap.SpanByID(s.Parent); p != nil; p = snap.SpanByID(p.Parent) {
		if p.Kind == recorder.KindTool {
			return p.ID
		}
	}
	return 0
}

// inputRequests is how many input requests the rounds of the recording
// asked for, in the order the rounds were sent.
func inputRequests(snap *recorder.Snapshot) []int32 {
	var out []int32
	for _, s := range snap.Spans {
		if s.Direction == recorder.Outgoing && s.Kind == recorder.KindRound {
			out = append(out, s.InputRequests)
		}
	}
	return out
}

// noticeLines describes the server's progress and log notifications, one
// line each: what the event says and which call it is about, the call
// named by the JSON-RPC id of its request.
func noticeLines(snap *recorder.Snapshot) []string {
	var out []string
	for _, e := range snap.Events {
		if e.Kind != recorder.EventProgress && e.Kind != recorder.EventLog {
			continue
		}
		call := "none"
		if sp := snap.SpanByID(e.Span); sp != nil {
			call = sp.RequestID
		}
		out = append(out, fmt.Sprintf("%s %q about call %s", e.Kind, e.Text, call))
	}
	slices.Sort(out)
	return out
}

func protocolTexts(snap *recorder.Snapshot) []string {
	var out []string
	for _, e := range snap.Events {
		if e.Kind == recorder.EventProtocol {
			out = append(out, e.Text)
		}
	}
	return out
}

// compareRecordings checks that the client's and the proxy's recordings
// of one run agree.
func compareRecordings(t *testing.T, a agreement, client, proxied *recorder.Snapshot) {
	t.Helper()
	c, p := requestLines(client), requestLines(proxied)
	if !slices.Equal(c, p) {
		t.Errorf("the client recorded\n  %s\nthe proxy\n  %s", strings.Join(c, "\n  "), strings.Join(p, "\n  "))
	}
	if ci, pi := inputRequests(client), inputRequests(proxied); !slices.Equal(ci, pi) {
		t.Errorf("input requests per round: the client %v, the proxy %v", ci, pi)
	}
	if cn, pn := noticeLines(client), noticeLines(proxied); !slices.Equal(cn, pn) {
		t.Errorf("notifications: the client recorded\n  %s\nthe proxy\n  %s", strings.Join(cn, "\n  "), strings.Join(pn, "\n  "))
	} else if a.name == "fanout" && len(cn) == 0 {
		t.Errorf("the fan-out recorded no progress notifications: the demo server sends one per answered request")
	}
	if ce, pe := protocolTexts(client), protocolTexts(proxied); len(ce) != len(pe) {
		t.Errorf("protocol events: the client recorded %d %q, the proxy %d %q", len(ce), ce, len(pe), pe)
	}
	cs, ps := recorder.Summarize(client), recorder.Summarize(proxied)
	if a.verdict != "" && (cs.Verdict != a.verdict || ps.Verdict != a.verdict) {
		t.Errorf("verdict: the client %q (%s), the proxy %q (%s); want %q from both", cs.Verdict, cs.VerdictText, ps.Verdict, ps.VerdictText, a.verdict)
	}
	if cs.ServerRequests.Duplicates != ps.ServerRequests.Duplicates {
		t.Errorf("duplicates: the client %d, the proxy %d", cs.ServerRequests.Duplicates, ps.ServerRequests.Duplicates)
	}
}
