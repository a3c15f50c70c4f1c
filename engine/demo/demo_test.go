package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// client is a plain SDK client whose sampling handler sleeps for latency
// (holding mu when serial is set) and counts how many ran at once.
type client struct {
	latency time.Duration
	serial  bool

	mu       sync.Mutex
	inFlight atomic.Int32
	peak     atomic.Int32
	calls    atomic.Int32
	progress atomic.Int32
	logs     atomic.Int32
}

func (c *client) enter() func() {
	if c.serial {
		c.mu.Lock()
	}
	n := c.inFlight.Add(1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(c.latency)
	return func() {
		c.inFlight.Add(-1)
		if c.serial {
			c.mu.Unlock()
		}
	}
}

func (c *client) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			defer c.enter()()
			i := c.calls.Add(1)
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant",
				Content: &mcp.TextContent{Text: fmt.Sprintf("reply %d", i)}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			defer c.enter()()
			c.calls.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "color": "green", "count": 2}}, nil
		},
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { c.progress.Add(1) },
		LoggingMessageHandler:       func(context.Context, *mcp.LoggingMessageRequest) { c.logs.Add(1) },
	}
}

// connect connects a client to a fresh demo server in process.
func connect(t *testing.T, c *client, protocol string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := demo.NewServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, c.options())
	cl.AddRoots(&mcp.Root{URI: "file:///tmp/a"}, &mcp.Root{URI: "file:///tmp/b"})
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callFanout(t *testing.T, cs *mcp.ClientSession, args map[string]any) (demo.FanoutResult, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fanout", Arguments: args})
	if err != nil {
		t.Fatalf("fanout %v: %v", args, err)
	}
	var out demo.FanoutResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("fanout structured content %s: %v", b, err)
	}
	return out, res
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestFanoutTiming checks that the server sends its n requests at once
// and measures what the client did with them: a concurrent client answers
// in about one latency, a serial one in about n.
func TestFanoutTiming(t *testing.T) {
	const n, latency = 5, 200 * time.Millisecond
	for _, tc := range []struct {
		name     string
		serial   bool
		peak     int32
		min, max time.Duration
	}{
		{"concurrent client", false, n, latency, 3 * latency},
		{"serial client", true, 1, n * latency, 3 * n * latency},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &client{latency: latency, serial: tc.serial}
			cs := connect(t, c, "2025-11-25")
			out, res := callFanout(t, cs, map[string]any{"n": n, "kind": "sampling"})
			if res.IsError {
				t.Fatalf("fanout failed: %s", text(res))
			}
			if got := c.peak.Load(); got != tc.peak {
				t.Errorf("peak requests in the client's handler = %d, want %d (the server must send all %d at once)", got, tc.peak, n)
			}
			el := time.Duration(out.ElapsedMS * float64(time.Millisecond))
			if el < tc.min || el > tc.max {
				t.Errorf("elapsed as the server saw it = %v, want between %v and %v", el, tc.min, tc.max)
			}
			if out.Mode != "requests" || out.N != n || len(out.Replies) != n || out.Failed != 0 {
				t.Errorf("result = mode %q n %d replies %d failed %d, want requests/%d/%d/0", out.Mode, out.N, len(out.Replies), out.Failed, n, n)
			}
			seen := map[string]bool{}
			for _, r := range out.Replies {
				seen[r.Text] = true
				if r.Model != "test-model" {
					t.Errorf("reply %d model = %q, want test-model", r.Index, r.Model)
				}
			}
			for i := 1; i <= n; i++ {
				want := fmt.Sprintf("reply %d", i)
				if !seen[want] {
					t.Errorf("no reply %q among %v", want, out.Replies)
				}
				if !strings.Contains(text(res), want) {
					t.Errorf("text result lacks %q:\n%s", want, text(res))
				}
			}
		})
	}
}

// TestFanoutKinds checks each kind of request reaches the client and its
// answer comes back in the result, on both protocol eras.
func TestFanoutKinds(t *testing.T) {
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		mode := map[string]string{"2025-11-25": "requests", "2026-07-28": "input_required"}[proto]
		for _, tc := range []struct {
			kind  string
			check func(demo.Reply) error
		}{
			{"sampling", func(r demo.Reply) error {
				if !strings.HasPrefix(r.Text, "reply ") {
					return fmt.Errorf("text %q, want a client reply", r.Text)
				}
				return nil
			}},
			{"elicitation", func(r demo.Reply) error {
				if r.Action != "accept" || r.Content["name"] != "Ada" || r.Content["color"] != "green" {
					return fmt.Errorf("action %q content %v, want accept with name Ada, color green", r.Action, r.Content)
				}
				return nil
			}},
			{"roots", func(r demo.Reply) error {
				if strings.Join(r.Roots, ",") != "file:///tmp/a,file:///tmp/b" {
					return fmt.Errorf("roots %v, want the client's two roots", r.Roots)
				}
				return nil
			}},
		} {
			t.Run(proto+"/"+tc.kind, func(t *testing.T) {
				c := &client{}
				cs := connect(t, c, proto)
				out, res := callFanout(t, cs, map[string]any{"n": 3, "kind": tc.kind})
				if res.IsError {
					t.Fatalf("fanout failed: %s", text(res))
				}
				if out.Mode != mode || out.Protocol != proto {
					t.Errorf("mode %q protocol %q, want %q %q", out.Mode, out.Protocol, mode, proto)
				}
				if len(out.Replies) != 3 {
					t.Fatalf("%d replies, want 3: %+v", len(out.Replies), out)
				}
				for _, r := range out.Replies {
					if err := tc.check(r); err != nil {
						t.Errorf("reply %d: %v", r.Index, err)
					}
				}
			})
		}
	}
}

// TestFanoutDefaultsAndErrors checks {} means 5 sampling requests and bad
// arguments come back as a failed call that says what is wrong.
func TestFanoutDefaultsAndErrors(t *testing.T) {
	c := &client{}
	cs := connect(t, c, "2025-11-25")
	out, _ := callFanout(t, cs, map[string]any{})
	if out.N != 5 || out.Kind != "sampling" || len(out.Replies) != 5 {
		t.Errorf("fanout {} = n %d kind %q with %d replies, want 5 sampling", out.N, out.Kind, len(out.Replies))
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"kind": "pings"}, "kind"},
		{map[string]any{"n": -1}, "n"},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fanout", Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(text(res), tc.want) {
				t.Errorf("fanout %v = error %v %q, want a failed call naming %q", tc.args, res.IsError, text(res), tc.want)
			}
		})
	}
}

// TestFanoutClientErrors checks a request the client fails is reported
// in the result and makes the call fail.
func TestFanoutClientErrors(t *testing.T) {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := demo.NewServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var k atomic.Int32
	cl := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			if k.Add(1)%2 == 0 {
				return nil, fmt.Errorf("no model available")
			}
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "ok"}}, nil
		},
	})
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out, res := callFanout(t, cs, map[string]any{"n": 4})
	if !res.IsError || out.Failed != 2 {
		t.Errorf("isError %v failed %d, want true and 2", res.IsError, out.Failed)
	}
	if !strings.Contains(text(res), "no model available") {
		t.Errorf("text result does not show the client's error:\n%s", text(res))
	}
}

func TestEchoAndSlow(t *testing.T) {
	c := &client{}
	cs := connect(t, c, "2025-11-25")
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi there"}})
	if err != nil || text(res) != "hi there" {
		t.Fatalf("echo = %v %v, want hi there", res, err)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 200, "steps": 4}}
	p.SetProgressToken("tok")
	res, err = cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("slow: %v %v", err, res)
	}
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Errorf("slow 200ms took %v", el)
	}
	// Notifications may be handled just after the response: wait a little.
	deadline := time.Now().Add(2 * time.Second)
	for (c.progress.Load() < 4 || c.logs.Load() < 4) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := c.progress.Load(); got != 4 {
		t.Errorf("%d progress notifications, want 4", got)
	}
	if got := c.logs.Load(); got != 4 {
		t.Errorf("%d log messages, want 4", got)
	}
}

func TestServeHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- demo.ServeHTTP(ctx, "127.0.0.1:0", func(u string) { urls <- u }) }()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("ServeHTTP: %v", err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Errorf("url %q, want http://127.0.0.1:PORT/mcp", url)
	}
	c := &client{latency: 100 * time.Millisecond}
	cl := mcp.NewClient(&mcp.Implementation{Name: "c"}, c.options())
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	out, res := callFanout(t, cs, map[string]any{"n": 4})
	if res.IsError || len(out.Replies) != 4 || c.peak.Load() != 4 {
		t.Errorf("fanout over HTTP: isError %v, %d replies, peak %d; want false, 4, 4", res.IsError, len(out.Replies), c.peak.Load())
	}
	cs.Close()
	// The same endpoint serves 2026-07-28 (statelessly) to a client that asks for it.
	cs, err = mcp.NewClient(&mcp.Implementation{Name: "c"}, c.options()).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := callFanout(t, cs, map[string]any{"n": 2, "rounds": 2}); out.Mode != "input_required" || len(out.Rounds) != 2 {
		t.Errorf("fanout over HTTP on 2026-07-28: mode %q, %d rounds; want input_required, 2", out.Mode, len(out.Rounds))
	}
	cs.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeHTTP did not return after its context was cancelled")
	}
}

func TestServeHTTPBadAddress(t *testing.T) {
	err := demo.ServeHTTP(context.Background(), "256.0.0.1:99999", nil)
	if err == nil || !strings.Contains(err.Error(), "cannot listen") {
		t.Errorf("ServeHTTP on a bad address = %v, want a 'cannot listen' error", err)
	}
}
