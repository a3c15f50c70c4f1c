package ui

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// GanttRow is one row of a [Gantt]: a request, and how deep it sits under
// the tool call that caused it.
type GanttRow struct {
	Span *recorder.Span
	// Depth is 0 for a tool call, an orphan or an outgoing request; 1 for
	// a request caused by the tool call above it, or a round of a
	// multi-round-trip call; 2 for an input request under its round.
	Depth int
}

// Sizes of the Gantt's parts, in device-independent units.
const (
	ganttGutter    = 180 // row labels on the left; the chart below uses the same gutter
	ganttRulerH    = 22  // the time ruler
	ganttLaneH     = 10  // the notification lane under the ruler
	ganttRowH      = 20  // one request
	ganttCompactH  = 4   // one request in compact mode
	ganttIndent    = 14  // indentation of a child row's label
	ganttFoldW     = 18  // the fold marker of a tool call, at the gutter's right end
	minVisibleSpan = 10 * time.Microsecond
)

// minFrameInterval is the least time between two redraws of a live or
// interacted-with widget (about 30 frames a second). Tests set it to 0.
var minFrameInterval = 33 * time.Millisecond

// Gantt is a timeline of requests: one row per request, children under the
// tool call that caused them, each bar split into its queued phase (pale)
// and its serving phase (solid), coloured by kind. Failed requests are
// outlined in red (cancelled, timed-out and aborted ones also hatched),
// notifications are ticks in the lane under the ruler and on the row of the
// request they name.
//
// The mouse wheel scrolls rows; Ctrl+wheel (Cmd on macOS) zooms around the
// pointer; Shift+wheel, a horizontal wheel or dragging pans; a click
// selects a request and calls OnSelect. Once clicked, the keyboard works
// too: Up, Down, Page Up, Page Down, Home and End move the selection, Left
// and Right pan, + and - zoom, 0 fits, Escape clears the selection. Everything is drawn on one raster
// into a reused image, so ten thousand rows stay smooth.
type Gantt struct {
	widget.BaseWidget

	// OnSelect is called with the span the user clicked, or nil when the
	// selection was cleared.
	OnSelect func(*recorder.Span)
	// OnFollowChanged is called when following the live end of the
	// recording was switched on or off, by the user or by panning.
	OnFollowChanged func(bool)

	snap    *recorder.Snapshot
	layout  ganttLayout
	axis    *timeAxis
	follow  bool
	compact bool
	fitted  bool                   // the view has been fitted at least once
	hidden  map[recorder.Kind]bool // kinds of request given no row
	foldAll bool                   // tool calls start folded

	focused    bool    // has the keyboard focus
	scrollY    float32 // first visible row pixel, in dp
	selected   recorder.SpanID
	hoverRow   int
	hoverEvent int // index in snap.Events of the notification under the pointer
	hoverPos   fyne.Position

	img    *image.RGBA
	frames atomic.Int64
	redraw throttle
	// lastTicks is what the ruler showed at the last refresh.
	lastTicks []string
}

// NewGantt returns an empty Gantt with its own time axis.
func NewGantt() *Gantt {
	g := &Gantt{axis: newTimeAxis(), hoverRow: -1, hoverEvent: -1}
	g.ExtendBaseWidget(g)
	g.axis.listen(g.changed)
	g.redraw.fn = g.Refresh
	return g
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (g *Gantt) CreateRenderer() fyne.WidgetRenderer {
	r := &ganttRenderer{g: g}
	r.raster = canvas.NewRaster(g.draw)
	r.empty = canvas.NewText("No requests recorded yet", theme.Color(theme.ColorNameDisabled))
	r.empty.Alignment = fyne.TextAlignCenter
	r.count = canvas.NewText("", theme.Color(theme.ColorNameDisabled))
	r.count.TextSize = theme.Size(theme.SizeNameCaptionText)
	r.tipBg = canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	r.tipBg.StrokeColor = theme.Color(theme.ColorNameShadow)
	r.tipBg.StrokeWidth = 1
	r.tipBg.CornerRadius = 3
	r.tipBg.Hide()
	r.refreshObjects()
	return r
}

// SetSnapshot shows snap. A snapshot of the same recording as the one shown
// (same creation time, at least as many spans) only lays out the
// new spans and keeps the view and selection; any other starts afresh,
// fitted to the whole recording.
func (g *Gantt) SetSnapshot(snap *recorder.Snapshot) {
	if snap == nil {
		snap = &recorder.Snapshot{}
	}
	// a recording's creation time never changes, its title may
	same := g.snap != nil && !snap.Meta.Created.IsZero() && g.snap.Meta.Created.Equal(snap.Meta.Created) &&
		len(snap.Spans) >= g.layout.done
	if !same {
		g.layout = ganttLayout{collapseAll: g.foldAll}
		g.scrollY = 0
		g.hoverRow, g.hoverEvent = -1, -1
		g.fitted = false
		g.selected = 0
	} else if reparented(g.snap, snap, g.layout.done) {
		// a request learnt its tool call after it was laid out: lay
		// everything out again, keeping the view and what was folded
		g.layout = ganttLayout{collapseAll: g.layout.collapseAll, toggled: g.layout.toggled}
	}
	g.snap = snap
	g.layout.update(snap, g.hidden)
	if g.selected != 0 && g.layout.rowOfID(g.selected) < 0 {
		g.selected = 0
	}
	switch {
	case !g.fitted && g.follow:
		g.fitted = true
		g.axis.set(0, max(5*time.Second, extentOf(snap)*21/20))
	case !g.fitted:
		g.fitted = true
		g.Fit()
	case g.follow:
		g.slideToNow()
	}
	g.clampScroll()
	g.changed()
}

// reparented reports whether any of the first n spans of next has another
// parent than in prev. Only spans updated since prev (a new pointer) are
// compared, so this costs a pointer comparison per span.
func reparented(prev, next *recorder.Snapshot, n int) bool {
	for i := range min(n, len(prev.Spans), len(next.Spans)) {
		if a, b := prev.Spans[i], next.Spans[i]; a != b && a.Parent != b.Parent {
			return true
		}
	}
	return false
}

// Snapshot returns the snapshot shown, or nil.
func (g *Gantt) Snapshot() *recorder.Snapshot { return g.snap }

// Rows returns the rows in display order.
func (g *Gantt) Rows() []GanttRow {
	if g.snap == nil {
		return nil
	}
	rows := make([]GanttRow, len(g.layout.rows))
	for i, r := range g.layout.rows {
		rows[i] = GanttRow{Span: g.snap.Spans[r.span], Depth: int(r.depth)}
	}
	return rows
}

// VisibleRange returns the span of time the Gantt shows, as offsets from
// the recording's start.
func (g *Gantt) VisibleRange() (start, end time.Duration) { return g.axis.start, g.axis.end }

// SetVisibleRange shows the time from start to end.
func (g *Gantt) SetVisibleRange(start, end time.Duration) { g.axis.set(start, end) }

// ZoomIn shows half as much time, around the middle of the view.
func (g *Gantt) ZoomIn() { g.zoomAt(0.5, 0.5) }

// ZoomOut shows twice as much time, around the middle of the view.
func (g *Gantt) ZoomOut() { g.zoomAt(2, 0.5) }

// Fit shows the whole recording.
func (g *Gantt) Fit() {
	end := extentOf(g.snap)
	if end <= 0 {
		end = time.Second // nothing yet: a second is a sensible first view
	}
	g.axis.set(0, end*21/20)
}

// SetFollow switches following the live end of the recording on or off.
// While on, the view keeps its width and slides so that the latest
// instant and the latest rows stay visible.
func (g *Gantt) SetFollow(on bool) {
	if g.follow == on {
		return
	}
	g.follow = on
	if on {
		g.slideToNow()
	}
	if g.OnFollowChanged != nil {
		g.OnFollowChanged(on)
	}
	g.changed()
}

// Following reports whether the view follows the live end.
func (g *Gantt) Following() bool { return g.follow }

// SetCompact switches between readable rows with labels and thin rows
// that show many requests at once.
func (g *Gantt) SetCompact(on bool) {
	g.compact = on
	g.clampScroll()
	g.changed()
}

// SetKindHidden hides or shows the rows of requests of kind k (their
// concurrency still counts in the chart and the stats).
func (g *Gantt) SetKindHidden(k recorder.Kind, hidden bool) {
	if g.hidden[k] == hidden {
		return
	}
	if g.hidden == nil {
		g.hidden = map[recorder.Kind]bool{}
	}
	g.hidden[k] = hidden
	g.relayout()
}

// relayout lays all rows out again, after a change of what is hidden.
func (g *Gantt) relayout() {
	if g.snap != nil {
		g.layout.dirtyGroup = 0
		g.layout.flatten(g.snap, g.hidden)
	}
	g.hoverRow = -1
	g.clampScroll()
	g.changed()
}

// CollapseAll shows only the top row of every tool call (on) or every row
// (off), forgetting which ones were folded or unfolded by hand.
func (g *Gantt) CollapseAll(on bool) {
	g.foldAll = on
	g.layout.collapseAll = on
	clear(g.layout.toggled)
	g.relayout()
}

// SetCollapsed folds (or unfolds) the requests under span id: the
// requests caused by a tool call (or its rounds), the input requests of a
// round. A span with nothing under it is left as it is.
func (g *Gantt) SetCollapsed(id recorder.SpanID, collapsed bool) {
	i, ok := g.layout.index[id]
	if !ok || !g.layout.hasKids(i) || g.layout.collapsed(i) == collapsed {
		return
	}
	g.layout.toggle(i)
	g.relayout()
}

// Collapsed reports whether the requests under span id are folded under
// its row.
func (g *Gantt) Collapsed(id recorder.SpanID) bool {
	i, ok := g.layout.index[id]
	return ok && g.layout.collapsed(i)
}

// KindHidden reports whether the rows of requests of kind k are hidden.
func (g *Gantt) KindHidden(k recorder.Kind) bool { return g.hidden[k] }

// Select selects the span with the given ID (0 clears the selection),
// scrolls it into view and calls OnSelect.
func (g *Gantt) Select(id recorder.SpanID) {
	if i, ok := g.layout.index[id]; ok && g.layout.rowOfSpan[i] < 0 {
		// a request folded under its tool call or round: unfold them
		for p := g.layout.parentOf[i]; p >= 0; p = g.layout.parentOf[p] {
			g.SetCollapsed(g.layout.ids[p], false)
		}
	}
	row := g.layout.rowOfID(id)
	if row < 0 {
		id = 0
	}
	g.selected = id
	if row >= 0 {
		rh := g.rowH()
		top := float32(row) * rh
		if top < g.scrollY || top+rh > g.scrollY+g.rowsAreaH() {
			g.scrollY = top - g.rowsAreaH()/2
			g.clampScroll()
		}
	}
	if g.OnSelect != nil {
		g.OnSelect(g.Selected())
	}
	g.changed()
}

// Selected returns the selected span, or nil.
func (g *Gantt) Selected() *recorder.Span {
	row := g.layout.rowOfID(g.selected)
	if row < 0 || g.snap == nil {
		return nil
	}
	return g.snap.Spans[g.layout.rows[row].span]
}

// SpanAt returns the span of the row under pos (relative to the Gantt), or
// nil.
func (g *Gantt) SpanAt(pos fyne.Position) *recorder.Span {
	row := g.rowAt(pos.Y)
	if row < 0 {
		return nil
	}
	return g.snap.Spans[g.layout.rows[row].span]
}

// RulerLabels returns the labels the time ruler shows, left to right.
func (g *Gantt) RulerLabels() []string {
	ticks := rulerTicks(g.axis.start, g.axis.end, g.plotW())
	labels := make([]string, len(ticks))
	for i, t := range ticks {
		labels[i] = t.label
	}
	return labels
}

// FramesDrawn returns how many frames the Gantt has drawn since it was
// made: sample it twice to measure frames per second.
func (g *Gantt) FramesDrawn() int64 { return g.frames.Load() }

// Scrolled scrolls rows (wheel), zooms (Ctrl or Cmd + wheel) or pans
// (Shift + wheel, horizontal wheel).
func (g *Gantt) Scrolled(ev *fyne.ScrollEvent) {
	var mods fyne.KeyModifier
	if d, ok := fyne.CurrentApp().Driver().(desktop.Driver); ok {
		mods = d.CurrentKeyModifiers()
	}
	g.scroll(ev, mods)
}

func (g *Gantt) scroll(ev *fyne.ScrollEvent, mods fyne.KeyModifier) {
	dx, dy := ev.Scrolled.DX, ev.Scrolled.DY
	switch {
	case mods&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0:
		frac := float64((ev.Position.X - ganttGutter) / max(g.plotW(), 1))
		g.zoomAt(math.Exp(-float64(dy)/50), min(max(frac, 0), 1))
		return
	case mods&fyne.KeyModifierShift != 0:
		dx, dy = dy, 0
	}
	if dx != 0 {
		g.panBy(dx)
	}
	g.scrollRows(dy)
}

// scrollRows scrolls the rows by dy units (positive: earlier rows come
// into view). Leaving the latest rows stops following the live end, as
// the person wants to read what scrolled by.
func (g *Gantt) scrollRows(dy float32) {
	if dy == 0 {
		return
	}
	g.scrollY -= dy
	g.clampScroll()
	if g.follow && g.scrollY < float32(len(g.layout.rows))*g.rowH()-g.rowsAreaH()-1 {
		g.SetFollow(false)
	}
	g.changed()
}

// Dragged pans the view: sideways in time, up and down through the rows.
func (g *Gantt) Dragged(ev *fyne.DragEvent) {
	if ev.Dragged.DX != 0 {
		g.panBy(ev.Dragged.DX)
	}
	g.scrollRows(ev.Dragged.DY)
}

// DragEnd is called when a drag ends; there is nothing left to do.
func (g *Gantt) DragEnd() {}

// Tapped selects the request of the row under the pointer, and takes the
// keyboard focus.
func (g *Gantt) Tapped(ev *fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(g); c != nil && !g.focused {
		c.Focus(g)
	}
	row := g.rowAt(ev.Position.Y)
	if row < 0 {
		g.Select(0)
		return
	}
	id := g.snap.Spans[g.layout.rows[row].span].ID
	if ev.Position.X >= ganttGutter-ganttFoldW && ev.Position.X < ganttGutter && g.layout.foldable(row) >= 0 {
		g.SetCollapsed(id, !g.Collapsed(id)) // the fold marker
		return
	}
	g.Select(id)
}

// FocusGained is called when the Gantt gets the keyboard focus.
func (g *Gantt) FocusGained() {
	g.focused = true
	g.changed()
}

// FocusLost is called when the Gantt loses the keyboard focus.
func (g *Gantt) FocusLost() {
	g.focused = false
	g.changed()
}

// TypedRune zooms with + and -, and fits the recording with 0.
func (g *Gantt) TypedRune(r rune) {
	switch r {
	case '+', '=':
		g.ZoomIn()
	case '-':
		g.ZoomOut()
	case '0':
		g.Fit()
	}
}

// TypedKey moves the selection with the arrow, page, Home and End keys,
// pans with Left and Right, and clears the selection with Escape.
func (g *Gantt) TypedKey(ev *fyne.KeyEvent) {
	rows := len(g.layout.rows)
	row := g.layout.rowOfID(g.selected)
	page := max(int(g.rowsAreaH()/g.rowH())-1, 1)
	move := func(to int) {
		if rows > 0 {
			g.Select(g.snap.Spans[g.layout.rows[min(max(to, 0), rows-1)].span].ID)
		}
	}
	if row < 0 {
		row = max(int(g.scrollY/g.rowH()), 0) - 1 // Down selects the first visible row
	}
	switch ev.Name {
	case fyne.KeyDown:
		move(row + 1)
	case fyne.KeyUp:
		move(row - 1)
	case fyne.KeyPageDown:
		move(row + page)
	case fyne.KeyPageUp:
		move(row - page)
	case fyne.KeyHome:
		move(0)
	case fyne.KeyEnd:
		move(rows - 1)
	case fyne.KeyLeft:
		g.panBy(g.plotW() / 10)
	case fyne.KeyRight:
		g.panBy(-g.plotW() / 10)
	case fyne.KeyEscape:
		g.Select(0)
	}
}

// MouseIn is called when the pointer enters the Gantt.
func (g *Gantt) MouseIn(ev *desktop.MouseEvent) { g.MouseMoved(ev) }

// MouseMoved shows the tooltip of the request, or the notification, under
// the pointer.
func (g *Gantt) MouseMoved(ev *desktop.MouseEvent) {
	row, event := g.rowAt(ev.Position.Y), g.eventAt(ev.Position)
	if row == g.hoverRow && event == g.hoverEvent && (row < 0 && event < 0 || ev.Position == g.hoverPos) {
		return
	}
	g.hoverRow, g.hoverEvent, g.hoverPos = row, event, ev.Position
	g.changed()
}

// MouseOut hides the tooltip.
func (g *Gantt) MouseOut() {
	if g.hoverRow >= 0 || g.hoverEvent >= 0 {
		g.hoverRow, g.hoverEvent = -1, -1
		g.changed()
	}
}

// eventAt returns the index of the notification drawn nearest to pos in
// the lane under the ruler (within a few units), or -1.
func (g *Gantt) eventAt(pos fyne.Position) int {
	if g.snap == nil || pos.Y < ganttRulerH || pos.Y >= ganttRulerH+ganttLaneH || pos.X < ganttGutter {
		return -1
	}
	perUnit := float64(g.axis.end-g.axis.start) / float64(g.plotW())
	at := float64(g.axis.start) + float64(pos.X-ganttGutter)*perUnit
	best, bestD := -1, 4*perUnit
	for i, e := range g.snap.Events {
		if d := math.Abs(float64(e.At) - at); d <= bestD {
			best, bestD = i, d
		}
	}
	return best
}

// Tooltip returns the lines of the tooltip shown for the request or
// notification under the pointer, or nil.
func (g *Gantt) Tooltip() []string {
	if g.snap != nil && g.hoverEvent >= 0 && g.hoverEvent < len(g.snap.Events) {
		return eventSummary(g.snap, g.snap.Events[g.hoverEvent])
	}
	if g.hoverRow < 0 || g.hoverRow >= len(g.layout.rows) {
		return nil
	}
	lines := spanSummary(g.snap, g.snap.Spans[g.layout.rows[g.hoverRow].span])
	if span := g.layout.foldable(g.hoverRow); span >= 0 && g.layout.collapsed(span) {
		lines = append(lines, fmt.Sprintf("%d requests folded under it: click ▸ to unfold", g.layout.descendants(span)))
	}
	return lines
}

// eventSummary describes a notification in a few lines, for the tooltip.
func eventSummary(snap *recorder.Snapshot, e recorder.Event) []string {
	name := e.Method
	if name == "" {
		name = string(e.Kind)
	}
	lines := []string{fmt.Sprintf("%s at %s", name, formatOffset(e.At))}
	if e.Stalled > 0 {
		lines = append(lines, fmt.Sprintf("stalled %s (read, not yet seen by the client)", formatDuration(e.Stalled)))
	}
	if e.Text != "" {
		lines = append(lines, truncate(e.Text, 80))
	}
	if len(e.Data) > 0 {
		lines = append(lines, truncate(string(e.Data), 80))
	}
	if s := findSpan(snap, e.Span); s != nil {
		lines = append(lines, fmt.Sprintf("about #%d %s", s.ID, spanLabel(s)))
	}
	return lines
}

// MinSize is enough for the gutter, the ruler and a few rows.
func (g *Gantt) MinSize() fyne.Size {
	return fyne.NewSize(ganttGutter+200, ganttRulerH+ganttLaneH+4*ganttRowH)
}

// changed asks for a redraw, at most every minFrameInterval.
func (g *Gantt) changed() { g.redraw.request() }

func (g *Gantt) rowH() float32 {
	if g.compact {
		return ganttCompactH
	}
	return ganttRowH
}

func (g *Gantt) plotW() float32 { return max(g.Size().Width-ganttGutter, 1) }

func (g *Gantt) rowsAreaH() float32 {
	return max(g.Size().Height-ganttRulerH-ganttLaneH, 0)
}

func (g *Gantt) clampScroll() {
	maxY := float32(len(g.layout.rows))*g.rowH() - g.rowsAreaH()
	g.scrollY = min(g.scrollY, max(maxY, 0))
	g.scrollY = max(g.scrollY, 0)
}

func (g *Gantt) rowAt(y float32) int {
	if g.snap == nil || y < ganttRulerH+ganttLaneH {
		return -1
	}
	row := int((y - ganttRulerH - ganttLaneH + g.scrollY) / g.rowH())
	if row < 0 || row >= len(g.layout.rows) {
		return -1
	}
	return row
}

// zoomAt scales the visible width by factor, keeping the instant at
// fraction frac of the plot where it is.
func (g *Gantt) zoomAt(factor, frac float64) {
	start, end := float64(g.axis.start), float64(g.axis.end)
	pivot := start + frac*(end-start)
	w := (end - start) * factor
	g.axis.set(time.Duration(pivot-frac*w), time.Duration(pivot-frac*w+w))
}

// panBy moves the view by dx device-independent units (positive: earlier
// times come into view) and stops following the live end.
func (g *Gantt) panBy(dx float32) {
	w := g.axis.end - g.axis.start
	shift := time.Duration(float64(dx) / float64(g.plotW()) * float64(w))
	if shift == 0 {
		return
	}
	g.SetFollow(false)
	g.axis.set(g.axis.start-shift, g.axis.end-shift)
}

// slideToNow keeps the view's width and moves it so that the recording's
// latest instant is in view, and scrolls to the latest rows.
func (g *Gantt) slideToNow() {
	if g.snap == nil {
		return
	}
	now := extentOf(g.snap)
	w := g.axis.end - g.axis.start
	if now > g.axis.end-w/20 {
		g.axis.set(now+w/20-w, now+w/20)
	}
	g.scrollY = float32(len(g.layout.rows))*g.rowH() - g.rowsAreaH()
	g.clampScroll()
}

// extentOf is the latest instant of snap: its Now, or the end of its last
// span or event, whichever is later.
func extentOf(snap *recorder.Snapshot) time.Duration {
	if snap == nil {
		return 0
	}
	end := snap.Now
	for _, s := range snap.Spans {
		end = max(end, s.Received, s.Answered)
		if s.Stalled > 0 && s.Direction == recorder.Outgoing && s.Answered != recorder.Unset {
			end = max(end, s.Answered+s.Stalled)
		}
	}
	for _, e := range snap.Events {
		end = max(end, e.At+max(e.Stalled, 0))
	}
	return end
}

// timeAxis is a visible time range shared by a Gantt, the chart under it
// and, when comparing, a second Gantt and chart.
type timeAxis struct {
	start, end time.Duration
	listeners  map[int]func()
	next       int
}

func newTimeAxis() *timeAxis { return &timeAxis{end: time.Second, listeners: map[int]func(){}} }

// listen calls f after every change of the range, until cancel is called.
func (a *timeAxis) listen(f func()) (cancel func()) {
	id := a.next
	a.next++
	a.listeners[id] = f
	return func() { delete(a.listeners, id) }
}

// set changes the range, keeping it at least minVisibleSpan wide and not
// starting before the recording, and tells the listeners.
func (a *timeAxis) set(start, end time.Duration) {
	w := max(end-start, minVisibleSpan)
	w = min(w, 24*time.Hour)
	if start < 0 {
		start = 0
	}
	end = start + w
	if start == a.start && end == a.end {
		return
	}
	a.start, a.end = start, end
	for _, f := range a.listeners {
		f()
	}
}

// throttle runs fn at most once every minFrameInterval, and once for any
// number of requests made while handling one event: the first request
// queues fn behind the event (or until the interval is over), later ones
// join it. now runs fn at once, and a queued run that nothing was
// requested for since is skipped.
type throttle struct {
	fn      func()
	last    time.Time
	pending bool
	want    uint64 // requests made
	done    uint64 // requests the last run of fn served
}

func (t *throttle) request() {
	t.want++
	if minFrameInterval <= 0 {
		t.flush() // tests: draw at once
		return
	}
	if t.pending {
		return
	}
	t.pending = true
	run := func() {
		t.pending = false
		t.flush()
	}
	if wait := minFrameInterval - time.Since(t.last); wait > 0 {
		time.AfterFunc(wait, func() { fyne.Do(run) })
		return
	}
	fyne.Do(run)
}

// now runs fn at once, so that widgets showing one frame redraw in the
// same event and so in the same painted frame.
func (t *throttle) now() {
	t.want++
	t.flush()
}

func (t *throttle) flush() {
	if t.done == t.want {
		return
	}
	t.done = t.want
	t.last = time.Now()
	t.fn()
}

// Kind colours: one hue per kind, readable on light and dark themes.
var kindColors = map[recorder.Kind]color.RGBA{
	recorder.KindSampling:    {59, 130, 246, 255},  // blue
	recorder.KindElicitation: {168, 85, 247, 255},  // purple
	recorder.KindRoots:       {20, 184, 166, 255},  // teal
	recorder.KindPing:        {245, 158, 11, 255},  // amber
	recorder.KindTool:        {100, 116, 139, 255}, // slate
	recorder.KindRound:       {71, 85, 105, 255},   // dark slate: a wire round of a tool call
	recorder.KindOther:       {168, 162, 158, 255}, // stone
}

// legendKinds is the order of kinds in legends.
var legendKinds = []recorder.Kind{
	recorder.KindTool, recorder.KindRound, recorder.KindSampling, recorder.KindElicitation,
	recorder.KindRoots, recorder.KindPing, recorder.KindOther,
}

var (
	failColor     = color.RGBA{220, 38, 38, 255}
	inFlightColor = color.RGBA{96, 165, 250, 255}
	pendingColor  = color.RGBA{251, 146, 60, 255}
)

func kindColor(k recorder.Kind) color.RGBA {
	if c, ok := kindColors[k]; ok {
		return c
	}
	return kindColors[recorder.KindOther]
}

func eventColor(k recorder.EventKind) color.RGBA {
	switch k {
	case recorder.EventProgress:
		return color.RGBA{22, 163, 74, 255}
	case recorder.EventCancelled:
		return failColor
	case recorder.EventConnection:
		return color.RGBA{234, 88, 12, 255}
	case recorder.EventListChanged:
		return color.RGBA{8, 145, 178, 255}
	}
	return color.RGBA{120, 113, 108, 255}
}

func toRGBA(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	if a == 0 {
		return color.RGBA{}
	}
	// un-premultiply, then lay it on opaque
	return color.RGBA{uint8(r * 0xff / a), uint8(g * 0xff / a), uint8(b * 0xff / a), 255}
}

// mix returns a blended with b: t = 0 gives a, t = 1 gives b.
func mix(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t + 0.5) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 255}
}

// ganttPalette is the colours of one frame, taken from the theme.
type ganttPalette struct {
	bg, stripe, child, ruler, grid, fg, faint, sel, hover, now color.RGBA
}

func newGanttPalette() ganttPalette {
	bg := toRGBA(theme.Color(theme.ColorNameBackground))
	fg := toRGBA(theme.Color(theme.ColorNameForeground))
	return ganttPalette{
		bg:     bg,
		fg:     fg,
		stripe: mix(bg, fg, 0.03),
		child:  mix(bg, kindColors[recorder.KindTool], 0.07),
		ruler:  mix(bg, fg, 0.07),
		grid:   mix(bg, fg, 0.12),
		faint:  mix(bg, fg, 0.45),
		sel:    mix(bg, toRGBA(theme.Color(theme.ColorNamePrimary)), 0.25),
		hover:  mix(bg, fg, 0.16),
		now:    toRGBA(theme.Color(theme.ColorNamePrimary)),
	}
}

// draw is the raster's generator: it paints the ruler's ticks, the
// notification lane and the visible rows into the reused image.
func (g *Gantt) draw(w, h int) image.Image {
	g.frames.Add(1)
	if g.img == nil || g.img.Rect.Dx() != w || g.img.Rect.Dy() != h {
		g.img = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	img := g.img
	pal := newGanttPalette()
	fillRect(img, 0, 0, w, h, pal.bg)

	sc := float64(1)
	if sz := g.Size(); sz.Width > 0 {
		sc = float64(w) / float64(sz.Width)
	}
	px := func(v float32) int { return int(math.Round(float64(v) * sc)) }
	plotX0 := px(ganttGutter)
	rulerH, laneH := px(ganttRulerH), px(ganttLaneH)
	top := rulerH + laneH
	line := max(1, int(sc+0.5))
	start, end := float64(g.axis.start), float64(g.axis.end)
	perNs := float64(w-plotX0) / (end - start)
	xOf := func(t time.Duration) int { return plotX0 + int(math.Floor((float64(t)-start)*perNs)) }

	// the grid under the rows
	ticks := rulerTicks(g.axis.start, g.axis.end, g.plotW())
	for _, t := range ticks {
		x := xOf(t.at)
		fillRect(img, x, rulerH, x+1, h, pal.grid)
	}
	fillRect(img, plotX0-1, 0, plotX0, h, pal.grid)
	// the ruler and the notification lane go over the rows, which may be
	// scrolled half under them
	defer func() {
		fillRect(img, 0, 0, w, top, pal.bg)
		fillRect(img, 0, 0, w, rulerH, pal.ruler)
		fillRect(img, 0, rulerH-1, w, rulerH, pal.grid)
		fillRect(img, plotX0-1, 0, plotX0, top, pal.grid)
		for _, t := range ticks {
			x := xOf(t.at)
			fillRect(img, x, rulerH-px(5), x+1, rulerH, pal.faint)
			fillRect(img, x, rulerH, x+1, top, pal.grid)
		}
		if g.snap == nil {
			return
		}
		for _, e := range g.snap.Events {
			drawLaneStall(img, e, top-px(4), top-px(2), xOf, plotX0, w, pal)
			if x := xOf(e.At); x >= plotX0 && x < w {
				fillRect(img, x, rulerH+px(2), x+max(1, px(2)), top-px(2), eventColor(e.Kind))
			}
		}
		if g.focused {
			outline(img, 0, 0, w, h, line, pal.now, 0, w)
		}
	}()
	if g.snap == nil {
		return img
	}

	// rows
	rh := float64(g.rowH()) * sc
	scroll := float64(g.scrollY) * sc
	first := max(int(scroll/rh), 0)
	last := min(int((scroll+float64(h-top))/rh)+1, len(g.layout.rows))
	pad := max(1, int(rh*0.18))
	if g.compact {
		pad = 0
	}
	selRow := g.layout.rowOfID(g.selected)
	for r := first; r < last; r++ {
		ref := g.layout.rows[r]
		s := g.snap.Spans[ref.span]
		y0 := top + int(float64(r)*rh-scroll)
		y1 := top + int(float64(r+1)*rh-scroll)
		if y1 <= top {
			continue
		}
		// row background
		switch {
		case r == selRow:
			fillRect(img, 0, max(y0, top), w, y1, pal.sel)
		case r == g.hoverRow:
			fillRect(img, 0, max(y0, top), w, y1, pal.hover)
		case ref.depth > 0 && !g.compact:
			fillRect(img, 0, max(y0, top), w, y1, pal.child)
		case r%2 == 1 && !g.compact:
			fillRect(img, 0, max(y0, top), w, y1, pal.stripe)
		}
		// the kind's colour as a swatch at the start of the label
		x := px(4 + float32(ref.depth)*ganttIndent)
		fillRect(img, x, y0+pad, x+px(4), y1-pad, kindColor(s.Kind))
		if span := g.layout.foldable(r); span >= 0 && !g.compact {
			foldMarker(img, plotX0-px(ganttFoldW)/2-px(1), (y0+y1)/2, px(4), g.layout.collapsed(span), pal.faint)
		}
		g.drawBar(img, ref.span, y0+pad, y1-pad, xOf, plotX0, w, line, r == selRow, pal)
		// notifications that name this request
		for _, ei := range g.layout.spanEv[ref.span] {
			g.drawRowEvent(img, g.snap.Events[ei], max(y0, top), y1, xOf, plotX0, w, line, pal)
		}
	}
	// the live end
	if g.follow {
		if x := xOf(g.snap.Now); x >= plotX0 && x < w {
			fillRect(img, x, rulerH, x+line, h, pal.now)
		}
	}
	// where the visible rows are among all of them
	if total := float64(len(g.layout.rows)) * rh; total > float64(h-top) {
		view := float64(h - top)
		y0 := top + int(scroll/total*view)
		y1 := top + int((scroll+view)/total*view+0.5)
		fillRect(img, w-px(5), y0, w-px(1), max(y1, y0+px(8)), pal.faint)
	}
	return img
}

// drawBar paints one span between rows y0 and y1: the queued phase pale,
// the serving phase solid, a red outline for a failure and hatching for
// a cancellation, timeout or abort.
func (g *Gantt) drawBar(img *image.RGBA, span int32, y0, y1 int, xOf func(time.Duration) int, plotX0, w, line int, selected bool, pal ganttPalette) {
	s := g.snap.Spans[span]
	if s.Received == recorder.Unset {
		return
	}
	end := s.Answered
	if end == recorder.Unset {
		end = max(g.snap.Now, s.Received)
	}
	x0, x3 := xOf(s.Received), xOf(end)
	if x3 < plotX0 || x0 >= w {
		return
	}
	x3 = max(x3, x0+1) // a request shorter than a pixel still shows
	serve := s.Serving
	if s.Direction != recorder.Incoming || serve == recorder.Unset && s.Answered != recorder.Unset {
		serve = s.Received
	}
	x1 := x3
	if serve != recorder.Unset {
		x1 = min(xOf(serve), x3)
	}
	kc := kindColor(s.Kind)
	cx0, cx3 := max(x0, plotX0), min(x3, w)
	fillRect(img, cx0, y0, min(max(x1, plotX0), w), y1, mix(pal.bg, kc, 0.35))
	fillRect(img, max(x1, plotX0), y0, cx3, y1, kc)
	g.drawFulfilment(img, span, y0, y1, xOf, plotX0, w, pal)
	drawStalled(img, s, y0, y1, xOf, plotX0, w, pal)
	failed := s.Status != recorder.StatusOpen && s.Status != recorder.StatusOK
	if s.Status == recorder.StatusCancelled || s.Status == recorder.StatusTimeout || s.Status == recorder.StatusAborted {
		hatch(img, cx0, y0, cx3, y1, failColor)
	}
	switch {
	case failed:
		outline(img, x0, y0, x3, y1, max(line, 2), failColor, plotX0, w)
	case selected:
		outline(img, x0, y0, x3, y1, line, pal.fg, plotX0, w)
	}
	if s.Open() && x3 <= w {
		// an open request: a bright leading edge that grows with time
		fillRect(img, x3-line, y0-1, x3, y1+1, pal.fg)
	}
}

// foldMarker draws a small triangle centred on (cx, cy) with half-size r:
// pointing right for a folded tool call, down for an unfolded one.
func foldMarker(img *image.RGBA, cx, cy, r int, folded bool, c color.RGBA) {
	for j := 0; j <= r; j++ {
		if folded {
			x := cx - r/2 + j
			fillRect(img, x, cy-(r-j), x+1, cy+(r-j)+1, c)
		} else {
			y := cy - r/2 + j
			fillRect(img, cx-(r-j), y, cx+(r-j)+1, y+1, c)
		}
	}
}

// fillRect fills [x0,x1)×[y0,y1) of img with c, clipped to the image.
func fillRect(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	b := img.Rect
	x0, y0 = max(x0, b.Min.X), max(y0, b.Min.Y)
	x1, y1 = min(x1, b.Max.X), min(y1, b.Max.Y)
	if x0 >= x1 || y0 >= y1 {
		return
	}
	stride := img.Stride
	first := img.Pix[y0*stride+x0*4 : y0*stride+x1*4]
	for i := 0; i < len(first); i += 4 {
		first[i], first[i+1], first[i+2], first[i+3] = c.R, c.G, c.B, c.A
	}
	for y := y0 + 1; y < y1; y++ {
		copy(img.Pix[y*stride+x0*4:y*stride+x1*4], first)
	}
}

// outline draws a frame of thickness t around [x0,x1)×[y0,y1), clipped to
// the plot's columns [minX, maxX).
func outline(img *image.RGBA, x0, y0, x1, y1, t int, c color.RGBA, minX, maxX int) {
	cx0, cx1 := max(x0, minX), min(x1, maxX)
	fillRect(img, cx0, y0, cx1, y0+t, c)
	fillRect(img, cx0, y1-t, cx1, y1, c)
	if x0 >= minX {
		fillRect(img, x0, y0, x0+t, y1, c)
	}
	if x1 <= maxX {
		fillRect(img, x1-t, y0, x1, y1, c)
	}
}

// hatch draws diagonal stripes over [x0,x1)×[y0,y1).
func hatch(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	b := img.Rect
	x0, y0 = max(x0, b.Min.X), max(y0, b.Min.Y)
	x1, y1 = min(x1, b.Max.X), min(y1, b.Max.Y)
	for y := y0; y < y1; y++ {
		row := img.Pix[y*img.Stride:]
		for x := x0; x < x1; x++ {
			if (x+y)%6 < 2 {
				i := x * 4
				row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, c.A
			}
		}
	}
}

// rulerTick is one labelled instant of the time ruler.
type rulerTick struct {
	at    time.Duration
	label string
}

// rulerTicks returns round instants between start and end, spaced at least
// about 90 units apart on a plot width wide, labelled in the unit that
// suits the spacing.
func rulerTicks(start, end time.Duration, width float32) []rulerTick {
	if end <= start || width <= 0 {
		return nil
	}
	step := niceStep(end-start, float64(width)/90)
	var ticks []rulerTick
	first := (start + step - 1) / step * step
	if start <= 0 {
		first = 0
	}
	for t := first; t <= end && len(ticks) < 200; t += step {
		ticks = append(ticks, rulerTick{at: t, label: formatTick(t, step)})
	}
	return ticks
}

// niceStep returns the smallest 1, 2 or 5 × 10ⁿ nanoseconds that divides
// width into at most n parts.
func niceStep(width time.Duration, n float64) time.Duration {
	n = max(n, 1)
	for mag := time.Duration(1); mag < 1e15; mag *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if float64(width)/float64(m*mag) <= n {
				return m * mag
			}
		}
	}
	return time.Hour
}

// formatTick writes t in seconds, milliseconds or microseconds, whichever
// suits the ruler's step, with as many decimals as the step needs.
func formatTick(t, step time.Duration) string {
	unit, name := time.Microsecond, "µs"
	switch {
	case step >= 100*time.Millisecond:
		unit, name = time.Second, "s"
	case step >= 100*time.Microsecond:
		unit, name = time.Millisecond, "ms"
	}
	dec := 0
	for s := step; s < unit && dec < 6; s *= 10 {
		dec++
	}
	return fmt.Sprintf("%.*f %s", dec, float64(t)/float64(unit), name)
}

// formatDuration writes d for a person: "512 µs", "12.3 ms", "2.51 s".
func formatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "—"
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d/time.Microsecond)
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	case d < 100*time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// spanLabel is the row label of a span.
func spanLabel(s *recorder.Span) string {
	if s.Name != "" {
		return s.Method + " " + s.Name
	}
	if s.Unlinked != "" {
		return "unlinked " + s.Method // no tool call could be named as its cause (the details say why)
	}
	return s.Method
}

// spanSummary describes a span in a few lines, for the tooltip.
func spanSummary(snap *recorder.Snapshot, s *recorder.Span) []string {
	status := string(s.Status)
	if s.Open() {
		status = "in flight"
	}
	head := fmt.Sprintf("#%d %s (%s, %s)", s.ID, spanLabel(s), s.Direction, status)
	lines := []string{head}
	lines = append(lines, roundSummary(snap, s)...)
	if st := stalledText(s); st != "" {
		lines = append(lines, st)
	}
	if s.Error != "" {
		lines = append(lines, "error: "+truncate(s.Error, 80))
	}
	end := s.Answered
	if end == recorder.Unset {
		end = snap.Now
	}
	if s.Direction == recorder.Incoming {
		h, q, sv := s.HandoffTime(), s.QueueTime(), s.ServeTime()
		switch {
		case s.Queued == recorder.Unset:
			h, q = end-s.Received, 0
		case s.Serving == recorder.Unset:
			q = end - s.Queued
		case s.Answered == recorder.Unset:
			sv = end - s.Serving
		}
		lines = append(lines, fmt.Sprintf("hand-off %s · queued %s · serving %s · total %s",
			formatDuration(h), formatDuration(q), formatDuration(sv), formatDuration(end-s.Received)))
	} else {
		lines = append(lines, "round trip "+formatDuration(end-s.Received))
	}
	lines = append(lines, fmt.Sprintf("received %s → answered %s",
		formatOffset(s.Received), formatOffset(s.Answered)))
	if s.Parent != 0 {
		for _, p := range snap.Spans {
			if p.ID == s.Parent {
				lines = append(lines, fmt.Sprintf("caused by #%d %s", p.ID, spanLabel(p)))
				break
			}
		}
	}
	return lines
}

// formatOffset writes an offset from the recording's start, or "—" when
// the phase was not reached.
func formatOffset(d time.Duration) string {
	if d == recorder.Unset {
		return "—"
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

type ganttRenderer struct {
	g       *Gantt
	raster  *canvas.Raster
	ruler   []*canvas.Text
	labels  []*canvas.Text
	empty   *canvas.Text
	count   *canvas.Text // how many requests, in the gutter over the labels
	tipBg   *canvas.Rectangle
	tip     []*canvas.Text
	objects []fyne.CanvasObject
}

func (r *ganttRenderer) Destroy() {}

func (r *ganttRenderer) Layout(size fyne.Size) {
	r.raster.Resize(size)
	r.g.clampScroll()
	r.Refresh()
}

func (r *ganttRenderer) MinSize() fyne.Size { return r.g.MinSize() }

func (r *ganttRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *ganttRenderer) refreshObjects() {
	r.objects = r.objects[:0]
	r.objects = append(r.objects, r.raster)
	for _, t := range r.ruler {
		r.objects = append(r.objects, t)
	}
	for _, t := range r.labels {
		r.objects = append(r.objects, t)
	}
	r.objects = append(r.objects, r.count, r.empty, r.tipBg)
	for _, t := range r.tip {
		r.objects = append(r.objects, t)
	}
}

// text returns the i-th text of pool, growing it when needed.
func (r *ganttRenderer) text(pool *[]*canvas.Text, i int, size float32) *canvas.Text {
	for len(*pool) <= i {
		t := canvas.NewText("", theme.Color(theme.ColorNameForeground))
		t.TextSize = size
		*pool = append(*pool, t)
		r.refreshObjects()
	}
	t := (*pool)[i]
	t.Show()
	return t
}

func hideFrom(pool []*canvas.Text, i int) {
	for ; i < len(pool); i++ {
		pool[i].Hide()
	}
}

func (r *ganttRenderer) Refresh() {
	g := r.g
	size := g.Size()
	fg := theme.Color(theme.ColorNameForeground)
	small := theme.Size(theme.SizeNameCaptionText)

	// ruler labels
	ticks := rulerTicks(g.axis.start, g.axis.end, g.plotW())
	g.lastTicks = g.lastTicks[:0]
	n := 0
	for _, t := range ticks {
		x := ganttGutter + float32(float64(t.at-g.axis.start)/float64(g.axis.end-g.axis.start))*g.plotW()
		if x+40 > size.Width {
			continue
		}
		lbl := r.text(&r.ruler, n, small)
		n++
		lbl.Text, lbl.Color = t.label, fg
		lbl.Move(fyne.NewPos(x+3, 2))
		lbl.Resize(lbl.MinSize())
		lbl.Refresh()
		g.lastTicks = append(g.lastTicks, t.label)
	}
	hideFrom(r.ruler, n)

	// row labels
	n = 0
	if g.snap != nil && !g.compact {
		top := float32(ganttRulerH + ganttLaneH)
		first := max(int(g.scrollY/ganttRowH), 0)
		for row := first; row < len(g.layout.rows); row++ {
			y := top + float32(row)*ganttRowH - g.scrollY
			if y >= size.Height {
				break
			}
			if y < top-2 {
				continue
			}
			ref := g.layout.rows[row]
			s := g.snap.Spans[ref.span]
			lbl := r.text(&r.labels, n, small)
			n++
			lbl.Text = truncate(rowLabel(s), 24-2*int(ref.depth))
			lbl.Color = fg
			if s.Status != recorder.StatusOpen && s.Status != recorder.StatusOK {
				lbl.Color = failColor
			}
			x := 12 + float32(ref.depth)*ganttIndent
			lbl.Move(fyne.NewPos(x, y+(ganttRowH-lbl.MinSize().Height)/2))
			lbl.Resize(fyne.NewSize(ganttGutter-x-4, lbl.MinSize().Height))
			lbl.Refresh()
		}
	}
	hideFrom(r.labels, n)

	// the number of requests, over their labels
	total := 0
	if g.snap != nil {
		total = len(g.snap.Spans)
	}
	switch n := len(g.layout.rows); {
	case n < total:
		r.count.Text = fmt.Sprintf("%d of %d requests", n, total)
	case n == 1:
		r.count.Text = "1 request"
	default:
		r.count.Text = fmt.Sprintf("%d requests", n)
	}
	r.count.Color = theme.Color(theme.ColorNameDisabled)
	r.count.Move(fyne.NewPos(8, 4))
	r.count.Resize(r.count.MinSize())
	r.count.Refresh()

	// empty state
	if g.snap == nil || len(g.layout.rows) == 0 {
		r.empty.Show()
		r.empty.Color = theme.Color(theme.ColorNameDisabled)
		r.empty.Move(fyne.NewPos(ganttGutter, ganttRulerH+ganttLaneH+ganttRowH))
		r.empty.Resize(fyne.NewSize(max(size.Width-ganttGutter, 0), r.empty.MinSize().Height))
		r.empty.Refresh()
	} else {
		r.empty.Hide()
	}

	// tooltip
	lines := g.Tooltip()
	if len(lines) == 0 {
		r.tipBg.Hide()
		hideFrom(r.tip, 0)
	} else {
		var w, h float32
		for i, l := range lines {
			t := r.text(&r.tip, i, small)
			t.Text, t.Color = l, fg
			ms := t.MinSize()
			w = max(w, ms.Width)
			h += ms.Height
		}
		hideFrom(r.tip, len(lines))
		w, h = w+12, h+8
		pos := g.hoverPos.Add(fyne.NewPos(14, 16))
		if pos.X+w > size.Width {
			pos.X = max(g.hoverPos.X-w-8, 0)
		}
		if pos.Y+h > size.Height {
			pos.Y = max(g.hoverPos.Y-h-8, 0)
		}
		r.tipBg.FillColor = theme.Color(theme.ColorNameOverlayBackground)
		r.tipBg.Move(pos)
		r.tipBg.Resize(fyne.NewSize(w, h))
		r.tipBg.Show()
		r.tipBg.Refresh()
		y := pos.Y + 4
		for i := range lines {
			t := r.tip[i]
			t.Move(fyne.NewPos(pos.X+6, y))
			t.Resize(t.MinSize())
			t.Refresh()
			y += t.MinSize().Height
		}
	}
	r.raster.Refresh()
}

// useAxis makes the Gantt show axis, shared with other widgets, until
// the returned function is called.
func (g *Gantt) useAxis(a *timeAxis) (release func()) {
	g.axis = a
	return a.listen(g.changed)
}
