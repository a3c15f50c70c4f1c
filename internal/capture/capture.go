// Package capture owns a recorded run from its first byte to its saved
// files: `inspector run`, `inspector proxy`, the app's connections and the
// app's hosted proxy all record through a [Capture], so they do the same
// things in the same order.
//
// [Start] makes the recording and, in this order, caps its spans,
// registers every secret the run knows of (so that nothing written
// anywhere can show one), builds the HTTP proxy when there is an
// upstream (its URL's credentials are secrets too), opens the journal and
// hands the recording to its observers (the live OTLP push, [Push]).
// Then the face signs in ([Capture.SignIn], OAuth) and connects
// ([Capture.Connect], [Capture.ConnectGroup]) or proxies
// ([Capture.ProxyStdio], [Capture.Serve], [Capture.ServeHTTP]), marks each run as a
// segment ([Capture.Segment]) and at the end calls [Capture.Close], which
// ends the observers, closes the journal and writes --record and the
// exports ([Outputs]), whatever ended the run. The stdio proxy also
// saves --record the moment its client's side ends, because a client
// may kill it before its server has stopped.
//
//	c, err := capture.Start(capture.Options{Meta: meta, Secrets: t.Secrets(), Journal: "auto", Record: "run.json"})
//	if err != nil { … }
//	defer c.Close()
//	g, err := c.ConnectGroup(ctx, t, policy, 1)
//
// [Signals] is the context every command-line face runs under: SIGINT,
// SIGTERM and SIGHUP end the run, and what was recorded is saved.
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/proxy"
	"github.com/fanout-inspector/inspector/internal/outfile"
	"github.com/fanout-inspector/inspector/recorder"
)

// An Observer follows a live recording from its start (the OTLP push
// does); the function it returns, if any, is called once when the
// capture closes, before the files are written.
type Observer func(*recorder.Recording) (done func())

// An Export is a file written from the recording when the capture
// closes, named by the flag that asked for it (as in --trace).
type Export struct {
	Flag  string
	Path  string
	Write func(w io.Writer, snap *recorder.Snapshot) error
}

// Options say what a capture records, what it knows of secrets and where
// the recording goes.
type Options struct {
	// Meta is the recording's title, target and inspector version.
	Meta recorder.Meta
	// MaxSpans caps the spans the recording keeps
	// ([recorder.Recording.SetMaxSpans]); 0 keeps every span.
	MaxSpans int
	// Secrets are kept out of everything recorded, written or shown; they
	// are registered before anything else happens.
	Secrets []string

	// Journal is the file the recording is journaled to as it happens
	// ("" none; "auto" a fresh file in [recorder.DefaultJournalDir]).
	Journal string
	// JournalDir, with Journal "", journals to a fresh file in this
	// folder named JournalPrefix-TIME.jsonl (the app's way).
	JournalDir    string
	JournalPrefix string
	// OnJournalError, when set, is told why the journal could not be
	// opened and the capture goes on without one; when nil, [Start]
	// fails instead.
	OnJournalError func(error)

	// Observers follow the recording from its start.
	Observers []Observer

	// Upstream, for a proxy over HTTP, is the real server's URL: [Start]
	// builds the proxy ([Capture.HTTPProxy]) with Limits.
	Upstream string
	// Limits bound what the proxy records.
	Limits engine.Limits

	// Record is where the recording is saved when the capture closes
	// ("" nowhere); Exports are written beside it.
	Record  string
	Exports []Export

	// Log, when set, receives the standard logger's lines (net/http's
	// errors, which may quote what a peer sent) through the scrubber of
	// this capture and of every capture before it in the process. The app
	// passes log.Writer(), its log filter; once routed, that is the
	// router itself, and the lines keep going where they went.
	Log io.Writer

	// Tell shows the person a notice of the OAuth sign-in (where to sign
	// in); OpenBrowser opens the authorization address (nil: the address
	// is only told).
	Tell        func(string)
	OpenBrowser func(string) error
}

// A Capture is one recorded run. Its methods are safe for concurrent use.
type Capture struct {
	o       Options
	rec     *recorder.Recording
	http    *proxy.HTTP
	journal *recorder.Journal

	mu    sync.Mutex
	dones []func() // of the observers, until Close
	done  bool
	err   error // Close's
	tell  sync.Mutex
}

// Start makes the recording and sets up everything around it, in this
// order: the span cap, the secrets, the HTTP proxy (when o.Upstream is
// set), the journal, the observers. It fails on a bad upstream URL or,
// without o.OnJournalError, with a [JournalError] when the journal cannot
// be opened; nothing has been written then.
func Start(o Options) (*Capture, error) {
	rec := recorder.New(o.Meta)
	rec.SetMaxSpans(o.MaxSpans)
	rec.AddSecrets(o.Secrets...) // before anything is written anywhere
	if o.Log != nil {
		stdLog.route(o.Log, rec.Scrubber())
	}
	c := &Capture{o: o, rec: rec}
	if o.Upstream != "" {
		p, err := proxy.NewHTTP(o.Upstream, rec, o.Limits, nil) // registers the URL's credentials
		if err != nil {
			return nil, err
		}
		c.http = p
	}
	j, err := openJournal(o, rec)
	switch {
	case err != nil && o.OnJournalError == nil:
		return nil, &JournalError{Err: err}
	case err != nil:
		o.OnJournalError(err)
	default:
		c.journal = j
	}
	for _, observe := range o.Observers {
		if observe == nil {
			continue
		}
		if done := observe(rec); done != nil {
			c.dones = append(c.dones, done)
		}
	}
	return c, nil
}

// A JournalError is [Start]'s error when the journal could not be
// opened.
type JournalError struct{ Err error }

func (e *JournalError) Error() string { return "--journal: " + e.Err.Error() }
func (e *JournalError) Unwrap() error { return e.Err }

// openJournal opens the journal o asks for, or returns nil.
func openJournal(o Options, rec *recorder.Recording) (*recorder.Journal, error) {
	switch {
	case o.Journal == "auto":
		return recorder.OpenJournal("", rec)
	case o.Journal != "":
		return recorder.OpenJournal(o.Journal, rec)
	case o.JournalDir != "":
		if err := recorder.MakeJournalDir(o.JournalDir); err != nil {
			return nil, err
		}
		name := filepath.Join(o.JournalDir, o.JournalPrefix+"-"+time.Now().Format("20060102-150405.000")+".jsonl")
		return recorder.OpenJournal(name, rec)
	}
	return nil, nil
}

// Recording returns the live recording.
func (c *Capture) Recording() *recorder.Recording { return c.rec }

// JournalPath returns the journal's file, or "" without one.
func (c *Capture) JournalPath() string {
	if c.journal == nil {
		return ""
	}
	return c.journal.Path()
}

// Segment marks a run of tool under dispatch (as the app says it:
// "bounded 4") as a named segment of the recording; call the function it
// returns when the run ends.
func (c *Capture) Segment(tool, dispatch string) (end func()) {
	n := c.rec.BeginRun(tool, dispatch)
	return func() { c.rec.EndRun(n) }
}

// Scrub returns text without the recording's secrets, for what a face
// shows the person.
func (c *Capture) Scrub(text string) string { return c.rec.Scrub(text) }

// Close ends the capture, however the run ended: it ends the observers,
// closes the journal, saves the recording to Options.Record and writes
// the exports. A file that cannot be written does not stop the others;
// the error says each one (as "--trace FILE: …"). Later calls return the
// first call's error.
func (c *Capture) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return c.err
	}
	c.done = true
	for _, done := range c.dones {
		done()
	}
	c.dones = nil
	var errs []error
	if c.journal != nil {
		if err := c.journal.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--journal %s: %w", c.journal.Path(), err))
		}
	}
	if c.o.Record == "" && len(c.o.Exports) == 0 {
		c.err = errors.Join(errs...)
		return c.err
	}
	snap := c.rec.Snapshot()
	if c.o.Record != "" {
		if err := recorder.SaveFile(c.o.Record, snap); err != nil {
			errs = append(errs, fmt.Errorf("cannot save the recording: %w", err))
		}
	}
	for _, e := range c.o.Exports {
		if e.Path == "" {
			continue
		}
		if err := writeFile(e.Path, func(w io.Writer) error { return e.Write(w, snap) }); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", e.Flag, e.Path, err))
		}
	}
	c.err = errors.Join(errs...)
	return c.err
}

// writeFile writes path with write ([outfile.Write]): a failed write
// leaves no half-written file behind, and a device, pipe or symbolic link
// is never replaced nor removed.
func writeFile(path string, write func(io.Writer) error) error {
	return outfile.Write(path, write)
}

// A SignInError is [Capture.Connect]'s error when the OAuth sign-in
// failed: the server was never asked to connect.
type SignInError struct{ Err error }

func (e *SignInError) Error() string { return e.Err.Error() }
func (e *SignInError) Unwrap() error { return e.Err }

// Connect signs in when t asks for OAuth, then connects one session to
// t answering with policy, recording into the capture. A failed sign-in
// is a [SignInError].
func (c *Capture) Connect(ctx context.Context, t engine.Target, policy engine.AnswerPolicy) (*engine.Session, error) {
	if err := c.SignIn(ctx, t); err != nil {
		return nil, &SignInError{Err: err}
	}
	return engine.Connect(ctx, t, policy, c.rec)
}

// ConnectGroup is [Capture.Connect] for n sessions at once, named s1 to
// sn ([engine.ConnectGroup]).
func (c *Capture) ConnectGroup(ctx context.Context, t engine.Target, policy engine.AnswerPolicy, n int) (*engine.Group, error) {
	if err := c.SignIn(ctx, t); err != nil {
		return nil, &SignInError{Err: err}
	}
	return engine.ConnectGroup(ctx, t, policy, c.rec, n)
}
