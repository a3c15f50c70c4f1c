package timeline

import (
	"math"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// ganttLayout is the row order of a snapshot, built incrementally as spans
// are appended: a group per top-level span, and under it its descendants
// as a tree in order of appearance. A 2025-era tool call has its requests
// as children; a multi-round-trip call (2026-07-28) has its rounds as
// children and each round the input requests it asked for. Only the
// groups from the first one that changed are flattened again, so a live
// run whose latest tool calls gain children costs little per frame
// however long it is.
type ganttLayout struct {
	done     int                       // spans laid out
	index    map[recorder.SpanID]int32 // span ID → index in snap.Spans
	ids      []recorder.SpanID         // span index → its ID
	groupOf  []int32                   // span index → its group
	parentOf []int32                   // span index → its parent's index, or -1
	// The children of a span, in order of appearance, as a list through
	// span indices: firstKid and lastKid of the parent, nextKid of each
	// child; -1 ends it.
	firstKid, lastKid, nextKid []int32
	groups                     []ganttGroup      // in order of their top span
	rows                       []ganttRowRef     // flattened groups
	rowOfSpan                  []int32           // span index → row, or -1
	evDone                     int               // events sorted into spanEv
	spanEv                     map[int32][]int32 // span index → indices of the events naming it
	dirtyGroup                 int               // first group to flatten again
	// rowsFrom is the first row laid out again since [Gantt.syncRows]
	// last looked: what is kept per row from there on is stale. A new
	// layout starts at 0.
	rowsFrom int
	// A span with children is folded when collapseAll differs from
	// toggled[its ID]: the fold state belongs to the span, so it stays
	// put when rows are laid out again or move.
	collapseAll bool
	toggled     map[recorder.SpanID]bool
	filter      spanFilter // rows that do not match are left out
}

type ganttGroup struct {
	top        int32
	start, end int32 // the group's rows: [start, end)
}

type ganttRowRef struct {
	span  int32
	depth int8
}

// maxDepth is the deepest indentation a row gets; deeper descendants
// (which no engine records) are drawn at this depth.
const maxDepth = 4

// update lays out the spans of snap that are new since the last update;
// hidden says which kinds get no row.
func (l *ganttLayout) update(snap *recorder.Snapshot, hidden map[recorder.Kind]bool) {
	if l.index == nil {
		l.index = make(map[recorder.SpanID]int32)
		l.spanEv = make(map[int32][]int32)
	}
	l.dirtyGroup = len(l.groups)
	for i := l.done; i < len(snap.Spans); i++ {
		s := snap.Spans[i]
		l.index[s.ID] = int32(i)
		g, parent := int32(-1), int32(-1)
		if s.Parent != 0 {
			// only a parent laid out before it counts: no cycles
			if p, ok := l.index[s.Parent]; ok && int(p) < i {
				g, parent = l.groupOf[p], p
			}
		}
		if g < 0 {
			g = int32(len(l.groups))
			l.groups = append(l.groups, ganttGroup{top: int32(i)})
		} else {
			if l.lastKid[parent] < 0 {
				l.firstKid[parent] = int32(i)
			} else {
				l.nextKid[l.lastKid[parent]] = int32(i)
			}
			l.lastKid[parent] = int32(i)
			l.dirtyGroup = min(l.dirtyGroup, int(g))
		}
		l.firstKid = append(l.firstKid, -1)
		l.lastKid = append(l.lastKid, -1)
		l.nextKid = append(l.nextKid, -1)
		l.ids = append(l.ids, s.ID)
		l.groupOf = append(l.groupOf, g)
		l.parentOf = append(l.parentOf, parent)
		l.rowOfSpan = append(l.rowOfSpan, -1)
	}
	l.done = len(snap.Spans)
	l.flatten(snap, hidden)
	l.sortEvents(snap)
}

// flatten lays the groups from l.dirtyGroup on out as rows, leaving out
// the spans of hidden kinds and the descendants of folded spans.
func (l *ganttLayout) flatten(snap *recorder.Snapshot, hidden map[recorder.Kind]bool) {
	from := l.dirtyGroup
	if from >= len(l.groups) {
		return
	}
	if from > 0 {
		l.rows = l.rows[:l.groups[from-1].end]
	} else {
		l.rows = l.rows[:0]
	}
	l.rowsFrom = min(l.rowsFrom, len(l.rows))
	// a frame is a span whose children are being laid out: next is the
	// next child to lay out
	type frame struct {
		next   int32
		depth  int8 // of the children
		folded bool // they are under a folded span
	}
	var stack []frame
	visit := func(span int32, depth int8, folded bool) {
		if folded || hidden[snap.Spans[span].Kind] || l.filter.active() && !l.filter.match(snap.Spans[span]) || l.loneRound(snap, span) {
			l.rowOfSpan[span] = -1
		} else {
			l.rowOfSpan[span] = int32(len(l.rows))
			l.rows = append(l.rows, ganttRowRef{span: span, depth: depth})
		}
		if k := l.firstKid[span]; k >= 0 {
			stack = append(stack, frame{next: k, depth: min(depth+1, maxDepth), folded: folded || l.collapsed(span)})
		}
	}
	for gi := from; gi < len(l.groups); gi++ {
		g := &l.groups[gi]
		g.start = int32(len(l.rows))
		visit(g.top, 0, false)
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < 0 {
				stack = stack[:len(stack)-1]
				continue
			}
			c, depth, folded := f.next, f.depth, f.folded
			f.next = l.nextKid[c]
			visit(c, depth, folded) // may grow the stack: f is not used after
		}
		g.end = int32(len(l.rows))
	}
	l.dirtyGroup = len(l.groups)
}

// loneRound reports whether span is the round of a call answered in
// one round (its parent's only child, with nothing under it): the call's
// row says all it would, and a row of its own would show every such
// call twice. Once the call has a second round, both get rows.
func (l *ganttLayout) loneRound(snap *recorder.Snapshot, span int32) bool {
	p := l.parentOf[span]
	return snap.Spans[span].Kind == recorder.KindRound && p >= 0 &&
		l.firstKid[p] == span && l.nextKid[span] < 0 && l.firstKid[span] < 0
}

// collapsed reports whether the children of span are folded under it.
func (l *ganttLayout) collapsed(span int32) bool {
	if !l.hasKids(span) {
		return false
	}
	return l.collapseAll != (len(l.toggled) > 0 && l.toggled[l.ids[span]])
}

// hasKids reports whether any span names span as its parent.
func (l *ganttLayout) hasKids(span int32) bool { return l.firstKid[span] >= 0 }

// foldable returns the span of row if it has children (a tool call, a
// round), or -1.
func (l *ganttLayout) foldable(row int) int32 {
	if row < 0 || row >= len(l.rows) {
		return -1
	}
	span := l.rows[row].span
	if !l.hasKids(span) {
		return -1
	}
	return span
}

// toggle folds or unfolds the children of span.
func (l *ganttLayout) toggle(span int32) {
	if l.toggled == nil {
		l.toggled = map[recorder.SpanID]bool{}
	}
	id := l.ids[span]
	l.toggled[id] = !l.toggled[id]
	l.dirtyGroup = min(l.dirtyGroup, int(l.groupOf[span]))
}

// descendants counts the spans under span, at any depth.
func (l *ganttLayout) descendants(span int32) int {
	n := 0
	for k := l.firstKid[span]; k >= 0; k = l.nextKid[k] {
		n += 1 + l.descendants(k)
	}
	return n
}

// sortEvents sorts the new events of snap to the spans they name.
func (l *ganttLayout) sortEvents(snap *recorder.Snapshot) {
	for ; l.evDone < len(snap.Events); l.evDone++ {
		e := snap.Events[l.evDone]
		if e.Span == 0 {
			continue
		}
		if i, ok := l.index[e.Span]; ok {
			l.spanEv[i] = append(l.spanEv[i], int32(l.evDone))
		}
	}
}

func (l *ganttLayout) rowOfID(id recorder.SpanID) int {
	i, ok := l.index[id]
	if id == 0 || !ok {
		return -1
	}
	return int(l.rowOfSpan[i])
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

func (g *Gantt) rowH() float32 {
	if g.agg.on {
		return ganttAggH
	}
	if g.compact {
		return ganttCompactH
	}
	return ganttRowH
}

func (g *Gantt) plotW() float32 { return max(g.Size().Width-g.axis.gutter, 1) }

func (g *Gantt) rowsAreaH() float32 {
	return max(g.Size().Height-ganttRulerH-ganttLaneH, 0)
}

// rowsH is the height of all the rows, in units.
func (g *Gantt) rowsH() float32 { return float32(g.rowCount()) * g.rowH() }

func (g *Gantt) clampScroll() {
	maxY := g.rowsH() - g.rowsAreaH()
	g.scrollY = min(g.scrollY, max(maxY, 0))
	g.scrollY = max(g.scrollY, 0)
}

// ShowRowsIn scrolls the rows so that those of the requests sent from
// start to end (offsets from the recording's start) are in view: all of
// them when they fit, else from the first, so that a run's tool call is
// on screen with what came under it. The view moves no more than it must;
// groups (a load test) stay where they are.
func (g *Gantt) ShowRowsIn(start, end time.Duration) {
	if g.snap == nil || g.agg.on {
		return
	}
	first, last := -1, -1
	for i, ref := range g.layout.rows {
		if s := g.snap.Spans[ref.span]; s.Received != recorder.Unset && s.Received >= start && s.Received <= end {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return
	}
	top, bottom, room := float32(first)*g.rowH(), float32(last+1)*g.rowH(), g.rowsAreaH()
	switch {
	case bottom-top > room || top < g.scrollY:
		g.scrollY = top
	case bottom > g.scrollY+room:
		g.scrollY = bottom - room
	}
	g.clampScroll()
	g.changed()
}

// RowsInView returns the rows drawn whole in the rows area, in display
// order (groups while aggregated are not rows: none then).
func (g *Gantt) RowsInView() []GanttRow {
	if g.snap == nil || g.agg.on {
		return nil
	}
	h := g.rowH()
	first := int(math.Ceil(float64(g.scrollY / h)))
	n := int(math.Floor(float64((g.scrollY + g.rowsAreaH()) / h)))
	rows := g.Rows()
	return rows[min(max(first, 0), len(rows)):min(max(n, 0), len(rows))]
}

// RowsHeight is the height that shows the ruler, the lane and every row
// (or group) at once.
func (g *Gantt) RowsHeight() float32 { return ganttRulerH + ganttLaneH + g.rowsH() }

// rowCount is how many rows are drawn: groups while aggregated.
func (g *Gantt) rowCount() int {
	if g.agg.on {
		return len(g.agg.groups)
	}
	return len(g.layout.rows)
}
