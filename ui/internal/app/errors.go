package app

import (
	"errors"
	"fmt"
	"log"
	"runtime/debug"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
)

// errorReporter is the one way errors reach the person: a dialog on the
// window, shown on Fyne's main goroutine whichever goroutine reports it.
// It also logs each error and keeps the texts it showed (for tests and
// the log panel).
type errorReporter struct {
	win fyne.Window

	// onError, when set, is called on the main goroutine with each error's
	// text after its dialog is shown.
	onError func(text string)

	mu      sync.Mutex
	shown   []string
	stopped bool // Stop was called: errors are only logged
}

// Stop makes later errors go to the log only, not to a dialog: the window
// calls it when it closes, as after Fyne's main loop ended a dialog would
// be built off the main goroutine.
func (r *errorReporter) Stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
}

// newErrorReporter reports errors on win.
func newErrorReporter(win fyne.Window) *errorReporter {
	return &errorReporter{win: win}
}

// Show reports err, saying what the app was doing ("Connecting to …",
// "Saving the recording") so the person knows what failed. A nil err is
// ignored. Safe to call from any goroutine.
func (r *errorReporter) Show(doing string, err error) {
	if err == nil {
		return
	}
	text := err.Error()
	if doing != "" {
		text = doing + ": " + text
	}
	log.Print("error: ", text)
	r.mu.Lock()
	r.shown = append(r.shown, text)
	r.mu.Unlock()
	fyne.Do(func() {
		r.mu.Lock()
		stopped := r.stopped
		r.mu.Unlock()
		if stopped {
			return
		}
		if r.win != nil {
			dialog.ShowError(errors.New(text), r.win)
		}
		if r.onError != nil {
			r.onError(text)
		}
	})
}

// recover turns a panic in the calling goroutine into an error dialog
// instead of a crash. Use it as `defer reporter.Recover("running the
// workload")` at the top of goroutines that handle a peer's data.
func (r *errorReporter) recover(doing string) {
	if p := recover(); p != nil {
		log.Printf("panic while %s: %v\n%s", doing, p, debug.Stack())
		r.Show(doing, fmt.Errorf("internal error (please report it): %v", p))
	}
}

// Shown returns the texts of the errors reported so far.
func (r *errorReporter) Shown() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.shown...)
}
