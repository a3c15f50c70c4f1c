package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cancellingServer has a tool "ask" that sends one sampling request and
// gives up on it (which sends notifications/cancelled) after ms
// milliseconds.
func cancellingServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cancelling", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		MS int `json:"ms"`
	}) (*mcp.CallToolResult, any, error) {
		cctx, cancel := context.WithTimeout(ctx, time.Duration(in.MS)*time.Millisecond)
		defer cancel()
		_, err := req.Session.CreateMessage(cctx, &mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hurry"}}}})
		msg := "answered"
		if err != nil {
			msg = "gave up: " + err.Error()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil, nil
	})
	return srv
}

// TestServerCancels checks that a request the server cancels stops
// waiting at once and is recorded as cancelled, with the cancellation
// event pointing at it.
func TestServerCancels(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: 10 * time.Second}
	s := connectServer(t, cancellingServer(), policy)
	start := time.Now()
	run(t, s, testCalls{Tool: "ask", Args: json.RawMessage(`{"ms":150}`)})
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("the call took %v: the cancelled request kept waiting its 10s latency", el)
	}
	var sp *recorder.Span
	if !waitFor(2*time.Second, func() bool {
		spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
		if len(spans) == 1 && !spans[0].Open() {
			sp = spans[0]
			return true
		}
		return false
	}) {
		t.Fatal("the sampling span never ended")
	}
	if sp.Status != recorder.StatusCancelled {
		t.Errorf("status %q (%s), want cancelled", sp.Status, sp.Error)
	}
	if sp.Total() > 2*time.Second {
		t.Errorf("span lasted %v, want it to end soon after the 150ms cancel", sp.Total())
	}
	var found bool
	for _, e := range s.Recording().Snapshot().Events {
		if e.Kind == recorder.EventCancelled && e.Span == sp.ID {
			found = true
		}
	}
	if !found {
		t.Error("no cancelled event pointing at the span")
	}
}

// TestRequestTimeoutAndFailRate checks the two ways the inspector answers
// with an error on purpose.
func TestRequestTimeoutAndFailRate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*AnswerPolicy)
		status recorder.Status
		errHas string
	}{
		{"timeout", func(policy *AnswerPolicy) {
			policy.Latency = LatencyModel{Dist: Fixed, A: 5 * time.Second}
			policy.RequestTimeout = ms(200)
		}, recorder.StatusTimeout, "request timeout"},
		{"fail rate 1", func(policy *AnswerPolicy) { policy.FailRate = 1 }, recorder.StatusError, "injected failure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := DefaultAnswerPolicy()
			tt.change(&policy)
			s := connectDemo(t, policy)
			start := time.Now()
			res, err := runCalls(context.Background(), s, testCalls{Tool: "fanout", Args: fanoutArgs(4, "sampling")})
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("run took %v", time.Since(start))
			}
			_ = res
			spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
			if len(spans) != 4 {
				t.Fatalf("%d sampling spans, want 4", len(spans))
			}
			for _, sp := range spans {
				if sp.Status != tt.status || !strings.Contains(sp.Error, tt.errHas) {
					t.Errorf("span %d: status %q error %q, want %q with %q", sp.ID, sp.Status, sp.Error, tt.status, tt.errHas)
				}
			}
		})
	}
}

// TestParentLinking checks that server requests name the tool call that
// caused them: the only call in flight, or the call whose progress token
// the request echoes when several calls overlap.
func TestParentLinking(t *testing.T) {
	t.Run("only call in flight", func(t *testing.T) {
		s := connectDemo(t, DefaultAnswerPolicy())
		run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(3, "sampling")})
		snap := s.Recording().Snapshot()
		calls := spansOf(snap, "tools/call")
		if len(calls) != 1 || calls[0].Name != "fanout" || calls[0].Kind != recorder.KindTool {
			t.Fatalf("tool call spans %+v", calls)
		}
		for _, sp := range spansOf(snap, "sampling/createMessage") {
			if sp.Parent != calls[0].ID {
				t.Errorf("span %d parent %d, want the call %d", sp.ID, sp.Parent, calls[0].ID)
			}
		}
	})
	t.Run("progress token echoed", func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "echoing", Version: "1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Who string `json:"who"`
		}) (*mcp.CallToolResult, any, error) {
			for range 2 {
				_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
					Meta:      mcp.Meta{"progressToken": req.Params.GetProgressToken()},
					MaxTokens: 5,
					Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Who}}},
				})
				if err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Who}}}, nil, nil
		})
		policy := DefaultAnswerPolicy()
		policy.Latency = LatencyModel{Dist: Fixed, A: ms(100)}
		s := connectServer(t, srv, policy)
		var wg sync.WaitGroup
		for _, who := range []string{"alice", "bob", "carol"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := runCalls(context.Background(), s, testCalls{Tool: "ask", Args: json.RawMessage(`{"who":"` + who + `"}`)}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		snap := s.Recording().Snapshot()
		byID := map[recorder.SpanID]*recorder.Span{}
		for _, sp := range snap.Spans {
			byID[sp.ID] = sp
		}
		sampling := spansOf(snap, "sampling/createMessage")
		if len(sampling) != 6 {
			t.Fatalf("%d sampling spans, want 6", len(sampling))
		}
		for _, sp := range sampling {
			parent := byID[sp.Parent]
			if parent == nil || parent.Method != "tools/call" {
				t.Fatalf("span %d has parent %d, want a tool call", sp.ID, sp.Parent)
			}
			var p struct {
				Messages []struct {
					Content struct{ Text string }
				}
			}
			json.Unmarshal(sp.Params, &p)
			who := p.Messages[0].Content.Text
			if !strings.Contains(string(parent.Params), who) {
				t.Errorf("request for %s linked to call %s", who, parent.Params)
			}
			if strings.Contains(string(sp.Params), wireKey) {
				t.Errorf("recorded params leak the tap's key: %s", sp.Params)
			}
		}
	})
}

// TestSetAnswerPolicyLive checks that a new answer policy applies to the next
// request without reconnecting.
func TestSetAnswerPolicyLive(t *testing.T) {
	s := connectDemo(t, DefaultAnswerPolicy())
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(3, "sampling")})
	policy := s.AnswerPolicy()
	policy.Dispatch = DispatchPolicy{Mode: Serial}
	policy.Latency = LatencyModel{Dist: Fixed, A: ms(200)}
	policy.SamplingReply = "custom {{.Index}} to {{.LastUserMessage}}"
	policy.Roots = []string{"file:///work", "file:///data"}
	s.SetAnswerPolicy(policy)
	mark := s.Recording().Now()
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(3, "sampling")})
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(1, "roots")})

	snap := s.Recording().Snapshot()
	var later []*recorder.Span
	for _, sp := range snap.Spans {
		if sp.Received >= mark && sp.Direction == recorder.Incoming {
			later = append(later, sp)
		}
	}
	if len(later) != 4 {
		t.Fatalf("%d requests after the change, want 4", len(later))
	}
	var sampling []*recorder.Span
	for _, sp := range later {
		if sp.ServeTime() < ms(190) {
			t.Errorf("%s span %d served in %v, want the new 200ms latency", sp.Method, sp.ID, sp.ServeTime())
		}
		if sp.Method == "sampling/createMessage" {
			sampling = append(sampling, sp)
			if !strings.Contains(string(sp.Result), "custom ") {
				t.Errorf("reply %s, want the new template", sp.Result)
			}
		}
		if sp.Method == "roots/list" && !strings.Contains(string(sp.Result), "file:///data") {
			t.Errorf("roots answer %s, want the new roots", sp.Result)
		}
	}
	sub := &recorder.Snapshot{Spans: sampling, Now: snap.Now}
	if in, _ := recorder.Peaks(recorder.Steps(sub)); in != 1 {
		t.Errorf("peak in flight %d after switching to serial, want 1", in)
	}
	if !strings.Contains(string(snap.Meta.Config), `"serial"`) {
		t.Errorf("recording's config %s does not show the new dispatch", snap.Meta.Config)
	}
}

// TestManualAnswers checks that a request answered by a person waits for
// the answer, and that the wait is serving time.
func TestManualAnswers(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.SamplingManual = true
	policy.Elicitation = ElicitManual
	s := connectDemo(t, policy)
	var mu sync.Mutex
	var seen []*PendingRequest
	s.SetManualHandler(func(p *PendingRequest) {
		mu.Lock()
		seen = append(seen, p)
		mu.Unlock()
		time.Sleep(300 * time.Millisecond)
		switch p.Method {
		case "sampling/createMessage":
			p.AnswerSampling("by hand: "+p.Message, "")
		case "elicitation/create":
			content, err := ElicitationContent(p.Schema)
			if err != nil {
				t.Error(err)
			}
			p.Accept(content)
		}
		<-p.Done()
	})
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(2, "sampling")})
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(1, "elicitation")})
	snap := s.Recording().Snapshot()
	for _, method := range []string{"sampling/createMessage", "elicitation/create"} {
		spans := spansOf(snap, method)
		if len(spans) == 0 {
			t.Fatalf("no %s spans", method)
		}
		for _, sp := range spans {
			if sp.Status != recorder.StatusOK {
				t.Errorf("%s span %d: %s %s", method, sp.ID, sp.Status, sp.Error)
			}
			if sp.ServeTime() < ms(290) {
				t.Errorf("%s span %d served %v, want the person's 300ms", method, sp.ID, sp.ServeTime())
			}
		}
	}
	if r := string(spansOf(snap, "sampling/createMessage")[0].Result); !strings.Contains(r, "by hand") {
		t.Errorf("sampling result %s, want the manual answer", r)
	}
	if r := string(spansOf(snap, "elicitation/create")[0].Result); !strings.Contains(r, `"accept"`) {
		t.Errorf("elicitation result %s, want accept", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[0].Span == 0 || len(seen[2].Schema) == 0 {
		t.Errorf("manual handler saw %d requests (first span %d)", len(seen), seen[0].Span)
	}
}

// TestElicitationAndRootsModes runs the demo's other fan-out kinds.
func TestElicitationAndRootsModes(t *testing.T) {
	tests := []struct {
		mode   ElicitationMode
		kind   string
		method string
		want   string
	}{
		{ElicitAccept, "elicitation", "elicitation/create", `"action":"accept"`},
		{ElicitDecline, "elicitation", "elicitation/create", `"action":"decline"`},
		{ElicitCancel, "elicitation", "elicitation/create", `"action":"cancel"`},
		{ElicitAccept, "roots", "roots/list", `file:///tmp`},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+" "+tt.kind, func(t *testing.T) {
			policy := DefaultAnswerPolicy()
			policy.Elicitation = tt.mode
			s := connectDemo(t, policy)
			run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(2, tt.kind)})
			spans := spansOf(s.Recording().Snapshot(), tt.method)
			if len(spans) != 2 {
				t.Fatalf("%d %s spans, want 2", len(spans), tt.method)
			}
			for _, sp := range spans {
				if sp.Status != recorder.StatusOK || !strings.Contains(string(sp.Result), tt.want) {
					t.Errorf("span %d: %s %s result %s, want %s", sp.ID, sp.Status, sp.Error, sp.Result, tt.want)
				}
			}
		})
	}
}

// TestMultiRoundTrip checks that on protocol 2026-07-28, where the demo
// server asks for its requests in an input_required result, every kind of
// input request (roots included) is served under the dispatch policy,
// recorded with its round, and linked to the call, and that the answers
// reach the tool.
func TestMultiRoundTrip(t *testing.T) {
	for _, kind := range []string{"sampling", "elicitation", "roots"} {
		t.Run(kind, func(t *testing.T) {
			policy := DefaultAnswerPolicy()
			policy.Dispatch = DispatchPolicy{Mode: Serial}
			policy.Latency = LatencyModel{Dist: Fixed, A: ms(100)}
			policy.Roots = []string{"file:///mrtr"}
			s := connectTarget(t, Target{Protocol: "2026-07-28"}, policy)
			if s.Info().Protocol != "2026-07-28" {
				t.Fatalf("negotiated %s, want 2026-07-28", s.Info().Protocol)
			}
			res := run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(3, kind)})
			if res.OK != 1 {
				t.Fatalf("run %+v", res)
			}
			snap := s.Recording().Snapshot()
			call := spansOf(snap, "tools/call")[0]
			var served []*recorder.Span
			for _, sp := range snap.Spans {
				if sp.Direction == recorder.Incoming {
					served = append(served, sp)
				}
			}
			if len(served) != 3 {
				t.Fatalf("%d served requests, want 3", len(served))
			}
			round1 := roundOf(t, snap, call, 1)
			for _, sp := range served {
				if sp.Parent != round1.ID || sp.Round != 1 || sp.InputKey == "" || sp.Status != recorder.StatusOK {
					t.Errorf("span %d (%s): parent %d round %d key %q status %q, want parent %d (round 1 of call %d), a key, ok",
						sp.ID, sp.Method, sp.Parent, sp.Round, sp.InputKey, sp.Status, round1.ID, call.ID)
				}
				if sp.ServeTime() < ms(90) {
					t.Errorf("span %d served %v, want the 100ms latency", sp.ID, sp.ServeTime())
				}
			}
			if in, _ := recorder.Peaks(recorder.Steps(snap)); in != 1 {
				t.Errorf("peak in flight %d under serial dispatch, want 1", in)
			}
			if kind == "roots" && !strings.Contains(string(call.Result), "file:///mrtr") {
				t.Errorf("tool result %s does not carry the configured root", call.Result)
			}
		})
	}
}

// stdioTarget is the test binary started as a stdio server in mode.
func stdioTarget(mode string) Target {
	return Target{Transport: TransportStdio, Command: fmt.Sprintf("%q -test.run=^$", os.Args[0]),
		Env: []string{"ENGINE_TEST_SERVER=" + mode}}
}

// TestConnectionLostMidServe checks that a stdio server that dies, or
// writes something that is not JSON-RPC, while five sampling requests
// wait out a 5s latency ends the session at once: the requests and the
// tool call end aborted, with the reason, as the loss happens (not when
// their latency runs out, nor once the process is reaped), and Run
// returns an error saying the connection was lost only once Done is
// closed and Err says why.
func TestConnectionLostMidServe(t *testing.T) {
	exited := []string{"server exited: exit status 1", "crashing on purpose"}
	tests := []struct {
		name, mode string
		setup      func(*AnswerPolicy)
		want       []string // in Err, Run's error and every span's error
	}{
		{"server exits", "fanout-exit", nil, exited},
		{"server exits, a helper keeps its stderr open", "fanout-exit-helper", nil, exited},
		{"server writes garbage and exits slowly", "garbage-mid", nil, []string{"not JSON-RPC", "logs to stderr"}},
		{"server exits, requests queued", "fanout-exit", func(policy *AnswerPolicy) { policy.Dispatch = DispatchPolicy{Mode: Serial} }, exited},
		{"server exits, requests withheld", "fanout-exit", func(policy *AnswerPolicy) { policy.Dispatch = DispatchPolicy{Mode: Inline} }, exited},
		{"server exits, a person never answers", "fanout-exit", func(policy *AnswerPolicy) { policy.SamplingManual, policy.Latency = true, LatencyModel{} }, exited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const latency = 5 * time.Second
			policy := DefaultAnswerPolicy()
			policy.Latency = LatencyModel{Dist: Fixed, A: latency}
			if tt.setup != nil {
				tt.setup(&policy)
			}
			s := connectTarget(t, stdioTarget(tt.mode), policy)
			pending := make(chan *PendingRequest, 5)
			s.SetManualHandler(func(p *PendingRequest) { pending <- p })
			_, err := runCalls(context.Background(), s, testCalls{Tool: "fanout"})
			if err == nil {
				t.Fatal("Run succeeded, want an error: the connection was lost")
			}
			select {
			case <-s.Done():
			default:
				t.Fatal("Run returned before Done was closed")
			}
			for _, want := range append([]string{"connection was lost"}, tt.want...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Run error %q does not say %q", err, want)
				}
			}
			for _, want := range tt.want {
				if s.Err() == nil || !strings.Contains(s.Err().Error(), want) {
					t.Errorf("Err() = %v, want it to say %q", s.Err(), want)
				}
			}
			snap := s.Recording().Snapshot()
			sampling := spansOf(snap, "sampling/createMessage")
			if len(sampling) != 5 {
				t.Fatalf("%d sampling spans, want 5", len(sampling))
			}
			// The loss comes 300ms after the requests: each must end within
			// a generous 1.5s of arriving, far short of its latency and of
			// the 2s a reaping of the process could take.
			for _, sp := range snap.Spans {
				if sp.Open() {
					t.Errorf("span %d (%s) still open", sp.ID, sp.Method)
					continue
				}
				if sp.Method != "sampling/createMessage" && sp.Method != "tools/call" {
					continue
				}
				if sp.Status != recorder.StatusAborted {
					t.Errorf("%s span %d: status %q (%s), want aborted", sp.Method, sp.ID, sp.Status, sp.Error)
				}
				for _, want := range tt.want {
					if !strings.Contains(sp.Error, want) {
						t.Errorf("%s span %d: error %q does not say %q", sp.Method, sp.ID, sp.Error, want)
					}
				}
				if sp.Method == "sampling/createMessage" {
					if took := sp.Answered - sp.Received; took > 1500*time.Millisecond {
						t.Errorf("sampling span %d ended %v after it arrived, want within 1.5s of the loss at 300ms", sp.ID, took)
					}
				}
			}
			var lostAt time.Duration = -1
			for _, e := range snap.Events {
				if e.Kind == recorder.EventConnection && strings.HasPrefix(e.Text, "connection lost: ") {
					lostAt = e.At
				}
			}
			if lostAt < 0 || lostAt-sampling[0].Received > 1500*time.Millisecond {
				t.Errorf("connection lost recorded at %v, requests arrived at %v: want within 1.5s", lostAt, sampling[0].Received)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close after loss: %v", err)
			}
			if policy.SamplingManual && len(pending) != 5 {
				t.Errorf("%d requests reached the person, want 5", len(pending))
			}
			for len(pending) > 0 {
				if p := <-pending; !isClosed(p.Done()) {
					t.Errorf("a request waiting for a person still waits after the loss")
				}
			}
		})
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestStdioGarbage checks that a server writing non-JSON to stdout gets a
// clear error, not a panic or a hang.
func TestStdioGarbage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{})
	s, err := Connect(ctx, stdioTarget("garbage"), DefaultAnswerPolicy(), rec)
	if err == nil {
		s.Close()
		t.Fatal("Connect succeeded against a server writing garbage to stdout")
	}
	if !strings.Contains(err.Error(), "not JSON-RPC") || !strings.Contains(err.Error(), "stderr") {
		t.Errorf("error %q should say the output is not JSON-RPC and logs belong on stderr", err)
	}
	for _, sp := range rec.Snapshot().Spans {
		if sp.Open() {
			t.Errorf("span %d (%s) left open", sp.ID, sp.Method)
		}
	}
}

// TestStdioStderrAndEnv checks stderr lines become events and reach OnLog.
func TestStdioStderrAndEnv(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	s := connectTarget(t, stdioTarget("stderr"), DefaultAnswerPolicy())
	s.OnLog(func(e recorder.Event) {
		mu.Lock()
		lines = append(lines, e.Text)
		mu.Unlock()
	})
	res := run(t, s, testCalls{Tool: "echo", Args: json.RawMessage(`{"text":"hi"}`), Calls: 3, Concurrency: 3})
	if res.OK != 3 {
		t.Errorf("run %+v", res)
	}
	if s.Info().Name != "engine-test-stderr" {
		t.Errorf("server name %q", s.Info().Name)
	}
	var stderr []string
	for _, e := range s.Recording().Snapshot().Events {
		if e.Kind == recorder.EventStderr {
			stderr = append(stderr, e.Text)
		}
	}
	if strings.Join(stderr, "|") != "starting up|ready" {
		t.Errorf("stderr events %q", stderr)
	}
	s.Close()
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if s.Err() != nil {
		t.Errorf("Err after Close = %v, want nil", s.Err())
	}
}

// TestBadTargets checks targets that cannot work fail with a clear error.
func TestBadTargets(t *testing.T) {
	tests := []struct {
		target Target
		want   string
	}{
		{Target{Transport: TransportStdio}, "no command"},
		{Target{Transport: TransportStdio, Command: `"unclosed`}, "quote"},
		{Target{Transport: TransportStdio, Command: "/no/such/server"}, "cannot run"},
		{Target{Transport: TransportStdio, Command: `sh -c 'echo boom >&2; exit 3'`}, "exited before the session started: exit status 3 (last stderr line: boom)"},
		{Target{Transport: TransportStdio, Command: "sh -c 'exit 0'"}, "exited before the session started"},
		{Target{Transport: TransportHTTP, URL: "localhost:1"}, "not an http(s) URL"},
		{Target{Transport: "carrier-pigeon"}, "want demo, stdio, http or sse"},
		{Target{Protocol: "1999-01-01"}, "choose latest or one of"},
		{Target{Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp"}, "connecting to http"},
	}
	for _, tt := range tests {
		t.Run(tt.target.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Connect(ctx, tt.target, DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Connect error %v, want one containing %q", err, tt.want)
			}
		})
	}
	t.Run("bad policy", func(t *testing.T) {
		policy := DefaultAnswerPolicy()
		policy.SamplingReply = "{{.Nope"
		_, err := Connect(context.Background(), Target{}, policy, recorder.New(recorder.Meta{}))
		if err == nil || !strings.Contains(err.Error(), "template") {
			t.Errorf("error %v, want a template error", err)
		}
	})
}

// TestProgressLogsAndCallTimeout runs the demo's slow tool: its progress
// notifications are events on the call's span, its log messages reach
// OnLog, and a call timeout fails the call as timed out.
func TestProgressLogsAndCallTimeout(t *testing.T) {
	s := connectDemo(t, DefaultAnswerPolicy())
	logs := make(chan recorder.Event, 100)
	s.OnLog(func(e recorder.Event) { logs <- e })
	res, err := runCalls(context.Background(), s, testCalls{Tool: "slow", Args: json.RawMessage(`{"ms":200,"steps":4}`), Calls: 2, Concurrency: 2})
	if err != nil || res.OK != 2 {
		t.Fatalf("run %+v, %v", res, err)
	}
	snap := s.Recording().Snapshot()
	calls := map[recorder.SpanID]int{}
	for _, sp := range spansOf(snap, "tools/call") {
		calls[sp.ID] = 0
	}
	var nlogs int
	for _, e := range snap.Events {
		switch e.Kind {
		case recorder.EventProgress:
			if _, ok := calls[e.Span]; !ok {
				t.Errorf("progress event %q not linked to a call (span %d)", e.Text, e.Span)
			}
			calls[e.Span]++
		case recorder.EventLog:
			nlogs++
		}
	}
	for id, n := range calls {
		if n != 4 {
			t.Errorf("call %d has %d progress events, want 4", id, n)
		}
	}
	if nlogs == 0 {
		t.Error("no log message events: the session should ask for the server's logs")
	}
	select {
	case e := <-logs:
		if e.Kind != recorder.EventLog || e.Text == "" {
			t.Errorf("OnLog got %+v", e)
		}
	case <-time.After(2 * time.Second):
		t.Error("OnLog was never called")
	}

	res, err = runCalls(context.Background(), s, testCalls{Tool: "slow", Args: json.RawMessage(`{"ms":3000,"steps":1}`), CallTimeout: ms(200)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 1 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "call timeout") {
		t.Errorf("run %+v, want one call failed by the call timeout", res)
	}
	calls2 := spansOf(s.Recording().Snapshot(), "tools/call")
	last := calls2[len(calls2)-1]
	if last.Status != recorder.StatusTimeout {
		t.Errorf("timed out call has status %q", last.Status)
	}
	var gaveUp bool
	for _, e := range s.Recording().Snapshot().Events {
		gaveUp = gaveUp || (e.Kind == recorder.EventCancelled && e.Span == last.ID)
	}
	if !gaveUp {
		t.Error("no cancelled event on the timed-out call")
	}
}

// TestSeededRunsRepeat checks that two sessions with the same seed give
// the n-th request of a fan-out the same latency, although the requests
// are served concurrently, and that the sampling reply numbers requests
// in arrival order. Each session runs in a synctest bubble, whose clock
// moves only when every goroutine waits: a request's serve time is then
// exactly the latency the seed drew for it, however busy the machine is
// (on the real clock a loaded machine's timers fire tens of ms late, and
// not by the same amount twice).
func TestSeededRunsRepeat(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Seed = 42
	policy.Latency = LatencyModel{Dist: Uniform, A: ms(50), B: ms(600)}
	serveTimes := func() (d []time.Duration, replies []string) {
		synctest.Test(t, func(t *testing.T) {
			s := connectDemo(t, policy)
			run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(5, "sampling")})
			// Arrival order is the order the spans were begun in (by ID).
			for _, sp := range spansOf(s.Recording().Snapshot(), "sampling/createMessage") {
				d = append(d, sp.ServeTime())
				var r struct{ Content struct{ Text string } }
				json.Unmarshal(sp.Result, &r)
				replies = append(replies, r.Content.Text)
			}
			s.Close()
		})
		return d, replies
	}
	a, ra := serveTimes()
	b, _ := serveTimes()
	if len(a) != 5 || len(b) != 5 {
		t.Fatalf("spans %d and %d, want 5", len(a), len(b))
	}
	distinct := map[time.Duration]bool{}
	for i := range a {
		drawn := drawFor(&policy, "sampling/createMessage", int64(i+1)).latency
		distinct[drawn] = true
		if a[i] != drawn || b[i] != drawn {
			t.Errorf("request %d served %v then %v with the same seed; the seed drew %v for it", i+1, a[i], b[i], drawn)
		}
	}
	if len(distinct) < 4 {
		t.Errorf("the seed drew %d distinct latencies for 5 requests: the test cannot tell them apart", len(distinct))
	}
	want := []string{"reply 1", "reply 2", "reply 3", "reply 4", "reply 5"}
	for i := range want {
		if ra[i] != want[i] {
			t.Errorf("replies %q, want %q", ra, want)
			break
		}
	}
}

// TestServerPing checks that a ping from the server is served like any
// request, with its per-method latency.
func TestServerPing(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "pinger", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ping"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if err := req.Session.Ping(ctx, nil); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	policy := DefaultAnswerPolicy()
	policy.MethodLatency = map[string]LatencyModel{"ping": {Dist: Fixed, A: ms(150)}}
	s := connectServer(t, srv, policy)
	if res := run(t, s, testCalls{Tool: "ping"}); res.OK != 1 {
		t.Fatalf("run %+v", res)
	}
	spans := spansOf(s.Recording().Snapshot(), "ping")
	if len(spans) != 1 || spans[0].Status != recorder.StatusOK || spans[0].ServeTime() < ms(140) || spans[0].Kind != recorder.KindPing {
		t.Fatalf("ping spans %+v", spans)
	}
}

// TestManualWithoutHandler checks that a manual request nobody can answer
// fails at once with a message saying so.
func TestManualWithoutHandler(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.SamplingManual = true
	s := connectDemo(t, policy)
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(1, "sampling")})
	spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
	if len(spans) != 1 || spans[0].Status != recorder.StatusError || !strings.Contains(spans[0].Error, "nobody is attached") {
		t.Fatalf("spans %+v", spans)
	}
}

// TestCloseEndsWaits checks that Close does not wait for latencies or
// for a person: pending requests end as aborted at once.
func TestCloseEndsWaits(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: 30 * time.Second}
	s := connectDemo(t, policy)
	go runCalls(context.Background(), s, testCalls{Tool: "fanout", Args: fanoutArgs(3, "sampling")})
	if !waitFor(5*time.Second, func() bool { return len(spansOf(s.Recording().Snapshot(), "sampling/createMessage")) == 3 }) {
		t.Fatal("requests never arrived")
	}
	start := time.Now()
	s.Close()
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Close took %v", el)
	}
	for _, sp := range s.Recording().Snapshot().Spans {
		if sp.Open() {
			t.Errorf("span %d (%s) still open after Close", sp.ID, sp.Method)
		}
		if (sp.Method == "sampling/createMessage" || sp.Method == "tools/call") &&
			(sp.Status != recorder.StatusAborted || sp.Error != "session closed") {
			t.Errorf("%s span %d: status %q error %q, want aborted: session closed", sp.Method, sp.ID, sp.Status, sp.Error)
		}
	}
	if s.Err() != nil {
		t.Errorf("Err after Close = %v", s.Err())
	}
}

// TestStdioGarbageMidSession checks that non-JSON output in the middle of
// a session ends it with an error that says what went wrong.
func TestStdioGarbageMidSession(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Latency = LatencyModel{Dist: Fixed, A: 5 * time.Second}
	s := connectTarget(t, stdioTarget("garbage-later"), policy)
	_, err := runCalls(context.Background(), s, testCalls{Tool: "fanout"})
	if err == nil || !strings.Contains(err.Error(), "not JSON-RPC") {
		t.Fatalf("Run error %v, want one saying the server wrote something that is not JSON-RPC", err)
	}
	for _, sp := range s.Recording().Snapshot().Spans {
		if sp.Open() {
			t.Errorf("span %d (%s) still open", sp.ID, sp.Method)
		}
	}
}

// TestToolsChanged checks that a server's tools/list_changed reaches
// OnToolsChanged and the timeline, and that ListTools is recorded.
func TestToolsChanged(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "growing", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "grow"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(srv, &mcp.Tool{Name: "grown"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grew"}}}, nil, nil
	})
	s := connectServer(t, srv, DefaultAnswerPolicy())
	if !s.Info().hasCapability("tools.listChanged") {
		t.Errorf("capabilities %v, want tools.listChanged", s.Info().Capabilities)
	}
	changed := make(chan struct{}, 4)
	s.OnToolsChanged(func() { changed <- struct{}{} })
	run(t, s, testCalls{Tool: "grow"})
	select {
	case <-changed:
	case <-time.After(3 * time.Second):
		t.Fatal("OnToolsChanged not called")
	}
	tools, err := s.ListTools(context.Background())
	if err != nil || len(tools) != 2 {
		t.Fatalf("ListTools = %d tools, %v; want grow and grown", len(tools), err)
	}
	for _, tool := range tools {
		// the SDK infers an object schema from the handler's struct{} input
		var schema struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.Type != "object" {
			t.Errorf("tool %q has input schema %s (%v), want the server's object schema as JSON", tool.Name, tool.InputSchema, err)
		}
	}
	snap := s.Recording().Snapshot()
	if len(spansOf(snap, "tools/list")) != 1 {
		t.Error("ListTools was not recorded as a tools/list span")
	}
	var ev bool
	for _, e := range snap.Events {
		ev = ev || (e.Kind == recorder.EventListChanged && e.Method == "notifications/tools/list_changed")
	}
	if !ev {
		t.Error("no list_changed event on the timeline")
	}
}

// TestAnswersTheSDKRefuses checks that an answer built by the inspector
// but refused by the SDK (a manual elicitation answer that does not fit
// the schema, or an answer of the wrong kind) shows as an error, as the
// server saw it.
func TestAnswersTheSDKRefuses(t *testing.T) {
	policy := DefaultAnswerPolicy()
	policy.Elicitation = ElicitManual
	policy.SamplingManual = true
	s := connectDemo(t, policy)
	s.SetManualHandler(func(p *PendingRequest) {
		if p.Method == "elicitation/create" {
			p.Accept(map[string]any{"color": "purple"}) // not in the enum, required name missing
		} else {
			p.Decline() // an elicitation answer to a sampling request
		}
	})
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(1, "elicitation")})
	run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(1, "sampling")})
	snap := s.Recording().Snapshot()
	for _, method := range []string{"elicitation/create", "sampling/createMessage"} {
		spans := spansOf(snap, method)
		if len(spans) != 1 || spans[0].Status != recorder.StatusError || spans[0].Error == "" {
			t.Errorf("%s spans %+v, want one error", method, spans)
		}
	}
}

// TestMultiRoundTripRounds checks a tool that asks for input twice: the
// requests of each round carry that round's number and the answers of
// both rounds reach the tool.
func TestMultiRoundTripRounds(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "rounds", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "twice"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		switch req.Params.RequestState {
		case "":
			return &mcp.CallToolResult{RequestState: "asked-sampling", InputRequests: mcp.InputRequestMap{
				"s1": &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "one"}}}},
				"s2": &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "two"}}}},
			}}, nil, nil
		case "asked-sampling":
			a := req.Params.InputResponses["s1"]
			b, _ := json.Marshal(a)
			return &mcp.CallToolResult{RequestState: "asked-roots:" + string(b), InputRequests: mcp.InputRequestMap{
				"r": &mcp.ListRootsParams{},
			}}, nil, nil
		}
		roots, _ := json.Marshal(req.Params.InputResponses["r"])
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Params.RequestState + " " + string(roots)}}}, nil, nil
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	policy := DefaultAnswerPolicy()
	policy.SamplingReply = "re: {{.LastUserMessage}}"
	s, err := connect(ctx, Target{Protocol: "2026-07-28"}, policy, recorder.New(recorder.Meta{}), ct)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if res := run(t, s, testCalls{Tool: "twice"}); res.OK != 1 {
		t.Fatalf("run %+v", res)
	}
	snap := s.Recording().Snapshot()
	call := spansOf(snap, "tools/call")[0]
	round1, round2 := roundOf(t, snap, call, 1), roundOf(t, snap, call, 2)
	for _, sp := range spansOf(snap, "sampling/createMessage") {
		if sp.Round != 1 || sp.Parent != round1.ID {
			t.Errorf("sampling span %d round %d parent %d, want round 1 (span %d)", sp.ID, sp.Round, sp.Parent, round1.ID)
		}
	}
	roots := spansOf(snap, "roots/list")
	if len(roots) != 1 || roots[0].Round != 2 || roots[0].Parent != round2.ID || roots[0].InputKey != "r" {
		t.Errorf("roots spans %+v, want one in round 2 (span %d) with key r", roots, round2.ID)
	}
	result := string(call.Result)
	if !strings.Contains(result, "re: one") || !strings.Contains(result, "file:///tmp") {
		t.Errorf("tool result %s lacks the answers of both rounds", result)
	}
}

// askingServer has a tool "ask" that sends one request of kind
// ("sampling" or "elicitation") and returns, as its text, what the client
// answered: the error code and message, or the elicitation's action.
func askingServer(kind string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		var text string
		var err error
		if kind == "sampling" {
			_, err = req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "may I?"}}}})
			text = "answered"
		} else {
			var r *mcp.ElicitResult
			r, err = req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "may I?",
				RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"ok": {Type: "boolean"}}}})
			if r != nil {
				text = "action " + r.Action
			}
		}
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) {
			text = fmt.Sprintf("error %d: %s", rpc.Code, rpc.Message)
		} else if err != nil {
			text = "error: " + err.Error()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	return srv
}

// TestManualRefusals checks that Decline and Cancel turn down a sampling
// request the way MCP clients do (JSON-RPC error -1 with the reason, the
// span an error with it) and still answer an elicitation with an action.
func TestManualRefusals(t *testing.T) {
	tests := []struct {
		kind, how  string
		wantTool   string
		wantStatus recorder.Status
		wantError  string
	}{
		{"sampling", "decline", "error -1: user rejected the sampling request", recorder.StatusError, "user rejected the sampling request"},
		{"sampling", "cancel", "error -1: cancelled by the user", recorder.StatusError, "cancelled by the user"},
		{"elicitation", "decline", "action decline", recorder.StatusOK, ""},
		{"elicitation", "cancel", "action cancel", recorder.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.kind+" "+tt.how, func(t *testing.T) {
			policy := DefaultAnswerPolicy()
			policy.SamplingManual = true
			policy.Elicitation = ElicitManual
			s := connectServer(t, askingServer(tt.kind), policy)
			s.SetManualHandler(func(p *PendingRequest) {
				if tt.how == "decline" {
					p.Decline()
				} else {
					p.Cancel()
				}
			})
			run(t, s, testCalls{Tool: "ask"})
			snap := s.Recording().Snapshot()
			calls := spansOf(snap, "tools/call")
			if len(calls) != 1 || !strings.Contains(string(calls[0].Result), tt.wantTool) {
				t.Errorf("tool result %s, want it to say %q", calls[0].Result, tt.wantTool)
			}
			method := "sampling/createMessage"
			if tt.kind == "elicitation" {
				method = "elicitation/create"
			}
			spans := spansOf(snap, method)
			if len(spans) != 1 {
				t.Fatalf("%d %s spans, want 1", len(spans), method)
			}
			if sp := spans[0]; sp.Status != tt.wantStatus || sp.Error != tt.wantError {
				t.Errorf("%s span: status %q error %q, want %q %q", method, sp.Status, sp.Error, tt.wantStatus, tt.wantError)
			}
		})
	}
}

// TestCancelledWhileQueuedWasNeverServed checks that a request the server
// gives up on while it waits behind another under serial dispatch is
// recorded as queued until it ended, not as served: counting it in flight
// would show two requests served at once under serial.
func TestCancelledWhileQueuedWasNeverServed(t *testing.T) {
	var s *Session // connected below, before the tool is called
	srv := mcp.NewServer(&mcp.Implementation{Name: "queue-cancel", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "two"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ask := func(ctx context.Context, text string) {
			req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}})
		}
		first := make(chan struct{})
		go func() {
			defer close(first)
			ask(ctx, "first")
		}()
		// The second goes out once the client is serving the first, so it
		// is the one that waits in the queue.
		if !waitFor(10*time.Second, func() bool {
			spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
			return len(spans) == 1 && spans[0].Serving != recorder.Unset
		}) {
			return nil, nil, errors.New("the client never started serving the first request")
		}
		cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		ask(cctx, "second") // queued behind the first, given up on
		cancel()
		<-first
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	policy := DefaultAnswerPolicy()
	policy.Dispatch = DispatchPolicy{Mode: Serial}
	policy.Latency = LatencyModel{Dist: Fixed, A: 600 * time.Millisecond}
	s = connectServer(t, srv, policy)
	run(t, s, testCalls{Tool: "two"})
	var spans []*recorder.Span
	if !waitFor(2*time.Second, func() bool {
		spans = spansOf(s.Recording().Snapshot(), "sampling/createMessage")
		return len(spans) == 2 && !spans[0].Open() && !spans[1].Open()
	}) {
		t.Fatal("the two sampling spans never ended")
	}
	second := spans[1]
	if second.Status != recorder.StatusCancelled {
		t.Fatalf("second request: status %q (%s), want cancelled", second.Status, second.Error)
	}
	if second.Serving != second.Answered {
		t.Errorf("second request: served %v of its %v although it never left the queue (queued %v → serving %v → answered %v)",
			second.Answered-second.Serving, second.Total(), second.Queued, second.Serving, second.Answered)
	}
	if q := second.Serving - second.Queued; q < 100*time.Millisecond {
		t.Errorf("second request: queued %v, want about 200ms (until the server gave up)", q)
	}
}
