package timeline

import (
	"image"
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// OverviewHeight is the overview strip's height.
const OverviewHeight = 26

// Overview is a strip of the whole recording, as a trace viewer's
// overview track: how many requests were in flight along it, shaded,
// with the range the Gantt shows marked on it. Clicking or dragging on
// it moves that range there, keeping its width.
type Overview struct {
	widget.BaseWidget

	g      *Gantt
	raster *canvas.Raster
	img    *image.RGBA
	cancel func()
	tally  levelTally // the spans counted along the strip
	end    liveEnd    // the recording's last instant but Now, kept as it grows (see span)
	// the levels drawn last, and what they were made of: a frame that only
	// moves the range repaints them without reading the spans again
	levels   []int
	peak     int
	levelKey struct {
		snap  *recorder.Snapshot
		spans int
		now   time.Duration
		cols  int
	}
}

// NewOverview returns the overview of g's recording, following g's time
// axis; release stops that.
func NewOverview(g *Gantt) (o *Overview, release func()) {
	o = &Overview{g: g}
	o.ExtendBaseWidget(o)
	o.raster = newRaster(o.draw)
	_, o.cancel = g.axis.listen(func() { o.raster.Refresh() })
	return o, o.cancel
}

// CreateRenderer implements [fyne.Widget].
func (o *Overview) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(o.raster) }

// MinSize is the strip's height, and the Gantt's label column wide.
func (o *Overview) MinSize() fyne.Size { return fyne.NewSize(ganttGutter+100, OverviewHeight) }

// span is the stretch the strip shows: the whole recording.
func (o *Overview) span() time.Duration {
	snap := o.g.snap
	if snap == nil {
		return time.Second
	}
	return max(o.end.of(snap), snap.Now, time.Second) // [Extent], without walking every span
}

// draw paints the strip: in the plot's columns, the requests in flight
// (as the share of the most at once), and the Gantt's visible range.
func (o *Overview) draw(w, h int) image.Image {
	if o.img == nil || o.img.Rect.Dx() != w || o.img.Rect.Dy() != h {
		o.img = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	img := o.img
	pal := newGanttPalette()
	fillRect(img, 0, 0, w, h, pal.ruler)
	sc := float64(1)
	if sz := o.Size(); sz.Width > 0 {
		sc = float64(w) / float64(sz.Width)
	}
	x0 := int(math.Round(float64(o.g.axis.gutter) * sc))
	cols := w - x0
	snap := o.g.snap
	if cols <= 0 || snap == nil {
		return img
	}
	total := o.span()
	col := func(t time.Duration) int {
		return min(max(int(float64(t)/float64(total)*float64(cols)), 0), cols-1)
	}
	key := o.levelKey
	key.snap, key.spans, key.now, key.cols = snap, len(snap.Spans), snap.Now, cols
	if key != o.levelKey || o.levels == nil {
		o.levels, o.peak = o.tally.levels(snap, cols, col)
		o.levelKey = key
	}
	level, peak := o.levels, o.peak
	fg := mix(pal.bg, pal.fg, 0.55)
	for i, n := range level {
		if n > 0 {
			bar := max(1, int(float64(h-2)*float64(n)/float64(max(peak, 1))))
			fillRect(img, x0+i, h-1-bar, x0+i+1, h-1, fg)
		}
	}
	// the range the Gantt shows
	from, to := o.g.axis.visible()
	a, b := x0+col(from), x0+col(to)+1
	sel := pal.sel
	sel.A = 255
	for y := 0; y < h; y++ { // shade what is outside it
		for x := x0; x < w; x++ {
			if x < a || x >= b {
				i := img.PixOffset(x, y)
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = (img.Pix[i]+pal.bg.R)/2, (img.Pix[i+1]+pal.bg.G)/2, (img.Pix[i+2]+pal.bg.B)/2
			}
		}
	}
	line := max(1, int(sc+0.5))
	fillRect(img, a, 0, a+line, h, pal.now)
	fillRect(img, b-line, 0, b, h, pal.now)
	fillRect(img, a, 0, b, line, pal.now)
	fillRect(img, a, h-line, b, h, pal.now)
	return img
}

// timeAt is the instant of the recording at x (dp from the strip's left).
func (o *Overview) timeAt(x float32) time.Duration {
	cols := o.Size().Width - o.g.axis.gutter
	if cols <= 0 {
		return 0
	}
	return time.Duration(float64(x-o.g.axis.gutter) / float64(cols) * float64(o.span()))
}

// centreOn moves the Gantt's range to centre on the instant at x,
// keeping its width, and stops following the live end.
func (o *Overview) centreOn(x float32) {
	if x < o.g.axis.gutter {
		return
	}
	w := o.g.axis.end - o.g.axis.start // in display time
	o.g.SetFollow(false)
	at := max(o.g.axis.disp(o.timeAt(x))-w/2, 0)
	o.g.axis.set(at, at+w)
}

// Tapped moves the Gantt's range to the instant clicked.
func (o *Overview) Tapped(ev *fyne.PointEvent) { o.centreOn(ev.Position.X) }

// Dragged moves the Gantt's range along with the pointer.
func (o *Overview) Dragged(ev *fyne.DragEvent) { o.centreOn(ev.Position.X) }

// DragEnd is called when a drag ends; there is nothing left to do.
func (o *Overview) DragEnd() {}
