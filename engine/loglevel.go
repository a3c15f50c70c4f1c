package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server's log messages (notifications/message) reach the client at a
// level the client chooses, the way the session's protocol era says: up to
// 2025-11-25 with one logging/setLevel request for the session, which the
// server must offer (its logging capability); from 2026-07-28 every
// request carries the level it wants in its _meta, and a server sends the
// messages of a request at that level and above, none without one.

// logLevelTimeout bounds the wait for the answer to logging/setLevel.
const logLevelTimeout = 5 * time.Second

// ErrNoLogging is why no log level can be set on a 2025-11-25 session
// whose server does not offer logging.
var ErrNoLogging = errors.New("the server does not offer logging (its initialize result has no logging capability), so it sends no log messages and no level can be set")

// LogLevel returns the level the server was last asked for (one of
// [recorder.LogLevels]), or "" when none was: a 2025-11-25 server
// without logging.
func (s *Session) LogLevel() string {
	if p := s.logLevel.Load(); p != nil {
		return *p
	}
	return ""
}

// LogLevelRoute says how the log level reaches the server, in a person's
// words, or why it cannot: for the app to show beside its level control.
func (s *Session) LogLevelRoute() string {
	switch {
	case s.multiRoundTrip():
		return "sent in each request's _meta (" + s.info.Protocol + ")"
	case s.info.hasCapability("logging"):
		return "sent with logging/setLevel (" + s.info.Protocol + ")"
	}
	return "the server does not offer logging"
}

// SetLogLevel asks the server for its log messages at level (one of
// [recorder.LogLevels]) and above. On a 2026-07-28 session it applies to
// the requests sent from now on; on a 2025-11-25 session it sends
// logging/setLevel and waits at most 5s for the answer, and a server
// without logging gets nothing and the error is [ErrNoLogging].
func (s *Session) SetLogLevel(ctx context.Context, level string) error {
	if err := recorder.CheckLogLevel(level); err != nil {
		return err
	}
	if s.multiRoundTrip() {
		s.logLevel.Store(&level)
		return nil
	}
	if !s.info.hasCapability("logging") {
		return ErrNoLogging
	}
	ctx, cancel := context.WithTimeout(ctx, logLevelTimeout)
	defer cancel()
	if err := s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
		return s.explainCallError("setting the log level", err)
	}
	s.logLevel.Store(&level)
	return nil
}

// startLogging asks for the log level of the session's target as the
// session starts (see [Target.LogLevel]). A server that refuses or does
// not answer just sends what it sends; a level the person chose that the
// server cannot honour is noted in the recording's events.
func (s *Session) startLogging(ctx context.Context) {
	level := s.target.LogLevel
	if level == "" {
		level = recorder.DefaultLogLevel
	}
	err := s.SetLogLevel(ctx, level)
	switch {
	case err == nil:
	case errors.Is(err, ErrNoLogging) && s.target.LogLevel == "":
		// Nothing was asked for: nothing to say.
	default:
		s.rec.AddEvent(recorder.Event{At: s.rec.Now(), Session: s.name, Kind: recorder.EventConnection,
			Text: fmt.Sprintf("log level %s not set: %v", level, err)})
	}
}

// withLogLevel adds the session's log level to the _meta of a request's
// params on a 2026-07-28 session, where each request carries its own;
// ok is false when they are left as they are.
func (s *Session) withLogLevel(method string, p mcp.Params) (mcp.Params, bool) {
	if !s.multiRoundTrip() {
		return p, false
	}
	level := s.LogLevel()
	if level == "" {
		return p, false
	}
	return withMeta(method, p, mcp.MetaKeyLogLevel, level)
}

// logSpan returns the span a log message read off the wire belongs to,
// or 0: the call its progress token or trace names, the request whose
// HTTP response stream carried it, or the only tool call in flight (see
// [wire.Calls.Link]). A message that cannot be told apart stays on the
// session's lane.
func (s *Session) logSpan(params json.RawMessage, from wireSource) recorder.SpanID {
	var onStream recorder.SpanID
	if from.replyTo.IsValid() && s.wire != nil {
		if c := s.wire.caller(wire.KeyOf(from.replyTo)); c != nil {
			onStream = c.span
		}
	}
	span, _ := s.calls.Link(wire.ClueOf(wire.ReadParams(params), onStream, from.standalone))
	return span
}
