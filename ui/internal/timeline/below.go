package timeline

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// The Gantt's picture ends at its last row. Below it, where there are
// fewer rows than room, the window's background shows (the Gantt's is the
// same colour) and the few lines that run down the whole height (the
// grid under each tick, the gutter's edge, the live end, the starts of
// runs, the keyboard focus's frame) are thin rectangles. The picture is a
// texture made anew each frame, and with software OpenGL (llvmpipe, as
// under Xvfb) uploading and drawing it was about a third of painting the
// window: a fan-out's five rows filled 40% of a 1400×900 window's Gantt,
// and the empty rest cost as much a pixel as the rows.
//
// Folded idle stretches (hatched) and a zoom drag still draw the whole
// height in the picture: neither changes every frame of a live view.

// pictureH is the height, in the widget's units, of the Gantt's picture:
// its ruler, lane and rows, and no more than the widget.
func (g *Gantt) pictureH() float32 {
	h := g.Size().Height
	if g.snap == nil || len(g.axis.warp.folds) > 0 || g.zoomDrag.on {
		return h
	}
	return min(h, ganttRulerH+ganttLaneH+max(g.rowsH()-g.scrollY, 0))
}

// pixelScale is how many pixels a unit is on the Gantt's canvas.
func (g *Gantt) pixelScale() float32 {
	if app := fyne.CurrentApp(); app != nil {
		if c := app.Driver().CanvasForObject(g); c != nil && c.Scale() > 0 {
			return c.Scale()
		}
	}
	return 1
}

// placeBelow lays out the lines under the picture, on the pixels the
// picture would have drawn them on (see [Gantt.draw]): their columns are
// worked out as the picture's are, and placed from the pixel the
// picture starts on, so that a line under the rows continues the one in
// them wherever the Gantt sits in the window. The painters size a
// picture in pixels each their own way (the OpenGL one rounds, the
// software one of the tests rounds up), so the picture, once drawn at a
// size other than the one assumed here, places them again for that one
// ([Gantt.draw], before the painter gets to them).
func (r *ganttRenderer) placeBelow() {
	g := r.g
	scale := float64(g.pixelScale())
	r.placeBelowPx(int(math.Round(float64(g.Size().Width)*scale)), int(math.Round(float64(g.pictureH())*scale)))
}

// placeBelowPx is [ganttRenderer.placeBelow] under a picture w×picH
// pixels large.
func (r *ganttRenderer) placeBelowPx(w, picH int) {
	g := r.g
	g.belowPx = [2]int{w, picH}
	size := g.Size()
	n := 0
	if pic := g.pictureH(); pic < size.Height && g.snap != nil && size.Width > 0 {
		scale := float64(g.pixelScale())
		pm := g.pixelsOf(w) // as [Gantt.draw] maps the picture
		// the pixel the Gantt starts on, and a pixel offset from it in units
		var at fyne.Position
		if app := fyne.CurrentApp(); app != nil {
			at = app.Driver().AbsolutePositionForObject(g)
		}
		baseX, baseY := math.Round(float64(at.X)*scale), math.Round(float64(at.Y)*scale)
		unitX := func(p int) float32 { return float32((baseX+float64(p))/scale - float64(at.X)) }
		y0 := float32((baseY+float64(picH))/scale - float64(at.Y))
		pal := newGanttPalette()
		put := func(x0, x1 int, y0, y1 float32, c color.RGBA) {
			x0, x1 = max(x0, 0), min(x1, w)
			if x0 >= x1 || y0 >= y1 {
				return
			}
			rect := r.belowRect(n)
			n++
			rect.FillColor = c
			rect.Move(fyne.NewPos(unitX(x0), y0))
			rect.Resize(fyne.NewSize(unitX(x1)-unitX(x0), y1-y0))
		}
		down := func(x0, x1 int, c color.RGBA) { put(x0, x1, y0, size.Height, c) }
		for _, t := range r.ticks { // the ruler's, placed before
			x := pm.xOf(t.at)
			down(x, x+1, pal.grid)
		}
		down(pm.plotX0-1, pm.plotX0, pal.grid)
		if g.follow {
			if x := pm.xOf(g.snap.Now); x >= pm.plotX0 && x < w {
				down(x, x+pm.line, pal.now)
			}
		}
		if len(g.snap.Runs) >= 2 {
			for _, run := range g.snap.Runs {
				if x := pm.xOf(run.Start); x >= pm.plotX0 && x < w {
					down(x, x+pm.line, pal.now)
				}
			}
		}
		if g.focused { // the frame's sides and foot (its head is in the picture)
			down(0, pm.line, pal.now)
			down(w-pm.line, w, pal.now)
			put(0, w, size.Height-float32(float64(pm.line)/scale), size.Height, pal.now)
		}
	}
	for ; n < len(r.below); n++ {
		r.below[n].Hide()
	}
}

// belowRect returns the i-th rectangle under the picture, growing the
// pool when needed.
func (r *ganttRenderer) belowRect(i int) *canvas.Rectangle {
	for len(r.below) <= i {
		r.below = append(r.below, canvas.NewRectangle(color.Transparent))
		r.refreshObjects()
	}
	rect := r.below[i]
	rect.Show()
	return rect
}
