package main

import (
	"bytes"
	"io"
	"sync"
)

// noisyFyneErrors are the reasons of errors Fyne logs although nothing
// failed, which the GUI keeps off the terminal. Fyne logs an error in
// three lines, "Fyne error: REASON", "  Cause: …" and "  At: file:line";
// the whole block is dropped.
//
// "Getting favorite locations": every file dialog asks xdg-user-dir for
// the Documents, Downloads, Music, Pictures and Videos folders to list
// as favourites, and reports one that the desktop does not define (a
// fresh account, a server, Xvfb) as an error, although the dialog works
// and simply leaves that favourite out. Neither the dialog's location nor
// its filter changes that question, and making the folders would change
// the person's home; so the block is dropped here, and only this one.
var noisyFyneErrors = [][]byte{
	[]byte("Fyne error:  Getting favorite locations"),
}

// logFilter passes log lines on to w, except the blocks of noisyFyneErrors.
// The standard logger writes each line with one Write.
type logFilter struct {
	w    io.Writer
	mu   sync.Mutex
	skip bool // inside a dropped block
}

// newLogFilter returns a filter writing to w.
func newLogFilter(w io.Writer) *logFilter { return &logFilter{w: w} }

// Write implements [io.Writer] for one log line.
func (f *logFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.skip && (bytes.Contains(p, []byte("  Cause: ")) || bytes.Contains(p, []byte("  At: "))) {
		return len(p), nil
	}
	f.skip = false
	for _, noise := range noisyFyneErrors {
		if bytes.Contains(p, noise) {
			f.skip = true
			return len(p), nil
		}
	}
	return f.w.Write(p)
}
