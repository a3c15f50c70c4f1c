package demo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProbeArgs are the arguments of the probe tool.
type ProbeArgs struct {
	// N is how many requests to fan out (default 5, 2 to [maxProbe]).
	N int `json:"n"`
	// Kind is "sampling" (default) or "elicitation".
	Kind string `json:"kind"`
}

// ProbeResult is the structured result of the probe tool: what the
// calling client did with a fan-out, measured from the server's side.
type ProbeResult struct {
	// Verdict is "concurrent", "serialized" or "bounded".
	Verdict string `json:"verdict"`
	// N and Kind are the fan-out asked for.
	N    int    `json:"n"`
	Kind string `json:"kind"`
	// Protocol is the protocol version of the call.
	Protocol string `json:"protocol,omitempty"`
	// Mode is "requests" when the server sent the n requests during the
	// call (2025-11-25 and before) or "input_required" when it asked for
	// them as a round of multi round-trip input requests (2026-07-28).
	Mode string `json:"mode"`
	// SingleMS is one request's work as the server saw it: in requests
	// mode the fastest answer, in input_required mode how long a round of
	// one input request took (from the input_required result to the retry).
	SingleMS float64 `json:"single_ms"`
	// ElapsedMS is how long the n requests took: from sending them to the
	// last answer, or from the round of n's input_required result to its
	// retry.
	ElapsedMS float64 `json:"elapsed_ms"`
	// Ratio is ElapsedMS / SingleMS: about 1 for a client that overlaps
	// the requests, about N for one that serves them one at a time.
	Ratio float64 `json:"ratio"`
	// AtOnce is how many requests the client served at once, estimated:
	// N when concurrent, 1 when serialized, the bound when bounded.
	AtOnce int `json:"at_once"`
	// RequestMS are, in requests mode, each request's time from when it
	// was sent to when its answer came back, in the order they were sent.
	RequestMS []float64 `json:"request_ms,omitempty"`
	// RoundMS are, in input_required mode, the three rounds' times, from
	// the input_required result to the retry: two rounds of one input
	// request (SingleMS is the faster), then the round of n (ElapsedMS).
	RoundMS []float64 `json:"round_ms,omitempty"`
}

// maxProbe bounds the probe's n: enough to see a bound, few enough that a
// person answering elicitations by hand is not buried.
const maxProbe = 100

const probeSchema = `{
  "type": "object",
  "properties": {
    "n":    {"type": "integer", "minimum": 2, "maximum": 100, "default": 5, "description": "how many requests to fan out"},
    "kind": {"type": "string", "enum": ["sampling", "elicitation"], "default": "sampling", "description": "which request to send"}
  },
  "additionalProperties": false
}`

// Thresholds of the verdict; see [classify].
const (
	// overlapSlack is how much later than the fastest answer an answer
	// may come and still count as overlapping it: half a request's work…
	overlapSlack = 0.5
	// …but at least noiseFloor, below which times cannot be told apart.
	noiseFloor = 5 * time.Millisecond
	// serialShare: a fan-out that took at least this share of n requests'
	// work, one after another, was served one at a time.
	serialShare = 0.75
)

// probe is the probe tool. It signs its round state with its own key, so
// a fanout state cannot be passed to it, nor its state to fanout.
type probe struct {
	signer *fanout
}

func newProbe() *probe { return &probe{signer: newFanout()} }

// probeState is what a probe round passes to the client's retry.
type probeState struct {
	N       int       `json:"n"`
	Kind    string    `json:"kind"`
	Round   int       `json:"round"` // 1 and 2: one input request; 3: n
	Sent    int64     `json:"sent"`  // unix nanoseconds: this round asked
	RoundMS []float64 `json:"round_ms,omitempty"`
}

// singleRounds is how many rounds of one input request the probe asks
// for before the round of n; the faster is one request's time, so that a
// client's first-call cost does not pass for its work.
const singleRounds = 2

func (p *probe) handle(ctx context.Context, req *mcp.CallToolRequest, in ProbeArgs) (*mcp.CallToolResult, ProbeResult, error) {
	proto := req.ProtocolVersion()
	if proto >= multiRoundTripProtocol && req.Params.RequestState != "" {
		return p.retry(req, proto)
	}
	if in.N == 0 {
		in.N = 5
	}
	if in.Kind == "" {
		in.Kind = "sampling"
	}
	if in.N < 2 || in.N > maxProbe {
		return nil, ProbeResult{}, fmt.Errorf("probe: n = %d, want 2 to %d (one request cannot show whether a client overlaps them)", in.N, maxProbe)
	}
	if in.Kind != "sampling" && in.Kind != "elicitation" {
		return nil, ProbeResult{}, fmt.Errorf("probe: kind %q, want sampling or elicitation", in.Kind)
	}
	if err := supports(req.ClientCapabilities(), in.Kind); err != nil {
		return nil, ProbeResult{}, err
	}
	if proto >= multiRoundTripProtocol {
		// Rounds mode: rounds of one input request, then a round of n.
		st := probeState{N: in.N, Kind: in.Kind, Round: 1, Sent: time.Now().UnixNano()}
		return &mcp.CallToolResult{InputRequests: inputRequests(1, 1, in.Kind), RequestState: p.signer.sign(st)}, ProbeResult{}, nil
	}

	// Requests mode: n at once, each timed from its send to its answer.
	times := make([]time.Duration, in.N)
	replies := make([]Reply, in.N)
	token := req.Params.GetProgressToken()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range in.N {
		wg.Go(func() {
			t := time.Now()
			replies[i] = send(ctx, req.Session, token, in.Kind, i+1, in.N)
			times[i] = time.Since(t)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := failed(replies, in.Kind); err != nil {
		return nil, ProbeResult{}, err
	}
	out := ProbeResult{N: in.N, Kind: in.Kind, Protocol: proto, Mode: "requests",
		SingleMS: ms(slices.Min(times)), ElapsedMS: ms(elapsed)}
	for _, d := range times {
		out.RequestMS = append(out.RequestMS, ms(d))
	}
	out.Verdict, out.AtOnce = classify(times, elapsed)
	return p.finish(ctx, req, out)
}

// supports says why a client with capabilities caps cannot be probed
// with kind; nil if it can, or if its capabilities are unknown.
func supports(caps *mcp.ClientCapabilities, kind string) error {
	if caps == nil {
		return nil
	}
	if kind == "sampling" && caps.Sampling == nil {
		return errors.New("probe: this client did not declare the sampling capability, so it cannot be sent sampling requests; give it a sampling handler, or call probe with kind \"elicitation\"")
	}
	if kind == "elicitation" && caps.Elicitation == nil {
		return errors.New("probe: this client did not declare the elicitation capability, so it cannot be sent elicitation requests; give it an elicitation handler, or call probe with kind \"sampling\"")
	}
	return nil
}

// failed is the error of a probe whose requests did not all succeed: the
// times of a fan-out with failures say nothing about the client's work.
func failed(replies []Reply, kind string) error {
	var errs []string
	for _, r := range replies {
		if r.Error != "" {
			errs = append(errs, r.Error)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("probe: %d of %d %s requests failed (first: %s); the client must answer them all to be measured", len(errs), len(replies), kind, errs[0])
}

// retry reads a round's answers: after a round of one it asks for the
// next round; after the round of n it compares it with the faster round
// of one.
func (p *probe) retry(req *mcp.CallToolRequest, proto string) (*mcp.CallToolResult, ProbeResult, error) {
	received := time.Now()
	var st probeState
	if !p.signer.open(req.Params.RequestState, &st) || st.Round < 1 || st.Round > singleRounds+1 {
		return nil, ProbeResult{}, errors.New("probe: the retry's request state is not one this server issued; call the tool again without input responses")
	}
	wait := received.Sub(time.Unix(0, st.Sent))
	asked := 1
	if st.Round > singleRounds {
		asked = st.N
	}
	replies := make([]Reply, asked)
	for i := range asked {
		key := inputKey(st.Round, i, asked)
		r := Reply{Round: st.Round, Index: i + 1, Key: key, Kind: st.Kind}
		if res, ok := req.Params.InputResponses[key]; !ok {
			r.Error = "input request " + key + " was not answered in the retry"
		} else {
			r.fromInput(res)
		}
		replies[i] = r
	}
	if err := failed(replies, st.Kind); err != nil {
		return nil, ProbeResult{}, err
	}
	st.RoundMS = append(st.RoundMS, ms(wait))
	if st.Round <= singleRounds {
		st.Round++
		next := 1
		if st.Round > singleRounds {
			next = st.N
		}
		st.Sent = time.Now().UnixNano()
		return &mcp.CallToolResult{InputRequests: inputRequests(st.Round, next, st.Kind), RequestState: p.signer.sign(st)}, ProbeResult{}, nil
	}
	singleMS := slices.Min(st.RoundMS[:singleRounds])
	single := time.Duration(singleMS * float64(time.Millisecond))
	out := ProbeResult{N: st.N, Kind: st.Kind, Protocol: proto, Mode: "input_required",
		SingleMS: singleMS, ElapsedMS: ms(wait), RoundMS: st.RoundMS}
	out.Verdict, out.AtOnce = classifyRounds(st.N, single, wait)
	return p.finish(context.Background(), req, out)
}

// classify gives the verdict on n requests sent at once, from each one's
// time (sent to answered) and the whole fan-out's elapsed time.
//
// The fastest answer is taken as one request's work. Answers that came
// within half of that (at least [noiseFloor]) of each other are a wave:
// requests the client served together. The largest wave is how many it
// served at once. All n in one wave: concurrent. No two together, and the
// whole fan-out took at least [serialShare] of n requests' work one after
// another: serialized. Otherwise bounded (or mixed), the largest wave at
// a time. A client whose work per request varies widely (answers spread
// like a staircase although it overlapped them) can look bounded or even
// serialized: the server sees answers, not work.
func classify(times []time.Duration, elapsed time.Duration) (verdict string, atOnce int) {
	n := len(times)
	sorted := slices.Sorted(slices.Values(times))
	fastest := sorted[0]
	window := max(time.Duration(overlapSlack*float64(fastest)), noiseFloor)
	wave := 0
	for i, t := range sorted {
		j := i
		for j < n && sorted[j] <= t+window {
			j++
		}
		wave = max(wave, j-i)
	}
	switch {
	case wave == n:
		return "concurrent", n
	case wave == 1 && float64(elapsed) >= serialShare*float64(n)*float64(fastest):
		return "serialized", 1
	}
	return "bounded", min(max(wave, 2), n-1)
}

// classifyRounds gives the verdict from a round of one input request
// (single, the faster of [singleRounds]) and a round of n (elapsed), where only the two rounds' times
// are known: a ratio under 1 + [overlapSlack] (or a difference under
// [noiseFloor]) is concurrent, at least [serialShare]·n serialized, and
// between bounded, about n / ratio at a time.
func classifyRounds(n int, single, elapsed time.Duration) (verdict string, atOnce int) {
	switch {
	case elapsed <= single+max(time.Duration(overlapSlack*float64(single)), noiseFloor):
		return "concurrent", n
	case float64(elapsed) >= serialShare*float64(n)*float64(single):
		return "serialized", 1
	}
	return "bounded", min(boundOf(n, single, elapsed), n-1)
}

// boundOf estimates how many of n requests a client served at once when
// they took elapsed, one taking single: n / (elapsed / single), at least 2.
func boundOf(n int, single, elapsed time.Duration) int {
	if elapsed <= 0 {
		return n
	}
	return max(2, int(math.Round(float64(n)*float64(single)/float64(elapsed))))
}

// finish writes the verdict in words and logs it.
func (p *probe) finish(ctx context.Context, req *mcp.CallToolRequest, out ProbeResult) (*mcp.CallToolResult, ProbeResult, error) {
	if out.SingleMS > 0 {
		out.Ratio = math.Round(out.ElapsedMS/out.SingleMS*100) / 100
	}
	served := map[string]string{
		"concurrent": "this client served them all at once",
		"serialized": "this client served them one at a time",
		"bounded":    fmt.Sprintf("this client served about %d at a time", out.AtOnce),
	}[out.Verdict]
	var b strings.Builder
	if out.Mode == "input_required" {
		served = strings.Replace(served, "served", "fulfilled", 1)
		fmt.Fprintf(&b, "%s: a round of %d %s input requests took %.2f s, %.1f× a round of one (%.2f s) — %s",
			out.Verdict, out.N, out.Kind, out.ElapsedMS/1000, out.Ratio, out.SingleMS/1000, served)
		fmt.Fprintf(&b, "\nmeasured on protocol %s, where the server sees only when each round's retry comes back: two rounds of one (%.0f and %.0f ms, the faster counts), then one of %d (%.0f ms)",
			out.Protocol, out.RoundMS[0], out.RoundMS[1], out.N, out.RoundMS[2])
	} else {
		fmt.Fprintf(&b, "%s: %d %s requests took %.2f s, %.1f× one request (%.2f s) — %s",
			out.Verdict, out.N, out.Kind, out.ElapsedMS/1000, out.Ratio, out.SingleMS/1000, served)
		parts := make([]string, len(out.RequestMS))
		for i, t := range out.RequestMS {
			parts[i] = fmt.Sprintf("%.0f", t)
		}
		b.WriteString("\nsent at once; answer times in ms, in the order sent: " + strings.Join(parts, ", "))
	}
	if out.SingleMS < float64(2*noiseFloor/time.Millisecond) {
		b.WriteString("\nnote: one request took under 10 ms, too little to tell overlap from one at a time; give the client's handler some latency")
	}
	_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "probe", Data: strings.SplitN(b.String(), "\n", 2)[0]})
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}
