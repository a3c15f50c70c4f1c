package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	latest = "2026-07-28"
	legacy = "2025-11-25"
)

// checkRounds checks that out reports rounds rounds of n requests each,
// every wait between lo and hi.
func checkRounds(t *testing.T, out demo.FanoutResult, n, rounds int, lo, hi time.Duration) {
	t.Helper()
	if len(out.Rounds) != rounds {
		t.Fatalf("%d rounds reported (%+v), want %d", len(out.Rounds), out.Rounds, rounds)
	}
	for i, rw := range out.Rounds {
		if rw.Round != i+1 || rw.Requests != n || rw.Failed != 0 {
			t.Errorf("round %d reported as %+v, want round %d with %d requests, none failed", i+1, rw, i+1, n)
		}
		if w := time.Duration(rw.WaitMS * float64(time.Millisecond)); w < lo || w > hi {
			t.Errorf("round %d: the server waited %.1f ms, want %v to %v", i+1, rw.WaitMS, lo, hi)
		}
	}
}

// TestFanoutRoundsBothEras calls fanout with n=3, rounds=2 in process on
// both protocols, with a concurrent and a serial client: each round's wait
// is about one latency for the concurrent client and three for the serial
// one, and the text result names every round.
func TestFanoutRoundsBothEras(t *testing.T) {
	const lat = 60 * time.Millisecond
	for _, proto := range []string{latest, legacy} {
		for _, serial := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/serial=%v", proto, serial), func(t *testing.T) {
				c := &client{latency: lat, serial: serial}
				cs := connect(t, c, proto)
				out, res := callFanout(t, cs, map[string]any{"n": 3, "rounds": 2})
				if res.IsError {
					t.Fatalf("fanout failed: %s", text(res))
				}
				wantMode := map[string]string{latest: "input_required", legacy: "requests"}[proto]
				if out.Mode != wantMode || out.Protocol != proto {
					t.Errorf("mode %q on %q, want %q on %q", out.Mode, out.Protocol, wantMode, proto)
				}
				if got := c.calls.Load(); got != 6 {
					t.Errorf("the client was asked %d times, want 6 (3 per round)", got)
				}
				lo, hi := lat, 2*lat+40*time.Millisecond
				if serial {
					lo, hi = 3*lat, 5*lat+40*time.Millisecond
				}
				checkRounds(t, out, 3, 2, lo, hi)
				for _, want := range []string{"6 sampling requests answered", "round 1: 3 requests", "round 2: 3 requests"} {
					if !strings.Contains(text(res), want) {
						t.Errorf("text result does not say %q:\n%s", want, text(res))
					}
				}
				wantPeak := int32(3)
				if serial {
					wantPeak = 1
				}
				if got := c.peak.Load(); got != wantPeak {
					t.Errorf("peak in flight %d, want %d", got, wantPeak)
				}
			})
		}
	}
}

// TestFanoutRoundsServerWaitMatchesClient drives the rounds by hand on
// 2026-07-28 and takes a known time before each retry: the server's
// reported wait of each round is that time (its own view of the client's
// fulfilment), the keys name the round, and the request state carries the
// round from one retry to the next.
func TestFanoutRoundsServerWaitMatchesClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := demo.NewServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cl := mcp.NewClient(&mcp.Implementation{Name: "by-hand"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: latest})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	think := []time.Duration{40 * time.Millisecond, 160 * time.Millisecond, 80 * time.Millisecond}
	params := &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": 3, "rounds": 3, "kind": "mixed"}}
	var res *mcp.CallToolResult
	// took[i] is how long the client really took before retrying round
	// i+1 (its think time and whatever the machine added); trip[i] the
	// round trip of round i+1's call.
	var took, trip []time.Duration
	for round := 1; ; round++ {
		sent := time.Now()
		res, err = cs.CallTool(ctx, params)
		returned := time.Now()
		trip = append(trip, returned.Sub(sent))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if res.InputRequests == nil {
			if round != 4 {
				t.Fatalf("final result after %d rounds, want 3", round-1)
			}
			break
		}
		keys := make([]string, 0, len(res.InputRequests))
		for k := range res.InputRequests {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := []string{fmt.Sprintf("r%d-0", round), fmt.Sprintf("r%d-1", round), fmt.Sprintf("r%d-2", round)}
		if !slices.Equal(keys, want) {
			t.Fatalf("round %d asked for %v, want %v", round, keys, want)
		}
		// mixed: sampling, elicitation, roots in turn.
		// The SDK decodes a sampling input request as the with-tools form.
		_, s := res.InputRequests[want[0]].(*mcp.CreateMessageWithToolsParams)
		_, e := res.InputRequests[want[1]].(*mcp.ElicitParams)
		_, r := res.InputRequests[want[2]].(*mcp.ListRootsParams)
		if !s || !e || !r {
			t.Fatalf("round %d asked for %T, %T, %T; want sampling, elicitation, roots", round,
				res.InputRequests[want[0]], res.InputRequests[want[1]], res.InputRequests[want[2]])
		}
		time.Sleep(think[round-1])
		took = append(took, time.Since(returned))
		params = &mcp.CallToolParams{Name: "fanout", RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{
			want[0]: &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: fmt.Sprintf("hi %d", round)}},
			want[1]: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "color": "red"}},
			want[2]: &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///x"}}},
		}}
	}
	var out demo.FanoutResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if res.IsError || out.Failed != 0 || out.Kind != "mixed" {
		t.Fatalf("final result: isError %v, failed %d, kind %q: %s", res.IsError, out.Failed, out.Kind, text(res))
	}
	if len(out.Rounds) != 3 {
		t.Fatalf("rounds %+v, want 3", out.Rounds)
	}
	for i, rw := range out.Rounds {
		w := time.Duration(rw.WaitMS * float64(time.Millisecond))
		// The wait is the client's own time and the way to it and back,
		// within the window from sending the round's call to the retry's
		// answer.
		if window := trip[i] + took[i] + trip[i+1]; w < think[i] || w > window {
			t.Errorf("round %d: server waited %v, the client took %v (of them %v thinking) before retrying, within a window of %v",
				i+1, w, took[i], think[i], window)
		}
	}
	if len(out.Replies) != 3 || out.Replies[0].Key != "r3-0" || out.Replies[0].Text != "hi 3" ||
		out.Replies[1].Action != "accept" || out.Replies[2].Text != "file:///x" {
		t.Errorf("last round's replies %+v, want r3-0 'hi 3', an accept, file:///x", out.Replies)
	}
	if !strings.Contains(text(res), "round 2: 3 requests, waited for the retry") {
		t.Errorf("text result does not give round 2's wait:\n%s", text(res))
	}
}

// TestFanoutRoundsMissingAnswer retries with one input response left out:
// the final result counts it as failed and the call is an error.
func TestFanoutRoundsMissingAnswer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, _ := demo.NewServer().Connect(ctx, st, nil)
	defer ss.Close()
	cl := mcp.NewClient(&mcp.Implementation{Name: "by-hand"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: latest})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"n": 2, "kind": "roots"}})
	if err != nil || res.InputRequests == nil {
		t.Fatalf("first round: %v, %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"r1-0": &mcp.ListRootsResult{}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "1 of 2 roots requests failed") || !strings.Contains(text(res), "r1-1: error: not answered") {
		t.Errorf("retry with one answer missing: isError %v\n%s", res.IsError, text(res))
	}
}

// TestFanoutMixed checks that a mixed round asks for sampling, elicitation
// and roots in turn on both protocols, and that each answer comes back.
func TestFanoutMixed(t *testing.T) {
	for _, proto := range []string{latest, legacy} {
		t.Run(proto, func(t *testing.T) {
			c := &client{latency: 10 * time.Millisecond}
			cs := connect(t, c, proto)
			out, res := callFanout(t, cs, map[string]any{"n": 3, "kind": "mixed"})
			if res.IsError || len(out.Replies) != 3 {
				t.Fatalf("isError %v, %d replies: %s", res.IsError, len(out.Replies), text(res))
			}
			kinds := []string{out.Replies[0].Kind, out.Replies[1].Kind, out.Replies[2].Kind}
			if !slices.Equal(kinds, []string{"sampling", "elicitation", "roots"}) {
				t.Errorf("kinds %v, want sampling, elicitation, roots", kinds)
			}
			if out.Replies[0].Model != "test-model" || out.Replies[1].Action != "accept" || out.Replies[2].Text != "file:///tmp/a,file:///tmp/b" {
				t.Errorf("replies %+v", out.Replies)
			}
		})
	}
}

// TestFanoutRoundsErrors checks the rounds argument's bounds.
func TestFanoutRoundsErrors(t *testing.T) {
	cs := connect(t, &client{}, legacy)
	for _, rounds := range []int{-1, 101} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"rounds": rounds}})
		if err == nil && !res.IsError {
			t.Errorf("rounds %d accepted", rounds)
		}
	}
}

// TestHTTPBothEras connects the Go SDK's client over streamable HTTP on
// each protocol: on 2026-07-28 it must get that protocol (the server's
// discover and its tools/call agree) and input_required rounds; on
// 2025-11-25, real requests sent concurrently.
func TestHTTPBothEras(t *testing.T) {
	srv := httptest.NewServer(demo.NewHTTPHandler())
	defer srv.Close()
	const lat = 60 * time.Millisecond
	for _, proto := range []string{latest, legacy} {
		t.Run(proto, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c := &client{latency: lat}
			cl := mcp.NewClient(&mcp.Implementation{Name: "c"}, c.options())
			cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != proto {
				t.Fatalf("negotiated %q over HTTP, want %q", got, proto)
			}
			out, res := callFanout(t, cs, map[string]any{"n": 3, "rounds": 2})
			if res.IsError {
				t.Fatalf("fanout: %s", text(res))
			}
			wantMode := map[string]string{latest: "input_required", legacy: "requests"}[proto]
			if out.Mode != wantMode {
				t.Errorf("mode %q, want %q", out.Mode, wantMode)
			}
			checkRounds(t, out, 3, 2, lat, 2*lat+60*time.Millisecond)
			if got := c.peak.Load(); got != 3 {
				t.Errorf("peak %d, want 3", got)
			}
		})
	}
}
