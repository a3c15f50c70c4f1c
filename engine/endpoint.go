package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SamplingEndpoint is a model behind an OpenAI-compatible chat-completions
// API that answers the server's sampling requests (sampling mode
// "endpoint"). Each sampling/createMessage becomes one
// POST {URL}/chat/completions, made while the request holds its dispatch
// slot and after its injected latency, so the serving phase covers the
// model's time; the answer's token counts go into the span.
//
// The key is read from the environment variable KeyEnv when the policy is
// set, sent as "Authorization: Bearer KEY", and registered as a secret
// of the recording: it reaches no recording, journal, export or error
// text. Only the variable's name is part of the policy.
type SamplingEndpoint struct {
	// URL is the API's base URL, as OpenAI clients take it
	// (http://127.0.0.1:11434/v1): "/chat/completions" is appended unless
	// the URL already ends with it. Empty means sampling is answered
	// from SamplingReply.
	URL string `json:"url,omitempty"`
	// Model is the model asked for. Empty: the first of the request's
	// modelPreferences hints; a request with neither is answered with
	// an error.
	Model string `json:"model,omitempty"`
	// KeyEnv names the environment variable holding the API key. Empty,
	// or a variable unset or empty: no Authorization header is sent
	// (local servers often need none).
	KeyEnv string `json:"key_env,omitempty"`
	// Timeout bounds each call to the endpoint, from sending the request
	// to reading the whole answer; 0 means [DefaultEndpointTimeout].
	Timeout time.Duration `json:"timeout,omitempty"`
}

// DefaultEndpointTimeout bounds a call to a [SamplingEndpoint] whose
// Timeout is 0.
const DefaultEndpointTimeout = 60 * time.Second

// DefaultEndpointKeyEnv is the environment variable the command line reads
// the sampling endpoint's key from unless told otherwise.
const DefaultEndpointKeyEnv = "OPENAI_API_KEY"

// MaxEndpointAnswer is the most bytes read of a sampling endpoint's
// answer; a larger one is refused with an error (the request is answered
// with it), not read on.
const MaxEndpointAnswer = 4 << 20

// maxEndpointErrorText is the most characters of an endpoint's own error
// message passed on.
const maxEndpointErrorText = 300

// Enabled reports whether sampling is answered by the endpoint.
func (e SamplingEndpoint) Enabled() bool { return strings.TrimSpace(e.URL) != "" }

// CompletionsURL is the URL posted to: URL with "/chat/completions"
// appended unless it ends with it already.
func (e SamplingEndpoint) CompletionsURL() string {
	u := strings.TrimSpace(e.URL)
	if strings.HasSuffix(strings.TrimRight(u, "/"), "/chat/completions") {
		return strings.TrimRight(u, "/")
	}
	if p, err := url.Parse(u); err == nil && (p.RawQuery != "" || p.Fragment != "") {
		p.Path = strings.TrimRight(p.Path, "/") + "/chat/completions"
		p.RawPath = ""
		return p.String()
	}
	return strings.TrimRight(u, "/") + "/chat/completions"
}

// validate says what is wrong with e, or nil.
func (e SamplingEndpoint) validate() error {
	if !e.Enabled() {
		return nil
	}
	u, err := url.Parse(strings.TrimSpace(e.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("sampling endpoint %q: want an http:// or https:// URL, as in http://127.0.0.1:11434/v1", recorder.RedactURL(e.URL))
	}
	if e.Timeout < 0 {
		return fmt.Errorf("sampling endpoint timeout %v: must not be negative", e.Timeout)
	}
	if strings.ContainsAny(e.KeyEnv, "= \t") {
		return fmt.Errorf("sampling endpoint key variable %q: give the name of an environment variable, not its value", strings.SplitN(e.KeyEnv, "=", 2)[0])
	}
	return nil
}

// endpointClient calls one [SamplingEndpoint] with the key it had when
// the policy was set.
type endpointClient struct {
	cfg  SamplingEndpoint
	url  string
	key  string // from the environment; never printed
	http *http.Client
}

// endpointTransport is shared by every endpoint client (a policy changed
// in the app makes a new client each time): it keeps enough connections
// to one endpoint open for a fan-out to reuse them.
var endpointTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}()

// newEndpointClient returns the client of e, or nil when e is not
// enabled.
func newEndpointClient(e SamplingEndpoint) *endpointClient {
	if !e.Enabled() {
		return nil
	}
	c := &endpointClient{cfg: e, url: e.CompletionsURL(), http: &http.Client{Transport: endpointTransport}}
	if e.KeyEnv != "" {
		c.key = strings.TrimSpace(os.Getenv(e.KeyEnv))
	}
	if c.cfg.Timeout <= 0 {
		c.cfg.Timeout = DefaultEndpointTimeout
	}
	return c
}

// secrets are the values no output of the session may show: the key
// (and the header made of it) and the URL's credentials.
func (c *endpointClient) secrets() []string {
	if c == nil {
		return nil
	}
	out := recorder.URLSecrets(c.cfg.URL)
	if c.key != "" {
		out = append(out, c.key, "Bearer "+c.key)
	}
	return out
}

// sampleFromEndpoint answers a sampling request with the endpoint of
// policy, records the token counts on the span of e, and turns every
// failure into a JSON-RPC error that says what happened, with the
// session's secrets scrubbed.
func (s *Session) sampleFromEndpoint(ctx context.Context, policy *AnswerPolicy, e *request, p *mcp.CreateMessageParams) (mcp.Result, error) {
	res, usage, err := policy.endpoint.sample(ctx, p)
	if usage.known {
		e.setTokens(usage.in, usage.out)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the server, the request timeout or the session ended it
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: s.rec.Scrub("fanout-inspector: sampling endpoint: " + err.Error())}
	}
	return res, nil
}

// setTokens records the token counts a model endpoint reported.
func (r *request) setTokens(in, out int64) {
	clamp := func(n int64) int32 { return int32(min(max(n, 0), 1<<31-1)) }
	r.rec.Update(r.span, func(sp *recorder.Span) {
		sp.InputTokens, sp.OutputTokens = clamp(in), clamp(out)
	})
}

// errEndpointTimeout is the cause of a call to the endpoint that ran out
// of its timeout.
var errEndpointTimeout = errors.New("sampling endpoint timeout")

// tokenUsage is what the endpoint said the answer cost.
type tokenUsage struct {
	known   bool
	in, out int64
}

// sample asks the endpoint for the answer to p.
func (c *endpointClient) sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, tokenUsage, error) {
	body, model, err := c.chatRequest(p)
	if err != nil {
		return nil, tokenUsage{}, err
	}
	cctx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errEndpointTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, tokenUsage{}, fmt.Errorf("%s: %v", recorder.RedactURL(c.url), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	timedOut := func() bool { return ctx.Err() == nil && errors.Is(context.Cause(cctx), errEndpointTimeout) }
	resp, err := c.http.Do(req)
	if err != nil {
		if timedOut() {
			return nil, tokenUsage{}, fmt.Errorf("no answer from %s within %v (the sampling timeout)", recorder.RedactURL(c.url), c.cfg.Timeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, tokenUsage{}, fmt.Errorf("cannot reach %s: %v", recorder.RedactURL(c.url), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxEndpointAnswer+1))
	if err != nil {
		if timedOut() {
			return nil, tokenUsage{}, fmt.Errorf("%s did not finish its answer within %v (the sampling timeout; %d bytes read)", recorder.RedactURL(c.url), c.cfg.Timeout, len(b))
		}
		return nil, tokenUsage{}, fmt.Errorf("reading the answer of %s: %v", recorder.RedactURL(c.url), err)
	}
	if len(b) > MaxEndpointAnswer {
		return nil, tokenUsage{}, fmt.Errorf("the answer of %s is larger than %s: not read on", recorder.RedactURL(c.url), FormatSize(MaxEndpointAnswer))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := fmt.Sprintf("HTTP %s from %s", resp.Status, recorder.RedactURL(c.url))
		if t := apiErrorText(b); t != "" {
			msg += ": " + t
		}
		if (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && c.key == "" {
			if c.cfg.KeyEnv == "" {
				msg += " (no key was sent: no key variable is set)"
			} else {
				msg += fmt.Sprintf(" (no key was sent: $%s is empty)", c.cfg.KeyEnv)
			}
		}
		return nil, tokenUsage{}, errors.New(msg)
	}
	return parseChatAnswer(b, model)
}

// chatMessage is one message of a chat-completions request: Content is a
// string, or a list of parts for images and audio.
type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type chatPart struct {
	Type       string     `json:"type"`
	Text       string     `json:"text,omitempty"`
	ImageURL   *chatImage `json:"image_url,omitempty"`
	InputAudio *chatAudio `json:"input_audio,omitempty"`
}

type chatImage struct {
	URL string `json:"url"`
}

type chatAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	MaxTokens   int64         `json:"max_tokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	Stop        []string      `json:"stop,omitempty"`
	Stream      bool          `json:"stream"`
}

// chatRequest maps a sampling request to a chat-completions request
// body, and says which model it asks for.
func (c *endpointClient) chatRequest(p *mcp.CreateMessageParams) ([]byte, string, error) {
	if p == nil {
		return nil, "", errors.New("the sampling request has no params")
	}
	model := c.cfg.Model
	if model == "" && p.ModelPreferences != nil {
		for _, h := range p.ModelPreferences.Hints {
			if h != nil && strings.TrimSpace(h.Name) != "" {
				model = strings.TrimSpace(h.Name)
				break
			}
		}
	}
	if model == "" {
		return nil, "", errors.New("no model to ask: the request names none in its modelPreferences hints; set one (--sampling-model)")
	}
	r := chatRequest{Model: model, MaxTokens: p.MaxTokens, Stop: p.StopSequences}
	if p.Temperature != 0 {
		t := p.Temperature
		r.Temperature = &t
	}
	if p.SystemPrompt != "" {
		r.Messages = append(r.Messages, chatMessage{Role: "system", Content: p.SystemPrompt})
	}
	for i, m := range p.Messages {
		if m == nil {
			continue
		}
		role := string(m.Role)
		if role != "user" && role != "assistant" {
			return nil, "", fmt.Errorf("message %d has role %q: want user or assistant", i+1, role)
		}
		switch ct := m.Content.(type) {
		case *mcp.TextContent:
			r.Messages = append(r.Messages, chatMessage{Role: role, Content: ct.Text})
		case *mcp.ImageContent:
			part := chatPart{Type: "image_url", ImageURL: &chatImage{URL: "data:" + ct.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(ct.Data)}}
			r.Messages = append(r.Messages, chatMessage{Role: role, Content: []chatPart{part}})
		case *mcp.AudioContent:
			format := map[string]string{"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}[strings.ToLower(ct.MIMEType)]
			if format == "" {
				return nil, "", fmt.Errorf("message %d: audio of type %q cannot be forwarded (chat completions take wav or mp3)", i+1, ct.MIMEType)
			}
			part := chatPart{Type: "input_audio", InputAudio: &chatAudio{Data: base64.StdEncoding.EncodeToString(ct.Data), Format: format}}
			r.Messages = append(r.Messages, chatMessage{Role: role, Content: []chatPart{part}})
		default:
			return nil, "", fmt.Errorf("message %d: content of type %T cannot be forwarded (text, image and audio can)", i+1, m.Content)
		}
	}
	b, err := json.Marshal(r)
	return b, model, err
}

// chatAnswer is the part of a chat-completions answer the inspector
// reads.
type chatAnswer struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
			Refusal string          `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// parseChatAnswer maps a chat-completions answer to a sampling answer.
func parseChatAnswer(b []byte, model string) (*mcp.CreateMessageResult, tokenUsage, error) {
	var a chatAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, tokenUsage{}, fmt.Errorf("the answer is not chat-completions JSON (%v): %s", err, excerpt(string(b)))
	}
	var u tokenUsage
	if a.Usage != nil {
		u = tokenUsage{known: true, in: a.Usage.PromptTokens, out: a.Usage.CompletionTokens}
	}
	if len(a.Error) > 0 && !isNullJSON(a.Error) {
		return nil, u, fmt.Errorf("the endpoint answered with an error: %s", apiErrorText(b))
	}
	if len(a.Choices) == 0 {
		return nil, u, fmt.Errorf("the answer has no choices: %s", excerpt(string(b)))
	}
	ch := a.Choices[0]
	text, err := contentText(ch.Message.Content)
	if err != nil {
		return nil, u, err
	}
	if text == "" && ch.Message.Refusal != "" {
		text = ch.Message.Refusal
	}
	if a.Model != "" {
		model = a.Model
	}
	return &mcp.CreateMessageResult{
		Content:    &mcp.TextContent{Text: text},
		Model:      model,
		Role:       "assistant",
		StopReason: stopReasonOf(ch.FinishReason),
	}, u, nil
}

// contentText reads a message's content: a string, null, or a list of
// parts whose text parts are joined.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || isNullJSON(raw) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("the answer's message content is neither text nor a list of parts: %s", excerpt(string(raw)))
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// stopReasonOf maps a chat-completions finish_reason to MCP's stopReason.
func stopReasonOf(finish string) string {
	switch finish {
	case "stop", "":
		return "endTurn"
	case "length":
		return "maxTokens"
	case "tool_calls", "function_call":
		return "toolUse"
	}
	return finish
}

// apiErrorText is the message of an API error body
// ({"error": {"message": …}} or {"error": "…"}), or the body itself,
// cut short.
func apiErrorText(b []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(b, &e) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &obj) == nil && obj.Message != "":
			return excerpt(obj.Message)
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			return excerpt(s)
		case e.Message != "":
			return excerpt(e.Message)
		}
	}
	return excerpt(string(b))
}

// excerpt is text on one line, at most maxEndpointErrorText characters.
func excerpt(text string) string {
	text = strings.Join(strings.Fields(strings.ToValidUTF8(text, "?")), " ")
	if text == "" {
		return "(empty)"
	}
	if r := []rune(text); len(r) > maxEndpointErrorText {
		return string(r[:maxEndpointErrorText]) + "… (cut)"
	}
	return text
}
