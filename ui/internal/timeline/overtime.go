package timeline

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// overTimeChartHeight is the height an [OverTimeChart] asks for.
const overTimeChartHeight = 110

// overTimeEvery is the least time between two computations of a live
// recording's series: it changes once a second, and computing it walks
// every span.
const overTimeEvery = 500 * time.Millisecond

// OverTimeChart plots a run second by second ([recorder.Series]) on the
// time axis of the [Gantt] it shares: in its upper band the tool calls
// finished per second (an area) and started per second (a line), in its
// lower band the p50 and p99 latency of the calls finished in each
// second.
type OverTimeChart struct {
	widget.BaseWidget

	axis     *timeAxis
	series   []recorder.SecondStat
	version  uint64        // of the snapshot the series was computed from
	computed time.Time     // when, for a live recording's throttle
	topRate  float64       // the most calls started or finished per second in a step
	topMS    float64       // the highest p99
	until    time.Duration // a live run's Now: nothing is drawn after it
	busy     bool          // a live series is being computed
	gen      int           // bumped when a computation in flight goes stale
	// inline computes a live series on the caller's goroutine: for tests,
	// whose driver has no main loop to hand the result back to.
	inline bool

	img    *image.RGBA
	imgKey overTimeKey
	redraw func()
}

type overTimeKey struct {
	w, h       int
	start, end time.Duration
	version    uint64
	seconds    int
	until      time.Duration
	dark       bool
	warp       int     // the axis's folds (folds.go)
	gutter     float32 // the label column's width
}

// NewOverTimeChart returns an empty chart following the time axis of g.
func NewOverTimeChart(g *Gantt) *OverTimeChart {
	c := &OverTimeChart{axis: g.axis, until: math.MaxInt64}
	c.ExtendBaseWidget(c)
	c.redraw, _ = c.axis.listen(c.Refresh)
	return c
}

// SetSnapshot shows the series of snap. While snap is live (a run goes
// on, or calls are in flight) the series is computed off the main
// goroutine, at most every half second (it walks every span: 0.3 s for
// a million); a finished recording's at once.
func (c *OverTimeChart) SetSnapshot(snap *recorder.Snapshot) {
	if snap == nil {
		c.gen++
		c.series, c.version = nil, 0
		c.redraw()
		return
	}
	if snap.Version == c.version && c.series != nil {
		return
	}
	live := isLive(snap)
	if !live || c.inline {
		c.gen++ // a result still being computed is older: it is dropped
		until := time.Duration(math.MaxInt64)
		if live {
			until = snap.Now
		}
		c.setSeries(recorder.Series(snap), snap, until)
		return
	}
	if c.busy || time.Since(c.computed) < overTimeEvery {
		return
	}
	c.busy, c.computed = true, time.Now()
	gen := c.gen
	go func() {
		series := recorder.Series(snap)
		c.axis.frame.gate.Do(func() {
			c.busy = false
			if gen == c.gen {
				c.setSeries(series, snap, snap.Now) // the second in progress stops where the run is
			}
		})
	}()
}

// setSeries shows series, computed from snap, up to until.
func (c *OverTimeChart) setSeries(series []recorder.SecondStat, snap *recorder.Snapshot, until time.Duration) {
	c.series, c.version, c.until = series, snap.Version, until
	c.topRate, c.topMS = 0, 0
	for _, st := range c.series {
		c.topRate = max(c.topRate, perSecond(st.Started, st), perSecond(st.Finished, st))
		c.topMS = math.Max(c.topMS, st.P99MS)
	}
	c.redraw()
}

// perSecond is n calls of a series step as a rate per second: a step of
// a long run covers several seconds ([recorder.MaxSeriesPoints]).
func perSecond(n int, st recorder.SecondStat) float64 {
	return float64(n) / float64(max(st.Width, 1))
}

// Series returns the steps the chart shows.
func (c *OverTimeChart) Series() []recorder.SecondStat { return c.series }

// MinSize is the gutter and a plot of the chart's height.
func (c *OverTimeChart) MinSize() fyne.Size {
	return fyne.NewSize(c.axis.gutter+200, overTimeChartHeight)
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (c *OverTimeChart) CreateRenderer() fyne.WidgetRenderer {
	small := theme.Size(theme.SizeNameCaptionText)
	text := func(s string, col color.Color) *canvas.Text {
		t := canvas.NewText(s, col)
		t.TextSize = small
		return t
	}
	fg := theme.Color(theme.ColorNameForeground)
	r := &overTimeRenderer{c: c, raster: newRaster(c.draw),
		rateTitle: text("calls per second", fg), finished: text("■ finished", inFlightColor), started: text("— started", pendingColor),
		latTitle: text("latency", fg), p50: text("— p50", inFlightColor), p99: text("— p99", pendingColor),
		rateTop: text("", fg), latTop: text("", fg)}
	r.rateTitle.TextStyle.Bold, r.latTitle.TextStyle.Bold = true, true
	r.rateTop.Alignment, r.latTop.Alignment = fyne.TextAlignTrailing, fyne.TextAlignTrailing
	return r
}

// draw fills the plot right of the gutter: each pixel column shows the
// series step (a second, or more in a long run) its instant falls in.
func (c *OverTimeChart) draw(w, h int) image.Image {
	sc := float64(1)
	if sz := c.Size(); sz.Width > 0 {
		sc = float64(w) / float64(sz.Width)
	}
	key := overTimeKey{w: w, h: h, start: c.axis.start, end: c.axis.end, version: c.version, seconds: len(c.series), until: c.until,
		dark: fyne.CurrentApp().Settings().ThemeVariant() == theme.VariantDark, warp: c.axis.warpV, gutter: c.axis.gutter}
	if c.img != nil && key == c.imgKey {
		return c.img
	}
	bg := toRGBA(theme.Color(theme.ColorNameBackground))
	grid := mix(bg, toRGBA(theme.Color(theme.ColorNameForeground)), 0.12)
	out := c.img
	if out == nil || out.Rect.Dx() != w || out.Rect.Dy() != h {
		out = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	fillRect(out, 0, 0, w, h, bg)
	gutter := int(float64(c.axis.gutter)*sc + 0.5)
	mid := h / 2
	fillRect(out, gutter-1, 0, gutter, h, grid)
	fillRect(out, gutter, mid, w, mid+1, grid)
	span := c.axis.end - c.axis.start
	if span <= 0 || len(c.series) == 0 || w <= gutter {
		c.img, c.imgKey = out, key
		return out
	}
	band := mid - 2 // each band's height, under a pixel of air
	rateY := func(n int, st recorder.SecondStat) int {
		return mid - 1 - int(perSecond(n, st)/max(c.topRate, 1)/1.1*float64(band)+0.5)
	}
	width := time.Duration(max(c.series[0].Width, 1)) * time.Second // of every step
	latY := func(v float64) int { return h - 1 - int(v/math.Max(c.topMS, 1e-9)/1.1*float64(band)+0.5) }
	areaFill := mix(bg, inFlightColor, 70.0/255)
	prev := [3]int{-1, -1, -1} // the previous column's started, p50 and p99 rows
	for x := gutter; x < w; x++ {
		t := c.axis.real(c.axis.start + time.Duration(float64(x-gutter)/float64(w-gutter)*float64(span)))
		if t < 0 || t > c.until || int(t/width) >= len(c.series) {
			prev = [3]int{-1, -1, -1}
			continue
		}
		st := c.series[int(t/width)]
		yf := rateY(st.Finished, st)
		fillRect(out, x, yf, x+1, mid, areaFill)
		fillRect(out, x, yf, x+1, yf+1, inFlightColor)
		line := func(i, y int, col color.RGBA) {
			y0, y1 := y, y
			if prev[i] >= 0 {
				y0 = prev[i]
			}
			fillRect(out, x, min(y0, y1), x+1, max(y0, y1)+1, col)
			prev[i] = y
		}
		line(0, rateY(st.Started, st), pendingColor)
		if st.Finished == 0 {
			prev[1], prev[2] = -1, -1
			continue
		}
		line(2, latY(st.P99MS), pendingColor)
		line(1, latY(st.P50MS), inFlightColor)
	}
	c.img, c.imgKey = out, key
	return out
}

type overTimeRenderer struct {
	c                            *OverTimeChart
	raster                       *canvas.Raster
	rateTitle, finished, started *canvas.Text
	latTitle, p50, p99           *canvas.Text
	rateTop, latTop              *canvas.Text
}

func (r *overTimeRenderer) Destroy() {}

func (r *overTimeRenderer) Layout(size fyne.Size) {
	r.raster.Resize(size)
	r.Refresh()
}

func (r *overTimeRenderer) MinSize() fyne.Size { return r.c.MinSize() }

func (r *overTimeRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.raster, r.rateTitle, r.finished, r.started, r.latTitle, r.p50, r.p99, r.rateTop, r.latTop}
}

func (r *overTimeRenderer) Refresh() {
	c := r.c
	size := c.Size()
	fg := theme.Color(theme.ColorNameForeground)
	half := size.Height / 2
	row := func(y float32, texts ...*canvas.Text) {
		x := float32(8)
		for _, t := range texts {
			t.Move(fyne.NewPos(x, y))
			t.Resize(t.MinSize())
			x += t.MinSize().Width + 6
			if t == texts[0] {
				x, y = 8, y+t.MinSize().Height
			}
		}
	}
	row(2, r.rateTitle, r.finished, r.started)
	row(half+2, r.latTitle, r.p50, r.p99)
	setText(r.rateTop, fmt.Sprintf("%.4g/s", max(c.topRate, 1)), fg)
	setText(r.latTop, FormatDuration(time.Duration(c.topMS*float64(time.Millisecond))), fg)
	for i, t := range []*canvas.Text{r.rateTop, r.latTop} {
		ts := t.MinSize()
		t.Move(fyne.NewPos(c.axis.gutter-6-ts.Width, float32(i)*half+2))
		t.Resize(ts)
	}
	r.raster.Refresh()
}
