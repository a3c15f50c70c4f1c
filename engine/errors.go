package engine

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The errors a caller decides on by kind, with errors.Is and errors.As,
// never by their text: what went wrong connecting ([ConnectError],
// [ConnectTimeoutError], [ErrConnectInterrupted], [MessageTooLargeError]),
// what the HTTP server answered ([HTTPStatusError]) and why a connection
// ended on its own ([ConnectionLostError]).

// ConnectError is [Connect]'s error when the transport or the initialize
// handshake failed for a reason the engine has no more telling error for
// (a refused connection, an HTTP error status, the SDK giving up). It
// names the target, so that a caller can put what went wrong (Err) in
// its own words without taking the target out of the text.
type ConnectError struct {
	// Target is the server that could not be connected to.
	Target Target
	// Err is what went wrong, with the target's secrets taken out.
	Err error
	// Status is the HTTP server's refusal of the handshake (an answer of
	// 400 or more), when it sent one; nil otherwise.
	Status *HTTPStatusError
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("connecting to %s: %v", e.Target, e.Err)
}

// Unwrap returns Err and, when there is one, Status: errors.As finds an
// [HTTPStatusError] through a ConnectError.
func (e *ConnectError) Unwrap() []error {
	if e.Status != nil {
		return []error{e.Err, e.Status}
	}
	return []error{e.Err}
}

// HTTPStatusError is an HTTP server's answer with a status of 300 or
// more to a request of the client, as the HTTP transports saw it below
// the SDK (whose own errors give the status only as text).
type HTTPStatusError struct {
	// Code is the status code, as in 401.
	Code int
	// Status is the status line's text, as in "401 Unauthorized".
	Status string
}

func (e *HTTPStatusError) Error() string { return "HTTP " + e.Status }

// Refused reports whether the server refused the client's credentials:
// 401 Unauthorized or 403 Forbidden.
func (e *HTTPStatusError) Refused() bool {
	return e.Code == http.StatusUnauthorized || e.Code == http.StatusForbidden
}

// ConnectionLostError is [Session.Err] (and, wrapped with the session's
// name, [Group.Err]) when the connection ended without Close being
// called: the server exited or closed its output, an HTTP server broke
// off the response stream of a call, or the server sent something that
// cannot be read. Requests still open when it happened end as aborted,
// with its text as their error. A call or a run that fails because of
// the loss returns an error that wraps it.
type ConnectionLostError struct {
	// Err says why, as well as can be known, with the session's secrets
	// taken out.
	Err error
}

func (e *ConnectionLostError) Error() string { return e.Err.Error() }

func (e *ConnectionLostError) Unwrap() error { return e.Err }

// streamBrokenError says that the HTTP exchange of a call broke off
// before the call's answer: the server could not be reached, closed the
// connection before its response, or cut its response stream in the
// middle with nothing to resume it from. The server stopped or crashed
// mid-call; the SDK would fail the call alone and keep the session.
type streamBrokenError struct{ err error }

func (e *streamBrokenError) Error() string {
	return fmt.Sprintf("the HTTP server broke off a call before answering it (%v): it stopped or crashed", e.err)
}

func (e *streamBrokenError) Unwrap() error { return e.err }

// MessageTooLargeError says that the server sent a message larger than
// [Limits.MaxMessageSize]. Reading stopped there: the rest was never
// held in memory.
type MessageTooLargeError struct {
	// What was too large: "HTTP response", "server-sent event" or
	// "stdio message".
	What string
	// Limit is the limit in bytes.
	Limit int64
	// Read is how many bytes of the message were read before stopping.
	Read int64
	// Announced is the size the server announced (Content-Length), or -1.
	Announced int64
}

func (e *MessageTooLargeError) Error() string {
	size := fmt.Sprintf("reading stopped after %s without reaching its end", FormatSize(e.Read))
	if e.Announced > e.Limit {
		size = fmt.Sprintf("it announced %s (Content-Length)", FormatSize(e.Announced))
	}
	return fmt.Sprintf("the server's %s was larger than the %s message limit (--max-message-size): %s; "+
		"raise the limit if the server really sends messages this large", e.What, FormatSize(e.Limit), size)
}

// ConnectTimeoutError says that the server did not finish the initialize
// handshake within [Limits.ConnectTimeout].
type ConnectTimeoutError struct {
	Target  Target
	Timeout time.Duration
}

func (e *ConnectTimeoutError) Error() string {
	var server string
	switch e.Target.kind() {
	case TransportStdio:
		server = fmt.Sprintf("the stdio server %q", e.Target.Command)
	case TransportHTTP, TransportSSE:
		// Through String, which is how a URL may be shown (credentials
		// in it are not for messages).
		server = fmt.Sprintf("the %s server at %s", e.Target.kind(), strings.TrimPrefix(e.Target.String(), string(e.Target.kind())+": "))
	default:
		server = "the " + string(e.Target.kind()) + " server"
	}
	return fmt.Sprintf("no answer to initialize from %s within %v (--connect-timeout)", server, e.Timeout)
}

// ErrConnectInterrupted is returned by [Connect] when its context was
// cancelled (a signal, the person giving up) before the server answered
// initialize: nothing is known to be wrong with the server.
var ErrConnectInterrupted = errors.New("interrupted while waiting for the server to initialize")
