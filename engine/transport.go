package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/internal/inproc"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/google/shlex"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// transport builds the transport for the session's target, wrapped in
// the wire tap.
func (s *Session) transport(ctx context.Context, inner mcp.Transport) (mcp.Transport, error) {
	t := s.target
	switch {
	case inner != nil:
		// given by a test
	case t.kind() == TransportDemo:
		serverSide, clientSide := inproc.Pair()
		if _, err := demo.NewServer().Connect(ctx, serverSide, nil); err != nil {
			return nil, fmt.Errorf("starting the demo server: %w", err)
		}
		inner = clientSide
	case t.kind() == TransportStdio:
		words, err := shlex.Split(t.Command)
		if err != nil {
			return nil, fmt.Errorf("stdio command %q: %v (quote words with spaces, as in a shell)", t.Command, err)
		}
		if len(words) == 0 {
			return nil, errors.New("stdio: no command given: say which server to start, as in \"npx my-server --stdio\"")
		}
		for _, kv := range t.Env {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return nil, fmt.Errorf("stdio environment entry %q: want KEY=VALUE", kv)
			}
		}
		look := words[0]
		if t.Dir != "" && !filepath.IsAbs(look) && strings.ContainsRune(look, filepath.Separator) {
			look = filepath.Join(t.Dir, look) // as the server starts there
		}
		if _, err := exec.LookPath(look); err != nil {
			return nil, fmt.Errorf("stdio: cannot run %q: %v (check the command and PATH)", words[0], err)
		}
		cmd := exec.Command(words[0], words[1:]...)
		cmd.Env = ServerEnv(t.Env, t.InheritEnv)
		cmd.Dir = t.Dir
		s.stderr = newStderrLines(s, t.Limits.maxStderrLines())
		cmd.Stderr = s.stderr
		// A helper process the server started may hold its stderr open
		// after the server is gone: reaping the server must not wait for
		// it beyond half a second.
		cmd.WaitDelay = 500 * time.Millisecond
		s.cmd = cmd
		// A server that does not exit within 2s of its stdin closing is
		// sent SIGTERM, then SIGKILL: Close should not hang on it.
		// While connecting, a timeout or an interrupt stops it at once:
		// it is not answering.
		inner = &stdioTransport{cmd: cmd, maxMessage: t.Limits.maxMessageSize(), grace: 2 * time.Second,
			hurry: func() bool { return !s.life.up.Load() && s.life.ctx.Err() != nil }}
	case t.kind() == TransportHTTP || t.kind() == TransportSSE:
		if s.current().Dispatch.Mode == Inline {
			return nil, ErrInlineOverHTTP
		}
		u, err := url.Parse(t.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s: %q is not an http(s) URL like http://localhost:8080/mcp", t.kind(), recorder.RedactURL(t.URL))
		}
		for k := range t.Headers {
			if k == "" || strings.ContainsAny(k, " :\r\n") {
				return nil, fmt.Errorf("%s: header name %q is not valid (give names like Authorization)", t.kind(), k)
			}
		}
		s.wire = newWireState()
		limit := t.Limits.maxMessageSize()
		s.exchanges = &ExchangeTap{base: http.DefaultTransport, rec: s.rec, session: s.name}
		var base http.RoundTripper = s.exchanges
		if t.HTTPAuth != nil {
			base = t.HTTPAuth.Wrap(base)
		}
		hc := &http.Client{Transport: &tapRoundTripper{base: base, headers: t.Headers, obs: s, limit: limit,
			connecting: s.connecting}}
		// The tap enforces the message limit as it reads; the SDK's own
		// event limit, a little higher, only backs it up.
		if t.kind() == TransportHTTP {
			inner = &mcp.StreamableClientTransport{Endpoint: t.URL, HTTPClient: hc, MaxEventSize: sdkLimit(limit)}
		} else {
			inner = &mcp.SSEClientTransport{Endpoint: t.URL, HTTPClient: hc, MaxEventSize: sdkLimit(limit)}
		}
	default:
		return nil, fmt.Errorf("transport %q: want demo, stdio, http or sse", t.Transport)
	}
	if t.kind() == TransportHTTP || t.kind() == TransportSSE {
		return inner, nil // tapped below the SDK, in the HTTP client
	}
	s.wire = newWireState()
	s.wire.tapped = &tappedTransport{inner: inner, obs: s, limit: t.Limits.maxMessageSize()}
	return s.wire.tapped, nil
}

// connecting returns, while the session is connecting, a context that
// ends when connecting is given up (timeout or interrupt), and nil once
// the session is up.
func (s *Session) connecting() context.Context {
	if s.life.up.Load() {
		return nil
	}
	return s.life.ctx
}

// explainConnectError turns a failure to connect into a message that
// says what happened and what to do, without the target's secrets.
func (s *Session) explainConnectError(outer context.Context, err error) error {
	return s.redact(s.explainConnect(outer, err))
}

func (s *Session) explainConnect(outer context.Context, err error) error {
	var werr error
	if s.wire != nil {
		werr = s.wire.failure()
	}
	if werr != nil && s.target.Limits.tooLarge(werr) != nil {
		return s.target.Limits.tooLarge(werr)
	}
	// Stopped by the timeout or the caller: the broken pipe or the exit
	// that follows is not the server's doing.
	if stopped := s.connectStopped(outer); stopped != nil {
		return stopped
	}
	if werr != nil {
		return s.explainWireError(werr)
	}
	if s.cmd != nil && s.cmd.Process != nil {
		// Give the process a moment to be reaped so its exit is known.
		s.closeTransport()
		if s.cmd.ProcessState != nil {
			msg := fmt.Sprintf("stdio server %q exited before the session started: %s", s.target.Command, s.cmd.ProcessState)
			if tail := s.stderr.last(); tail != "" {
				msg += " (last stderr line: " + tail + ")"
			}
			return errors.New(msg)
		}
	}
	ce := &ConnectError{Target: s.target, Err: s.redact(err)}
	if s.wire != nil {
		ce.Status = s.wire.refusedWith()
	}
	return ce
}

// explainWireError describes a broken read from the server.
func (s *Session) explainWireError(err error) error {
	if e := s.target.Limits.tooLarge(err); e != nil {
		return e
	}
	var broken *streamBrokenError
	if errors.As(err, &broken) {
		return broken
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) || strings.Contains(err.Error(), "invalid character") ||
		strings.Contains(err.Error(), "cannot unmarshal") || strings.Contains(err.Error(), "invalid message") {
		msg := fmt.Sprintf("the server sent something that is not JSON-RPC (%v)", err)
		if s.target.kind() == TransportStdio {
			msg += ": a stdio server must write only JSON-RPC messages to stdout and its logs to stderr"
		}
		return errors.New(msg)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the server's output ended in the middle of a message: %w", err)
	}
	return fmt.Errorf("reading from the server failed: %w", err)
}

// explainCallError adds what was being done to an error from the SDK and,
// when the connection is gone, why.
func (s *Session) explainCallError(what string, err error) error {
	return s.redact(s.explainCall(what, err))
}

func (s *Session) explainCall(what string, err error) error {
	if errors.Is(err, mcp.ErrConnectionClosed) || s.isDone() {
		if s.waitDone(2 * time.Second) {
			if cause := s.Err(); cause != nil {
				return fmt.Errorf("%s: the connection was lost: %w", what, cause)
			}
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// stdioTransport starts a stdio server and speaks newline-delimited
// JSON-RPC over its stdin and stdout, as the SDK's CommandTransport does,
// but reads the server's output through the session's message limit.
type stdioTransport struct {
	cmd        *exec.Cmd
	maxMessage int64
	// grace is how long Close waits for the server to exit after closing
	// its stdin, and again after SIGTERM, before SIGKILL; 100ms when
	// hurry says so.
	grace time.Duration
	hurry func() bool
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	return (&mcp.IOTransport{
		// Closing the connection closes stdin; cmd.Wait closes stdout.
		Reader:        io.NopCloser(&lineLimitReader{r: stdout, limit: t.maxMessage}),
		Writer:        &stdinCloser{WriteCloser: stdin, t: t},
		MaxLineLength: sdkLimit(t.maxMessage),
	}).Connect(ctx)
}

// stdinCloser ends a stdio server when the connection closes: it closes
// the server's stdin, waits for it to exit, then sends SIGTERM, then
// SIGKILL, as the MCP specification says a client should.
type stdinCloser struct {
	io.WriteCloser
	t *stdioTransport
}

func (c *stdinCloser) Close() error {
	cmd := c.t.cmd
	if err := c.WriteCloser.Close(); err != nil {
		return fmt.Errorf("closing the server's stdin: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	grace := c.t.grace
	if c.t.hurry() {
		grace = 100 * time.Millisecond
	}
	wait := func() (error, bool) {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case err := <-exited:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	cmd.Process.Kill()
	return <-exited
}

// sdkLimit is the SDK's own size limit under ours: a little higher, so
// that ours, with its clearer message, is met first.
func sdkLimit(limit int64) int {
	return int(min(limit+1<<20, 1<<50))
}
