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
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FanoutArgs are the arguments of the fanout tool.
type FanoutArgs struct {
	// N is how many requests to send at once (default 5).
	N int `json:"n"`
	// Kind is "sampling" (default), "elicitation" or "roots".
	Kind string `json:"kind"`
}

// FanoutResult is the structured result of the fanout tool.
type FanoutResult struct {
	N    int    `json:"n"`
	Kind string `json:"kind"`
	// ElapsedMS is how long the whole fan-out took as the server saw it:
	// from sending the first request to receiving the last answer (or, in
	// input_required mode, from the first round to the retry).
	ElapsedMS float64 `json:"elapsed_ms"`
	// Failed counts the requests that came back with an error.
	Failed  int     `json:"failed"`
	Replies []Reply `json:"replies"`
	// Mode is "requests" when the server sent the requests during the call
	// (protocol 2025-11-25 and before) or "input_required" when it asked for
	// them as multi round-trip input requests (2026-07-28).
	Mode string `json:"mode"`
	// Protocol is the protocol version of the call.
	Protocol string `json:"protocol,omitempty"`
}

// Reply is what came back for one request of a fan-out.
type Reply struct {
	// Index is the request's number, 1 to n, in the order they were sent.
	Index int `json:"index"`
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
	if in.N == 0 {
		in.N = 5
	}
	if in.Kind == "" {
		in.Kind = "sampling"
	}
	if in.N < 1 || in.N > 100000 {
		return nil, FanoutResult{}, fmt.Errorf("fanout: n = %d, want 1 to 100000", in.N)
	}
	switch in.Kind {
	case "sampling", "elicitation", "roots":
	default:
		return nil, FanoutResult{}, fmt.Errorf("fanout: kind %q, want sampling, elicitation or roots", in.Kind)
	}
	proto := req.ProtocolVersion()
	if proto >= "2026-07-28" {
		return f.multiRoundTrip(req, in, proto)
	}
	out := FanoutResult{N: in.N, Kind: in.Kind, Mode: "requests", Protocol: proto, Replies: make([]Reply, in.N)}
	token := req.Params.GetProgressToken()
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	start := time.Now()
	for i := range in.N {
		wg.Go(func() {
			t0 := time.Now()
			r := ask(ctx, req.Session, in.Kind, i+1, in.N)
			r.MS = ms(time.Since(t0))
			out.Replies[i] = r
			if token != nil {
				mu.Lock()
				done++
				p := done
				mu.Unlock()
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(p), Total: float64(in.N),
					Message: fmt.Sprintf("%d of %d answered", p, in.N),
				})
			}
		})
	}
	wg.Wait()
	out.ElapsedMS = ms(time.Since(start))
	return f.finish(ctx, req, out)
}

// ask sends request i of n of the given kind and returns what came back.
func ask(ctx context.Context, ss *mcp.ServerSession, kind string, i, n int) Reply {
	r := Reply{Index: i}
	switch kind {
	case "sampling":
		res, err := ss.CreateMessage(ctx, samplingParams(i, n))
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.Model = res.Model
		r.Text = contentText(res.Content)
	case "elicitation":
		res, err := ss.Elicit(ctx, elicitParams(i, n))
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.fromElicit(res)
	case "roots":
		res, err := ss.ListRoots(ctx, &mcp.ListRootsParams{})
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.fromRoots(res)
	}
	return r
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
	for _, r := range out.Replies {
		if r.Error != "" {
			out.Failed++
		}
	}
	var b strings.Builder
	if out.Failed > 0 {
		// The first line says what went wrong, for tools that show one line.
		first := ""
		for _, r := range out.Replies {
			if r.Error != "" {
				first = r.Error
				break
			}
		}
		if first == "" {
			first = "some input requests were not answered"
		}
		fmt.Fprintf(&b, "%d of %d %s requests failed: %s\n", out.Failed, out.N, out.Kind, first)
		fmt.Fprintf(&b, "answered in %.1f ms as the server saw it:\n", out.ElapsedMS)
	} else {
		fmt.Fprintf(&b, "%d %s requests answered in %.1f ms as the server saw it:\n", out.N, out.Kind, out.ElapsedMS)
	}
	for i, r := range out.Replies {
		if i == maxListed {
			fmt.Fprintf(&b, "… and %d more\n", len(out.Replies)-maxListed)
			break
		}
		if r.Error != "" {
			fmt.Fprintf(&b, "%d: error: %s\n", r.Index, r.Error)
		} else {
			fmt.Fprintf(&b, "%d: %s\n", r.Index, r.Text)
		}
	}
	_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "fanout",
		Data: fmt.Sprintf("%d %s requests answered in %.1f ms", out.N, out.Kind, out.ElapsedMS)})
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimRight(b.String(), "\n")}}}
	// A fan-out with failed requests is a failed call, with its replies
	// still attached so that the failures can be read.
	res.IsError = out.Failed > 0
	return res, out, nil
}

// roundState is what the first round of an input_required fan-out passes
// to the retry, signed.
type roundState struct {
	Start int64  `json:"start"` // unix nanoseconds
	N     int    `json:"n"`
	Kind  string `json:"kind"`
}

func (f *fanout) multiRoundTrip(req *mcp.CallToolRequest, in FanoutArgs, proto string) (*mcp.CallToolResult, FanoutResult, error) {
	if len(req.Params.InputResponses) == 0 {
		irs := make(mcp.InputRequestMap, in.N)
		for i := 1; i <= in.N; i++ {
			id := strconv.Itoa(i)
			switch in.Kind {
			case "sampling":
				irs[id] = samplingParams(i, in.N)
			case "elicitation":
				irs[id] = elicitParams(i, in.N)
			case "roots":
				irs[id] = &mcp.ListRootsParams{}
			}
		}
		state := f.sign(roundState{Start: time.Now().UnixNano(), N: in.N, Kind: in.Kind})
		return &mcp.CallToolResult{InputRequests: irs, RequestState: state}, FanoutResult{}, nil
	}
	st, err := f.verify(req.Params.RequestState)
	if err != nil {
		return nil, FanoutResult{}, err
	}
	out := FanoutResult{N: st.N, Kind: st.Kind, Mode: "input_required", Protocol: proto,
		ElapsedMS: ms(time.Since(time.Unix(0, st.Start)))}
	ids := make([]int, 0, len(req.Params.InputResponses))
	for id := range req.Params.InputResponses {
		i, err := strconv.Atoi(id)
		if err != nil || i < 1 || i > st.N {
			return nil, FanoutResult{}, fmt.Errorf("fanout: the retry answered input request %q, which was not asked for", id)
		}
		ids = append(ids, i)
	}
	sort.Ints(ids)
	for _, i := range ids {
		r := Reply{Index: i}
		switch res := req.Params.InputResponses[strconv.Itoa(i)].(type) {
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
		}
		out.Replies = append(out.Replies, r)
	}
	for i := len(ids); i < st.N; i++ {
		out.Failed++ // unanswered input requests
	}
	res, o, err := f.finish(context.Background(), req, out)
	if len(ids) < st.N {
		res.IsError = true
	}
	return res, o, err
}

func (f *fanout) sign(s roundState) string {
	body, _ := json.Marshal(s)
	mac := hmac.New(sha256.New, f.key)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func (f *fanout) verify(state string) (roundState, error) {
	var s roundState
	bad := errors.New("fanout: the retry's request state is not one this server issued; call the tool again without input responses")
	body64, sig64, ok := strings.Cut(state, ".")
	if !ok {
		return s, bad
	}
	body, err1 := base64.RawURLEncoding.DecodeString(body64)
	sig, err2 := base64.RawURLEncoding.DecodeString(sig64)
	if err1 != nil || err2 != nil {
		return s, bad
	}
	mac := hmac.New(sha256.New, f.key)
	mac.Write(body)
	if !hmac.Equal(sig, mac.Sum(nil)) || json.Unmarshal(body, &s) != nil {
		return s, bad
	}
	return s, nil
}
