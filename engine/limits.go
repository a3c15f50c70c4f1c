package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The defaults of [Limits].
const (
	// DefaultMaxMessageSize bounds one message read from a server: the
	// SDK's own stdio and event limits are 16 MiB too.
	DefaultMaxMessageSize = 16 << 20
	// DefaultMaxStderrLines is how many of a stdio server's stderr lines
	// a session keeps.
	DefaultMaxStderrLines = 10_000
	// DefaultConnectTimeout bounds starting the transport and the
	// initialize handshake.
	DefaultConnectTimeout = 30 * time.Second
	// MaxStderrLineLength is the longest stderr line kept whole; a longer
	// line is cut there and marked.
	MaxStderrLineLength = 4 << 10
)

// Limits bound what a session reads from its server and how long it
// waits for the server to start. The zero value means the defaults.
type Limits struct {
	// MaxMessageSize bounds one message read from the server, in bytes:
	// an HTTP response body, one server-sent event, one stdio line.
	// Past it the session (or the connecting) ends with a
	// [MessageTooLargeError]. 0 means [DefaultMaxMessageSize].
	MaxMessageSize int64
	// MaxStderrLines is how many lines of a stdio server's stderr are
	// recorded: the first half as they come, the last half when the
	// session ends, and one event counting the rest. 0 means
	// [DefaultMaxStderrLines].
	MaxStderrLines int
	// ConnectTimeout bounds starting the transport and the initialize
	// handshake; past it Connect fails with a [ConnectTimeoutError].
	// 0 means [DefaultConnectTimeout].
	ConnectTimeout time.Duration
}

func (l Limits) maxMessageSize() int64 {
	if l.MaxMessageSize <= 0 {
		return DefaultMaxMessageSize
	}
	return l.MaxMessageSize
}

func (l Limits) maxStderrLines() int {
	if l.MaxStderrLines <= 0 {
		return DefaultMaxStderrLines
	}
	return l.MaxStderrLines
}

func (l Limits) connectTimeout() time.Duration {
	if l.ConnectTimeout <= 0 {
		return DefaultConnectTimeout
	}
	return l.ConnectTimeout
}

// errConnectTimedOut is the session life's cause when the connect
// timeout fired.
var errConnectTimedOut = errors.New("connect timeout")

// connectStopped says why connecting ended early, when it was the
// timeout or the caller, and nil otherwise.
func (s *Session) connectStopped(outer context.Context) error {
	if errors.Is(context.Cause(s.life.ctx), errConnectTimedOut) {
		return &ConnectTimeoutError{Target: s.target, Timeout: s.target.Limits.connectTimeout()}
	}
	if outer.Err() != nil {
		if errors.Is(outer.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("no answer to initialize from %s before the caller's deadline", s.target)
		}
		return ErrConnectInterrupted
	}
	return nil
}

// overLimit ends the connecting, or the session, because the server sent
// more than a limit allows. It is for limits hit below the SDK's
// connection (the HTTP client), where no read error reaches the tap.
func (s *Session) overLimit(err error) {
	s.wire.fail(err)
	if s.life.up.Load() {
		go func() {
			s.lose()
			s.cs.Close() // lose cannot close an HTTP connection itself
		}()
	}
}

// tooLarge turns a size-limit error from anywhere (ours, or the SDK's
// own stdio frame limit, which is set a little above ours) into a
// [MessageTooLargeError], or returns nil.
func (l Limits) tooLarge(err error) *MessageTooLargeError {
	var e *MessageTooLargeError
	if errors.As(err, &e) {
		return e
	}
	if strings.Contains(err.Error(), "exceeded the configured maximum line length") {
		return &MessageTooLargeError{What: "stdio message", Limit: l.maxMessageSize(), Read: l.maxMessageSize(), Announced: -1}
	}
	return nil
}

// readLimited reads a whole HTTP body of at most limit bytes; announced
// is its Content-Length (-1 unknown).
func readLimited(r io.Reader, limit, announced int64) ([]byte, error) {
	if announced > limit {
		return nil, &MessageTooLargeError{What: "HTTP response", Limit: limit, Announced: announced}
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(data)) > limit {
		return nil, &MessageTooLargeError{What: "HTTP response", Limit: limit, Read: int64(len(data)), Announced: announced}
	}
	return data, err
}

// lineLimitReader passes a stdio server's output through, failing with a
// [MessageTooLargeError] once a line (a message: the stdio transport
// delimits messages by newlines and forbids newlines inside them) grows
// past limit bytes.
type lineLimitReader struct {
	r     io.Reader
	limit int64
	line  int64 // bytes of the current line so far
	err   error
}

func (l *lineLimitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	rest := p[:n]
	for {
		i := bytes.IndexByte(rest, '\n')
		seg := len(rest)
		if i >= 0 {
			seg = i
		}
		if l.line+int64(seg) > l.limit {
			l.err = &MessageTooLargeError{What: "stdio message", Limit: l.limit, Read: l.line + int64(seg), Announced: -1}
			return 0, l.err
		}
		if i < 0 {
			l.line += int64(seg)
			break
		}
		l.line = 0
		rest = rest[i+1:]
	}
	return n, err
}

// FormatSize prints a byte count for a person: "512 B", "4 KiB",
// "16 MiB", "1.5 GiB".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(n) / unit
	i := 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

// ParseSize reads a size in bytes: a whole number, optionally followed by
// a unit: B, KiB/MiB/GiB (powers of 1024; K, M, G too) or KB/MB/GB
// (powers of 1000). "16MiB", "4 MiB", "16MB" and "1048576" all work.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30,
		"kb": 1e3, "mb": 1e6, "gb": 1e9,
	}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes, optionally with a unit, as in 16MiB, 4MB or 1048576", s)
	}
	n := v * mult
	if n < 1 || n > 1<<50 {
		return 0, fmt.Errorf("size %q: want between 1 byte and 1 PiB", s)
	}
	return int64(n), nil
}

// groupDigits prints n with thousands separators: 1,048,576.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
