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
// connect to (--demo, --stdio, --env, --url, --sse, --header, --protocol,
// and --server, --config, --input for a server of a client's config),
// the limits on what is read from it and how long connecting may take
// (--max-message-size, --max-stderr-lines, --connect-timeout) and how to answer its requests (--dispatch, --latency,
// --sampling-latency, --elicitation-latency, --roots-latency, --seed,
// --sampling-reply, --elicitation, --roots, --fail-rate,
// --request-timeout). Call the returned function after fs.Parse: it
// turns the flags into a Target and an AnswerPolicy, or returns an error that
// names the bad flag and says what it wants (a usage error: exit 2).
//
// `inspector run` and `inspector gui` share it, so the two accept the same
// connection and callback flags.
func parseConnectionFlags(fs *flag.FlagSet) func() (engine.Target, engine.AnswerPolicy, error) {
	def := engine.DefaultAnswerPolicy()
	var (
		demoFlag   = fs.Bool("demo", false, "connect to the embedded demo server, in process (the default)")
		stdio      = fs.String("stdio", "", "start the server as `'CMD ARGS'` and speak MCP over its stdin/stdout (split as a POSIX shell would)")
		env        repeatedFlag
		httpURL    = fs.String("url", "", "connect to a streamable HTTP server at `URL`")
		sseURL     = fs.String("sse", "", "connect to a legacy HTTP+SSE server at `URL`")
		headers    repeatedFlag
		protocol   = fs.String("protocol", "", "protocol `VERSION` to offer (default "+engine.DefaultProtocol+"), or latest to let the SDK offer its newest")
		dispatch   = fs.String("dispatch", "concurrent", "how server requests are served: concurrent, serial, inline or bounded:N")
		latency    = fs.String("latency", "0", "time to answer every server request: `SPEC` = 500ms | uniform:200ms-800ms | normal:500ms,100ms | exp:500ms")
		samplingL  = fs.String("sampling-latency", "", "latency `SPEC` for sampling/createMessage only (overrides --latency)")
		elicitL    = fs.String("elicitation-latency", "", "latency `SPEC` for elicitation/create only (overrides --latency)")
		rootsL     = fs.String("roots-latency", "", "latency `SPEC` for roots/list only (overrides --latency)")
		seed       = fs.Int64("seed", 0, "seed for random latencies and failures: the same seed gives the same run")
		reply      = fs.String("sampling-reply", def.SamplingReply, "sampling answer text, a Go `TEMPLATE` seeing {{.Index}}, {{.LastUserMessage}} and {{.Model}}")
		elicit     = fs.String("elicitation", string(def.Elicitation), "how to answer elicitation/create: accept (with content built from the schema), decline, cancel, or manual (you answer each one in the GUI; not with run)")
		roots      = fs.String("roots", strings.Join(def.Roots, ","), "`URI,...` answered to roots/list")
		failRate   = fs.Float64("fail-rate", 0, "fraction `F` (0..1) of server requests answered with an error")
		reqTimeout = fs.Duration("request-timeout", 0, "answer a server request still unanswered after `D` with an error (0 = never)")
	)
	maxMessage := sizeFlag(engine.DefaultMaxMessageSize)
	fs.Var(&maxMessage, "max-message-size", "the largest message read from the server: an HTTP response, one server-sent event, one stdio line, as `SIZE` like 16MiB, 4MB or bytes; a larger one ends the connection")
	maxStderr := fs.Int("max-stderr-lines", engine.DefaultMaxStderrLines, "record at most `N` lines of a --stdio server's stderr (the first and last N/2; the rest are counted)")
	connectTimeout := fs.Duration("connect-timeout", engine.DefaultConnectTimeout, "give up if the server has not answered initialize after `D`")
	fs.Var(&env, "env", "`K=V` added to the --stdio server's environment (repeatable)")
	inheritEnv := fs.Bool("inherit-env", false, "give the --stdio server the inspector's whole environment (default: only HOME, LOGNAME, PATH, SHELL, TERM, USER, plus --env)")
	cfg := addConfigFlags(fs) // --server, --config, --input: a server of a client's config (serverflags.go)
	fs.Var(&headers, "header", "`'K: V'` HTTP header sent to a --url or --sse server (repeatable), e.g. 'Authorization: Bearer TOKEN'")
	setEndpoint := endpointFlags(fs) // endpoint.go
	oauthFlags := addOAuthFlags(fs)

	return func() (engine.Target, engine.AnswerPolicy, error) {
		var t engine.Target
		for name, v := range map[string]string{"stdio": *stdio, "url": *httpURL, "sse": *sseURL} {
			if flagWasSet(fs, name) && strings.TrimSpace(v) == "" {
				return t, def, fmt.Errorf("--%s is empty: give the server's %s", name, map[string]string{"stdio": "command line", "url": "URL", "sse": "URL"}[name])
			}
		}
		var chosen []string
		if cfg.given() {
			chosen = append(chosen, cfg.flags())
		}
		if *demoFlag {
			chosen = append(chosen, "--demo")
		}
		if *stdio != "" {
			chosen = append(chosen, "--stdio")
		}
		if *httpURL != "" {
			chosen = append(chosen, "--url")
		}
		if *sseURL != "" {
			chosen = append(chosen, "--sse")
		}
		if len(chosen) > 1 {
			return t, def, fmt.Errorf("%s: choose one server to connect to", strings.Join(chosen, " and "))
		}
		switch {
		case cfg.given() || len(cfg.inputs) > 0:
			var err error
			if t, err = cfg.target(); err != nil {
				return t, def, err
			}
		case *stdio != "":
			words, err := shlex.Split(*stdio)
			if err != nil {
				return t, def, fmt.Errorf("--stdio %q: %v (check the quotes)", *stdio, err)
			}
			if len(words) == 0 {
				return t, def, fmt.Errorf("--stdio: give the server's command line, as in --stdio 'node server.js'")
			}
			t = engine.Target{Transport: engine.TransportStdio, Command: *stdio}
		case *httpURL != "":
			if err := checkURL(*httpURL); err != nil {
				return t, def, fmt.Errorf("--url: %w", err)
			}
			t = engine.Target{Transport: engine.TransportHTTP, URL: *httpURL}
		case *sseURL != "":
			if err := checkURL(*sseURL); err != nil {
				return t, def, fmt.Errorf("--sse: %w", err)
			}
			t = engine.Target{Transport: engine.TransportSSE, URL: *sseURL}
		default:
			t = engine.Target{Transport: engine.TransportDemo}
		}
		for _, kv := range env {
			if t.Transport != engine.TransportStdio {
				return t, def, fmt.Errorf("--env %s: environment variables are for a --stdio server", hideValue(kv, "="))
			}
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return t, def, fmt.Errorf("--env %q: want KEY=VALUE", kv)
			}
			t.Env = append(t.Env, kv)
		}
		if *inheritEnv {
			if t.Transport != engine.TransportStdio {
				return t, def, errors.New("--inherit-env: only for a --stdio server, which the inspector starts")
			}
			t.InheritEnv = true
		}
		for _, h := range headers {
			if t.Transport != engine.TransportHTTP && t.Transport != engine.TransportSSE {
				return t, def, fmt.Errorf("--header %s: headers are for a --url or --sse server", hideValue(h, ":"))
			}
			k, v, ok := strings.Cut(h, ":")
			k = strings.TrimSpace(k)
			if !ok || k == "" || strings.ContainsAny(k, " \t") {
				return t, def, fmt.Errorf("--header %s: want 'Name: value', as in 'Authorization: Bearer TOKEN'", hideValue(h, ":"))
			}
			if t.Headers == nil {
				t.Headers = map[string]string{}
			}
			t.Headers[k] = strings.TrimSpace(v)
		}
		if err := oauthFlags.apply(&t); err != nil {
			return t, def, err
		}
		if *maxStderr < 1 {
			return t, def, fmt.Errorf("--max-stderr-lines %d: want 1 or more", *maxStderr)
		}
		if *connectTimeout <= 0 {
			return t, def, fmt.Errorf("--connect-timeout %v: want a positive duration, as in 30s", *connectTimeout)
		}
		t.Limits = engine.Limits{MaxMessageSize: int64(maxMessage), MaxStderrLines: *maxStderr, ConnectTimeout: *connectTimeout}
		switch p := strings.TrimSpace(*protocol); {
		case p == "" && flagWasSet(fs, "protocol"):
			return t, def, fmt.Errorf("--protocol is empty: leave it out for %s, or give latest or one of %s", engine.DefaultProtocol, strings.Join(mcp.SupportedProtocolVersions(), ", "))
		case p == "" || p == "latest":
			t.Protocol = p
		case slices.Contains(mcp.SupportedProtocolVersions(), p):
			t.Protocol = p
		default:
			return t, def, fmt.Errorf("--protocol %q: want latest or one of %s", p, strings.Join(mcp.SupportedProtocolVersions(), ", "))
		}

		policy := def
		var err error
		if policy.Dispatch, err = engine.ParseDispatch(*dispatch); err != nil {
			return t, def, fmt.Errorf("--dispatch: %w", err)
		}
		if policy.Dispatch.Mode == engine.Inline && (t.Transport == engine.TransportHTTP || t.Transport == engine.TransportSSE) {
			return t, def, fmt.Errorf("--dispatch: %w", engine.ErrInlineOverHTTP)
		}
		if policy.Latency, err = engine.ParseLatency(*latency); err != nil {
			return t, def, fmt.Errorf("--latency: %w", err)
		}
		for _, ml := range []struct{ flag, spec, method string }{
			{"--sampling-latency", *samplingL, "sampling/createMessage"},
			{"--elicitation-latency", *elicitL, "elicitation/create"},
			{"--roots-latency", *rootsL, "roots/list"},
		} {
			if ml.spec == "" {
				continue
			}
			m, err := engine.ParseLatency(ml.spec)
			if err != nil {
				return t, def, fmt.Errorf("%s: %w", ml.flag, err)
			}
			if policy.MethodLatency == nil {
				policy.MethodLatency = map[string]engine.LatencyModel{}
			}
			policy.MethodLatency[ml.method] = m
		}
		policy.Seed = *seed
		probe := def
		probe.SamplingReply = *reply
		if err := probe.Validate(); err != nil { // parses and renders it for a sample request
			return t, def, fmt.Errorf("--sampling-reply %q: %v", *reply, err)
		}
		policy.SamplingReply = *reply
		switch m := engine.ElicitationMode(strings.TrimSpace(*elicit)); m {
		case engine.ElicitAccept, engine.ElicitDecline, engine.ElicitCancel, engine.ElicitManual:
			policy.Elicitation = m
		default:
			return t, def, fmt.Errorf("--elicitation %q: want accept, decline, cancel or manual (manual: you answer each one in the GUI)", *elicit)
		}
		policy.Roots = nil
		for _, r := range strings.Split(*roots, ",") {
			r = strings.TrimSpace(r)
			if r == "" {
				continue
			}
			if u, err := url.Parse(r); err != nil || u.Scheme == "" {
				return t, def, fmt.Errorf("--roots: %q is not a URI like file:///home/me/project", r)
			}
			policy.Roots = append(policy.Roots, r)
		}
		if !(*failRate >= 0 && *failRate <= 1) { // NaN too
			return t, def, fmt.Errorf("--fail-rate %s: want a fraction between 0 and 1, as in 0.1", strconv.FormatFloat(*failRate, 'g', -1, 64))
		}
		policy.FailRate = *failRate
		if *reqTimeout < 0 {
			return t, def, fmt.Errorf("--request-timeout %v: must not be negative", *reqTimeout)
		}
		policy.RequestTimeout = time.Duration(*reqTimeout)
		if err := setEndpoint(&policy); err != nil {
			return t, def, err
		}
		if err := policy.Validate(); err != nil {
			return t, def, err
		}
		return t, policy, nil
	}
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
