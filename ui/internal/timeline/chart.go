package timeline

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// ConcurrencyChartHeight is the height a [TimelineView] gives its chart.
const ConcurrencyChartHeight = 140

// ConcurrencyChart plots, over time, how many incoming requests were in
// flight (being served) and pending (received and not yet answered) as two
// step lines. It shares its time axis with the [Gantt] above it: the same
// visible range and the same left gutter, so an instant lines up in both.
//
// The steps are downsampled to one value per pixel column (the most in
// that column), so a recording with a hundred thousand changes draws as
// fast as one with ten.
type ConcurrencyChart struct {
	widget.BaseWidget

	axis    *timeAxis
	ownAxis bool // not shared with a Gantt: fitted to each snapshot
	snap    *recorder.Snapshot
	steps   []recorder.Step
	calls   liveCalls     // the calls in flight of a load test: see callsteps.go
	stepsV  uint64        // version of snap the steps were computed for
	until   time.Duration // the lines stop here: a live recording's Now
	peak    int
	height  float32 // the height the chart asks for
	// load is set when the chart shows the client's own tool calls in
	// flight: a load test, where the server sends no requests; callsPerS
	// is then how many calls finished per second.
	load      bool
	callsPerS float64

	hover fyne.Position // the pointer, or X < 0 when it is elsewhere

	img    image.Image
	out    *image.RGBA // reused between renders of the same size
	plot   *image.RGBA // the plot right of the gutter, reused likewise
	imgKey chartKey
	err    error
	redraw func() // asks for a frame: see redraw.go
	frames atomic.Int64
}

type chartKey struct {
	w, h       int
	start, end time.Duration
	until      time.Duration
	version    uint64
	steps      int
	dark       bool
	load       bool
	warp       int     // the axis's folds (folds.go)
	gutter     float32 // the label column's width
}

// NewConcurrencyChart returns an empty chart with its own time axis.
func NewConcurrencyChart() *ConcurrencyChart {
	c := &ConcurrencyChart{axis: newTimeAxis(), ownAxis: true, height: ConcurrencyChartHeight, hover: fyne.NewPos(-1, -1),
		until: math.MaxInt64}
	c.ExtendBaseWidget(c)
	c.redraw, _ = c.axis.listen(c.Refresh)
	return c
}

// useAxis makes the chart follow axis (shared with a Gantt) until the
// returned function is called.
func (c *ConcurrencyChart) useAxis(a *timeAxis) (release func()) {
	c.axis, c.ownAxis = a, false
	c.redraw, release = a.listen(c.Refresh)
	return release
}

// SetSnapshot shows the concurrency of snap's incoming requests; a chart
// on its own (not under a Gantt) is fitted to the whole recording.
func (c *ConcurrencyChart) SetSnapshot(snap *recorder.Snapshot) {
	c.snap = snap
	var steps []recorder.Step
	if snap != nil {
		steps = recorder.Steps(snap)
	}
	c.setSteps(snap, steps)
	if c.ownAxis {
		c.axis.set(0, max(c.axis.disp(Extent(snap)), time.Millisecond)*21/20)
	}
	c.redraw()
}

// setSteps replaces the steps drawn: recorder.Steps(snap). While requests
// are open, the lines stop at snap.Now at the level then in force.
//
// A recording in which the server sent no requests but the client made
// two or more tool calls is a load test: the chart then shows the calls
// in flight instead ([recorder.CallSteps]) and the calls finished per
// second.
func (c *ConcurrencyChart) setSteps(snap *recorder.Snapshot, steps []recorder.Step) {
	c.load, c.callsPerS = false, 0
	if len(steps) == 0 && snap != nil {
		// kept up to date frame by frame: a live load test grows by a few
		// calls a frame, and sorting all of them took most of a frame
		calls, peak, t := c.calls.update(snap)
		if len(calls) > 0 && t.isLoad() {
			c.load, c.callsPerS = true, t.perSecond(snap)
			c.steps, c.until = calls, math.MaxInt64
			if t.open {
				c.until = snap.Now
			}
			c.stepsV++
			c.peak = peak
			return
		}
	}
	c.steps, c.until = liveSteps(snap, steps)
	c.stepsV++ // a new cache key: two recordings may share a version
	_, pend := recorder.Peaks(steps)
	c.peak = pend
}

// showsCalls reports whether the chart shows the client's tool calls in
// flight (a load test) rather than the server's requests.
func (c *ConcurrencyChart) showsCalls() bool { return c.load }

// IsLoad reports whether snap holds two or more tool calls and no
// request from the server: a load test, whose concurrency chart shows
// the tool calls in flight rather than the server's requests.
func IsLoad(snap *recorder.Snapshot) bool {
	calls := 0
	for _, s := range snap.Spans {
		switch {
		case s.Direction == recorder.Incoming:
			return false
		case s.Kind == recorder.KindTool:
			calls++
		}
	}
	return calls >= 2
}

// isLive reports whether snap is of a recording still going: a run of it
// has not ended, or a tool call is still open. An open loop's calls are
// each in flight for a fraction of the time between two, so many frames
// of a live load test find none in flight: judged by its calls alone,
// such a frame counted as a finished recording, and the over-time chart
// computed its series on the main goroutine, every span walked (a few
// milliseconds at 20,000 calls), in about every other frame.
func isLive(snap *recorder.Snapshot) bool {
	for _, r := range snap.Runs {
		if r.Open() {
			return true
		}
	}
	for i := len(snap.Spans) - 1; i >= 0; i-- {
		if s := snap.Spans[i]; s.Kind == recorder.KindTool && s.Open() {
			return true
		}
	}
	return false
}

// VisibleRange returns the time the chart shows.
func (c *ConcurrencyChart) VisibleRange() (start, end time.Duration) {
	return c.axis.visible()
}

// ValueAt returns how many incoming requests were in flight and pending
// at offset t.
func (c *ConcurrencyChart) ValueAt(t time.Duration) (inFlight, pending int) {
	i := sort.Search(len(c.steps), func(i int) bool { return c.steps[i].At > t }) - 1
	if i < 0 {
		return 0, 0
	}
	return c.steps[i].InFlight, c.steps[i].Pending
}

// hoverText returns the readout shown for the instant under the pointer,
// or "" when the pointer is not over the plot.
func (c *ConcurrencyChart) hoverText() string {
	if c.hover.X < c.axis.gutter || c.hover.X >= c.Size().Width {
		return ""
	}
	w := max(c.Size().Width-c.axis.gutter, 1)
	t := c.axis.real(c.axis.start + time.Duration(float64(c.hover.X-c.axis.gutter)/float64(w)*float64(c.axis.end-c.axis.start)))
	if t > c.until {
		return "" // after a live recording's Now: nothing happened yet
	}
	f, p := c.ValueAt(t)
	if c.load {
		return fmt.Sprintf("%s: %d calls in flight", FormatOffset(t), f)
	}
	return fmt.Sprintf("%s: %d in flight, %d pending", FormatOffset(t), f, p)
}

// MouseIn is called when the pointer enters the chart.
func (c *ConcurrencyChart) MouseIn(ev *desktop.MouseEvent) { c.MouseMoved(ev) }

// MouseMoved shows the values at the instant under the pointer.
func (c *ConcurrencyChart) MouseMoved(ev *desktop.MouseEvent) {
	c.hover = ev.Position
	c.redraw() // labels only: the chart image is cached
}

// MouseOut hides the readout.
func (c *ConcurrencyChart) MouseOut() {
	c.hover = fyne.NewPos(-1, -1)
	c.redraw()
}

// Err returns the error of the last render, if it failed.
func (c *ConcurrencyChart) Err() error { return c.err }

// MinSize is the gutter and a plot of the chart's height.
func (c *ConcurrencyChart) MinSize() fyne.Size { return fyne.NewSize(ganttGutter+200, c.height) }

// SetHeight changes the height the chart asks for (by default
// [ConcurrencyChartHeight]).
func (c *ConcurrencyChart) SetHeight(h float32) {
	c.height = h
	c.Refresh()
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (c *ConcurrencyChart) CreateRenderer() fyne.WidgetRenderer {
	small := theme.Size(theme.SizeNameCaptionText)
	r := &chartRenderer{c: c}
	r.raster = newRaster(c.draw)
	r.title = canvas.NewText("concurrency", theme.Color(theme.ColorNameForeground))
	r.title.TextSize = small
	r.title.TextStyle.Bold = true
	r.inFlight = canvas.NewText("■ in flight (serving)", inFlightColor)
	r.inFlight.TextSize = small
	r.pending = canvas.NewText("■ pending (queued + serving)", pendingColor)
	r.pending.TextSize = small
	r.top = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	r.top.TextSize = small
	r.top.Alignment = fyne.TextAlignTrailing
	r.zero = canvas.NewText("0", theme.Color(theme.ColorNameForeground))
	r.zero.TextSize = small
	r.zero.Alignment = fyne.TextAlignTrailing
	r.message = canvas.NewText("", theme.Color(theme.ColorNameDisabled))
	r.message.TextSize = small
	r.cursor = canvas.NewLine(theme.Color(theme.ColorNameForeground))
	r.readout = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	r.readout.TextSize = small
	r.readoutBg = canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	return r
}

// yMax is the top of the chart's value axis: the peak plus headroom.
func (c *ConcurrencyChart) yMax() float64 { return float64(max(c.peak, 1)) * 1.15 }

// draw is the raster's generator: it fills the downsampled series into
// one reused image, pixel by pixel, redrawing only when the size, the
// visible range or the data changed.
func (c *ConcurrencyChart) draw(w, h int) image.Image {
	sc := float64(1)
	if sz := c.Size(); sz.Width > 0 {
		sc = float64(w) / float64(sz.Width)
	}
	gutter := int(float64(c.axis.gutter)*sc + 0.5)
	key := chartKey{w: w, h: h, start: c.axis.start, end: c.axis.end, until: c.until, version: c.stepsV, steps: len(c.steps),
		dark: fyne.CurrentApp().Settings().ThemeVariant() == theme.VariantDark, load: c.load, warp: c.axis.warpV, gutter: c.axis.gutter}
	if c.img != nil && key == c.imgKey {
		return c.img
	}
	c.frames.Add(1)
	bg := toRGBA(theme.Color(theme.ColorNameBackground))
	grid := mix(bg, toRGBA(theme.Color(theme.ColorNameForeground)), 0.12)
	out := c.out
	if out == nil || out.Rect.Dx() != w || out.Rect.Dy() != h {
		out = image.NewRGBA(image.Rect(0, 0, w, h))
		c.out = out
	}
	fillRect(out, 0, 0, w, h, bg)
	fillRect(out, gutter-1, 0, gutter, h, grid)
	plot, err := renderConcurrencyInto(c.plot, c.foldedSteps(), c.axis.start, c.axis.end, c.axis.disp(c.until), w-gutter, h, c.yMax(), bg, c.load)
	c.err = err
	if err == nil {
		c.plot = plot
		for y := 0; y < h; y++ {
			copy(out.Pix[y*out.Stride+gutter*4:y*out.Stride+w*4], plot.Pix[y*plot.Stride:y*plot.Stride+(w-gutter)*4])
		}
		// a dotted line at the peak, where the gutter's label points
		if y := h - int(float64(c.peak)/c.yMax()*float64(h)+0.5); c.peak > 0 && y >= 0 && y < h {
			row := out.Pix[y*out.Stride:]
			for x := gutter; x < w; x++ {
				i := 4 * x
				if x%4 < 2 && row[i] == bg.R && row[i+1] == bg.G && row[i+2] == bg.B {
					row[i], row[i+1], row[i+2] = grid.R, grid.G, grid.B // under the lines, not over them
				}
			}
		}
	}
	c.img, c.imgKey = out, key
	return out
}

// liveSteps returns the steps of snap as a live chart draws them:
// [recorder.Steps] ends the spans still open at snap.Now, which would
// draw as if every request in flight had just been answered, so the
// requests still open are counted again from that instant. It also
// returns until, the instant the lines stop at: snap.Now while requests
// are open (what comes after has not happened yet), or no limit.
func liveSteps(snap *recorder.Snapshot, steps []recorder.Step) (live []recorder.Step, until time.Duration) {
	until = time.Duration(math.MaxInt64)
	if snap == nil || len(steps) == 0 {
		return steps, until
	}
	var openF, openP int
	for _, s := range snap.Spans {
		if s.Direction != recorder.Incoming || s.Received == recorder.Unset || !s.Open() {
			continue
		}
		openP++
		if s.Serving != recorder.Unset {
			openF++
		}
	}
	if openP == 0 {
		return steps, until
	}
	last := steps[len(steps)-1]
	if last.At != snap.Now {
		return steps, snap.Now // no end at Now to undo: not the recorder's Steps
	}
	last.InFlight += openF
	last.Pending += openP
	live = slices.Clip(steps[:len(steps)-1]) // the caller's slice stays as it was
	if n := len(live); n == 0 || live[n-1].InFlight != last.InFlight || live[n-1].Pending != last.Pending {
		live = append(live, last)
	}
	return live, snap.Now
}

// renderConcurrency draws the in-flight and pending step lines of steps
// between start and end, stopping at until, into a w×h image, without
// axes: the chart's time axis is the Gantt's ruler. Each pixel column shows
// the most requests in flight and pending within it (see [columns]), as a
// shaded area under a line; it fills the image's pixels directly, which
// takes well under a millisecond where a vector rasteriser took tens.
func renderConcurrency(steps []recorder.Step, start, end, until time.Duration, w, h int, yMax float64, bg color.RGBA) (*image.RGBA, error) {
	return renderConcurrencyInto(nil, steps, start, end, until, w, h, yMax, bg, false)
}

// renderConcurrencyInto is [renderConcurrency] into out when it has the
// size (else a new image); single draws the in-flight line alone (a load
// test's calls, where pending would repeat it).
func renderConcurrencyInto(out *image.RGBA, steps []recorder.Step, start, end, until time.Duration, w, h int, yMax float64, bg color.RGBA, single bool) (*image.RGBA, error) {
	if w < 2 || h < 2 {
		return nil, fmt.Errorf("the chart is too small to draw (%d×%d pixels)", w, h)
	}
	if end <= start {
		return nil, fmt.Errorf("the visible time range is empty (%v to %v)", start, end)
	}
	if out == nil || out.Rect.Dx() != w || out.Rect.Dy() != h {
		out = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	fillRect(out, 0, 0, w, h, bg)
	if yMax <= 0 {
		return out, nil
	}
	fl, pe := columns(steps, start, end, until, w)
	y := func(v int) int { return min(h-int(float64(v)/yMax*float64(h)+0.5), h-1) }
	pendFill := mix(bg, pendingColor, 50.0/255)
	flightFill := mix(bg, inFlightColor, 70.0/255)
	flightOverPend := mix(pendFill, inFlightColor, 70.0/255)
	// areas first, then the lines over them
	for x := range fl {
		yf := y(fl[x])
		if single {
			fillRect(out, x, yf, x+1, h, flightFill)
			continue
		}
		yp := y(pe[x])
		fillRect(out, x, yp, x+1, h, pendFill)
		fillRect(out, x, yf, x+1, h, flightOverPend)
	}
	line := func(vals []int, c color.RGBA, thick int) {
		for x := range vals {
			y1 := y(vals[x])
			y0 := y1
			if x > 0 {
				y0 = y(vals[x-1]) // the step from the previous column
			}
			top, bot := min(y0, y1), max(y0, y1)
			fillRect(out, x, max(top-thick/2, 0), x+1, min(bot+(thick+1)/2, h), c)
		}
	}
	if !single {
		line(pe, pendingColor, 1)
	}
	line(fl, inFlightColor, 2)
	return out, nil
}

// columns returns, for each pixel column of the range [start, end) spread
// over cols columns, the most requests in flight and pending at any time
// within it; the columns stop at until when it falls before end (a live
// recording's Now: what comes after has not happened yet).
func columns(steps []recorder.Step, start, end, until time.Duration, cols int) (inFlight, pending []int) {
	if cols <= 0 || end <= start || until <= start {
		return nil, nil
	}
	colW := float64(end-start) / float64(cols)
	stop := float64(min(end, until))
	cur := recorder.Step{}
	i := 0
	if len(steps) > 0 && steps[0].At <= start {
		i = sort.Search(len(steps), func(i int) bool { return steps[i].At > start })
		cur = steps[i-1]
	}
	inFlight, pending = make([]int, 0, cols), make([]int, 0, cols)
	for col := 0; col < cols; col++ {
		t0 := float64(start) + float64(col)*colW
		if t0 >= stop {
			break
		}
		t1 := min(t0+colW, stop)
		for i < len(steps) && float64(steps[i].At) <= t0 {
			cur = steps[i]
			i++
		}
		f, p := cur.InFlight, cur.Pending
		for i < len(steps) && float64(steps[i].At) < t1 {
			cur = steps[i]
			f, p = max(f, cur.InFlight), max(p, cur.Pending)
			i++
		}
		inFlight, pending = append(inFlight, f), append(pending, p)
	}
	return inFlight, pending
}

type chartRenderer struct {
	c                                            *ConcurrencyChart
	raster                                       *canvas.Raster
	title, inFlight, pending, top, zero, message *canvas.Text
	cursor                                       *canvas.Line
	readoutBg                                    *canvas.Rectangle
	readout                                      *canvas.Text
	ratePace                                     paced // of the throughput, in pending (paced.go)
}

func (r *chartRenderer) Destroy() {}

func (r *chartRenderer) Layout(size fyne.Size) {
	r.raster.Resize(size)
	r.Refresh()
}

func (r *chartRenderer) MinSize() fyne.Size { return r.c.MinSize() }

func (r *chartRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.raster, r.title, r.inFlight, r.pending, r.top, r.zero, r.message, r.cursor, r.readoutBg, r.readout}
}

func (r *chartRenderer) Refresh() {
	c := r.c
	size := c.Size()
	fg := theme.Color(theme.ColorNameForeground)
	// texts are refreshed only when they change (see setText)
	if c.load {
		// a load test: the client's own calls, and how fast they finish
		setText(r.title, "tool calls", fg)
		setText(r.inFlight, "■ tool calls in flight", inFlightColor)
		setPaced(r.pending, &r.ratePace, nil, fmt.Sprintf("throughput %s calls/s", formatRate(c.callsPerS)), fg, c.axis, c.redraw)
	} else if c.snap != nil && c.snap.Meta.Mode == recorder.ModeProxy {
		// a proxy's recording: the waits are exact, the work estimated
		setText(r.title, "your client", fg)
		setText(r.inFlight, "■ in flight (estimated from the answers)", inFlightColor)
		setText(r.pending, "■ pending (waiting at the client)", pendingColor)
	} else {
		setText(r.title, "concurrency", fg)
		setText(r.inFlight, "■ in flight (serving)", inFlightColor)
		setText(r.pending, "■ pending (queued + serving)", pendingColor)
	}
	y := float32(4)
	for _, t := range []*canvas.Text{r.title, r.inFlight, r.pending} {
		t.Move(fyne.NewPos(8, y))
		t.Resize(t.MinSize())
		y += t.MinSize().Height + 2
	}
	// value labels at the top and bottom of the plot, right-aligned in the gutter
	setText(r.top, fmt.Sprintf("%d", max(c.peak, 1)), fg)
	setText(r.zero, "0", fg)
	topY := size.Height * float32(1-float64(max(c.peak, 1))/c.yMax())
	ts := r.top.MinSize()
	r.top.Move(fyne.NewPos(c.axis.gutter-6-ts.Width, max(topY-ts.Height/2, 0)))
	r.top.Resize(ts)
	zs := r.zero.MinSize()
	r.zero.Move(fyne.NewPos(c.axis.gutter-6-zs.Width, size.Height-zs.Height))
	r.zero.Resize(zs)
	msg := ""
	if c.err != nil {
		msg = c.err.Error()
	}
	setText(r.message, msg, theme.Color(theme.ColorNameDisabled))
	r.message.Move(fyne.NewPos(c.axis.gutter+8, 4))
	r.message.Resize(r.message.MinSize())
	if text := c.hoverText(); text == "" {
		r.cursor.Hide()
		r.readout.Hide()
		r.readoutBg.Hide()
	} else {
		r.cursor.StrokeColor = fg
		r.cursor.Position1 = fyne.NewPos(c.hover.X, 0)
		r.cursor.Position2 = fyne.NewPos(c.hover.X, size.Height)
		setText(r.readout, text, fg)
		ms := r.readout.MinSize()
		x := c.hover.X + 6
		if x+ms.Width > size.Width {
			x = c.hover.X - 6 - ms.Width
		}
		r.readout.Move(fyne.NewPos(x, 2))
		r.readout.Resize(ms)
		r.readoutBg.FillColor = theme.Color(theme.ColorNameOverlayBackground)
		r.readoutBg.Move(fyne.NewPos(x-3, 1))
		r.readoutBg.Resize(ms.AddWidthHeight(6, 2))
		r.cursor.Show()
		r.readout.Show()
		r.readoutBg.Show()
		r.cursor.Refresh()
		r.readoutBg.Refresh()
	}
	r.raster.Refresh()
}

// ShareAxis makes the chart show the time range of g, until release is
// called.
func (c *ConcurrencyChart) ShareAxis(g *Gantt) (release func()) { return c.useAxis(g.axis) }

// SetSteps shows the concurrency steps of snap, recorder.Steps(snap),
// computed off the main goroutine. While requests are open, the lines stop
// at snap.Now at the level then in force.
func (c *ConcurrencyChart) SetSteps(snap *recorder.Snapshot, steps []recorder.Step) {
	c.snap = snap
	c.setSteps(snap, steps)
	c.redraw()
}

// Snapshot returns the snapshot shown, or nil.
func (c *ConcurrencyChart) Snapshot() *recorder.Snapshot { return c.snap }

// formatRate writes a rate with commas between thousands and one decimal
// under a hundred: "1,234", "12.5".
func formatRate(v float64) string {
	if v < 100 {
		return fmt.Sprintf("%.1f", v)
	}
	n := fmt.Sprintf("%d", int64(v+0.5))
	for i := len(n) - 3; i > 0; i -= 3 {
		n = n[:i] + "," + n[i:]
	}
	return n
}
