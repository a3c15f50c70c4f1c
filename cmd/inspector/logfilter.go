package main

import (
	"bytes"
	"io"
	"sync"
)

// A noisyFyneError is an error Fyne logs although nothing failed, which
// the GUI keeps off the terminal. Fyne logs an error in three lines,
// "Fyne error: REASON", "  Cause: CAUSE" and "  At: file:line"; the whole
// block is dropped when its reason matches and its cause starts with
// cause ("" for any cause).
type noisyFyneError struct{ reason, cause string }

// noisyFyneErrors are the blocks dropped:
//
// "Getting favorite locations": every file dialog asks xdg-user-dir for
// the Documents, Downloads, Music, Pictures and Videos folders to list as
// favourites, and reports one that the desktop does not define (a fresh
// account, a server, Xvfb) as an error, although the dialog works and
// simply leaves that favourite out. Neither the dialog's location nor its
// filter changes that question, and making the folders would change the
// person's home.
//
// "Preferences load error" with cause EOF: Fyne rewrites its preferences
// file at every quit by truncating it first, and another running
// instance's file watcher may read it empty in between; it keeps what it
// had and reads the file again when the write ends. The app keeps its
// own settings in a file of its own, replaced atomically (settings.go in ui/internal/app),
// so Fyne's file holds nothing of ours.
var noisyFyneErrors = []noisyFyneError{
	{reason: "Getting favorite locations"},
	{reason: "Preferences load error", cause: "EOF"},
}

// logFilter passes log lines on to w, except the blocks of noisyFyneErrors.
// The standard logger writes each line with one Write; a reason line is
// held until the cause line after it tells whether to drop the block.
type logFilter struct {
	w     io.Writer
	mu    sync.Mutex
	held  []byte          // a reason line waiting for its cause
	noise *noisyFyneError // the error held names
	skip  bool            // dropping the rest of a block
}

// newLogFilter returns a filter writing to w.
func newLogFilter(w io.Writer) *logFilter { return &logFilter{w: w} }

// Write implements [io.Writer] for one log line.
func (f *logFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held != nil {
		held, noise := f.held, f.noise
		f.held, f.noise = nil, nil
		if c, ok := cause(p); ok && bytes.HasPrefix(c, []byte(noise.cause)) {
			f.skip = true
			return len(p), nil
		}
		if _, err := f.w.Write(held); err != nil {
			return 0, err
		}
	}
	if f.skip && (bytes.Contains(p, []byte("  Cause: ")) || bytes.Contains(p, []byte("  At: "))) {
		return len(p), nil
	}
	f.skip = false
	for i, n := range noisyFyneErrors {
		if bytes.Contains(p, []byte("Fyne error:  "+n.reason)) {
			f.held, f.noise = append([]byte(nil), p...), &noisyFyneErrors[i]
			return len(p), nil
		}
	}
	return f.w.Write(p)
}

// cause returns the cause in a "  Cause: …" line.
func cause(line []byte) ([]byte, bool) {
	_, c, ok := bytes.Cut(line, []byte("  Cause: "))
	return c, ok
}
