package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
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
		serverSide, clientSide := mcp.NewInMemoryTransports()
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
		if _, err := exec.LookPath(words[0]); err != nil {
			return nil, fmt.Errorf("stdio: cannot run %q: %v (check the command and PATH)", words[0], err)
		}
		cmd := exec.Command(words[0], words[1:]...)
		cmd.Env = append(os.Environ(), t.Env...)
		s.stderr = &stderrLines{s: s}
		cmd.Stderr = s.stderr
		// A helper process the server started may hold its stderr open
		// after the server is gone: reaping the server must not wait for
		// it beyond half a second.
		cmd.WaitDelay = 500 * time.Millisecond
		s.cmd = cmd
		// A server that does not exit within 2s of its stdin closing is
		// sent SIGTERM, then SIGKILL: Close should not hang on it.
		inner = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	case t.kind() == TransportHTTP || t.kind() == TransportSSE:
		u, err := url.Parse(t.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s: %q is not an http(s) URL like http://localhost:8080/mcp", t.kind(), recorder.RedactURL(t.URL))
		}
		for k := range t.Headers {
			if k == "" || strings.ContainsAny(k, " :\r\n") {
				return nil, fmt.Errorf("%s: header name %q is not valid (give names like Authorization)", t.kind(), k)
			}
		}
		s.tap = newWireTap(s)
		hc := &http.Client{Transport: &tapRoundTripper{base: http.DefaultTransport, headers: t.Headers, tap: s.tap}}
		if t.kind() == TransportHTTP {
			inner = &mcp.StreamableClientTransport{Endpoint: t.URL, HTTPClient: hc}
		} else {
			inner = &mcp.SSEClientTransport{Endpoint: t.URL, HTTPClient: hc}
		}
	default:
		return nil, fmt.Errorf("transport %q: want demo, stdio, http or sse", t.Transport)
	}
	if t.kind() == TransportHTTP || t.kind() == TransportSSE {
		return inner, nil // tapped below the SDK, in the HTTP client
	}
	s.tap = newWireTap(s)
	return &tappedTransport{inner: inner, tap: s.tap}, nil
}

// stderrLines turns what a stdio server writes to stderr into one event
// per line.
type stderrLines struct {
	s *Session

	mu       sync.Mutex
	partial  []byte
	lastLine string
}

func (w *stderrLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.partial = append(w.partial, p...)
	var lines []string
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.partial[:i]), "\r")
		w.partial = w.partial[i+1:]
		lines = append(lines, line)
	}
	if len(w.partial) > 64<<10 { // a very long line without newline: emit it
		lines = append(lines, string(w.partial))
		w.partial = nil
	}
	if len(lines) > 0 {
		w.lastLine = lines[len(lines)-1]
	}
	w.mu.Unlock()
	for _, l := range lines {
		ev := recorder.Event{At: w.s.rec.Now(), Session: w.s.name, Kind: recorder.EventStderr, Text: l}
		w.s.rec.AddEvent(ev)
		w.s.emitLog(ev)
	}
	return len(p), nil
}

func (w *stderrLines) last() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		return string(w.partial)
	}
	return w.lastLine
}

// explainConnectError turns a failure to connect into a message that
// says what happened and what to do, without the target's secrets.
func (s *Session) explainConnectError(err error) error {
	return s.redact(s.explainConnect(err))
}

func (s *Session) explainConnect(err error) error {
	if s.tap != nil {
		if werr := s.tap.failure(); werr != nil {
			return s.explainWireError(werr)
		}
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
	return fmt.Errorf("connecting to %s: %w", s.target, err)
}

// explainWireError describes a broken read from the server.
func (s *Session) explainWireError(err error) error {
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
