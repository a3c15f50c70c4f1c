package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// life is the session's life and ending: a context that ends when the
// session does (ending every wait: latencies, queues, people, calls),
// whether the session is up or being closed, and why it ended.
type life struct {
	ctx  context.Context
	stop context.CancelCauseFunc

	up      atomic.Bool // the session is up and watch will close done
	closing atomic.Bool // Close is ending it
	endOnce sync.Once
	done    chan struct{}
	err     atomic.Pointer[error] // why the connection was lost

	closeOnce sync.Once
	closeErr  error
}

// start begins the life, outliving ctx: transports keep the context they
// connect with for the whole session.
func (l *life) start(ctx context.Context) {
	l.ctx, l.stop = context.WithCancelCause(context.WithoutCancel(ctx))
	l.done = make(chan struct{})
}

// endClosed ends the life's context because the session is closed.
func (l *life) endClosed() { l.stop(errSessionClosed) }

// ended reports whether the session has ended.
func (l *life) ended() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// watch waits for the connection to end and records why, unless the
// read side of the wire saw the end first (see [Session.lose]).
func (s *Session) watch() {
	waitErr := s.cs.Wait()
	switch {
	case s.life.closing.Load():
		s.closeTransport()
		s.end(s.rec.Now(), nil)
	case !s.isDone():
		// Lost where the tap could not see it (an HTTP transport), or
		// before the session was up.
		var cause error
		if s.wire != nil && s.wire.failure() != nil {
			// The cause is known; a stdio server still running is reaped
			// (which may take its terminate timeout) in the background.
			cause = s.explainWireError(s.wire.failure())
			go s.closeTransport()
		} else {
			s.closeTransport() // quick: the server has gone, reap it
			cause = s.lostCause(waitErr)
		}
		s.end(s.rec.Now(), cause)
	}
	// Every handler has returned: nothing will claim a request any more.
	if s.wire != nil {
		s.wire.reset()
	}
}

// lose ends the session the moment reading from the server fails while
// the session is up and not being closed: a server that exited, closed
// its output or wrote something that is not JSON-RPC. Without this the
// session would end only once every request being served had returned
// and the server process had been reaped, which a slow latency, a server
// slow to exit or a helper process holding its stderr can stretch by
// seconds. It runs on the reading goroutine before the SDK learns of the
// error, so a call that fails because of the loss returns after Done is
// closed and Err says why.
func (s *Session) lose() {
	if !s.life.up.Load() || s.life.closing.Load() || s.isDone() {
		return // not up yet (connect reports it), or Close is ending it
	}
	at := s.rec.Now()
	var cause error
	if err := s.wire.failure(); err != nil {
		// The server is still running: stop it in the background.
		go s.closeTransport()
		cause = s.explainWireError(err)
	} else {
		// The server's output ended: it has exited, or is exiting. Reap
		// it for its exit status, but do not wait long for one that
		// lingers.
		reaped := make(chan struct{})
		go func() {
			s.closeTransport()
			close(reaped)
		}()
		t := time.NewTimer(time.Second)
		select {
		case <-reaped:
			t.Stop()
			cause = s.lostCause(nil)
		case <-t.C:
			cause = errors.New("the server closed its output (stdout) but did not exit; it is being stopped")
		}
	}
	s.end(at, cause)
}

// end ends the session, once: spans still open are aborted as of at with
// the reason, the disconnection is recorded, every wait of the session
// (latencies, queues, people, calls) is cut short and Done is closed.
// cause is why the connection was lost, nil when Close ended it.
func (s *Session) end(at time.Duration, cause error) {
	s.life.endOnce.Do(func() {
		reason := "session closed"
		ev := recorder.Event{At: at, Session: s.name, Kind: recorder.EventConnection}
		if cause != nil {
			cause = &ConnectionLostError{Err: s.redact(cause)}
			s.life.err.Store(&cause)
			reason = cause.Error()
			ev.Text = "connection lost: " + reason
		} else {
			ev.Text = "disconnected: " + reason
		}
		s.abortOpen(at, reason)
		s.stderr.flush()
		s.rec.AddEvent(ev)
		s.emitLog(ev)
		if cause != nil {
			s.life.stop(cause)
		} else {
			s.life.endClosed()
		}
		// Requests waiting for a person stop waiting now, not when their
		// handlers next run: whoever shows them sees Done closed before
		// the session's.
		s.hooks.endWaits()
		close(s.life.done)
		s.hooks.notices.stop()
	})
}

// lostCause says, as well as can be known, why the connection ended
// without Close being called.
func (s *Session) lostCause(waitErr error) error {
	if s.wire != nil {
		if err := s.wire.failure(); err != nil {
			return s.explainWireError(err)
		}
	}
	if s.cmd != nil && s.cmd.ProcessState != nil {
		msg := "server exited: " + s.cmd.ProcessState.String()
		if tail := s.stderr.last(); tail != "" {
			msg += " (last stderr line: " + tail + ")"
		}
		return errors.New(msg)
	}
	if waitErr != nil && !errors.Is(waitErr, io.EOF) {
		return fmt.Errorf("connection lost: %w", waitErr)
	}
	return errors.New("connection closed by the server")
}

// Done is closed when the connection has ended, closed or lost. A loss
// over stdio or in process (the server exited, closed its output or wrote
// something that is not JSON-RPC) closes it the moment the read fails,
// with Err already set: a call or Run that fails because of the loss
// returns after Done is closed.
func (s *Session) Done() <-chan struct{} { return s.life.done }

// Err says why the connection was lost; it is nil while connected and
// after Close.
func (s *Session) Err() error {
	if err := s.life.err.Load(); err != nil {
		return *err
	}
	return nil
}

// Close disconnects. Spans still open end as aborted, and the HTTP
// exchanges still open (the event streams) end as closed by the client:
// once Close returns, the recording holds the session's end. Close is
// idempotent.
func (s *Session) Close() error {
	s.life.closeOnce.Do(func() {
		if s.exchanges != nil {
			defer s.exchanges.CloseOpen()
		}
		select {
		case <-s.life.done:
			return // already lost; Err keeps saying why
		default:
		}
		s.life.closing.Store(true)
		s.life.endClosed()
		err := s.cs.Close()
		<-s.life.done
		if err != nil && !s.closedCleanly(err) {
			s.life.closeErr = err
		}
	})
	return s.life.closeErr
}

// closedCleanly reports whether err from closing is just the server
// process ending because we closed its stdin.
func (s *Session) closedCleanly(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, exec.ErrWaitDelay)
}

func (s *Session) closeTransport() {
	if s.wire != nil {
		s.wire.closeInner()
	}
}

// waitDone waits up to d for the session to end.
func (s *Session) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.life.done:
		return true
	case <-t.C:
		return false
	}
}

func (s *Session) isDone() bool { return s.life.ended() }

// abortOpen ends the session's spans still open as aborted, as of at:
// only its own, as sessions of a load test share one recording.
func (s *Session) abortOpen(at time.Duration, reason string) {
	for _, sp := range s.rec.Snapshot().Spans {
		if sp.Open() && sp.Session == s.name {
			s.rec.End(sp.ID, at, recorder.Outcome{Status: recorder.StatusAborted, Error: reason})
		}
	}
}
