package app

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/recorder"
)

// protocolEvery is how often the Protocol view follows the recording
// shown: a few times a second, each time looking only at what changed
// ([recorder.Transcript.Update]).
const protocolEvery = 250 * time.Millisecond

// The choices of the Protocol view's direction filter.
const (
	bothWays       = "Both ways"
	clientToServer = "Client → server"
	serverToClient = "Server → client"
	allMethods     = "All methods"
)

// protocolView is the Protocol tab: the JSON-RPC transcript of the
// recording the timeline shows ([recorder.Transcript]), one line per
// message, filtered by method, direction and errors, searched by text; a
// message clicked shows its JSON below and selects its request in the
// Gantt, and a request selected in the Gantt scrolls the transcript to
// its first message. Beside it, the Stderr tab is a stdio server's
// stderr as a console. Call its methods on the main goroutine.
type protocolView struct {
	widget.BaseWidget

	// source returns the recording shown now (the timeline's).
	source func() *recorder.Snapshot
	// onSelectSpan is called with the request of a message clicked.
	onSelectSpan func(recorder.SpanID)

	model   recorder.Transcript
	last    *recorder.Snapshot
	shown   []int // indices of the messages that pass the filter
	stderr  []int // indices of the stderr lines
	methods []string
	seen    map[string]bool // methods in methods

	method    *widget.Select
	direction *widget.Select
	errorsBox *widget.Check
	search    *widget.Entry
	count     *widget.Label
	list      *widget.List
	json      *jsonTree
	console   *widget.List
	tabs      *container.AppTabs

	selected int // the index of the message selected, -1 for none
	// selKey is the message selected, to find it again when the lines
	// before it change; selRow is its row in the list, -1 for none.
	selKey  *messageKey
	selRow  int
	ticker  mainTicker
	content fyne.CanvasObject
}

// newProtocolView returns a Protocol view of what source returns.
func newProtocolView(source func() *recorder.Snapshot) *protocolView {
	p := &protocolView{source: source, seen: map[string]bool{}, selected: -1, selRow: -1, json: newJSONTree()}
	p.method = widget.NewSelect([]string{allMethods}, func(string) { p.refilter() })
	p.method.SetSelected(allMethods)
	p.direction = widget.NewSelect([]string{bothWays, clientToServer, serverToClient}, func(string) { p.refilter() })
	p.direction.SetSelected(bothWays)
	p.errorsBox = widget.NewCheck("Errors only", func(bool) { p.refilter() })
	p.search = widget.NewEntry()
	p.search.SetPlaceHolder("Search id, method, name, error")
	p.search.OnChanged = func(string) { p.refilter() }
	p.count = widget.NewLabel("")
	p.list = lineList(func() int { return len(p.shown) }, func(i int, l *widget.Label) {
		l.SetText(p.line(&p.model.Messages[p.shown[i]]))
	})
	p.list.OnSelected = func(i widget.ListItemID) {
		if i >= len(p.shown) {
			return
		}
		p.selRow = i
		p.pick(p.shown[i])
		if id := p.model.Messages[p.shown[i]].SpanID(); id != 0 && p.onSelectSpan != nil {
			p.onSelectSpan(id)
		}
	}
	p.console = lineList(func() int { return len(p.stderr) }, func(i int, l *widget.Label) {
		l.SetText(p.stderrLine(i))
	})
	// two short rows, so that the tab asks the side panels for no more
	// width than the others do
	filters := container.NewVBox(
		container.NewGridWithColumns(2, p.method, p.direction),
		container.NewBorder(nil, nil, p.errorsBox, p.count, p.search))
	split := container.NewVSplit(p.list, container.NewVScroll(p.json))
	split.SetOffset(0.7)
	p.tabs = container.NewAppTabs(
		container.NewTabItem("Messages", container.NewBorder(filters, nil, nil, nil, split)),
		container.NewTabItem("Stderr", p.console),
	)
	p.content = p.tabs
	p.ExtendBaseWidget(p)
	return p
}

// formatSeconds is an offset as the transcript prints it.
func formatSeconds(d time.Duration) string { return fmt.Sprintf("%9.3fs", d.Seconds()) }

// CreateRenderer implements [fyne.Widget].
func (p *protocolView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// start follows the recording shown, a few times a second, while the
// view is on screen.
func (p *protocolView) start() {
	p.ticker.start(protocolEvery, func() {
		if p.Visible() && p.tabs.Visible() {
			p.refresh()
		}
	})
}

// Stop stops following the recording.
func (p *protocolView) Stop() { p.ticker.halt() }

// refresh brings the transcript up to the recording shown: the messages
// new since the last refresh are filtered and added, the rest stay.
func (p *protocolView) refresh() {
	snap := p.source()
	if snap == p.last {
		return
	}
	var created time.Time
	if p.last != nil {
		created = p.last.Meta.Created
	}
	p.last = snap
	if snap == nil || !snap.Meta.Created.Equal(created) {
		p.selected, p.selKey, p.selRow = -1, nil, -1
		p.json.setJSON(nil)
		p.list.UnselectAll()
		p.methods, p.seen = nil, map[string]bool{} // another recording's
		p.method.Options = []string{allMethods}
	}
	first := p.model.Update(snap)
	if first == len(p.model.Messages) && first > 0 {
		return
	}
	p.from(first)
}

// from filters the messages from index first on again, keeping the
// ones before.
func (p *protocolView) from(first int) {
	p.shown = p.shown[:sort.SearchInts(p.shown, first)]
	p.stderr = p.stderr[:sort.SearchInts(p.stderr, first)]
	if p.selected >= first {
		p.selected = -1 // may have moved: found again below
	}
	f := p.filter()
	newMethods := false
	for i := first; i < len(p.model.Messages); i++ {
		m := &p.model.Messages[i]
		if m.Type == recorder.MessageStderr {
			p.stderr = append(p.stderr, i)
		}
		if meth := m.Method(); meth != "" && !p.seen[meth] {
			p.seen[meth] = true
			p.methods = append(p.methods, meth)
			newMethods = true
		}
		if f.keeps(m) {
			p.shown = append(p.shown, i)
		}
	}
	if newMethods {
		slices.Sort(p.methods)
		p.method.Options = append([]string{allMethods}, p.methods...)
		p.method.Refresh()
	}
	p.count.SetText(countText(len(p.shown), len(p.model.Messages)-len(p.stderr)))
	p.list.Refresh()
	p.console.Refresh()
	p.keepSelection(first)
}

// messageKey names a message whatever its index: the request it is
// about, its type, and its event.
type messageKey struct {
	span  recorder.SpanID
	typ   recorder.MessageType
	event *recorder.Event
}

func keyOf(m *recorder.Message) messageKey {
	k := messageKey{typ: m.Type, event: m.Event}
	if m.Span != nil {
		k.span = m.Span.ID
	}
	return k
}

// keepSelection finds the message selected again among the messages
// from index first on, which moved, and keeps its row selected.
func (p *protocolView) keepSelection(first int) {
	if p.selKey == nil || p.selected >= 0 {
		return
	}
	for i := first; i < len(p.model.Messages); i++ {
		if keyOf(&p.model.Messages[i]) == *p.selKey {
			p.selected = i
			break
		}
	}
	row := -1
	if p.selected >= 0 {
		if r, ok := slices.BinarySearch(p.shown, p.selected); ok {
			row = r
		}
	}
	switch {
	case row < 0:
		p.selRow = -1
		p.list.UnselectAll()
	case row != p.selRow:
		p.selectRow(row)
	}
}

// refilter filters every message again, after the filter changed.
func (p *protocolView) refilter() {
	if p.list == nil || p.count == nil {
		return // still being built
	}
	p.selRow = -1
	p.list.UnselectAll()
	p.from(0) // selects the message selected again, if it passes
}

// countText says how many messages are shown.
func countText(shown, all int) string {
	if shown == all {
		return fmt.Sprintf("%d %s", all, plural(all, "message", "messages"))
	}
	return fmt.Sprintf("%d of %d messages", shown, all)
}

// protocolFilter is what the filter row asks for.
type protocolFilter struct {
	method     string
	direction  recorder.Direction
	errorsOnly bool
	search     string // lower case
}

func (p *protocolView) filter() protocolFilter {
	f := protocolFilter{errorsOnly: p.errorsBox.Checked, search: strings.ToLower(strings.TrimSpace(p.search.Text))}
	if p.method.Selected != allMethods {
		f.method = p.method.Selected
	}
	switch p.direction.Selected {
	case clientToServer:
		f.direction = recorder.Outgoing
	case serverToClient:
		f.direction = recorder.Incoming
	}
	return f
}

// keeps reports whether m passes the filter. Stderr lines are in the
// Stderr tab only.
func (f protocolFilter) keeps(m *recorder.Message) bool {
	switch {
	case m.Type == recorder.MessageStderr:
		return false
	case f.method != "" && m.Method() != f.method:
		return false
	case f.direction != 0 && m.Direction != f.direction:
		return false
	case f.errorsOnly && !m.Failed():
		return false
	case f.search == "":
		return true
	}
	return f.found(m)
}

// found reports whether the search is in m's id, method, name, input
// key, error, class or event text: what a person looks a message up by,
// read without decoding its params, so that searching a load test's
// transcript stays quick.
func (f protocolFilter) found(m *recorder.Message) bool {
	has := func(s string) bool { return s != "" && strings.Contains(strings.ToLower(s), f.search) }
	if has(m.ID()) || has(m.Method()) || has(m.ClassText()) {
		return true
	}
	if s := m.Span; s != nil && (has(s.Name) || has(s.InputKey) || has(s.Error)) {
		return true
	}
	return m.Event != nil && has(m.Event.Text)
}

// pick shows message i's JSON.
func (p *protocolView) pick(i int) {
	k := keyOf(&p.model.Messages[i])
	p.selected, p.selKey = i, &k
	p.json.setJSON(p.model.Messages[i].JSON())
}

// showSpan selects the first message shown of the request id (one the
// Gantt selected) and scrolls to it, unless a message of it is selected
// already. It does not call onSelectSpan.
func (p *protocolView) showSpan(id recorder.SpanID) {
	if id == 0 {
		return
	}
	p.refresh()
	if p.selected >= 0 && p.selected < len(p.model.Messages) && p.model.Messages[p.selected].SpanID() == id {
		return
	}
	for row, i := range p.shown {
		if p.model.Messages[i].SpanID() == id {
			p.selectRow(row)
			return
		}
	}
}

// selectRow selects row of the list without telling the Gantt.
func (p *protocolView) selectRow(row int) {
	on := p.list.OnSelected
	p.list.OnSelected = nil
	p.list.Select(row) // scrolls to it
	p.list.OnSelected = on
	p.selRow = row
	p.pick(p.shown[row])
}

// line is m as the list shows it: with the HTTP status of a failed
// answer, when the recording knows it.
func (p *protocolView) line(m *recorder.Message) string {
	if st := m.StatusText(p.last); st != "" {
		return m.Line() + " (" + st + ")"
	}
	return m.Line()
}

// stderrLine is the i-th line of the Stderr tab: its time and the text,
// with the control characters a server may write (a terminal's escape
// sequences) neutralised.
func (p *protocolView) stderrLine(i int) string {
	m := &p.model.Messages[p.stderr[i]]
	return strings.TrimSpace(formatSeconds(m.At) + " " + recorder.PlainLine(m.Event.Text))
}

// Lines returns the lines shown, as the list shows them.
func (p *protocolView) Lines() []string {
	out := make([]string, len(p.shown))
	for i, j := range p.shown {
		out[i] = p.line(&p.model.Messages[j])
	}
	return out
}

// SelectedLine returns the line of the message selected, or "".
func (p *protocolView) SelectedLine() string {
	if p.selected < 0 || p.selected >= len(p.model.Messages) {
		return ""
	}
	return p.line(&p.model.Messages[p.selected])
}

// linkTimeline links the view with the timeline t both ways: a message
// clicked selects its request in t's Gantt, a request selected there
// scrolls the view to its messages.
func (p *protocolView) linkTimeline(t *TimelineView) {
	p.onSelectSpan = func(id recorder.SpanID) {
		if sel := t.gantt.Selected(); sel == nil || sel.ID != id {
			t.gantt.Select(id)
		}
	}
	onSelect := t.gantt.OnSelect
	t.gantt.OnSelect = func(s *recorder.Span) {
		if onSelect != nil {
			onSelect(s)
		}
		if s != nil {
			p.showSpan(s.ID)
		}
	}
}
