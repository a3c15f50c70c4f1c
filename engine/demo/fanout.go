package demo

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FanoutArgs are the arguments of the fanout tool.
type FanoutArgs struct {
	// N is how many requests to send at once, per round (default 5).
	N int `json:"n"`
	// Kind is "sampling" (default), "elicitation", "roots" or "mixed"
	// (sampling, elicitation and roots in turn within one round).
	Kind string `json:"kind"`
	// Rounds is how many rounds of n requests to ask for, one after
	// another (default 1).
	Rounds int `json:"rounds"`
}

// FanoutResult is the structured result of the fanout tool.
type FanoutResult struct {
	N    int    `json:"n"`
	Kind string `json:"kind"`
	// ElapsedMS is how long the whole fan-out took as the server saw it:
	// from sending the first request to receiving the last answer (or, in
	// input_required mode, from the first round's input_required result to
	// the last retry).
	ElapsedMS float64 `json:"elapsed_ms"`
	// Failed counts the requests, over all rounds, that came back with an
	// error or were not answered.
	Failed int `json:"failed"`
	// Replies are the answers: of every round in requests mode, of the last
	// round only in input_required mode (a stateless server keeps nothing
	// of earlier rounds but what it passed itself in the request state).
	Replies []Reply `json:"replies"`
	// Rounds says, per round, how many requests the server asked for and
	// how long it waited for them: in requests mode from sending the
	// round's first request to receiving its last answer, in
	// input_required mode from sending the input_required result to
	// receiving the client's retry.
	Rounds []RoundWait `json:"rounds"`
	// Mode is "requests" when the server sent the requests during the call
	// (protocol 2025-11-25 and before) or "input_required" when it asked for
	// them as multi round-trip input requests (2026-07-28).
	Mode string `json:"mode"`
	// Protocol is the protocol version of the call.
	Protocol string `json:"protocol,omitempty"`
}

// RoundWait is one round of a fan-out as the server saw it.
type RoundWait struct {
	// Round is the round's number, from 1.
	Round int `json:"round"`
	// Requests is how many requests the server asked for in the round.
	Requests int `json:"requests"`
	// Failed is how many of them came back with an error or not at all.
	Failed int `json:"failed,omitempty"`
	// WaitMS is how long the server waited for the round's answers, in
	// milliseconds (see [FanoutResult.Rounds]).
	WaitMS float64 `json:"wait_ms"`
}

// Reply is what came back for one request of a fan-out.
type Reply struct {
	// Round is the round the request belonged to, from 1.
	Round int `json:"round"`
	// Index is the request's number within its round, 1 to n, in the order
	// they were sent.
	Index int `json:"index"`
	// Key is the request's key in the input_required result's
	// inputRequests ("r1-0" is round 1's first); input_required mode only.
	Key string `json:"key,omitempty"`
	// Kind is what was asked: sampling, elicitation or roots.
	Kind string `json:"kind,omitempty"`
	// Text is the reply in words: the sampled text, the elicitation's
	// action and content, or the roots' URIs.
	Text string `json:"text,omitempty"`
	// Model is the model a sampling reply named.
	Model string `json:"model,omitempty"`
	// Action and Content are an elicitation's answer.
	Action  string         `json:"action,omitempty"`
	Content map[string]any `json:"content,omitempty"`
	// Roots are the URIs answered to roots/list.
	Roots []string `json:"roots,omitempty"`
	// Error is the error the request came back with.
	Error string `json:"error,omitempty"`
	// MS is how long the request took as the server saw it (requests mode only).
	MS float64 `json:"ms,omitempty"`
}

// maxRounds bounds the rounds argument; the Go SDK's client gives up
// after 10 round trips, so more would only be useful to other clients.
const maxRounds = 100

// maxListed is the most replies listed in the fanout tool's text result.
const maxListed = 20

// elicitSchema is the form the fanout tool's elicitation requests ask for.
var elicitSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "name":      {"type": "string", "title": "Name", "description": "who is answering"},
    "count":     {"type": "integer", "title": "Count", "minimum": 1, "maximum": 10, "default": 3},
    "ratio":     {"type": "number", "title": "Ratio", "minimum": 0, "maximum": 1},
    "subscribe": {"type": "boolean", "title": "Subscribe", "default": false},
    "color":     {"type": "string", "title": "Color", "enum": ["red", "green", "blue"]}
  },
  "required": ["name", "color"]
}`)

// fanout holds the key that signs the request state of input_required
// rounds, so that a client cannot forge the start time.
type fanout struct {
	key []byte
}

func newFanout() *fanout {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return &fanout{key: key}
}

func (f *fanout) handle(ctx context.Context, req *mcp.CallToolRequest, in FanoutArgs) (*mcp.CallToolResult, FanoutResult, error) {
	proto := req.ProtocolVersion()
	if proto >= multiRoundTripProtocol && req.Params.RequestState != "" {
		// A retry: what the call is about travels in the signed state,
		// not in memory, so any instance of this server can take it.
		return f.retry(ctx, req, proto)
	}
	if in.N == 0 {
		in.N = 5
	}
	if in.Kind == "" {
		in.Kind = "sampling"
	}
	if in.Rounds == 0 {
		in.Rounds = 1
	}
	if in.N < 1 || in.N > 100000 {
		return nil, FanoutResult{}, fmt.Errorf("fanout: n = %d, want 1 to 100000", in.N)
	}
	if in.Rounds < 1 || in.Rounds > maxRounds {
		return nil, FanoutResult{}, fmt.Errorf("fanout: rounds = %d, want 1 to %d", in.Rounds, maxRounds)
	}
	switch in.Kind {
	case "sampling", "elicitation", "roots", "mixed":
	default:
		return nil, FanoutResult{}, fmt.Errorf("fanout: kind %q, want sampling, elicitation, roots or mixed", in.Kind)
	}
	if proto >= multiRoundTripProtocol {
		return f.ask(roundState{N: in.N, Kind: in.Kind, Rounds: in.Rounds, Start: time.Now().UnixNano()}, proto)
	}
	out := FanoutResult{N: in.N, Kind: in.Kind, Mode: "requests", Protocol: proto}
	token := req.Params.GetProgressToken()
	var (
		mu   sync.Mutex
		done int
	)
	start := time.Now()
	for round := 1; round <= in.Rounds; round++ {
		replies := make([]Reply, in.N)
		t0 := time.Now()
		var wg sync.WaitGroup
		for i := range in.N {
			wg.Go(func() {
				t := time.Now()
				r := send(ctx, req.Session, token, kindOf(in.Kind, i), i+1, in.N)
				r.Round = round
				r.MS = ms(time.Since(t))
				replies[i] = r
				if token != nil {
					mu.Lock()
					done++
					p := done
					mu.Unlock()
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(p), Total: float64(in.N * in.Rounds),
						Message: fmt.Sprintf("%d of %d answered", p, in.N*in.Rounds),
					})
				}
			})
		}
		wg.Wait()
		rw := RoundWait{Round: round, Requests: in.N, WaitMS: ms(time.Since(t0))}
		for _, r := range replies {
			if r.Error != "" {
				rw.Failed++
			}
		}
		out.Rounds = append(out.Rounds, rw)
		out.Replies = append(out.Replies, replies...)
	}
	out.ElapsedMS = ms(time.Since(start))
	return f.finish(ctx, req, out)
}

// kindOf is the kind of request i (from 0) of a fan-out of the given kind:
// a mixed fan-out asks for sampling, elicitation and roots in turn.
func kindOf(kind string, i int) string {
	if kind != "mixed" {
		return kind
	}
	return [...]string{"sampling", "elicitation", "roots"}[i%3]
}

// send sends request i of n of the given kind and returns what came back.
// token is the progress token of the tool call it is sent for (nil if the
// call carried none): the request carries it in its _meta, so that a
// client with several calls in flight can tell which one it belongs to.
func send(ctx context.Context, ss *mcp.ServerSession, token any, kind string, i, n int) Reply {
	r := Reply{Index: i, Kind: kind}
	switch kind {
	case "sampling":
		p := samplingParams(i, n)
		p.Meta = callMeta(token)
		res, err := ss.CreateMessage(ctx, p)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.Model = res.Model
		r.Text = contentText(res.Content)
	case "elicitation":
		p := elicitParams(i, n)
		p.Meta = callMeta(token)
		res, err := ss.Elicit(ctx, p)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.fromElicit(res)
	case "roots":
		res, err := ss.ListRoots(ctx, &mcp.ListRootsParams{Meta: callMeta(token)})
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.fromRoots(res)
	}
	return r
}

// callMeta is the _meta of a request sent during a tool call whose
// progress token is token: the token, which names the call (the client
// gave it, unique among its requests in flight); nil without one.
func callMeta(token any) mcp.Meta {
	if token == nil {
		return nil
	}
	return mcp.Meta{"progressToken": token}
}

func samplingParams(i, n int) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		MaxTokens:    100,
		SystemPrompt: "You are answering one of several sampling requests sent at once.",
		Messages: []*mcp.SamplingMessage{{
			Role:    "user",
			Content: &mcp.TextContent{Text: fmt.Sprintf("Request %d of %d: say hello.", i, n)},
		}},
	}
}

func elicitParams(i, n int) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message:         fmt.Sprintf("Request %d of %d: please fill in the form.", i, n),
		RequestedSchema: elicitSchema,
	}
}

// fromInput reads one input response of a retry into r; it reports
// false, with r.Error set, for an answer of a kind it does not know.
func (r *Reply) fromInput(res mcp.InputResponse) bool {
	switch res := res.(type) {
	case *mcp.CreateMessageWithToolsResult:
		r.Model = res.Model
		var texts []string
		for _, c := range res.Content {
			texts = append(texts, contentText(c))
		}
		r.Text = strings.Join(texts, "\n")
	case *mcp.CreateMessageResult:
		r.Model = res.Model
		r.Text = contentText(res.Content)
	case *mcp.ElicitResult:
		r.fromElicit(res)
	case *mcp.ListRootsResult:
		r.fromRoots(res)
	default:
		r.Error = fmt.Sprintf("unexpected answer of type %T", res)
		return false
	}
	return true
}

func (r *Reply) fromElicit(res *mcp.ElicitResult) {
	r.Action = res.Action
	r.Content = res.Content
	r.Text = res.Action
	if len(res.Content) > 0 {
		b, _ := json.Marshal(res.Content)
		r.Text += " " + string(b)
	}
}

func (r *Reply) fromRoots(res *mcp.ListRootsResult) {
	for _, root := range res.Roots {
		r.Roots = append(r.Roots, root.URI)
	}
	r.Text = strings.Join(r.Roots, ",")
}

func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case nil:
		return ""
	default:
		b, _ := json.Marshal(c)
		return string(b)
	}
}

// finish counts failures, logs a line and writes the text result.
func (f *fanout) finish(ctx context.Context, req *mcp.CallToolRequest, out FanoutResult) (*mcp.CallToolResult, FanoutResult, error) {
	out.Failed = 0
	for _, rw := range out.Rounds {
		out.Failed += rw.Failed
	}
	total := 0
	for _, rw := range out.Rounds {
		total += rw.Requests
	}
	var b strings.Builder
	if out.Failed > 0 {
		// The first line says what went wrong, for tools that show one line.
		first := "some input requests were not answered"
		for _, r := range out.Replies {
			if r.Error != "" {
				first = r.Error
				break
			}
		}
		fmt.Fprintf(&b, "%d of %d %s requests failed: %s\n", out.Failed, total, out.Kind, first)
		fmt.Fprintf(&b, "answered in %.1f ms as the server saw it:\n", out.ElapsedMS)
	} else {
		fmt.Fprintf(&b, "%d %s requests answered in %.1f ms as the server saw it:\n", total, out.Kind, out.ElapsedMS)
	}
	for _, rw := range out.Rounds {
		what := "waited for the answers"
		if out.Mode == "input_required" {
			what = "waited for the retry"
		}
		fmt.Fprintf(&b, "round %d: %d requests, %s %.1f ms", rw.Round, rw.Requests, what, rw.WaitMS)
		if rw.Failed > 0 {
			fmt.Fprintf(&b, ", %d failed", rw.Failed)
		}
		b.WriteString("\n")
	}
	for i, r := range out.Replies {
		if i == maxListed {
			fmt.Fprintf(&b, "… and %d more\n", len(out.Replies)-maxListed)
			break
		}
		// An input request is named by its key ("r1-0"); a request sent
		// during the call by its number ("3"), or round and number ("2.3").
		name := r.Key
		if name == "" {
			name = strconv.Itoa(r.Index)
			if len(out.Rounds) > 1 {
				name = fmt.Sprintf("%d.%d", r.Round, r.Index)
			}
		}
		if r.Error != "" {
			fmt.Fprintf(&b, "%s: error: %s\n", name, r.Error)
		} else {
			fmt.Fprintf(&b, "%s: %s\n", name, r.Text)
		}
	}
	logFanout(ctx, req, out, total)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimRight(b.String(), "\n")}}}
	// A fan-out with failed requests is a failed call, with its replies
	// still attached so that the failures can be read.
	res.IsError = out.Failed > 0
	return res, out, nil
}

// roundState is what an input_required round passes to the client's
// retry, signed so that a client cannot forge the times. It carries all a
// retry needs (the arguments, the round, when it was asked, what earlier
// rounds waited), so the server keeps no per-call state in memory: a
// stateless HTTP server may serve each retry on a fresh session.
type roundState struct {
	N      int         `json:"n"`
	Kind   string      `json:"kind"`
	Rounds int         `json:"rounds"`
	Round  int         `json:"round"` // the round the input requests belong to
	Start  int64       `json:"start"` // unix nanoseconds: round 1 asked
	Sent   int64       `json:"sent"`  // unix nanoseconds: this round asked
	Done   []RoundWait `json:"done,omitempty"`
}

// inputKey is the key of request i (from 0) of a round: "r1-0". The index
// is zero-padded to the width of the round's last index, so that the keys'
// order as text (the order a JSON object of them is written in) is the
// order they were asked in.
func inputKey(round, i, n int) string {
	return fmt.Sprintf("r%d-%0*d", round, len(strconv.Itoa(n-1)), i)
}

// ask answers with the input_required result of the round after st.Round.
func (f *fanout) ask(st roundState, proto string) (*mcp.CallToolResult, FanoutResult, error) {
	st.Round++
	irs := inputRequests(st.Round, st.N, st.Kind)
	st.Sent = time.Now().UnixNano()
	return &mcp.CallToolResult{InputRequests: irs, RequestState: f.sign(st)}, FanoutResult{}, nil
}

// inputRequests are the n input requests of a round of the given kind,
// keyed by [inputKey].
func inputRequests(round, n int, kind string) mcp.InputRequestMap {
	irs := make(mcp.InputRequestMap, n)
	for i := range n {
		key := inputKey(round, i, n)
		switch kindOf(kind, i) {
		case "sampling":
			irs[key] = samplingParams(i+1, n)
		case "elicitation":
			irs[key] = elicitParams(i+1, n)
		case "roots":
			irs[key] = &mcp.ListRootsParams{}
		}
	}
	return irs
}

// retry reads the client's answers to a round and asks for the next
// round, or gives the final result after the last (its log messages at
// the level the retry's _meta asks for, which ctx carries).
func (f *fanout) retry(ctx context.Context, req *mcp.CallToolRequest, proto string) (*mcp.CallToolResult, FanoutResult, error) {
	received := time.Now()
	st, err := f.verify(req.Params.RequestState)
	if err != nil {
		return nil, FanoutResult{}, err
	}
	rw := RoundWait{Round: st.Round, Requests: st.N, WaitMS: ms(received.Sub(time.Unix(0, st.Sent)))}
	asked := make(map[string]int, st.N)
	for i := range st.N {
		asked[inputKey(st.Round, i, st.N)] = i
	}
	for key := range req.Params.InputResponses {
		if _, ok := asked[key]; !ok {
			return nil, FanoutResult{}, fmt.Errorf("fanout: the retry answered input request %q, which round %d did not ask for", key, st.Round)
		}
	}
	replies := make([]Reply, 0, st.N)
	for i := range st.N {
		key := inputKey(st.Round, i, st.N)
		r := Reply{Round: st.Round, Index: i + 1, Key: key, Kind: kindOf(st.Kind, i)}
		res, ok := req.Params.InputResponses[key]
		if !ok {
			r.Error = "not answered in the retry"
			rw.Failed++
			replies = append(replies, r)
			continue
		}
		if !r.fromInput(res) {
			rw.Failed++
		}
		replies = append(replies, r)
	}
	st.Done = append(st.Done, rw)
	if st.Round < st.Rounds {
		return f.ask(st, proto)
	}
	out := FanoutResult{N: st.N, Kind: st.Kind, Mode: "input_required", Protocol: proto,
		ElapsedMS: ms(received.Sub(time.Unix(0, st.Start))), Rounds: st.Done, Replies: replies}
	return f.finish(ctx, req, out)
}

// sign encodes a request state (any JSON value) with its signature.
func (f *fanout) sign(s any) string {
	body, _ := json.Marshal(s)
	mac := hmac.New(sha256.New, f.key)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func (f *fanout) verify(state string) (roundState, error) {
	var s roundState
	if !f.open(state, &s) {
		return s, errors.New("fanout: the retry's request state is not one this server issued; call the tool again without input responses")
	}
	return s, nil
}

// open checks a request state's signature and decodes it into v; it
// reports false for a state this signer did not issue.
func (f *fanout) open(state string, v any) bool {
	body64, sig64, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	body, err1 := base64.RawURLEncoding.DecodeString(body64)
	sig, err2 := base64.RawURLEncoding.DecodeString(sig64)
	if err1 != nil || err2 != nil {
		return false
	}
	mac := hmac.New(sha256.New, f.key)
	mac.Write(body)
	return hmac.Equal(sig, mac.Sum(nil)) && json.Unmarshal(body, v) == nil
}

// logFanout sends the call's log messages, at the level each deserves:
// what was answered (info), answers a person declined or cancelled
// (warning), requests that failed (error). A client sees those at or above
// the level it asked for. Each carries the call's progress token in its
// _meta, as the requests do, so that a client with several calls in
// flight can tell which call a message is about.
func logFanout(ctx context.Context, req *mcp.CallToolRequest, out FanoutResult, total int) {
	meta := callMeta(req.Params.GetProgressToken())
	logf := func(level mcp.LoggingLevel, format string, args ...any) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Meta: meta, Level: level, Logger: "fanout", Data: fmt.Sprintf(format, args...)})
	}
	logf("info", "%d %s requests in %d rounds answered in %.1f ms", total, out.Kind, len(out.Rounds), out.ElapsedMS)
	refused := 0
	for _, r := range out.Replies {
		if r.Action == "decline" || r.Action == "cancel" {
			refused++
		}
	}
	if refused > 0 {
		logf("warning", "%d of %d elicitation requests were declined or cancelled", refused, total)
	}
	if out.Failed > 0 {
		first := "not answered"
		for _, r := range out.Replies {
			if r.Error != "" {
				first = r.Error
				break
			}
		}
		logf("error", "%d of %d %s requests failed: %s", out.Failed, total, out.Kind, first)
	}
}
