package app

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
)

// maxLogLines is how many lines the [logView] keeps; older ones are dropped.
const maxLogLines = 5000

// logFlushEvery is the longest a line waits before it is shown: lines
// arriving closer together are shown in one batch.
const logFlushEvery = 100 * time.Millisecond

// What the Show select of the Logs tab offers.
const (
	showAll        = "Everything"
	showMessages   = "Log messages"
	showStderr     = "Stderr"
	showConnection = "Connection"
)

// anyLevel and anyLogger are the filters' "no filter" choices.
const (
	anyLevel  = "any level"
	anyLogger = "any logger"
)

// logLine is one line of the [logView]: an event of the server or the
// connection (or a note of the app's own), and the log message it holds
// when it is one.
type logLine struct {
	kind  recorder.EventKind
	text  string // as shown: time, kind, text
	log   bool   // a server log message: level and logger are its own
	level string
	rank  int // the level's place in recorder.LogLevels, -1 if it has none
	by    string
}

// logView is the Logs tab: the server's log messages (notifications/message)
// beside its stderr lines and the connection's events, newest at the
// bottom, following the end. A person picks what to show (everything, log
// messages, stderr, the connection), the least level and a logger, and
// searches; and asks the server for another level (loglevel.go). Append
// and appendEvent are safe from any goroutine and never block on the UI:
// lines are batched and shown at most every 100 ms through the window's
// [mainloop.Gate]. It keeps the last [maxLogLines] lines.
type logView struct {
	widget.BaseWidget

	list    *widget.List
	clear   *widget.Button
	show    *widget.Select
	level   *widget.Select
	logger  *widget.Select
	search  *widget.Entry
	count   *widget.Label
	control *logLevelControl // asks the server for a level (loglevel.go)

	lines   []logLine // main goroutine only
	shown   []int     // indices into lines that pass the filters
	loggers []string  // the loggers seen, sorted

	// gate hands the batches to the main goroutine; once the window
	// closed it, lines appended or waiting for their batch are dropped
	gate *mainloop.Gate

	mu        sync.Mutex
	pending   []logLine
	scheduled bool
}

// lineList is a list of one-line monospace rows, cut with an ellipsis
// where the panel is narrower than a line: the log, the protocol's
// messages and the server's stderr. set fills row i (below length()).
func lineList(length func() int, set func(i int, l *widget.Label)) *widget.List {
	return widget.NewList(length,
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.TextStyle.Monospace = true
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < length() {
				set(i, o.(*widget.Label))
			}
		})
}

// newLogView makes an empty log view that shows its lines through gate.
func newLogView(gate *mainloop.Gate) *logView {
	v := &logView{gate: gate}
	v.ExtendBaseWidget(v)
	v.list = lineList(func() int { return len(v.shown) }, func(i int, l *widget.Label) {
		line := v.lines[v.shown[i]]
		l.Importance = lineImportance(line)
		l.SetText(line.text)
	})
	v.clear = widget.NewButton("Clear", func() {
		v.lines, v.shown = nil, nil
		v.list.Refresh()
		v.updateCount()
	})
	v.show = widget.NewSelect([]string{showAll, showMessages, showStderr, showConnection}, func(string) { v.refilter() })
	v.show.SetSelected(showAll)
	v.level = widget.NewSelect(append([]string{anyLevel}, recorder.LogLevels...), func(string) { v.refilter() })
	v.level.SetSelected(anyLevel)
	v.logger = widget.NewSelect([]string{anyLogger}, func(string) { v.refilter() })
	v.logger.SetSelected(anyLogger)
	v.search = widget.NewEntry()
	v.search.SetPlaceHolder("Search")
	v.search.OnChanged = func(string) { v.refilter() }
	v.count = widget.NewLabel("")
	v.control = newLogLevelControl(gate)
	return v
}

// CreateRenderer implements [fyne.Widget].
func (v *logView) CreateRenderer() fyne.WidgetRenderer {
	// two filters a line, so that the row fits the panel's column (on
	// one line it ran past it, under the timeline)
	filters := container.NewVBox(
		container.NewGridWithColumns(2,
			container.NewBorder(nil, nil, widget.NewLabel("Show"), nil, v.show),
			container.NewBorder(nil, nil, widget.NewLabel("at least"), nil, v.level)),
		container.NewGridWithColumns(2, v.logger, v.search))
	top := container.NewVBox(v.control.row(), filters)
	bottom := container.NewBorder(nil, nil, nil, v.clear, v.count)
	return widget.NewSimpleRenderer(container.NewBorder(top, bottom, nil, nil, v.list))
}

// lineImportance colours a server log message by its level: warnings
// in the warning colour, error and worse in the error colour.
func lineImportance(l logLine) widget.Importance {
	switch {
	case !l.log || l.rank < 0:
		return widget.MediumImportance
	case l.rank >= recorder.LogLevelRank("error"):
		return widget.DangerImportance
	case l.rank >= recorder.LogLevelRank("warning"):
		return widget.WarningImportance
	case l.rank <= recorder.LogLevelRank("debug"):
		return widget.LowImportance
	}
	return widget.MediumImportance
}

// appendEvent adds an event from the server or the connection as one
// line: its time, its kind and its text. Safe from any goroutine.
func (v *logView) appendEvent(e recorder.Event) { v.add([]logLine{eventLine(e)}) }

// eventLine is the line of an event: its time, its kind and its text.
func eventLine(e recorder.Event) logLine {
	text := e.Text
	if text == "" && len(e.Data) > 0 {
		text = string(e.Data)
	}
	if text == "" {
		text = e.Method
	}
	// a server's text: its escape sequences and line breaks shown as
	// such, not acted on (recorder.PlainLine, as the transcript does)
	l := logLine{kind: e.Kind, text: fmt.Sprintf("%9.3fs %-10s %s", e.At.Seconds(), e.Kind, recorder.PlainLine(text)), rank: -1}
	if m, ok := recorder.LogOf(e); ok {
		l.log, l.level, l.rank, l.by = true, m.Level, recorder.LogLevelRank(m.Level), m.Logger
	}
	return l
}

// Append adds one line (or several, split at newlines) of the app's own.
// Safe from any goroutine.
func (v *logView) Append(line string) {
	var ls []logLine
	for _, s := range strings.Split(strings.TrimRight(line, "\n"), "\n") {
		ls = append(ls, logLine{kind: recorder.EventOther, text: s, rank: -1})
	}
	v.add(ls)
}

// add queues lines for the next batch.
func (v *logView) add(ls []logLine) {
	if v.gate.Closed() {
		return
	}
	v.mu.Lock()
	v.pending = append(v.pending, ls...)
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
	v.mu.Unlock()
	if len(batch) > 0 {
		v.gate.Do(func() { v.take(batch) })
	}
}

// take shows a batch of lines: those the filters pass are added to the
// list, which follows the end. Call it on the main goroutine.
func (v *logView) take(batch []logLine) {
	newLogger := false
	for _, l := range batch {
		if l.log && l.by != "" {
			if i, found := slices.BinarySearch(v.loggers, l.by); !found {
				v.loggers = slices.Insert(v.loggers, i, l.by)
				newLogger = true
			}
		}
	}
	if newLogger {
		v.logger.SetOptions(append([]string{anyLogger}, v.loggers...))
	}
	from := len(v.lines)
	v.lines = append(v.lines, batch...)
	if over := len(v.lines) - maxLogLines; over > 0 {
		v.lines = append([]logLine(nil), v.lines[over:]...)
		v.refilter() // every index moved
	} else {
		f := v.filter()
		for i := from; i < len(v.lines); i++ {
			if f(v.lines[i]) {
				v.shown = append(v.shown, i)
			}
		}
		v.list.Refresh()
		v.updateCount()
	}
	v.list.ScrollToBottom()
}

// filter is what the Show, level, logger and search choices let through.
func (v *logView) filter() func(logLine) bool {
	show, level, logger := v.show.Selected, v.level.Selected, v.logger.Selected
	least := recorder.LogLevelRank(level)
	search := strings.ToLower(strings.TrimSpace(v.search.Text))
	return func(l logLine) bool {
		switch show {
		case showMessages:
			if !l.log {
				return false
			}
		case showStderr:
			if l.kind != recorder.EventStderr {
				return false
			}
		case showConnection:
			if l.kind != recorder.EventConnection {
				return false
			}
		}
		// The level and the logger choose among log messages; the
		// other lines have neither and stay.
		if l.log && least >= 0 && l.rank < least {
			return false
		}
		if logger != anyLogger && logger != "" && (!l.log || l.by != logger) {
			return false
		}
		return search == "" || strings.Contains(strings.ToLower(l.text), search)
	}
}

// refilter chooses the lines shown again after a filter changed.
func (v *logView) refilter() {
	if v.list == nil || v.search == nil || v.logger == nil || v.level == nil || v.show == nil {
		return // still being built
	}
	f := v.filter()
	v.shown = v.shown[:0]
	for i, l := range v.lines {
		if f(l) {
			v.shown = append(v.shown, i)
		}
	}
	v.list.Refresh()
	v.updateCount()
}

// updateCount says how many lines are shown of how many kept.
func (v *logView) updateCount() {
	if v.count == nil {
		return
	}
	switch {
	case len(v.lines) == 0:
		v.count.SetText("")
	case len(v.shown) == len(v.lines):
		v.count.SetText(fmt.Sprintf("%d lines (the last %d are kept)", len(v.lines), maxLogLines))
	default:
		v.count.SetText(fmt.Sprintf("%d of %d lines shown", len(v.shown), len(v.lines)))
	}
}

// showRecording lists the events of an opened recording, named name, in
// place of what the tab held: its log messages, stderr lines and
// connection events in time order, the last [maxLogLines] of them. Call
// it on the main goroutine.
func (v *logView) showRecording(name string, events []recorder.Event) {
	v.mu.Lock()
	v.pending = nil // lines of a connection still on their way belong to what was shown before
	v.mu.Unlock()
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b recorder.Event) int { return cmp.Compare(a.At, b.At) })
	if over := len(events) - (maxLogLines - 1); over > 0 {
		events = events[over:]
	}
	v.lines, v.shown = nil, nil
	batch := []logLine{{kind: recorder.EventOther, text: fmt.Sprintf("the events of %s (%d shown)", name, len(events)), rank: -1}}
	for _, e := range events {
		batch = append(batch, eventLine(e))
	}
	v.take(batch)
}

// Lines returns every line kept, shown or not. Call it on the main
// goroutine.
func (v *logView) Lines() []string {
	out := make([]string, len(v.lines))
	for i, l := range v.lines {
		out[i] = l.text
	}
	return out
}

// Shown returns the lines the filters let through, as listed. Call it
// on the main goroutine.
func (v *logView) Shown() []string {
	out := make([]string, len(v.shown))
	for i, j := range v.shown {
		out[i] = v.lines[j].text
	}
	return out
}
