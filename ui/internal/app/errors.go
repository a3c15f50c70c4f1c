package app

import (
	"errors"
	"fmt"
	"log"
	"runtime/debug"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
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

	// gate hands the dialogs to the main goroutine: once the window
	// closed it, errors are only logged
	gate *mainloop.Gate

	mu    sync.Mutex
	shown []string
}

// newErrorReporter reports errors on win, through gate.
func newErrorReporter(win fyne.Window, gate *mainloop.Gate) *errorReporter {
	return &errorReporter{win: win, gate: gate}
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
	r.gate.Do(func() {
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
