package timeline

import (
	"image"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
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
	ganttGutter    = 180 // the row labels' column at first; a drag widens it (gutter.go)
	ganttRulerH    = 22  // the time ruler
	ganttLaneH     = 10  // the notification lane under the ruler
	ganttRowH      = 20  // one request
	ganttCompactH  = 4   // one request in compact mode
	ganttIndent    = 14  // indentation of a child row's label
	ganttFoldW     = 18  // the fold marker of a tool call, at the gutter's right end
	minVisibleSpan = 10 * time.Microsecond
)

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
// and Right pan, + and - zoom, 0 fits, Escape clears the selection. The
// ruler, the lane and the rows are drawn on one raster into a reused image,
// so ten thousand rows stay smooth; under fewer rows than room, the lines
// that run down the whole height are thin rectangles (below.go).
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
	folding folding // the idle stretches between runs folded away (folds.go)
	follow  bool
	// followedRows is how many rows there were when following last
	// scrolled to the newest: following scrolls again only when rows
	// come (or go), so that a run fitted when it ended stays in view
	followedRows int
	compact      bool
	fitted       bool                   // the view has been fitted at least once
	hidden       map[recorder.Kind]bool // kinds of request given no row
	foldAll      bool                   // tool calls start folded

	focused bool // has the keyboard focus
	// placeBelow lays out the lines under a picture of a size in pixels,
	// belowPx the size they were laid out for (below.go)
	placeBelow func(w, h int)
	belowPx    [2]int
	scrollY    float32 // first visible row pixel, in dp
	selected   recorder.SpanID
	hoverRow   int
	hoverEvent int // index in snap.Events of the notification under the pointer
	hoverPos   fyne.Position

	agg    aggState // groups shown instead of rows past aggregateAbove
	rowIdx rowIndex // the time each chunk of rows covers: see rowindex.go
	live   liveEnd  // where following slides to: see liveend.go

	// zoomDrag is a drag that began on the ruler: the range from its
	// start to the pointer is shaded, and the view zooms onto it when the
	// drag ends (see input.go).
	zoomDrag struct {
		on       bool
		from, to float32 // x of the press and of the pointer, in dp
	}
	dragging   bool                          // a drag is going on (the first event of one starts it)
	gutterDrag bool                          // that drag began on the label column's edge: it widens the column (gutter.go)
	charW      struct{ size, width float32 } // the labels' mean character width at a text size (gutter.go)
	// critical holds the requests that held up the end of the selected
	// tool call (or of the call of the selected request): see
	// [CriticalPath]; they are outlined.
	critical map[recorder.SpanID]bool

	img    *image.RGBA
	frames atomic.Int64
	redraw func() // asks for a frame: see redraw.go
	// lastTicks is what the ruler showed at the last refresh.
	lastTicks []string
}

// NewGantt returns an empty Gantt with its own time axis.
func NewGantt() *Gantt {
	g := &Gantt{axis: newTimeAxis(), hoverRow: -1, hoverEvent: -1}
	g.ExtendBaseWidget(g)
	g.redraw, _ = g.axis.listen(g.Refresh)
	return g
}

// criticalOf is the critical path, as a set, of the tool call id or of
// the call that request id belongs to; nil for anything else.
func (g *Gantt) criticalOf(id recorder.SpanID) map[recorder.SpanID]bool {
	s := g.snap.SpanByID(id)
	if s == nil {
		return nil
	}
	if s.Kind != recorder.KindTool && s.Kind != recorder.KindRound {
		if s = g.snap.SpanByID(s.Parent); s == nil {
			return nil
		}
	}
	path := CriticalPath(g.snap, s.ID)
	if len(path) == 0 {
		return nil
	}
	set := make(map[recorder.SpanID]bool, len(path))
	for _, p := range path {
		set[p] = true
	}
	return set
}

// Critical returns the requests outlined as the critical path of the
// selected call.
func (g *Gantt) Critical() map[recorder.SpanID]bool { return g.critical }

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
		g.layout = ganttLayout{collapseAll: g.foldAll, filter: g.layout.filter}
		g.scrollY = 0
		g.hoverRow, g.hoverEvent = -1, -1
		g.fitted = false
		g.followedRows = -1
		g.selected = 0
		g.agg.drilled = false
	} else if reparented(g.snap, snap, g.layout.done) {
		// a request learnt its tool call after it was laid out: lay
		// everything out again, keeping the view and what was folded
		g.layout = ganttLayout{collapseAll: g.layout.collapseAll, toggled: g.layout.toggled, filter: g.layout.filter}
	}
	g.snap = snap
	g.layout.update(snap, g.hidden)
	if g.selected != 0 && g.layout.rowOfID(g.selected) < 0 {
		g.selected = 0
	}
	g.critical = nil
	if g.selected != 0 { // a live call's path grows as its requests end
		g.critical = g.criticalOf(g.selected)
	}
	g.updateFolds()
	switch {
	case !g.fitted && g.follow:
		g.fitted = true
		g.axis.set(0, max(5*time.Second, g.axis.disp(Extent(snap))*21/20))
	case !g.fitted:
		g.fitted = true
		g.fit()
	case g.follow:
		g.slideToNow()
	}
	g.clampScroll()
	g.changed()
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
func (g *Gantt) VisibleRange() (start, end time.Duration) { return g.axis.visible() }

// SetVisibleRange shows the time from start to end.
func (g *Gantt) SetVisibleRange(start, end time.Duration) { g.axis.setReal(start, end) }

// ZoomIn shows half as much time, around the middle of the view.
func (g *Gantt) ZoomIn() { g.zoomAt(0.5, 0.5) }

// ZoomOut shows twice as much time, around the middle of the view.
func (g *Gantt) ZoomOut() { g.zoomAt(2, 0.5) }

// fit shows the whole recording.
func (g *Gantt) fit() {
	g.agg.drilled = false // the whole recording: aggregate again
	end := Extent(g.snap)
	if end <= 0 {
		end = time.Second // nothing yet: a second is a sensible first view
	}
	g.hideTooltip()
	g.axis.set(0, g.axis.disp(end)*21/20)
	g.changed()
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
		g.followedRows = -1 // to the newest rows, now
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

// CollapseAll shows only the top row of every tool call (on) or every row
// (off), forgetting which ones were folded or unfolded by hand.
func (g *Gantt) CollapseAll(on bool) {
	g.foldAll = on
	g.layout.collapseAll = on
	clear(g.layout.toggled)
	g.relayout()
}

// setCollapsed folds (or unfolds) the requests under span id: the
// requests caused by a tool call (or its rounds), the input requests of a
// round. A span with nothing under it is left as it is.
func (g *Gantt) setCollapsed(id recorder.SpanID, collapsed bool) {
	i, ok := g.layout.index[id]
	if !ok || !g.layout.hasKids(i) || g.layout.collapsed(i) == collapsed {
		return
	}
	g.layout.toggle(i)
	g.relayout()
}

// collapsed reports whether the requests under span id are folded under
// its row.
func (g *Gantt) collapsed(id recorder.SpanID) bool {
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
			g.setCollapsed(g.layout.ids[p], false)
		}
	}
	row := g.layout.rowOfID(id)
	if row < 0 {
		id = 0
	}
	g.selected = id
	g.critical = g.criticalOf(id)
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

// FramesDrawn returns how many frames the Gantt has drawn since it was
// made: sample it twice to measure frames per second.
func (g *Gantt) FramesDrawn() int64 { return g.frames.Load() }

// MinSize is enough for the gutter, the ruler and a few rows.
func (g *Gantt) MinSize() fyne.Size {
	return fyne.NewSize(g.axis.gutter+200, ganttRulerH+ganttLaneH+4*ganttRowH)
}

// Deselect clears the selection without calling OnSelect: for a view that
// moved the selection to another Gantt.
func (g *Gantt) Deselect() {
	if g.selected != 0 {
		g.selected, g.critical = 0, nil
		g.changed()
	}
}

// HiddenKinds returns the kinds whose rows are hidden, in legend order.
func (g *Gantt) HiddenKinds() []recorder.Kind {
	var ks []recorder.Kind
	for _, k := range LegendKinds {
		if g.hidden[k] {
			ks = append(ks, k)
		}
	}
	return ks
}
