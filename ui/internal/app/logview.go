package app

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/recorder"
)

// maxLogLines is how many lines the [logView] keeps; older ones are dropped.
const maxLogLines = 5000

// logFlushEvery is the longest a line waits before it is shown: lines
// arriving closer together are shown in one batch.
const logFlushEvery = 100 * time.Millisecond

// logView shows the server's stderr lines, its log messages and the
// connection's events, newest at the bottom, following the end while it
// is scrolled there. Append is safe from any goroutine and never blocks on
// the UI: lines are batched and shown at most every 100 ms via [fyne.Do].
type logView struct {
	widget.BaseWidget

	list  *widget.List
	clear *widget.Button
	lines []string // main goroutine only

	mu        sync.Mutex
	pending   []string
	scheduled bool
	stopped   bool // Stop was called: lines are no longer shown
}

// Stop stops showing lines: those appended later, or still waiting for
// their batch, are dropped. The window calls it when it closes, so that
// no flush runs after Fyne's main loop ended (fyne.Do would then run it
// off the main goroutine).
func (v *logView) Stop() {
	v.mu.Lock()
	v.stopped = true
	v.pending = nil
	v.mu.Unlock()
}

// newLogView makes an empty log view.
func newLogView() *logView {
	v := &logView{}
	v.ExtendBaseWidget(v)
	v.list = widget.NewList(
		func() int { return len(v.lines) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.TextStyle.Monospace = true
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(v.lines) {
				o.(*widget.Label).SetText(v.lines[i])
			}
		})
	v.clear = widget.NewButton("Clear", func() {
		v.lines = nil
		v.list.Refresh()
	})
	return v
}

// CreateRenderer implements [fyne.Widget].
func (v *logView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(nil, container.NewHBox(v.clear), nil, nil, v.list))
}

// appendEvent adds an event from the server or the connection as one
// line: its time, its kind and its text. Safe from any goroutine.
func (v *logView) appendEvent(e recorder.Event) {
	text := e.Text
	if text == "" && len(e.Data) > 0 {
		text = string(e.Data)
	}
	if text == "" {
		text = e.Method
	}
	v.Append(fmt.Sprintf("%9.3fs %-10s %s", e.At.Seconds(), e.Kind, text))
}

// Append adds one line (or several, split at newlines). Safe from any
// goroutine.
func (v *logView) Append(line string) {
	v.mu.Lock()
	v.pending = append(v.pending, strings.Split(strings.TrimRight(line, "\n"), "\n")...)
	if len(v.pending) > maxLogLines {
		v.pending = v.pending[len(v.pending)-maxLogLines:]
	}
	if !v.scheduled {
		v.scheduled = true
		time.AfterFunc(logFlushEvery, v.flush)
	}
	v.mu.Unlock()
}

// flush moves the pending lines into the list on the main goroutine.
func (v *logView) flush() {
	v.mu.Lock()
	batch := v.pending
	v.pending = nil
	v.scheduled = false
	stopped := v.stopped
	v.mu.Unlock()
	if len(batch) == 0 || stopped {
		return
	}
	fyne.Do(func() {
		v.lines = append(v.lines, batch...)
		if over := len(v.lines) - maxLogLines; over > 0 {
			v.lines = append([]string(nil), v.lines[over:]...)
		}
		v.list.Refresh()
		v.list.ScrollToBottom()
	})
}

// Lines returns the lines shown now. Call it on the main goroutine.
func (v *logView) Lines() []string { return append([]string(nil), v.lines...) }
