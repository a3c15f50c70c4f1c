package timeline

import (
	"image"
	"image/color"
	"math"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// draw is the raster's generator: it paints the ruler's ticks, the
// notification lane and the visible rows into the reused image.
func (g *Gantt) draw(w, h int) image.Image {
	g.frames.Add(1)
	g.syncRows() // rows laid out again since the last refresh
	if g.img == nil || g.img.Rect.Dx() != w || g.img.Rect.Dy() != h {
		g.img = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	img := g.img
	if g.placeBelow != nil && g.belowPx != [2]int{w, h} {
		g.placeBelow(w, h) // drawn at another size than they were laid out for
	}
	pal := newGanttPalette()
	fillRect(img, 0, 0, w, h, pal.bg)

	pm := g.pixelsOf(w)
	sc, px, plotX0, line, xOf := pm.sc, pm.px, pm.plotX0, pm.line, pm.xOf
	rulerH, laneH := px(ganttRulerH), px(ganttLaneH)
	top := rulerH + laneH

	// the grid under the rows, and the idle stretches folded away
	ticks := g.axis.ticks(g.plotW())
	for _, t := range ticks {
		x := xOf(t.at)
		fillRect(img, x, rulerH, x+1, h, pal.grid)
	}
	g.drawFolds(img, rulerH, h, xOf, plotX0, w, line, pal)
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
		g.drawRuns(img, rulerH, top, h, xOf, plotX0, w, line, pal)
		if g.zoomDrag.on { // the range a drag on the ruler would zoom onto
			x0, x1 := px(min(g.zoomDrag.from, g.zoomDrag.to)), px(max(g.zoomDrag.from, g.zoomDrag.to))
			fillRect(img, x0, 0, x1, top, pal.sel)
			fillRect(img, x0, 0, x0+line, h, pal.now)
			fillRect(img, x1-line, 0, x1, h, pal.now)
		}
		for _, e := range g.snap.Events {
			drawLaneStall(img, e, top-px(4), top-px(2), xOf, plotX0, w, pal)
			if x := xOf(e.At); x >= plotX0 && x < w {
				fillRect(img, x, rulerH+px(2), x+max(1, px(2)), top-px(2), EventColor(e.Kind))
			}
		}
		if g.focused {
			foot := h
			if g.pictureH() < g.Size().Height {
				foot = h + line // the frame's foot is under the picture (below.go)
			}
			outline(img, 0, 0, w, foot, line, pal.now, 0, w)
		}
	}()
	if g.snap == nil {
		return img
	}

	// rows
	rh := float64(g.rowH()) * sc
	scroll := float64(g.scrollY) * sc
	if g.agg.on {
		g.drawGroups(img, top, h, w, plotX0, rh, scroll, xOf, pal, px)
	}
	first := max(int(scroll/rh), 0)
	last := min(int((scroll+float64(h-top))/rh)+1, len(g.layout.rows))
	if g.agg.on {
		last = first // the groups are drawn instead
	}
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
		fillRect(img, x, y0+pad, x+px(4), y1-pad, KindColor(s.Kind))
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
	if g.rowsH() > g.rowsAreaH() {
		total, view := float64(g.rowCount())*rh, float64(h-top)
		y0 := top + int(scroll/total*view)
		y1 := top + int((scroll+view)/total*view+0.5)
		fillRect(img, w-px(5), y0, w-px(1), max(y1, y0+px(8)), pal.faint)
	}
	return img
}

// pixelMap is where the Gantt's picture, w pixels wide, puts things:
// sc pixels a unit, px a length in units as pixels, the plot's first
// column, a line's thickness and the column of an instant. The picture
// and the lines under it (below.go) share it.
type pixelMap struct {
	sc           float64
	plotX0, line int
	start, perNs float64
	disp         func(time.Duration) time.Duration
}

func (g *Gantt) pixelsOf(w int) pixelMap {
	sc := float64(1)
	if sz := g.Size(); sz.Width > 0 {
		sc = float64(w) / float64(sz.Width)
	}
	m := pixelMap{sc: sc, line: max(1, int(sc+0.5)), start: float64(g.axis.start), disp: g.axis.disp}
	m.plotX0 = m.px(g.axis.gutter)
	m.perNs = float64(w-m.plotX0) / (float64(g.axis.end) - m.start)
	return m
}

func (m pixelMap) px(v float32) int { return int(math.Round(float64(v) * m.sc)) }

func (m pixelMap) xOf(t time.Duration) int {
	return m.plotX0 + int(math.Floor((float64(m.disp(t))-m.start)*m.perNs))
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
	if s.Kind == recorder.KindRound {
		// a round is a row of its own for its bar: one of under a
		// millisecond (a round answered at once) is drawn 3 px wide, not a
		// hairline nobody sees
		x3 = max(x3, x0+3*line)
	}
	serve := s.Serving
	if s.Direction != recorder.Incoming || serve == recorder.Unset && s.Answered != recorder.Unset {
		serve = s.Received
	}
	x1 := x3
	if serve != recorder.Unset {
		x1 = min(xOf(serve), x3)
	}
	kc := KindColor(s.Kind)
	cx0, cx3 := max(x0, plotX0), min(x3, w)
	fillRect(img, cx0, y0, min(max(x1, plotX0), w), y1, mix(pal.bg, kc, 0.35))
	fillRect(img, max(x1, plotX0), y0, cx3, y1, kc)
	g.drawFulfilment(img, span, y0, y1, xOf, plotX0, w, line, pal)
	drawStalled(img, s, y0, y1, xOf, plotX0, w, pal)
	failed := s.Status != recorder.StatusOpen && s.Status != recorder.StatusOK
	if s.Status == recorder.StatusCancelled || s.Status == recorder.StatusTimeout || s.Status == recorder.StatusAborted {
		hatch(img, cx0, y0, cx3, y1, FailColor)
	}
	switch {
	case failed:
		outline(img, x0, y0, x3, y1, max(line, 2), FailColor, plotX0, w)
	case selected:
		outline(img, x0, y0, x3, y1, line, pal.fg, plotX0, w)
	case g.critical[s.ID]: // held up the end of the selected call
		outline(img, x0, y0, x3, y1, max(line, 2), pal.now, plotX0, w)
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

// drawRuns marks the runs of a recording of several on the axis: each
// run's stretch as a band at the foot of the notification lane, and its
// start as a line down through the rows (its name is on the ruler, see
// [ganttRenderer.placeRuler]). A recording of one run needs no marks.
func (g *Gantt) drawRuns(img *image.RGBA, rulerH, top, h int, xOf func(time.Duration) int, plotX0, w, line int, pal ganttPalette) {
	if len(g.snap.Runs) < 2 {
		return
	}
	for _, r := range g.snap.Runs {
		end := g.snap.Now
		if !r.Open() {
			end = r.End
		}
		x0, x1 := max(xOf(r.Start), plotX0), min(xOf(end), w)
		if x1 > x0 {
			fillRect(img, x0, top-max(2, line*2), x1, top, pal.now)
		}
		if x := xOf(r.Start); x >= plotX0 && x < w {
			fillRect(img, x, rulerH, x+line, h, pal.now)
		}
	}
}
