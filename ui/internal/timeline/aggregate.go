package timeline

import (
	"fmt"
	"image"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/fanout-inspector/inspector/recorder"
)

// aggregateAbove is the most rows the Gantt draws one by one. Past it
// (a load test of thousands of calls), while more than that many
// requests lie in the visible time range, the Gantt shows one row per
// method and depth instead, each drawing how many of its requests were in
// flight over time as a shaded band. Zooming in until no more than this
// many are in view, or clicking a group's row, drills down to the
// requests' own rows; fitting the whole recording again aggregates.
var aggregateAbove = 1000

// ganttAggH is the height of a group's row: a band tall enough to read.
const ganttAggH = 36

// aggState is the grouping the Gantt shows while it aggregates. It is
// kept up to date frame by frame: the rows the layout appended are
// grouped, the ones it laid out again are grouped afresh, and the
// requests that were still in flight are looked at again to count their
// failures, so a frame costs the new rows, not all of them.
type aggState struct {
	on      bool
	drilled bool          // the person asked for single rows: clicked a group
	drillW  time.Duration // the width of the view then: zooming out past it aggregates again
	groups  []aggGroup
	index   map[aggKey]int // a group's key → its index in groups
	groupOf []int32        // row → its group, for the rows grouped so far
	failed  []bool         // row → counted among its group's failures
	open    []int32        // rows grouped while in flight, in order: looked at again
	// buffers drawGroups reuses
	counts, full []float64
	fails        []bool
	slot         []int // group → its place in the buffers, or -1 when off screen
}

// aggKey is what puts requests in one group: their method (and tool)
// at one depth.
type aggKey struct {
	kind         recorder.Kind
	method, name string
	depth        int8
}

// aggGroup is the requests of one method (and tool) at one depth: tool
// calls, or the requests under them.
type aggGroup struct {
	key    aggKey
	label  string
	first  int32 // its first row
	rows   int   // how many rows it holds
	failed int
}

// reset forgets the grouping: the next [Gantt.groupRows] groups every row.
func (a *aggState) reset() {
	a.groups = a.groups[:0]
	clear(a.index)
	a.groupOf, a.failed, a.open = a.groupOf[:0], a.failed[:0], a.open[:0]
}

// truncate forgets the grouping of the rows from row on.
func (a *aggState) truncate(row int) {
	if row >= len(a.groupOf) {
		return
	}
	for r := row; r < len(a.groupOf); r++ {
		gr := &a.groups[a.groupOf[r]]
		gr.rows--
		if a.failed[r] {
			gr.failed--
		}
	}
	a.groupOf, a.failed = a.groupOf[:row], a.failed[:row]
	for len(a.open) > 0 && int(a.open[len(a.open)-1]) >= row {
		a.open = a.open[:len(a.open)-1]
	}
	// the groups left empty began at row or later: they are the last ones
	for n := len(a.groups); n > 0 && a.groups[n-1].rows == 0; n-- {
		delete(a.index, a.groups[n-1].key)
		a.groups = a.groups[:n-1]
	}
}

// GanttGroup is one row of an aggregated [Gantt]: the requests of one
// method at one depth.
type GanttGroup struct {
	label    string
	requests int
	failed   int
}

// aggregated reports whether the Gantt shows groups (see
// [aggregateAbove]) rather than a row per request.
func (g *Gantt) aggregated() bool { return g.agg.on }

// groups returns the rows of an aggregated Gantt, or nil.
func (g *Gantt) groups() []GanttGroup {
	if !g.agg.on {
		return nil
	}
	out := make([]GanttGroup, len(g.agg.groups))
	for i, gr := range g.agg.groups {
		out[i] = GanttGroup{label: gr.label, requests: gr.rows, failed: gr.failed}
	}
	return out
}

// drillDown shows the requests' own rows, starting at those of group i.
func (g *Gantt) drillDown(i int) {
	if !g.agg.on || i < 0 || i >= len(g.agg.groups) {
		return
	}
	first := g.agg.groups[i].first
	g.agg.drilled, g.agg.on = true, false
	g.agg.drillW = g.axis.end - g.axis.start
	g.scrollY = float32(first) * g.rowH()
	g.clampScroll()
	g.changed()
}

// updateAggregate decides, once per frame, whether to aggregate and
// groups the rows when it does.
func (g *Gantt) updateAggregate() {
	g.syncRows()
	was := g.agg.on
	if g.agg.drilled && g.axis.end-g.axis.start > g.agg.drillW*3/2 {
		g.agg.drilled = false // zoomed well out again
	}
	g.agg.on = g.snap != nil && !g.agg.drilled && len(g.layout.rows) > aggregateAbove && g.rowsInView(aggregateAbove+1) > aggregateAbove
	if !g.agg.on {
		g.agg.reset()
		if was {
			// zoomed in past the threshold: show the rows in view
			g.scrollToTime(g.axis.real(g.axis.start))
		}
		return
	}
	if !was {
		g.scrollY = 0
		g.hoverRow = -1
	}
	g.groupRows()
	g.clampScroll()
}

// rowsInView counts the rows whose request overlaps the visible time
// range, stopping at limit.
func (g *Gantt) rowsInView(limit int) int {
	n := 0
	from, to := g.axis.visible()
	g.eachRowInView(from, to, func(int, *recorder.Span) bool {
		n++
		return n < limit
	})
	return n
}

// scrollToTime scrolls to the first row whose request is still open at t.
func (g *Gantt) scrollToTime(t time.Duration) {
	for i, ref := range g.layout.rows {
		if s := g.snap.Spans[ref.span]; s.Received != recorder.Unset && recorder.SpanEnd(g.snap, s) >= t {
			g.scrollY = float32(i) * g.rowH()
			break
		}
	}
	g.clampScroll()
}

// groupRows puts every row not grouped yet in the group of its method
// (and tool) and depth, the groups in order of their first row, and
// counts the failures of the requests that were in flight.
func (g *Gantt) groupRows() {
	a := &g.agg
	if a.index == nil {
		a.index = map[aggKey]int{}
	}
	keep := a.open[:0]
	for _, r := range a.open {
		s := g.snap.Spans[g.layout.rows[r].span]
		if s.Open() {
			keep = append(keep, r)
		} else if failedSpan(s) {
			a.failed[r] = true
			a.groups[a.groupOf[r]].failed++
		}
	}
	a.open = keep
	for r := len(a.groupOf); r < len(g.layout.rows); r++ {
		ref := g.layout.rows[r]
		s := g.snap.Spans[ref.span]
		k := aggKey{s.Kind, s.Method, s.Name, min(ref.depth, 1)} // no label built per row
		i, ok := a.index[k]
		if !ok {
			i = len(a.groups)
			a.index[k] = i
			a.groups = append(a.groups, aggGroup{key: k, label: SpanLabel(s), first: int32(r)})
		}
		gr := &a.groups[i]
		gr.rows++
		f := failedSpan(s)
		if f {
			gr.failed++
		}
		a.groupOf = append(a.groupOf, int32(i))
		a.failed = append(a.failed, f)
		if s.Open() {
			a.open = append(a.open, int32(r))
		}
	}
}

// failedSpan reports whether s ended otherwise than answered well.
func failedSpan(s *recorder.Span) bool {
	return s.Status != recorder.StatusOpen && s.Status != recorder.StatusOK
}

// drawGroups paints the visible groups' density bands: in each pixel
// column, a bar as tall as the share of the group's peak that was in
// flight then (on average over the column); failures as red ticks along
// the row's bottom. Only the requests in the visible time are looked at
// ([Gantt.eachRowInView]).
func (g *Gantt) drawGroups(img *image.RGBA, top, h, w, plotX0 int, rh, scroll float64, xOf func(time.Duration) int, pal ganttPalette, px func(float32) int) {
	cols := w - plotX0
	if cols <= 0 {
		return
	}
	a := &g.agg
	// the groups on screen, each given a place in the buffers
	a.slot = slices.Grow(a.slot[:0], len(a.groups))[:len(a.groups)]
	shown := 0
	for gi := range a.groups {
		a.slot[gi] = -1
		y0 := top + int(float64(gi)*rh-scroll)
		y1 := top + int(float64(gi+1)*rh-scroll)
		if y1 > top && y0 < h {
			a.slot[gi] = shown
			shown++
		}
	}
	// counts[c] is how many of a group's requests were in flight on
	// average over pixel column c: a request covering a column wholly
	// adds 1, one covering part of it that part. full is the difference
	// array of the wholly covered columns.
	a.counts = resized(a.counts, shown*cols)
	a.full = resized(a.full, shown*(cols+1))
	a.fails = resized(a.fails, shown*cols)
	start := float64(g.axis.start)
	perCol := float64(cols) / float64(g.axis.end-g.axis.start)
	from, to := g.axis.visible()
	g.eachRowInView(from, to, func(r int, s *recorder.Span) bool {
		if r >= len(a.groupOf) || a.slot[a.groupOf[r]] < 0 {
			return true
		}
		at := a.slot[a.groupOf[r]]
		counts, full, fails := a.counts[at*cols:(at+1)*cols], a.full[at*(cols+1):(at+1)*(cols+1)], a.fails[at*cols:(at+1)*cols]
		fa := (float64(g.axis.disp(s.Received)) - start) * perCol
		fb := (float64(g.axis.disp(recorder.SpanEnd(g.snap, s))) - start) * perCol
		if fb <= 0 || fa >= float64(cols) {
			return true
		}
		fa, fb = max(fa, 0), min(fb, float64(cols)-1e-9)
		i0, i1 := int(fa), int(fb)
		if i0 == i1 {
			counts[i0] += max(fb-fa, 0)
		} else {
			counts[i0] += float64(i0+1) - fa
			counts[i1] += fb - float64(i1)
			full[i0+1]++
			full[i1]--
		}
		if failedSpan(s) {
			for c := i0; c <= i1; c++ {
				fails[c] = true
			}
		}
		return true
	})
	for gi := range a.groups {
		at := a.slot[gi]
		if at < 0 {
			continue
		}
		y0 := top + int(float64(gi)*rh-scroll)
		y1 := top + int(float64(gi+1)*rh-scroll)
		gr := &a.groups[gi]
		if gi%2 == 1 {
			fillRect(img, 0, max(y0, top), w, y1, pal.stripe)
		}
		kc := KindColor(gr.key.kind)
		x := px(4 + float32(gr.key.depth)*ganttIndent)
		fillRect(img, x, y0+px(3), x+px(4), y1-px(3), kc)
		counts, full, fails := a.counts[at*cols:(at+1)*cols], a.full[at*(cols+1):(at+1)*(cols+1)], a.fails[at*cols:(at+1)*cols]
		peak, run := 0.0, 0.0
		for c := range cols {
			run += full[c]
			counts[c] += run
			peak = max(peak, counts[c])
		}
		if peak <= 0 {
			continue
		}
		band0, band1 := y0+px(3), y1-px(3)
		fillRect(img, plotX0, max(band0, top), w, band1, mix(pal.bg, kc, 0.12))
		for c := range cols {
			if counts[c] <= 0 {
				continue
			}
			bh := max(1, int(float64(band1-band0)*counts[c]/peak+0.5))
			fillRect(img, plotX0+c, max(band1-bh, top), plotX0+c+1, band1, kc)
			if fails[c] {
				fillRect(img, plotX0+c, max(band1-px(3), top), plotX0+c+1, band1, FailColor)
			}
		}
	}
}

// resized returns buf with n elements, all zero, reusing its array.
func resized[T any](buf []T, n int) []T {
	buf = slices.Grow(buf[:0], n)[:n]
	clear(buf)
	return buf
}

// placeGroupLabels writes each visible group's label, and its count in
// counts; it returns how many labels it used.
func (r *ganttRenderer) placeGroupLabels() int {
	g := r.g
	size := g.Size()
	small := theme.Size(theme.SizeNameCaptionText)
	fg := theme.Color(theme.ColorNameForeground)
	top := float32(ganttRulerH + ganttLaneH)
	n, shown := 0, 0
	defer func() { hideFrom(r.counts, shown) }()
	for i, gr := range g.agg.groups {
		y := top + float32(i)*ganttAggH - g.scrollY
		if y >= size.Height {
			break
		}
		if y < top-2 {
			continue
		}
		x := 12 + float32(gr.key.depth)*ganttIndent
		name := r.text(&r.labels, n, small)
		n++
		setText(name, Truncate(gr.label, 24-2*int(gr.key.depth)), fg)
		name.Move(fyne.NewPos(x, y+2))
		name.Resize(fyne.NewSize(g.axis.gutter-x-4, name.MinSize().Height))
		count, pace := r.countText(shown, small)
		shown++
		text, c := fmt.Sprintf("×%s", thousands(gr.rows)), theme.Color(theme.ColorNameDisabled)
		if gr.failed > 0 {
			text += fmt.Sprintf(", %s failed", thousands(gr.failed))
			c = FailColor
		}
		setPaced(count, pace, gr.key, text, c, g.axis, g.changed)
		count.Move(fyne.NewPos(x, y+ganttAggH/2))
		count.Resize(fyne.NewSize(g.axis.gutter-x-4, count.MinSize().Height))
	}
	return n
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
