package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeModel is a local chat-completions API: it answers every
// POST /v1/chat/completions with answer (after delay), and keeps the
// requests it was sent.
type fakeModel struct {
	*httptest.Server
	delay  time.Duration
	answer func(w http.ResponseWriter, r *http.Request, body []byte)

	mu       sync.Mutex
	bodies   []map[string]any
	auth     []string
	canceled int
}

// newFakeModel starts a fake model on 127.0.0.1; answer nil answers
// "hello N" with usage 11 prompt tokens and 7 completion tokens.
func newFakeModel(t *testing.T, delay time.Duration, answer func(w http.ResponseWriter, r *http.Request, body []byte)) *fakeModel {
	t.Helper()
	m := &fakeModel{delay: delay, answer: answer}
	if m.answer == nil {
		m.answer = func(w http.ResponseWriter, r *http.Request, body []byte) {
			var req struct{ Model string }
			_ = json.Unmarshal(body, &req)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"hello from the model"},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`, req.Model+"-0613")
		}
	}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"no route `+r.URL.Path+`"}}`, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var decoded map[string]any
		_ = json.Unmarshal(body, &decoded)
		m.mu.Lock()
		m.bodies = append(m.bodies, decoded)
		m.auth = append(m.auth, r.Header.Get("Authorization"))
		m.mu.Unlock()
		if m.delay > 0 {
			select {
			case <-time.After(m.delay):
			case <-r.Context().Done():
				m.mu.Lock()
				m.canceled++
				m.mu.Unlock()
				return
			}
		}
		m.answer(w, r, body)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *fakeModel) requests() ([]map[string]any, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.bodies...), append([]string(nil), m.auth...)
}

// endpointPolicy is the default policy answering sampling from m's API,
// with its key in the environment variable FAKE_MODEL_KEY.
func endpointPolicy(t *testing.T, m *fakeModel, key string) AnswerPolicy {
	t.Setenv("FAKE_MODEL_KEY", key)
	policy := DefaultAnswerPolicy()
	policy.SamplingEndpoint = SamplingEndpoint{URL: m.URL + "/v1", Model: "gpt-test", KeyEnv: "FAKE_MODEL_KEY", Timeout: 5 * time.Second}
	return policy
}

const testKey = "sk-test-0123456789abcdef"

// TestEndpointAnswersSampling: the demo server's sampling requests are
// answered by the model, with the key sent as a bearer token, the
// request mapped to chat completions, the model's text, model name, stop
// reason and token counts in the answer and the span, and the key
// nowhere in the recording.
func TestEndpointAnswersSampling(t *testing.T) {
	m := newFakeModel(t, 0, nil)
	s := connectDemo(t, endpointPolicy(t, m, testKey))
	res := run(t, s, testCalls{Tool: "fanout", Args: json.RawMessage(`{"n":3}`)})
	if res.OK != 1 {
		t.Fatalf("fanout: %d ok, errors %q", res.OK, res.Errors)
	}
	bodies, auth := m.requests()
	if len(bodies) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(bodies))
	}
	for i, a := range auth {
		if a != "Bearer "+testKey {
			t.Errorf("request %d: Authorization %q, want the bearer key", i, a)
		}
	}
	b := bodies[0]
	msgs, _ := b["messages"].([]any)
	if b["model"] != "gpt-test" || b["max_tokens"] != float64(100) || b["stream"] != false || len(msgs) != 2 {
		t.Errorf("chat request = %v, want model gpt-test, max_tokens 100, stream false, system + user messages", b)
	} else if sys := msgs[0].(map[string]any); sys["role"] != "system" || !strings.Contains(fmt.Sprint(sys["content"]), "several sampling requests") {
		t.Errorf("first message %v, want the system prompt", sys)
	} else if user := msgs[1].(map[string]any); user["role"] != "user" || !strings.Contains(fmt.Sprint(user["content"]), "say hello") {
		t.Errorf("second message %v, want the user's text", user)
	}
	snap := s.Recording().Snapshot()
	spans := spansOf(snap, "sampling/createMessage")
	if len(spans) != 3 {
		t.Fatalf("%d sampling spans, want 3", len(spans))
	}
	for _, sp := range spans {
		var r mcp.CreateMessageResult
		if err := json.Unmarshal(sp.Result, &r); err != nil {
			t.Fatalf("span result %s: %v", sp.Result, err)
		}
		text, _ := r.Content.(*mcp.TextContent)
		if sp.Status != recorder.StatusOK || text == nil || text.Text != "hello from the model" || r.Model != "gpt-test-0613" || r.StopReason != "endTurn" {
			t.Errorf("span %s %s: result %s, want the model's text, model gpt-test-0613, stop reason endTurn", sp.Status, sp.Error, sp.Result)
		}
		if sp.InputTokens != 11 || sp.OutputTokens != 7 {
			t.Errorf("span tokens in %d out %d, want 11 and 7", sp.InputTokens, sp.OutputTokens)
		}
	}
	all, _ := json.Marshal(snap)
	if strings.Contains(string(all), testKey) {
		t.Errorf("the recording holds the key")
	}
	if !strings.Contains(string(snap.Meta.Config), `"key_env":"FAKE_MODEL_KEY"`) {
		t.Errorf("the recording's config %s does not name the key's variable", snap.Meta.Config)
	}
}

// TestEndpointAnswersInputRequests: on protocol 2026-07-28 the sampling
// requests come as a round's input requests, and the endpoint answers
// them all the same, token counts included.
func TestEndpointAnswersInputRequests(t *testing.T) {
	m := newFakeModel(t, 0, nil)
	s := connectTarget(t, Target{Protocol: "latest"}, endpointPolicy(t, m, testKey))
	res := run(t, s, testCalls{Tool: "fanout", Args: json.RawMessage(`{"n":3}`)})
	if res.OK != 1 {
		t.Fatalf("fanout: %d ok, errors %q", res.OK, res.Errors)
	}
	spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
	if len(spans) != 3 {
		t.Fatalf("%d sampling spans, want 3", len(spans))
	}
	for _, sp := range spans {
		if sp.InputKey == "" || sp.Status != recorder.StatusOK || sp.InputTokens != 11 || sp.OutputTokens != 7 {
			t.Errorf("span %+v: want an input request answered by the model with 11/7 tokens", sp)
		}
	}
}

// TestEndpointFailures: every way the endpoint can fail answers the
// sampling request with an error that says what happened, recorded on
// the span and shown to the server, without the key.
func TestEndpointFailures(t *testing.T) {
	jsonAnswer := func(status int, body string) func(http.ResponseWriter, *http.Request, []byte) {
		return func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	cases := []struct {
		name    string
		delay   time.Duration
		answer  func(http.ResponseWriter, *http.Request, []byte)
		key     string
		timeout time.Duration
		url     string // instead of the fake model's
		want    []string
	}{
		{name: "server error", answer: jsonAnswer(500, `{"error":{"message":"The model is overloaded","type":"server_error"}}`),
			want: []string{"HTTP 500 Internal Server Error", "The model is overloaded"}},
		{name: "key echoed in the error", answer: func(w http.ResponseWriter, r *http.Request, _ []byte) {
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		}, want: []string{"HTTP 401 Unauthorized", "Incorrect API key provided: " + recorder.Redacted}},
		{name: "no key", key: "-", answer: jsonAnswer(401, `{"error":{"message":"You didn't provide an API key."}}`),
			want: []string{"HTTP 401", "You didn't provide an API key.", "(no key was sent: $FAKE_MODEL_KEY is empty)"}},
		{name: "long error cut", answer: jsonAnswer(400, `{"error":{"message":"`+strings.Repeat("bad ", 500)+`"}}`),
			want: []string{"HTTP 400 Bad Request", "bad bad", "… (cut)"}},
		{name: "garbage", answer: jsonAnswer(200, `<html>not json</html>`),
			want: []string{"the answer is not chat-completions JSON", "<html>not json</html>"}},
		{name: "no choices", answer: jsonAnswer(200, `{"choices":[]}`), want: []string{"the answer has no choices"}},
		{name: "error in a 200", answer: jsonAnswer(200, `{"error":{"message":"quota exceeded"}}`),
			want: []string{"the endpoint answered with an error: quota exceeded"}},
		{name: "oversized", answer: func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			io.WriteString(w, `{"choices":[{"message":{"content":"`)
			chunk := strings.Repeat("x", 64<<10)
			for range (MaxEndpointAnswer / len(chunk)) + 2 {
				io.WriteString(w, chunk)
			}
			io.WriteString(w, `"}}]}`)
		}, want: []string{"is larger than 4 MiB: not read on"}},
		{name: "slow to answer", delay: 5 * time.Second, timeout: 300 * time.Millisecond,
			want: []string{"no answer from http://127.0.0.1:", "within 300ms (the sampling timeout)"}},
		{name: "slow body", timeout: 400 * time.Millisecond, answer: func(w http.ResponseWriter, r *http.Request, _ []byte) {
			io.WriteString(w, `{"choices":[{"message":{"content":"`)
			for range 50 {
				io.WriteString(w, "x")
				w.(http.Flusher).Flush()
				select {
				case <-time.After(100 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
		}, want: []string{"did not finish its answer within 400ms (the sampling timeout;"}},
		{name: "connection refused", url: "http://" + closedAddr(t) + "/v1",
			want: []string{"cannot reach http://127.0.0.1:", "connection refused"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newFakeModel(t, tc.delay, tc.answer)
			key := testKey
			if tc.key == "-" {
				key = ""
			}
			policy := endpointPolicy(t, m, key)
			if tc.timeout > 0 {
				policy.SamplingEndpoint.Timeout = tc.timeout
			}
			if tc.url != "" {
				policy.SamplingEndpoint.URL = tc.url
			}
			s := connectDemo(t, policy)
			start := time.Now()
			res := run(t, s, testCalls{Tool: "fanout", Args: json.RawMessage(`{"n":1}`)})
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("the call took %v: the endpoint's failure was not bounded", d)
			}
			if res.Failed != 1 || len(res.Errors) != 1 {
				t.Fatalf("fanout: %d failed, errors %q; want the sampling failure reported", res.Failed, res.Errors)
			}
			spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
			if len(spans) != 1 {
				t.Fatalf("%d sampling spans, want 1", len(spans))
			}
			sp := spans[0]
			if sp.Status != recorder.StatusError {
				t.Errorf("span status %s, want error", sp.Status)
			}
			for _, w := range tc.want {
				if !strings.Contains(sp.Error, w) {
					t.Errorf("span error %q does not say %q", sp.Error, w)
				}
				if !strings.Contains(res.Errors[0], w) {
					t.Errorf("the server was told %q, which does not say %q", res.Errors[0], w)
				}
			}
			if strings.Contains(sp.Error+res.Errors[0], testKey) {
				t.Errorf("the error shows the key: %q", sp.Error)
			}
			if _, auth := m.requests(); tc.key == "-" && (len(auth) != 1 || auth[0] != "") {
				t.Errorf("with the key variable empty, Authorization headers %q were sent; want none", auth)
			}
		})
	}
}

// closedAddr is a 127.0.0.1 address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestEndpointUnderPolicy: the injected latency comes on top of the
// endpoint's time, the dispatch gate holds the request while the
// endpoint works, and a request timeout cancels the call to the
// endpoint.
func TestEndpointUnderPolicy(t *testing.T) {
	t.Run("latency on top, serial", func(t *testing.T) {
		m := newFakeModel(t, 200*time.Millisecond, nil)
		policy := endpointPolicy(t, m, testKey)
		policy.Latency = LatencyModel{Dist: Fixed, A: 300 * time.Millisecond}
		policy.Dispatch = DispatchPolicy{Mode: Serial}
		s := connectDemo(t, policy)
		run(t, s, testCalls{Tool: "fanout", Args: json.RawMessage(`{"n":2}`)})
		spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
		if len(spans) != 2 {
			t.Fatalf("%d sampling spans, want 2", len(spans))
		}
		for _, sp := range spans {
			if serve := sp.Answered - sp.Serving; serve < 480*time.Millisecond {
				t.Errorf("served in %v, want at least 300ms latency + 200ms endpoint", serve)
			}
		}
		// One at a time: the second waited for the first's whole time,
		// endpoint included.
		first, second := spans[0], spans[1]
		if first.Serving > second.Serving {
			first, second = second, first
		}
		if second.Serving < first.Answered {
			t.Errorf("the second request was served at %v, before the first was answered at %v", second.Serving, first.Answered)
		}
	})
	t.Run("request timeout cancels the call", func(t *testing.T) {
		m := newFakeModel(t, 10*time.Second, nil)
		policy := endpointPolicy(t, m, testKey)
		policy.RequestTimeout = 300 * time.Millisecond
		s := connectDemo(t, policy)
		run(t, s, testCalls{Tool: "fanout", Args: json.RawMessage(`{"n":1}`)})
		spans := spansOf(s.Recording().Snapshot(), "sampling/createMessage")
		if len(spans) != 1 || spans[0].Status != recorder.StatusTimeout {
			t.Fatalf("spans %v, want one timed out", spans)
		}
		deadline := time.Now().Add(2 * time.Second)
		for {
			m.mu.Lock()
			n := m.canceled
			m.mu.Unlock()
			if n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the endpoint's request was not cancelled")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// TestChatRequest pins how a sampling request maps to a chat-completions
// request.
func TestChatRequest(t *testing.T) {
	img := &mcp.ImageContent{Data: []byte("PNG"), MIMEType: "image/png"}
	p := &mcp.CreateMessageParams{
		MaxTokens:        50,
		Temperature:      0.5,
		StopSequences:    []string{"END"},
		ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: "hinted-model"}}},
		Messages: []*mcp.SamplingMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "look"}},
			{Role: "user", Content: img},
			{Role: "assistant", Content: &mcp.TextContent{Text: "a picture"}},
		},
	}
	cases := []struct {
		name  string
		model string
		p     *mcp.CreateMessageParams
		want  string
		err   string
	}{
		{name: "hint names the model", p: p,
			want: `{"model":"hinted-model","messages":[{"role":"user","content":"look"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,UE5H"}}]},{"role":"assistant","content":"a picture"}],"max_tokens":50,"temperature":0.5,"stop":["END"],"stream":false}`},
		{name: "given model wins", model: "mine", p: &mcp.CreateMessageParams{MaxTokens: 5, ModelPreferences: p.ModelPreferences,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}},
			want: `{"model":"mine","messages":[{"role":"user","content":"hi"}],"max_tokens":5,"stream":false}`},
		{name: "no model", p: &mcp.CreateMessageParams{Messages: p.Messages[:1]},
			err: "no model to ask: the request names none in its modelPreferences hints; set one (--sampling-model)"},
		{name: "audio of another type", model: "m", p: &mcp.CreateMessageParams{Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.AudioContent{MIMEType: "audio/ogg"}}}},
			err: `message 1: audio of type "audio/ogg" cannot be forwarded (chat completions take wav or mp3)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newEndpointClient(SamplingEndpoint{URL: "http://127.0.0.1:1/v1", Model: tc.model})
			b, _, err := c.chatRequest(tc.p)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || string(b) != tc.want {
				t.Errorf("chat request\n got %s (%v)\nwant %s", b, err, tc.want)
			}
		})
	}
}

// TestCompletionsURL pins the URL posted to.
func TestCompletionsURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/v1":                         "http://127.0.0.1:8080/v1/chat/completions",
		"http://127.0.0.1:8080/v1/":                        "http://127.0.0.1:8080/v1/chat/completions",
		"http://127.0.0.1:8080/v1/chat/completions":        "http://127.0.0.1:8080/v1/chat/completions",
		"http://127.0.0.1:8080/openai?api-version=2024-06": "http://127.0.0.1:8080/openai/chat/completions?api-version=2024-06",
	} {
		if got := (SamplingEndpoint{URL: in}).CompletionsURL(); got != want {
			t.Errorf("CompletionsURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEndpointValidate: a policy with a bad endpoint is refused with a
// message that says what to give.
func TestEndpointValidate(t *testing.T) {
	for _, tc := range []struct {
		e    SamplingEndpoint
		want string
	}{
		{SamplingEndpoint{URL: "127.0.0.1:8080/v1"}, "want an http:// or https:// URL"},
		{SamplingEndpoint{URL: "http://127.0.0.1/v1", Timeout: -time.Second}, "must not be negative"},
		{SamplingEndpoint{URL: "http://127.0.0.1/v1", KeyEnv: "KEY=sk-123"}, `key variable "KEY": give the name of an environment variable, not its value`},
	} {
		policy := DefaultAnswerPolicy()
		policy.SamplingEndpoint = tc.e
		if err := policy.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.e, err, tc.want)
		}
	}
}
