package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/google/shlex"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// repeatedFlag is a string flag that may be given many times; each value
// is kept in order.
type repeatedFlag []string

func (r *repeatedFlag) String() string { return strings.Join(*r, ", ") }

func (r *repeatedFlag) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// parseConnectionFlags defines on fs the flags that choose the server to
// connect to (--demo, --stdio, --env, --url, --sse, --header, --era, --protocol,
// and --server, --config, --input for a server of a client's config),
// the limits on what is read from it and how long connecting may take
// (--max-message-size, --max-stderr-lines, --connect-timeout) and how to answer its requests (--dispatch, --latency,
// --sampling-latency, --elicitation-latency, --roots-latency, --seed,
// --sampling-reply, --elicitation, --roots, --fail-rate,
// --request-timeout). Call the returned function after fs.Parse: it
// turns the flags into a Target and an AnswerPolicy, or returns an error that
// names the bad flag and says what it wants (a usage error: exit 2; a
// client config that cannot be read is an [exitError] of exit 1).
//
// `inspector run` and `inspector gui` share it, so the two accept the same
// connection and callback flags.
func parseConnectionFlags(fs *flag.FlagSet) func() (engine.Target, engine.AnswerPolicy, error) {
	f := addConnectionFlags(fs)
	return func() (engine.Target, engine.AnswerPolicy, error) {
		t, err := f.target()
		if err != nil {
			return t, f.def, err
		}
		policy, err := f.policy(t)
		if err != nil {
			return t, f.def, err
		}
		return t, policy, nil
	}
}

// connectionFlags are the values of the connection and callback flags
// (see [parseConnectionFlags]).
type connectionFlags struct {
	fs  *flag.FlagSet
	def engine.AnswerPolicy

	// the server, and what is read from it
	demo, inheritEnv       *bool
	stdio, httpURL, sseURL *string
	env, headers           repeatedFlag
	protocol, era          *string
	logLevel               *string      // --log-level (loglevel.go)
	cfg                    *configFlags // --server, --config, --input (serverflags.go)
	oauth                  *oauthFlags
	maxMessage             sizeFlag
	maxStderr              *int
	connectTimeout         *time.Duration

	// how its requests are answered
	dispatch, latency, samplingL, elicitL, rootsL *string
	seed                                          *int64
	reply, elicit, roots                          *string
	failRate                                      *float64
	reqTimeout                                    *time.Duration
	setEndpoint                                   func(*engine.AnswerPolicy) error // endpoint.go
}

// addConnectionFlags defines the connection and callback flags on fs.
func addConnectionFlags(fs *flag.FlagSet) *connectionFlags {
	def := engine.DefaultAnswerPolicy()
	f := &connectionFlags{fs: fs, def: def}
	f.demo = fs.Bool("demo", false, "connect to the embedded demo server, in process (the default)")
	f.stdio = fs.String("stdio", "", "start the server as `'CMD ARGS'` and speak MCP over its stdin/stdout (split as a POSIX shell would)")
	f.httpURL = fs.String("url", "", "connect to a streamable HTTP server at `URL`")
	f.sseURL = fs.String("sse", "", "connect to a legacy HTTP+SSE server at `URL`")
	f.protocol = fs.String("protocol", "", "protocol `VERSION` to offer within the era (default the era's own: "+engine.DefaultProtocol+" for legacy, "+engine.ModernProtocol+" for auto and modern), or latest")
	f.era = fs.String("era", "", "how the session opens, `ERA`: legacy (initialize, "+engine.DefaultProtocol+"; the default), auto (server/discover and "+engine.ModernProtocol+" when the server speaks it, else initialize) or modern ("+engine.ModernProtocol+" only)")
	f.dispatch = fs.String("dispatch", "concurrent", "how server requests are served: concurrent, serial, inline or bounded:N")
	f.latency = fs.String("latency", "0", "time to answer every server request: `SPEC` = 500ms | uniform:200ms-800ms | normal:500ms,100ms | exp:500ms")
	f.samplingL = fs.String("sampling-latency", "", "latency `SPEC` for sampling/createMessage only (overrides --latency)")
	f.elicitL = fs.String("elicitation-latency", "", "latency `SPEC` for elicitation/create only (overrides --latency)")
	f.rootsL = fs.String("roots-latency", "", "latency `SPEC` for roots/list only (overrides --latency)")
	f.seed = fs.Int64("seed", 0, "seed for random latencies and failures: the same seed gives the same run")
	f.reply = fs.String("sampling-reply", def.SamplingReply, "sampling answer text, a Go `TEMPLATE` seeing {{.Index}}, {{.LastUserMessage}} and {{.Model}}")
	f.elicit = fs.String("elicitation", string(def.Elicitation), "how to answer elicitation/create: accept (with content built from the schema), decline, cancel, or manual (you answer each one in the GUI; not with run)")
	f.roots = fs.String("roots", strings.Join(def.Roots, ","), "`URI,...` answered to roots/list")
	f.failRate = fs.Float64("fail-rate", 0, "fraction `F` (0..1) of server requests answered with an error")
	f.reqTimeout = fs.Duration("request-timeout", 0, "answer a server request still unanswered after `D` with an error (0 = never)")
	f.maxMessage = sizeFlag(engine.DefaultMaxMessageSize)
	fs.Var(&f.maxMessage, "max-message-size", "the largest message read from the server: an HTTP response, one server-sent event, one stdio line, as `SIZE` like 16MiB, 4MB or bytes; a larger one ends the connection")
	f.maxStderr = fs.Int("max-stderr-lines", engine.DefaultMaxStderrLines, "record at most `N` lines of a --stdio server's stderr (the first and last N/2; the rest are counted)")
	f.connectTimeout = fs.Duration("connect-timeout", engine.DefaultConnectTimeout, "give up if the server has not answered initialize after `D`")
	fs.Var(&f.env, "env", "`K=V` added to the --stdio server's environment (repeatable)")
	f.inheritEnv = fs.Bool("inherit-env", false, "give the --stdio server the inspector's whole environment (default: only HOME, LOGNAME, PATH, SHELL, TERM, USER, plus --env)")
	f.cfg = addConfigFlags(fs)
	fs.Var(&f.headers, "header", "`'K: V'` HTTP header sent to a --url or --sse server (repeatable), e.g. 'Authorization: Bearer TOKEN'")
	f.setEndpoint = endpointFlags(fs)
	f.oauth = addOAuthFlags(fs)
	f.logLevel = logLevelFlag(fs)
	return f
}

// target is the server the flags choose, with its environment, headers,
// sign-in, limits and protocol.
func (f *connectionFlags) target() (engine.Target, error) {
	t, err := f.server()
	if err != nil {
		return t, err
	}
	if err := f.addEnv(&t); err != nil {
		return t, err
	}
	if err := f.addHeaders(&t); err != nil {
		return t, err
	}
	if err := f.oauth.apply(&t); err != nil {
		return t, err
	}
	if err := f.addLimits(&t); err != nil {
		return t, err
	}
	if err := f.addLogLevel(&t); err != nil {
		return t, err
	}
	if t.Protocol, err = f.protocolVersion(); err != nil {
		return t, err
	}
	return t, f.addEra(&t) // era.go
}

// server is the one server the flags name: of a client config, --stdio,
// --url, --sse, or the demo.
func (f *connectionFlags) server() (engine.Target, error) {
	var t engine.Target
	what := map[string]string{"stdio": "command line", "url": "URL", "sse": "URL"}
	for name, v := range map[string]string{"stdio": *f.stdio, "url": *f.httpURL, "sse": *f.sseURL} {
		if flagWasSet(f.fs, name) && strings.TrimSpace(v) == "" {
			return t, fmt.Errorf("--%s is empty: give the server's %s", name, what[name])
		}
	}
	if chosen := f.chosen(); len(chosen) > 1 {
		return t, fmt.Errorf("%s: choose one server to connect to", strings.Join(chosen, " and "))
	}
	switch {
	case f.cfg.given() || len(f.cfg.inputs) > 0:
		return f.cfg.target()
	case *f.stdio != "":
		words, err := shlex.Split(*f.stdio)
		if err != nil {
			return t, fmt.Errorf("--stdio %q: %v (check the quotes)", *f.stdio, err)
		}
		if len(words) == 0 {
			return t, fmt.Errorf("--stdio: give the server's command line, as in --stdio 'node server.js'")
		}
		return engine.Target{Transport: engine.TransportStdio, Command: *f.stdio}, nil
	case *f.httpURL != "":
		if err := checkURL(*f.httpURL); err != nil {
			return t, fmt.Errorf("--url: %w", err)
		}
		return engine.Target{Transport: engine.TransportHTTP, URL: *f.httpURL}, nil
	case *f.sseURL != "":
		if err := checkURL(*f.sseURL); err != nil {
			return t, fmt.Errorf("--sse: %w", err)
		}
		return engine.Target{Transport: engine.TransportSSE, URL: *f.sseURL}, nil
	}
	return engine.Target{Transport: engine.TransportDemo}, nil
}

// chosen lists the flags that name a server.
func (f *connectionFlags) chosen() []string {
	var chosen []string
	if f.cfg.given() {
		chosen = append(chosen, f.cfg.flags())
	}
	for _, c := range []struct {
		set  bool
		flag string
	}{{*f.demo, "--demo"}, {*f.stdio != "", "--stdio"}, {*f.httpURL != "", "--url"}, {*f.sseURL != "", "--sse"}} {
		if c.set {
			chosen = append(chosen, c.flag)
		}
	}
	return chosen
}

// addEnv adds --env and --inherit-env to a --stdio server.
func (f *connectionFlags) addEnv(t *engine.Target) error {
	for _, kv := range f.env {
		if t.Transport != engine.TransportStdio {
			return fmt.Errorf("--env %s: environment variables are for a --stdio server", hideValue(kv, "="))
		}
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
		t.Env = append(t.Env, kv)
	}
	if *f.inheritEnv {
		if t.Transport != engine.TransportStdio {
			return errors.New("--inherit-env: only for a --stdio server, which the inspector starts")
		}
		t.InheritEnv = true
	}
	return nil
}

// addHeaders adds --header to a --url or --sse server.
func (f *connectionFlags) addHeaders(t *engine.Target) error {
	for _, h := range f.headers {
		if t.Transport != engine.TransportHTTP && t.Transport != engine.TransportSSE {
			return fmt.Errorf("--header %s: headers are for a --url or --sse server", hideValue(h, ":"))
		}
		k, v, ok := strings.Cut(h, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return fmt.Errorf("--header %s: want 'Name: value', as in 'Authorization: Bearer TOKEN'", hideValue(h, ":"))
		}
		if t.Headers == nil {
			t.Headers = map[string]string{}
		}
		t.Headers[k] = strings.TrimSpace(v)
	}
	return nil
}

// addLimits sets the limits on what is read from the server and how long
// connecting may take.
func (f *connectionFlags) addLimits(t *engine.Target) error {
	if *f.maxStderr < 1 {
		return fmt.Errorf("--max-stderr-lines %d: want 1 or more", *f.maxStderr)
	}
	if *f.connectTimeout <= 0 {
		return fmt.Errorf("--connect-timeout %v: want a positive duration, as in 30s", *f.connectTimeout)
	}
	t.Limits = engine.Limits{MaxMessageSize: int64(f.maxMessage), MaxStderrLines: *f.maxStderr, ConnectTimeout: *f.connectTimeout}
	return nil
}

// protocolVersion is --protocol: "" for the default, latest, or a
// version the SDK speaks.
func (f *connectionFlags) protocolVersion() (string, error) {
	switch p := strings.TrimSpace(*f.protocol); {
	case p == "" && flagWasSet(f.fs, "protocol"):
		return "", fmt.Errorf("--protocol is empty: leave it out for %s, or give latest or one of %s", engine.DefaultProtocol, strings.Join(mcp.SupportedProtocolVersions(), ", "))
	case p == "" || p == "latest", slices.Contains(mcp.SupportedProtocolVersions(), p):
		return p, nil
	default:
		return "", fmt.Errorf("--protocol %q: want latest or one of %s", p, strings.Join(mcp.SupportedProtocolVersions(), ", "))
	}
}

// policy is how the flags say to answer the server's requests on t.
func (f *connectionFlags) policy(t engine.Target) (engine.AnswerPolicy, error) {
	policy := f.def
	var err error
	if policy.Dispatch, err = engine.ParseDispatch(*f.dispatch); err != nil {
		return policy, fmt.Errorf("--dispatch: %w", err)
	}
	if policy.Dispatch.Mode == engine.Inline && (t.Transport == engine.TransportHTTP || t.Transport == engine.TransportSSE) {
		return policy, fmt.Errorf("--dispatch: %w", engine.ErrInlineOverHTTP)
	}
	if err := f.setLatencies(&policy); err != nil {
		return policy, err
	}
	policy.Seed = *f.seed
	if err := f.setAnswers(&policy); err != nil {
		return policy, err
	}
	if !(*f.failRate >= 0 && *f.failRate <= 1) { // NaN too
		return policy, fmt.Errorf("--fail-rate %s: want a fraction between 0 and 1, as in 0.1", strconv.FormatFloat(*f.failRate, 'g', -1, 64))
	}
	policy.FailRate = *f.failRate
	if *f.reqTimeout < 0 {
		return policy, fmt.Errorf("--request-timeout %v: must not be negative", *f.reqTimeout)
	}
	policy.RequestTimeout = *f.reqTimeout
	if err := f.setEndpoint(&policy); err != nil {
		return policy, err
	}
	return policy, policy.Validate()
}

// setLatencies sets --latency and the per-method latencies.
func (f *connectionFlags) setLatencies(policy *engine.AnswerPolicy) error {
	var err error
	if policy.Latency, err = engine.ParseLatency(*f.latency); err != nil {
		return fmt.Errorf("--latency: %w", err)
	}
	for _, ml := range []struct{ flag, spec, method string }{
		{"--sampling-latency", *f.samplingL, "sampling/createMessage"},
		{"--elicitation-latency", *f.elicitL, "elicitation/create"},
		{"--roots-latency", *f.rootsL, "roots/list"},
	} {
		if ml.spec == "" {
			continue
		}
		m, err := engine.ParseLatency(ml.spec)
		if err != nil {
			return fmt.Errorf("%s: %w", ml.flag, err)
		}
		if policy.MethodLatency == nil {
			policy.MethodLatency = map[string]engine.LatencyModel{}
		}
		policy.MethodLatency[ml.method] = m
	}
	return nil
}

// setAnswers sets the sampling reply, the elicitation answer and the
// roots.
func (f *connectionFlags) setAnswers(policy *engine.AnswerPolicy) error {
	probe := f.def
	probe.SamplingReply = *f.reply
	if err := probe.Validate(); err != nil { // parses and renders it for a sample request
		return fmt.Errorf("--sampling-reply %q: %v", *f.reply, err)
	}
	policy.SamplingReply = *f.reply
	switch m := engine.ElicitationMode(strings.TrimSpace(*f.elicit)); m {
	case engine.ElicitAccept, engine.ElicitDecline, engine.ElicitCancel, engine.ElicitManual:
		policy.Elicitation = m
	default:
		return fmt.Errorf("--elicitation %q: want accept, decline, cancel or manual (manual: you answer each one in the GUI)", *f.elicit)
	}
	policy.Roots = nil
	for _, r := range strings.Split(*f.roots, ",") {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if u, err := url.Parse(r); err != nil || u.Scheme == "" {
			return fmt.Errorf("--roots: %q is not a URI like file:///home/me/project", r)
		}
		policy.Roots = append(policy.Roots, r)
	}
	return nil
}

// sizeFlag is a size in bytes, given as 16MiB, 4MB or a number of bytes.
type sizeFlag int64

func (f *sizeFlag) String() string { return engine.FormatSize(int64(*f)) }

func (f *sizeFlag) Set(v string) error {
	n, err := engine.ParseSize(v)
	if err != nil {
		return err
	}
	if n < 1<<10 {
		return fmt.Errorf("size %q: want at least 1KiB (an initialize answer alone takes hundreds of bytes)", v)
	}
	*f = sizeFlag(n)
	return nil
}

// flagWasSet reports whether the flag name was given on the command line.
func flagWasSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// hideValue quotes a --header or --env argument for an error message with
// its value left out: values are often secrets.
func hideValue(arg, sep string) string {
	if k, _, ok := strings.Cut(arg, sep); ok {
		return fmt.Sprintf("%q", k+sep+" …")
	}
	return "(a value without " + sep + ")"
}

// checkURL says what is wrong with an http or https server URL, with its
// credentials redacted, or nil.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", recorder.RedactURL(s), recorder.RedactURLsIn(err.Error()))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: want an http:// or https:// URL, as in http://127.0.0.1:8080/mcp", recorder.RedactURL(s))
	}
	if u.Host == "" {
		return errors.New(recorder.RedactURL(s) + ": the URL has no host")
	}
	return nil
}
