package engine

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// DispatchMode is how the inspector lets the server's requests run.
type DispatchMode string

// The dispatch modes.
const (
	// Concurrent serves every request as soon as it arrives.
	Concurrent DispatchMode = "concurrent"
	// Serial serves one request at a time, in the order the requests
	// arrived on the wire; the reader keeps reading, so later requests
	// wait visibly in the queue.
	Serial DispatchMode = "serial"
	// Bounded serves at most Limit requests at once, in the order they
	// arrived on the wire.
	Bounded DispatchMode = "bounded"
	// Inline is a client whose receive loop awaits each request it
	// serves, as the Python SDK's did up to v1.29: while one request is
	// served, the client is handed nothing else — no later request, no
	// response to its own calls, no notification (progress, logs,
	// cancellations) — until that request's answer is written. The wire
	// tap keeps reading meanwhile, so arrival times stay true and the
	// time each message was withheld is recorded as Stalled. It holds at
	// most 1,000 messages or the message size limit in bytes; past that
	// it stops reading the connection, which pushes back on the server
	// as a stalled client does. Available over the demo and stdio
	// transports, not over HTTP (see [ErrInlineOverHTTP]): [Connect]
	// refuses it there, and set on an HTTP session through
	// [Session.SetAnswerPolicy] it serves one at a time as [Serial].
	Inline DispatchMode = "inline"
)

// DispatchPolicy is a [DispatchMode] with its limit (for [Bounded]).
type DispatchPolicy struct {
	Mode  DispatchMode `json:"mode"`
	Limit int          `json:"limit,omitempty"`
}

// String gives the policy in the form [ParseDispatch] reads.
func (p DispatchPolicy) String() string {
	if p.Mode == Bounded {
		return fmt.Sprintf("bounded:%d", p.Limit)
	}
	if p.Mode == "" {
		return string(Concurrent)
	}
	return string(p.Mode)
}

// Slots is how many requests may be served at once; 0 means no limit.
func (p DispatchPolicy) Slots() int {
	switch p.Mode {
	case Serial, Inline:
		return 1
	case Bounded:
		return p.Limit
	}
	return 0
}

// ParseDispatch reads "concurrent", "serial", "inline" or "bounded:N"
// (N >= 1).
func ParseDispatch(s string) (DispatchPolicy, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "concurrent" || s == "":
		return DispatchPolicy{Mode: Concurrent}, nil
	case s == "serial":
		return DispatchPolicy{Mode: Serial}, nil
	case s == "inline":
		return DispatchPolicy{Mode: Inline}, nil
	case strings.HasPrefix(s, "bounded:"):
		n, err := strconv.Atoi(strings.TrimPrefix(s, "bounded:"))
		if err != nil {
			return DispatchPolicy{}, fmt.Errorf("dispatch %q: %s", s, boundedWants)
		}
		p := DispatchPolicy{Mode: Bounded, Limit: n}
		return p, p.Validate()
	}
	return DispatchPolicy{}, fmt.Errorf("dispatch %q: %s", s, dispatchWants)
}

// What a dispatch policy may be, in the words of its errors.
const (
	dispatchWants = "want concurrent, serial, inline or bounded:N"
	boundedWants  = "bounded needs a whole number of slots >= 1, as in bounded:4"
)

// Validate says what is wrong with p, or nil: the one check of a
// dispatch policy, whether it was parsed ([ParseDispatch]), set in the
// app or read from a file.
func (p DispatchPolicy) Validate() error {
	switch p.Mode {
	case "", Concurrent, Serial, Inline:
		return nil
	case Bounded:
		if p.Limit < 1 {
			return fmt.Errorf("dispatch %q: %s", p.String(), boundedWants)
		}
		return nil
	}
	return fmt.Errorf("dispatch %q: %s", p.Mode, dispatchWants)
}

// Distribution names a latency model's shape.
type Distribution string

// The latency distributions.
const (
	Fixed       Distribution = "fixed"   // always A
	Uniform     Distribution = "uniform" // uniform between A and B
	Normal      Distribution = "normal"  // mean A, standard deviation B, clamped at 0
	Exponential Distribution = "exp"     // mean A
)

// LatencyModel is how long the inspector takes to answer a request, on
// top of the time it takes to build the answer.
type LatencyModel struct {
	Dist Distribution  `json:"dist"`
	A    time.Duration `json:"a"`
	B    time.Duration `json:"b,omitempty"`
}

// String gives the model in the form [ParseLatency] reads.
func (m LatencyModel) String() string {
	switch m.Dist {
	case Uniform:
		return fmt.Sprintf("uniform:%v-%v", m.A, m.B)
	case Normal:
		return fmt.Sprintf("normal:%v,%v", m.A, m.B)
	case Exponential:
		return fmt.Sprintf("exp:%v", m.A)
	}
	return m.A.String()
}

// Mean is the model's expected latency (for normal, before clamping).
func (m LatencyModel) Mean() time.Duration {
	if m.Dist == Uniform {
		return (m.A + m.B) / 2
	}
	return m.A
}

// ParseLatency reads a latency spec: "500ms", "uniform:200ms-800ms",
// "normal:500ms,100ms" or "exp:500ms". Durations are Go durations
// ("0", "1.5s", "250ms").
func ParseLatency(s string) (LatencyModel, error) {
	s = strings.TrimSpace(s)
	dur := func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("latency %q: %q is not a duration like 500ms", s, v)
		}
		if d < 0 {
			return 0, fmt.Errorf("latency %q: %q is negative", s, v)
		}
		return d, nil
	}
	kind, rest, found := strings.Cut(s, ":")
	if !found {
		d, err := dur(s)
		return LatencyModel{Dist: Fixed, A: d}, err
	}
	switch kind {
	case "fixed":
		d, err := dur(rest)
		return LatencyModel{Dist: Fixed, A: d}, err
	case "uniform":
		lo, hi, ok := strings.Cut(rest, "-")
		if !ok {
			return LatencyModel{}, fmt.Errorf("latency %q: uniform wants MIN-MAX, as in uniform:200ms-800ms", s)
		}
		a, err := dur(lo)
		if err != nil {
			return LatencyModel{}, err
		}
		b, err := dur(hi)
		if err != nil {
			return LatencyModel{}, err
		}
		if b < a {
			return LatencyModel{}, fmt.Errorf("latency %q: the maximum is below the minimum", s)
		}
		return LatencyModel{Dist: Uniform, A: a, B: b}, nil
	case "normal":
		mean, sd, ok := strings.Cut(rest, ",")
		if !ok {
			return LatencyModel{}, fmt.Errorf("latency %q: normal wants MEAN,SD, as in normal:500ms,100ms", s)
		}
		a, err := dur(mean)
		if err != nil {
			return LatencyModel{}, err
		}
		b, err := dur(sd)
		if err != nil {
			return LatencyModel{}, err
		}
		return LatencyModel{Dist: Normal, A: a, B: b}, nil
	case "exp":
		d, err := dur(rest)
		return LatencyModel{Dist: Exponential, A: d}, err
	}
	return LatencyModel{}, fmt.Errorf("latency %q: want 500ms, uniform:MIN-MAX, normal:MEAN,SD or exp:MEAN", s)
}

// ElicitationMode is how the inspector answers elicitation/create.
type ElicitationMode string

// The elicitation modes.
const (
	// ElicitAccept accepts with content built from the requested schema.
	ElicitAccept ElicitationMode = "accept"
	// ElicitDecline and ElicitCancel answer with that action.
	ElicitDecline ElicitationMode = "decline"
	ElicitCancel  ElicitationMode = "cancel"
	// ElicitManual waits for a person to answer (see [Session.SetManualHandler]).
	ElicitManual ElicitationMode = "manual"
)

// TransportKind says how to reach a server.
type TransportKind string

// The transports.
const (
	TransportDemo  TransportKind = "demo"  // the embedded demo server, in process
	TransportStdio TransportKind = "stdio" // a subprocess over stdin/stdout
	TransportHTTP  TransportKind = "http"  // streamable HTTP
	TransportSSE   TransportKind = "sse"   // legacy HTTP+SSE
)

// DefaultProtocol is the protocol version offered unless another is asked
// for: the last version in which servers send requests to the client
// while serving a tool call.
const DefaultProtocol = "2025-11-25"

// Target says which server to connect to.
type Target struct {
	// Transport is how to reach the server; "" means [TransportDemo].
	Transport TransportKind `json:"transport,omitempty"`
	// Command is the stdio server's command line, split into words as a
	// POSIX shell would (quotes and backslashes work, no expansions).
	Command string `json:"command,omitempty"`
	// Env holds extra KEY=VALUE entries added to the stdio server's
	// environment, which is otherwise the inspector's [InheritedEnv].
	Env []string `json:"env,omitempty"`
	// InheritEnv gives the stdio server the inspector's whole
	// environment instead of [InheritedEnv] (see [ServerEnv]).
	InheritEnv bool `json:"inherit_env,omitempty"`
	// Dir is the stdio server's working directory ("" for the
	// inspector's own), as a client config's cwd gives it.
	Dir string `json:"dir,omitempty"`
	// URL is the endpoint of an http or sse server.
	URL string `json:"url,omitempty"`
	// Headers are extra HTTP headers sent with every http or sse request,
	// such as "Authorization": "Bearer x".
	Headers map[string]string `json:"headers,omitempty"`
	// Era is how the session opens: legacy ("", the default), auto or
	// modern (see [Era]).
	Era Era `json:"era,omitempty"`
	// Protocol pins the protocol version to offer within the era: ""
	// for the era's own ([DefaultProtocol], or [ModernProtocol]);
	// "latest" is the newest the inspector speaks. [Target.ProtocolEra]
	// reads the two together.
	Protocol string `json:"protocol,omitempty"`
	// Limits bound what is read from the server and how long connecting
	// may take. They are settings of the run, not part of the server's
	// address: never saved with the target.
	Limits Limits `json:"-"`
	// SecretValues are further values no output may carry, such as
	// what a client config's placeholders were filled with
	// (engine/clientconfig). Never saved with the target.
	SecretValues []string `json:"-"`
	// HTTPAuth, when set, signs every request to an http or sse server
	// (OAuth: see package engine/oauth). It holds credentials: never
	// saved with the target.
	HTTPAuth HTTPAuth `json:"-"`
	// LogLevel is the level of the server's log messages asked for as
	// the session starts (one of [recorder.LogLevels]); "" is
	// [recorder.DefaultLogLevel]. See [Session.SetLogLevel] for how each
	// protocol era carries it. A setting of the run: never saved with
	// the target.
	LogLevel string `json:"-"`
}

// HTTPAuth adds credentials to the HTTP requests of a session, below the
// wire tap: Wrap returns the RoundTripper the session sends through.
type HTTPAuth interface {
	Wrap(base http.RoundTripper) http.RoundTripper
}

// String describes the target for titles, messages and recordings:
// "demo", "stdio: CMD", "http: URL" or "sse: URL", with the URL's
// credentials redacted ([recorder.RedactURL]). Headers and environment
// are never part of it.
func (t Target) String() string {
	switch t.kind() {
	case TransportStdio:
		return "stdio: " + t.Command
	case TransportHTTP:
		return "http: " + recorder.RedactURL(t.URL)
	case TransportSSE:
		return "sse: " + recorder.RedactURL(t.URL)
	}
	return string(TransportDemo)
}

// Secrets returns the values that must not appear in any output of a
// session with t: the URL's user name, password (and the Basic
// authorization net/http makes of them) and credential-like query
// values, the value of every header named like a credential (and, for
// "Bearer TOKEN"-like values, the token alone) and of any other header
// that looks like one ([recorder.LooksSecret]), the environment's
// secrets ([EnvSecrets]) and the credential-like values of a stdio
// server's command line ([CommandSecrets]). [Connect] registers them on
// the recording ([recorder.Recording.AddSecrets]).
func (t Target) Secrets() []string {
	var out []string
	if t.kind() == TransportHTTP || t.kind() == TransportSSE {
		out = append(out, recorder.URLSecrets(t.URL)...)
		if u, err := url.Parse(t.URL); err == nil && u.User != nil {
			// net/http sends the userinfo as a Basic Authorization
			// header, which a server may echo.
			pass, _ := u.User.Password()
			out = append(out, base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass)))
		}
		for name, v := range t.Headers {
			v = strings.TrimSpace(v)
			_, token, spaced := strings.Cut(v, " ")
			token = strings.TrimSpace(token)
			switch {
			case IsSecretName(name):
				out = append(out, v)
				if spaced {
					out = append(out, token)
				}
			case recorder.LooksSecret(v):
				out = append(out, v)
			case spaced && recorder.LooksSecret(token):
				out = append(out, token)
			}
		}
	}
	if t.kind() == TransportStdio {
		out = append(out, CommandSecrets(t.Command)...)
		out = append(out, EnvSecrets(t.Env)...)
	}
	return append(out, t.SecretValues...)
}

func (t Target) kind() TransportKind {
	if t.Transport == "" {
		return TransportDemo
	}
	return t.Transport
}

// AnswerPolicy is how the inspector answers the server's requests. It is safe
// to change while connected through [Session.SetAnswerPolicy]: the change
// applies from the next request on.
type AnswerPolicy struct {
	// Dispatch is how many requests are served at once.
	Dispatch DispatchPolicy `json:"dispatch"`
	// Latency is the time taken to answer every request, unless
	// MethodLatency has an entry for its method.
	Latency LatencyModel `json:"latency"`
	// MethodLatency overrides Latency per method ("sampling/createMessage",
	// "elicitation/create", "roots/list", "ping").
	MethodLatency map[string]LatencyModel `json:"method_latency,omitempty"`
	// Seed makes latencies and failures reproducible: the same seed and
	// the same order of requests per method give the same values, however
	// the requests overlap.
	Seed int64 `json:"seed"`
	// SamplingReply is a text/template for the sampling answer's text. It
	// sees {{.Index}} (1-based arrival order among sampling requests),
	// {{.LastUserMessage}} and {{.Model}}.
	SamplingReply string `json:"sampling_reply"`
	// SamplingModel and StopReason are put in every sampling answer.
	SamplingModel string `json:"sampling_model"`
	StopReason    string `json:"stop_reason"`
	// SamplingManual makes sampling requests wait for a person (see
	// [Session.SetManualHandler]).
	SamplingManual bool `json:"sampling_manual,omitempty"`
	// SamplingEndpoint, when its URL is set, answers sampling requests
	// with a model behind a chat-completions API instead of
	// SamplingReply.
	SamplingEndpoint SamplingEndpoint `json:"sampling_endpoint,omitzero"`
	// Elicitation is how elicitation/create is answered.
	Elicitation ElicitationMode `json:"elicitation"`
	// Roots are the URIs answered to roots/list.
	Roots []string `json:"roots"`
	// FailRate is the fraction (0..1) of requests answered with a
	// JSON-RPC error instead of a result.
	FailRate float64 `json:"fail_rate,omitempty"`
	// RequestTimeout, when not 0, answers a request still unanswered that
	// long after it arrived with an error; its span ends as timed out.
	RequestTimeout time.Duration `json:"request_timeout,omitempty"`

	reply    *template.Template // SamplingReply, parsed by the session
	endpoint *endpointClient    // SamplingEndpoint's client, made by the session
}

// DefaultAnswerPolicy returns the answering policy the inspector starts with:
// concurrent dispatch, no latency, reply "reply {{.Index}}" from model
// "fanout-inspector" with stop reason "endTurn", elicitations accepted,
// one root file:///tmp.
func DefaultAnswerPolicy() AnswerPolicy {
	return AnswerPolicy{
		Dispatch:      DispatchPolicy{Mode: Concurrent},
		Latency:       LatencyModel{Dist: Fixed},
		SamplingReply: "reply {{.Index}}",
		SamplingModel: "fanout-inspector",
		StopReason:    "endTurn",
		Elicitation:   ElicitAccept,
		Roots:         []string{"file:///tmp"},
	}
}

// Validate reports the first thing wrong with policy, in words a person can
// act on, or nil.
func (policy AnswerPolicy) Validate() error {
	if err := policy.Dispatch.Validate(); err != nil {
		return err
	}
	check := func(what string, m LatencyModel) error {
		switch m.Dist {
		case "", Fixed, Uniform, Normal, Exponential:
		default:
			return fmt.Errorf("%s latency: unknown distribution %q (want fixed, uniform, normal or exp)", what, m.Dist)
		}
		if m.A < 0 || m.B < 0 {
			return fmt.Errorf("%s latency %v: durations must not be negative", what, m)
		}
		if m.Dist == Uniform && m.B < m.A {
			return fmt.Errorf("%s latency %v: the maximum is below the minimum", what, m)
		}
		return nil
	}
	if err := check("default", policy.Latency); err != nil {
		return err
	}
	for method, m := range policy.MethodLatency {
		if err := check(method, m); err != nil {
			return err
		}
	}
	// Parse the reply template and render it once against a sample request:
	// a field it does not know ({{.Nope}}) only fails when executed, and
	// that must be said before the run, not on every sampling request.
	reply, err := parseReply(policy.SamplingReply)
	if err != nil {
		return err
	}
	if _, err := renderReply(reply, 1, "sample question", policy.SamplingModel); err != nil {
		msg := strings.ReplaceAll(err.Error(), " in type engine.replyData", "")
		return fmt.Errorf("%s; rendered for a sample request, the fields are {{.Index}}, {{.LastUserMessage}} and {{.Model}}", msg)
	}
	if err := policy.SamplingEndpoint.validate(); err != nil {
		return err
	}
	switch policy.Elicitation {
	case "", ElicitAccept, ElicitDecline, ElicitCancel, ElicitManual:
	default:
		return fmt.Errorf("elicitation %q: want accept, decline, cancel or manual", policy.Elicitation)
	}
	if !(policy.FailRate >= 0 && policy.FailRate <= 1) { // NaN too
		return fmt.Errorf("fail rate %g: want a fraction between 0 and 1", policy.FailRate)
	}
	if policy.RequestTimeout < 0 {
		return fmt.Errorf("request timeout %v: must not be negative", policy.RequestTimeout)
	}
	return nil
}
