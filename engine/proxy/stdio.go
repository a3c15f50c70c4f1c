package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// StopGrace is how long a server is given to exit after SIGTERM when the
// proxy is stopped, before it is killed.
const StopGrace = 5 * time.Second

// Stdio is a proxy between a client that talks to this process over
// stdin and stdout, as it would to its server, and the real server,
// which the proxy starts. Every byte passes both ways unchanged; the
// server's stderr passes to Stderr and into the recording.
type Stdio struct {
	// Command is the server's program and arguments.
	Command []string
	// Env is added to the server's environment ("K=V" each), which is
	// otherwise the proxy's [engine.InheritedEnv].
	Env []string
	// InheritEnv gives the server the proxy's whole environment.
	InheritEnv bool
	// Dir is the server's working directory ("" for the proxy's).
	Dir string

	// ClientIn and ClientOut are the client's side: what it writes, and
	// where the server's messages go.
	ClientIn  io.Reader
	ClientOut io.Writer
	// Stderr receives the server's stderr as it writes it.
	Stderr io.Writer

	// Rec is where the messages are recorded.
	Rec *recorder.Recording
	// Limits bound what is recorded: a message over MaxMessageSize is
	// passed on but not recorded; stderr lines as for a session.
	Limits engine.Limits

	// Checkpoint, when set, is called once, as soon as the client's side
	// has ended (its stdin reached its end or failed) or ctx is done,
	// with everything passed on until then in Rec: the moment to save the
	// recording as it stands, for a client that ends its server (here
	// the proxy) closes its stdin, waits, then kills it, maybe while the
	// proxy still waits for its own server to exit.
	Checkpoint func()
}

// Result is how a proxy session ended.
type Result struct {
	// ExitCode is the server's exit status, -1 if it was ended by a
	// signal or never started.
	ExitCode int
	// Reason says in words why the session ended, as recorded.
	Reason string
}

// Run starts the server and passes messages until the server exits or
// ctx is done (then the server is sent SIGTERM, and killed after
// [StopGrace]). The client closing its stdin closes the server's, as if
// the client were connected directly. Run returns an error only when
// the server could not be started.
func (p *Stdio) Run(ctx context.Context) (Result, error) {
	if len(p.Command) == 0 {
		return Result{ExitCode: -1}, errors.New("no server command: give the server's command line, e.g. --stdio 'python server.py'")
	}
	limit := p.Limits.MaxMessageSize
	if limit <= 0 {
		limit = engine.DefaultMaxMessageSize
	}
	book := NewBook(p.Rec)
	keeper := newBookkeeper(book, limit)
	stderrLog := engine.NewStderrLog(p.Rec, Session, p.Limits.MaxStderrLines, nil)

	cmd := exec.Command(p.Command[0], p.Command[1:]...)
	cmd.Env = engine.ServerEnv(p.Env, p.InheritEnv)
	cmd.Dir = p.Dir
	cmd.Stderr = passThrough{to: p.Stderr, log: stderrLog}
	cmd.SysProcAttr = serverProcAttr()
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("cannot start the server %q: %w", strings.Join(p.Command, " "), err)
	}
	p.Rec.AddEvent(recorder.Event{At: p.Rec.Now(), Session: Session, Kind: recorder.EventConnection,
		Text: fmt.Sprintf("proxy started the server (pid %d)", cmd.Process.Pid)})

	var (
		mu         sync.Mutex
		reason     string // the first thing that ended the session
		checkpoint sync.Once
	)
	// what was passed on is booked, then the owner saves it
	booked := func() {
		checkpoint.Do(func() {
			if p.Checkpoint != nil {
				keeper.flush()
				p.Checkpoint()
			}
		})
	}
	end := func(r string) {
		mu.Lock()
		if reason == "" {
			reason = r
		}
		mu.Unlock()
	}

	// Client to server. The client's stdin is not ours to close: when the
	// server ends first this goroutine stays blocked in Read, which is
	// harmless, the process is about to exit.
	go func() {
		err := pump(p.ClientIn, toServer, FromClient, keeper, p.Rec)
		var we *writeError
		switch {
		case errors.As(err, &we):
			end("the server stopped reading its stdin: " + we.err.Error())
		case err != nil:
			end("reading the client failed: " + err.Error())
		default:
			end("the client closed its end (stdin)")
		}
		toServer.Close() // the server sees the end of its input, as without the proxy
		booked()
	}()

	// Server to client, until the server's stdout ends.
	s2c := make(chan error, 1)
	go func() { s2c <- pump(fromServer, p.ClientOut, FromServer, keeper, p.Rec) }()

	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			end("the proxy was stopped (" + context.Cause(ctx).Error() + ")")
			terminate(cmd.Process, stopped)
			booked()
		case <-stopped:
		}
	}()

	perr := <-s2c
	var we *writeError
	if errors.As(perr, &we) {
		end("the client stopped reading the server's messages: " + we.err.Error())
		terminate(cmd.Process, stopped) // the client is gone: so is its server
		io.Copy(io.Discard, fromServer) //nolint:errcheck // let Wait finish
	}
	werr := cmd.Wait()
	close(stopped)
	stderrLog.Flush()

	res := Result{ExitCode: cmd.ProcessState.ExitCode()}
	exit := exitText(cmd.ProcessState, werr)
	mu.Lock()
	r := reason
	mu.Unlock()
	if r == "" {
		r = "the server ended its output"
	}
	res.Reason = r + "; " + exit
	keeper.flush() // what the pumps passed on is booked before the book closes
	book.Close(p.Rec.Now(), res.Reason)
	return res, nil
}

// exitText says how the server process ended.
func exitText(st *os.ProcessState, err error) string {
	if st == nil {
		return fmt.Sprintf("the server could not be waited for (%v)", err)
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("the server was ended by signal %v", ws.Signal())
	}
	return fmt.Sprintf("the server exited with status %d", st.ExitCode())
}

// terminate sends the server SIGTERM and, if it has not exited after
// [StopGrace], kills it.
func terminate(proc *os.Process, exited <-chan struct{}) {
	_ = proc.Signal(syscall.SIGTERM)
	go func() {
		select {
		case <-exited:
		case <-time.After(StopGrace):
			_ = proc.Kill()
		}
	}()
}

// passThrough copies the server's stderr to the proxy's stderr and into
// the recording. A stderr that fails does not stop the recording.
type passThrough struct {
	to  io.Writer
	log *engine.StderrLog
}

func (w passThrough) Write(p []byte) (int, error) {
	if w.to != nil {
		_, _ = w.to.Write(p)
	}
	return w.log.Write(p)
}
