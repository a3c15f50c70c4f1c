package export

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/palette"
	chart "github.com/wcharczuk/go-chart/v2"
	"github.com/wcharczuk/go-chart/v2/drawing"
)

// Chart names a chart of a recording that [WriteChartPNG] and
// [WriteChartSVG] draw.
type Chart string

// The charts.
const (
	// ChartConcurrency is the number of incoming requests in flight
	// (being served) and pending (received, not yet answered) over time,
	// as step lines.
	ChartConcurrency Chart = "concurrency"
	// ChartLatency is a histogram of the incoming requests' latency,
	// received → answered (outgoing requests' when there are no incoming
	// ones).
	ChartLatency Chart = "latency"
	// ChartGantt is the timeline: one bar per request (pale while queued,
	// solid while served, coloured by kind); in recordings with many
	// requests, requests share rows as long as they do not overlap.
	ChartGantt Chart = "gantt"
	// ChartThroughput is the tool calls started, finished and failed per
	// second ([recorder.Series]), on the timeline's time axis.
	ChartThroughput Chart = "throughput"
	// ChartLatencyTime is the p50 and p99 latency of the tool calls
	// finished each second, on the timeline's time axis.
	ChartLatencyTime Chart = "latency-time"
)

// Charts lists every chart, in the order reports show them.
var Charts = []Chart{ChartConcurrency, ChartThroughput, ChartLatencyTime, ChartGantt, ChartLatency}

// ParseChart returns the chart named name.
func ParseChart(name string) (Chart, error) {
	for _, c := range Charts {
		if string(c) == name {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown chart %q: choose concurrency, latency, gantt, throughput or latency-time", name)
}

// The charts take their colours from the app's palette (package
// recorder/palette), so that a kind or a phase reads the same in a chart
// as in the app's timeline. Charts are drawn on white.
var (
	chartBackground = color.RGBA{255, 255, 255, 255}
	// stalledColor fills the time a request was withheld from the client
	// (dispatch inline) in the Gantt chart, before its queued time.
	stalledColor = rgba(palette.Stalled)
	// failedColor outlines failed requests in the Gantt chart.
	failedColor   = rgba(palette.Failed)
	inFlightColor = rgba(palette.InFlight)
	pendingColor  = rgba(palette.Pending)
)

// rgba is the go-chart colour of c.
func rgba(c color.RGBA) drawing.Color { return drawing.Color{R: c.R, G: c.G, B: c.B, A: c.A} }

// kindColor is the solid colour of requests of kind k while served.
func kindColor(k recorder.Kind) drawing.Color { return rgba(palette.Kind(k)) }

// queuedColor is the pale colour of requests of kind k while queued, as
// the app draws it on a light background.
func queuedColor(k recorder.Kind) drawing.Color {
	return rgba(palette.Queued(chartBackground, k))
}

// WriteChartPNG draws chart c of snap as a width × height PNG image. An
// empty recording draws empty axes.
func WriteChartPNG(w io.Writer, snap *recorder.Snapshot, c Chart, width, height int) error {
	return renderChart(w, snap, c, width, height, pngRenderer)
}

// pngRenderer and svgRenderer are go-chart's renderers, kept from
// rotating text that is not meant to be (see [uprightRenderer]).
var (
	pngRenderer = upright(chart.PNG)
	svgRenderer = upright(chart.SVG)
)

// WriteChartSVG draws chart c of snap as a width × height SVG image.
func WriteChartSVG(w io.Writer, snap *recorder.Snapshot, c Chart, width, height int) error {
	return renderChart(w, snap, c, width, height, svgRenderer)
}

// upright wraps the renderers of rp in [uprightRenderer].
func upright(rp chart.RendererProvider) chart.RendererProvider {
	return func(width, height int) (chart.Renderer, error) {
		r, err := rp(width, height)
		if err != nil {
			return nil, err
		}
		return uprightRenderer{r}, nil
	}
}

// uprightRenderer is a renderer that forgets its text rotation when its
// style is reset. go-chart draws the y axis's name turned 90° and then
// resets the style; its PNG renderer drops the rotation there, but its SVG
// renderer keeps it, so every later text (the title, the legend) came out
// turned too. With this, text is rotated only while a rotated style is
// being drawn, in both formats.
type uprightRenderer struct {
	chart.Renderer
}

// ResetStyle implements chart.Renderer.
func (r uprightRenderer) ResetStyle() {
	r.Renderer.ResetStyle()
	r.Renderer.ClearTextRotation()
}

func renderChart(w io.Writer, snap *recorder.Snapshot, c Chart, width, height int, rp chart.RendererProvider) error {
	return renderScaled(w, snap, c, width, height, rp, chartScale{})
}

// chartScale makes charts of two recordings share their axes: zero values
// fit each chart to its own recording.
type chartScale struct {
	endMS   float64      // the end of the time axis
	topReqs int          // the top of the concurrency chart's axis
	latency *latencyBins // the latency histogram's bins and height
}

// scaleOf returns the scale that fits every snapshot.
func scaleOf(snaps ...*recorder.Snapshot) chartScale {
	var sc chartScale
	var lat [][]float64
	for _, s := range snaps {
		sc.endMS = math.Max(sc.endMS, timeRange(s, chartScale{}).Max)
		_, pend := recorder.Peaks(recorder.Steps(s))
		sc.topReqs = max(sc.topReqs, pend)
		v, _ := latencies(s)
		lat = append(lat, v)
	}
	b := binsOf(lat...)
	sc.latency = &b
	return sc
}

func renderScaled(w io.Writer, snap *recorder.Snapshot, c Chart, width, height int, rp chart.RendererProvider, sc chartScale) error {
	if width < 64 || height < 48 || width > 20000 || height > 20000 {
		return fmt.Errorf("chart size %d×%d: choose between 64×48 and 20000×20000 pixels", width, height)
	}
	if snap == nil {
		snap = &recorder.Snapshot{}
	}
	var ch chart.Chart
	switch c {
	case ChartConcurrency:
		ch = concurrencyChart(snap, width, sc)
	case ChartLatency:
		ch = latencyChart(snap, width, sc)
	case ChartGantt:
		ch = ganttChart(snap, width, height, sc)
	case ChartThroughput:
		ch = throughputChart(snap, width, sc)
	case ChartLatencyTime:
		ch = latencyTimeChart(snap, width, sc)
	default:
		_, err := ParseChart(string(c))
		return err
	}
	ch.Width, ch.Height = width, height
	// The title sits in the top 30 pixels, the legend in a row under it.
	ch.Background = chart.Style{Padding: chart.Box{Top: 56, Left: 10, Right: 20, Bottom: 10}}
	ch.TitleStyle = chart.Style{FontSize: 12, Padding: chart.Box{Top: 8}}
	if err := ch.Render(rp, w); err != nil {
		return fmt.Errorf("draw %s chart: %w", c, err)
	}
	return nil
}

// timeAxis is an x axis from startMS to about endMS with round ticks,
// about one per 100 pixels of a chart width pixels wide.
func timeAxis(name string, startMS, endMS float64, width int) chart.XAxis {
	step := niceStep((endMS - startMS) / math.Max(2, float64(width)/100))
	startMS = math.Floor(startMS/step) * step
	format := timeFormatter(endMS, step)
	var ticks []chart.Tick
	for i := 0; ; i++ {
		v := startMS + float64(i)*step
		ticks = append(ticks, chart.Tick{Value: v, Label: format(v)})
		if v >= endMS-step*1e-9 {
			break
		}
	}
	return chart.XAxis{Name: name, Ticks: ticks, Range: &chart.ContinuousRange{Min: startMS, Max: ticks[len(ticks)-1].Value}}
}

// timeFormatter labels a time axis that ends at endMS in milliseconds,
// or in seconds when it spans two seconds or more, with as many decimals
// as ticks stepMS apart need to read differently (a latency axis from
// 500 to 502 ms says 500.5 ms, not 500 ms twice).
func timeFormatter(endMS, stepMS float64) chart.ValueFormatter {
	unit, scale, decimals := "ms", 1.0, 2
	switch {
	case endMS >= 20000:
		unit, scale, decimals = "s", 1000, 0
	case endMS >= 2000:
		unit, scale, decimals = "s", 1000, 1
	case endMS >= 20:
		decimals = 0
	}
	if step := stepMS / scale; step > 0 {
		decimals = max(decimals, min(9, int(math.Ceil(-math.Log10(step)-1e-9))))
	}
	return func(v any) string {
		f, _ := v.(float64)
		return strconv.FormatFloat(f/scale, 'f', decimals, 64) + " " + unit
	}
}

func intFormatter(v any) string {
	f, _ := v.(float64)
	return fmt.Sprintf("%.0f", f)
}

// timeRange is the x range of a timeline, from 0 to the end of the
// recording, never empty.
func timeRange(snap *recorder.Snapshot, sc chartScale) *chart.ContinuousRange {
	end := math.Max(sc.endMS, ms(max(snap.Now, recorder.LastInstant(snap))))
	if end <= 0 {
		end = 1
	}
	return &chart.ContinuousRange{Min: 0, Max: end}
}

// concurrencyChart draws in-flight and pending as step lines, downsampled
// to about one point per pixel: each pixel column keeps the highest value
// seen in it, so that no peak disappears.
func concurrencyChart(snap *recorder.Snapshot, width int, sc chartScale) chart.Chart {
	steps := recorder.Steps(snap)
	peakIn, peakPend := recorder.Peaks(steps)
	xr := timeRange(snap, sc)
	steps = downsampleSteps(steps, xr.Max, width)
	inX, inY := stepLine(steps, xr.Max, func(s recorder.Step) int { return s.InFlight })
	pendX, pendY := stepLine(steps, xr.Max, func(s recorder.Step) int { return s.Pending })
	top := float64(max(peakPend, sc.topReqs, 1))
	return chart.Chart{
		Title: fmt.Sprintf("Concurrency: peak %d in flight, %d pending", peakIn, peakPend),
		XAxis: timeAxis("time", 0, xr.Max, width),
		YAxis: chart.YAxis{Name: "requests", Range: &chart.ContinuousRange{Min: 0, Max: top * 1.1},
			ValueFormatter: intFormatter, Ticks: intTicks(top)},
		YAxisSecondary: chart.YAxis{Style: chart.Style{Hidden: true}},
		Series: append(
			chunkedLine(pendX, pendY, chart.Style{StrokeColor: pendingColor, StrokeWidth: 2, StrokeDashArray: []float64{5, 3}}),
			chunkedLine(inX, inY, chart.Style{StrokeColor: inFlightColor, StrokeWidth: 2,
				FillColor: inFlightColor.WithAlpha(48)})...),
		Elements: []chart.Renderable{legend([]legendEntry{
			{"in flight (serving)", inFlightColor},
			{"pending (queued + serving)", pendingColor},
		})},
	}
}

// lineChunk is the most points one drawn path holds. The rasterizer's
// cost grows with the square of a path's length for jagged lines (a
// 5,000-point step line takes seconds as one path, milliseconds as many).
const lineChunk = 64

// chunkedLine cuts a line into series of at most lineChunk points that
// share their end points, so that they draw as one line.
func chunkedLine(xs, ys []float64, style chart.Style) []chart.Series {
	var out []chart.Series
	for i := 0; i < len(xs); i += lineChunk - 1 {
		j := min(i+lineChunk, len(xs))
		out = append(out, chart.ContinuousSeries{XValues: xs[i:j], YValues: ys[i:j], Style: style})
		if j == len(xs) {
			break
		}
	}
	return out
}

// legendEntry is one line of a chart's legend.
type legendEntry struct {
	label string
	color drawing.Color
}

// legend draws a row of coloured squares and labels above the canvas's top
// right corner.
func legend(entries []legendEntry) chart.Renderable {
	return func(r chart.Renderer, cb chart.Box, defaults chart.Style) {
		if len(entries) == 0 {
			return
		}
		r.ClearTextRotation() // whatever text came before, labels read left to right
		r.SetFont(defaults.GetFont())
		r.SetFontSize(8)
		r.SetFontColor(chart.DefaultTextColor)
		x := cb.Right
		y := cb.Top - 8
		for i := len(entries) - 1; i >= 0; i-- {
			e := entries[i]
			tb := r.MeasureText(e.label)
			x -= tb.Width()
			r.Text(e.label, x, y)
			x -= 14
			r.SetFillColor(e.color)
			r.SetStrokeColor(e.color)
			r.SetStrokeWidth(1)
			r.MoveTo(x, y-8)
			r.LineTo(x+9, y-8)
			r.LineTo(x+9, y+1)
			r.LineTo(x, y+1)
			r.LineTo(x, y-8)
			r.Close()
			r.FillStroke()
			x -= 12
		}
	}
}

// intTicks returns ticks at whole numbers from 0 to top, at most about ten.
func intTicks(top float64) []chart.Tick {
	step := math.Max(1, niceStep(top/8))
	var ticks []chart.Tick
	for v := 0.0; v <= top*1.1; v += step {
		ticks = append(ticks, chart.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
	}
	if len(ticks) < 2 {
		ticks = append(ticks, chart.Tick{Value: step, Label: fmt.Sprintf("%.0f", step)})
	}
	return ticks
}

// downsampleSteps keeps at most about one step per pixel column of a chart
// width pixels wide over [0, endMS]: the highest in-flight and pending of
// each column.
func downsampleSteps(steps []recorder.Step, endMS float64, width int) []recorder.Step {
	if len(steps) <= 2*width {
		return steps
	}
	col := time.Duration(endMS / float64(width) * float64(time.Millisecond))
	if col <= 0 {
		return steps
	}
	out := make([]recorder.Step, 0, 2*width)
	var prev recorder.Step // the value carried into a column from before it
	for i := 0; i < len(steps); {
		start := steps[i].At / col * col
		bucket := recorder.Step{At: start, InFlight: prev.InFlight, Pending: prev.Pending}
		if i == 0 {
			bucket = recorder.Step{At: start}
		}
		for ; i < len(steps) && steps[i].At < start+col; i++ {
			bucket.InFlight = max(bucket.InFlight, steps[i].InFlight)
			bucket.Pending = max(bucket.Pending, steps[i].Pending)
			prev = steps[i]
		}
		out = append(out, bucket)
		if prev.InFlight != bucket.InFlight || prev.Pending != bucket.Pending {
			out = append(out, recorder.Step{At: start + col, InFlight: prev.InFlight, Pending: prev.Pending})
		}
	}
	return out
}

// stepLine turns steps into the points of a step line (each change drawn
// as a vertical segment), from 0 to endMS.
func stepLine(steps []recorder.Step, endMS float64, v func(recorder.Step) int) (xs, ys []float64) {
	xs = append(xs, 0)
	ys = append(ys, 0)
	last := 0.0
	for _, s := range steps {
		x := ms(s.At)
		xs = append(xs, x, x)
		ys = append(ys, last, float64(v(s)))
		last = float64(v(s))
	}
	xs = append(xs, endMS)
	ys = append(ys, last)
	return xs, ys
}

// latencies returns the total times in ms of the ended incoming requests,
// or of the outgoing ones when there are no incoming, and which they are.
func latencies(snap *recorder.Snapshot) ([]float64, recorder.Direction) {
	for _, dir := range []recorder.Direction{recorder.Incoming, recorder.Outgoing} {
		var v []float64
		for _, s := range snap.Spans {
			// A round is part of its call, which is counted.
			if s.Direction == dir && !s.Open() && s.Received != recorder.Unset && s.Kind != recorder.KindRound {
				v = append(v, ms(s.Total()))
			}
		}
		if len(v) > 0 {
			return v, dir
		}
	}
	return nil, recorder.Incoming
}

// latencyBins are the bins of a latency histogram: n bins bin ms wide
// from lo, and the tallest bar's count.
type latencyBins struct {
	lo, bin float64
	n, top  int
}

// binsOf returns about 30 bins of a round width, from a round value at or
// below the fastest latency of every set (0 when that is near 0) to the
// slowest, tall enough for each set's highest bar.
func binsOf(sets ...[]float64) latencyBins {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range sets {
		if len(v) > 0 {
			lo, hi = math.Min(lo, slices.Min(v)), math.Max(hi, slices.Max(v))
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	hi = math.Max(hi, 1e-3)
	bin := niceStep((hi - lo) / 30)
	if lo < 3*bin {
		lo = 0
	}
	lo = math.Floor(lo/bin) * bin
	b := latencyBins{lo: lo, bin: bin, n: int(math.Floor((hi-lo)/bin)) + 1, top: 1}
	for _, v := range sets {
		for _, c := range b.count(v) {
			b.top = max(b.top, c)
		}
	}
	return b
}

// count returns how many latencies of v fall in each bin.
func (b latencyBins) count(v []float64) []int {
	counts := make([]int, b.n)
	for _, x := range v {
		counts[max(0, min(int((x-b.lo)/b.bin), b.n-1))]++
	}
	return counts
}

// latencyChart draws a histogram of latencies in the bins of sc, or in
// about 30 bars of a round width fitted to snap when sc has none.
func latencyChart(snap *recorder.Snapshot, width int, sc chartScale) chart.Chart {
	v, dir := latencies(snap)
	b := binsOf(v)
	if sc.latency != nil {
		b = *sc.latency
	}
	bars := boxSeries{name: "requests"}
	col := kindColor(recorder.KindSampling)
	for i, c := range b.count(v) {
		if c == 0 {
			continue
		}
		bars.boxes = append(bars.boxes, box{x0: b.lo + float64(i)*b.bin, x1: b.lo + float64(i+1)*b.bin, y0: 0, y1: float64(c),
			fill: col.WithAlpha(200), stroke: col})
	}
	// The chart font has no arrows: say it in words.
	what := "server-to-client"
	if dir == recorder.Outgoing {
		what = "client-to-server"
	}
	return chart.Chart{
		Title: fmt.Sprintf("Latency of %d %s requests (received to answered)", len(v), what),
		XAxis: timeAxis("latency", b.lo, b.lo+float64(b.n)*b.bin, width),
		YAxis: chart.YAxis{Name: "requests", Range: &chart.ContinuousRange{Min: 0, Max: float64(b.top) * 1.1},
			ValueFormatter: intFormatter, Ticks: intTicks(float64(b.top))},
		YAxisSecondary: chart.YAxis{Style: chart.Style{Hidden: true}},
		Series:         []chart.Series{bars},
	}
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// ganttRowsMax is the most requests a Gantt chart gives a row each; with
// more, requests share rows.
const ganttRowsMax = 200

// ganttChart draws each request as a box: pale while queued, solid while
// served, coloured by kind.
func ganttChart(snap *recorder.Snapshot, width, height int, sc chartScale) chart.Chart {
	xr := timeRange(snap, sc)
	var spans []*recorder.Span
	for _, s := range snap.Spans {
		if s.Received != recorder.Unset {
			spans = append(spans, s)
		}
	}
	rows := make([]int, len(spans))
	nrows := len(spans)
	if len(spans) > ganttRowsMax || len(spans) > height/3 {
		// First fit: a request goes in the first row free at its arrival.
		order := make([]int, len(spans))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return int(spans[a].Received - spans[b].Received)
		})
		// Rows thinner than 2 pixels are no use: past that many, a request
		// goes in the row that frees first, drawn over its neighbour.
		maxRows := max(1, height/2)
		var free []time.Duration // when each row is next free
		for _, i := range order {
			s := spans[i]
			r := slices.IndexFunc(free, func(t time.Duration) bool { return t <= s.Received })
			switch {
			case r >= 0:
			case len(free) < maxRows:
				r = len(free)
				free = append(free, 0)
			default:
				r = 0
				for k, t := range free {
					if t < free[r] {
						r = k
					}
				}
			}
			free[r] = recorder.SpanEnd(snap, s)
			rows[i] = r
		}
		nrows = len(free)
	} else {
		for i := range rows {
			rows[i] = i
		}
	}
	g := boxSeries{name: "requests", merge: true}
	seen := map[recorder.Kind]bool{}
	failed, stalled := false, false
	for i, s := range spans {
		col := kindColor(s.Kind)
		seen[s.Kind] = true
		y1 := float64(nrows - rows[i])
		y0 := y1 - 0.8
		end := recorder.SpanEnd(snap, s)
		serving := s.Serving
		if s.Direction == recorder.Incoming {
			if serving == recorder.Unset {
				serving = end
			}
			queued := s.Received
			if s.Stalled > 0 {
				queued = min(s.Received+s.Stalled, serving)
				g.boxes = append(g.boxes, box{x0: ms(s.Received), x1: ms(queued), y0: y0, y1: y1, fill: stalledColor})
				stalled = true
			}
			if serving > queued {
				g.boxes = append(g.boxes, box{x0: ms(queued), x1: ms(serving), y0: y0, y1: y1, fill: queuedColor(s.Kind)})
			}
		} else {
			serving = s.Received
		}
		if end > serving || s.Direction == recorder.Outgoing || s.Serving != recorder.Unset {
			b := box{x0: ms(serving), x1: ms(end), y0: y0, y1: y1, fill: col}
			if !s.Open() && s.Status != recorder.StatusOK {
				b.stroke, b.strokeWidth = failedColor, 2.5 // a red outline marks a failed request
				// and red hatching one that was cut short, as in the app
				b.hatch = s.Status == recorder.StatusCancelled || s.Status == recorder.StatusTimeout || s.Status == recorder.StatusAborted
				failed = true
			}
			g.boxes = append(g.boxes, b)
		}
	}
	var keys []legendEntry
	for _, k := range palette.Kinds {
		if seen[k] {
			keys = append(keys, legendEntry{string(k), kindColor(k)})
		}
	}
	if stalled {
		keys = append(keys, legendEntry{"stalled", stalledColor})
	}
	if failed {
		keys = append(keys, legendEntry{"failed (outline; hatched: cancelled, timeout, aborted)", failedColor})
	}
	title := fmt.Sprintf("Timeline of %d requests (pale: queued, solid: serving)", len(spans))
	if len(spans) == 0 {
		title = "Timeline: no requests recorded"
	}
	return chart.Chart{
		Title:          title,
		XAxis:          timeAxis("time", 0, xr.Max, width),
		YAxis:          chart.YAxis{Style: chart.Style{Hidden: true}, Range: &chart.ContinuousRange{Min: 0, Max: float64(max(nrows, 1)) + 0.2}},
		YAxisSecondary: chart.YAxis{Style: chart.Style{Hidden: true}},
		Series:         []chart.Series{g},
		Elements:       []chart.Renderable{legend(keys)},
	}
}

// box is a rectangle in data units.
type box struct {
	x0, x1, y0, y1 float64
	fill, stroke   drawing.Color
	strokeWidth    float64 // 1 when 0
	hatch          bool    // diagonal lines of the stroke colour across it
}

// boxSeries is a chart series of filled rectangles: the bars of a
// histogram, the requests of a Gantt chart. With merge, boxes of one
// colour that touch on the same pixel row are drawn as one, so that a
// hundred thousand requests draw as a few thousand rectangles.
type boxSeries struct {
	name  string
	boxes []box
	merge bool
}

// GetName implements chart.Series.
func (b boxSeries) GetName() string { return b.name }

// GetYAxis implements chart.Series: boxes use the primary axis.
func (b boxSeries) GetYAxis() chart.YAxisType { return chart.YAxisPrimary }

// GetStyle implements chart.Series; each box carries its own colours.
func (b boxSeries) GetStyle() chart.Style { return chart.Style{} }

// Validate implements chart.Series: every corner must be a finite number.
func (b boxSeries) Validate() error {
	for _, x := range b.boxes {
		if math.IsNaN(x.x0+x.x1+x.y0+x.y1) || math.IsInf(x.x0+x.x1+x.y0+x.y1, 0) {
			return errors.New("box with a non-finite corner")
		}
	}
	return nil
}

// Render implements chart.Series.
func (b boxSeries) Render(r chart.Renderer, cb chart.Box, xr, yr chart.Range, _ chart.Style) {
	type rect struct {
		l, t, rt, bt int
		fill, stroke drawing.Color
		width        float64
		hatch        bool
	}
	var pending []rect // at most one open rectangle per pixel row band
	open := map[[2]int]int{}
	draw := func(p rect) {
		r.SetFillColor(p.fill)
		if p.stroke.IsZero() {
			r.SetStrokeColor(p.fill)
			r.SetStrokeWidth(0)
		} else {
			r.SetStrokeColor(p.stroke)
			r.SetStrokeWidth(max(p.width, 1))
		}
		r.MoveTo(p.l, p.t)
		r.LineTo(p.rt, p.t)
		r.LineTo(p.rt, p.bt)
		r.LineTo(p.l, p.bt)
		r.LineTo(p.l, p.t)
		r.Close()
		if p.stroke.IsZero() {
			r.Fill()
		} else {
			r.FillStroke()
		}
		if p.hatch {
			hatchRect(r, p.l, p.t, p.rt, p.bt, p.stroke)
		}
	}
	for _, x := range b.boxes {
		p := rect{
			l: cb.Left + xr.Translate(x.x0), rt: cb.Left + xr.Translate(x.x1),
			t: cb.Bottom - yr.Translate(x.y1), bt: cb.Bottom - yr.Translate(x.y0),
			fill: x.fill, stroke: x.stroke, width: x.strokeWidth, hatch: x.hatch,
		}
		if p.rt <= p.l {
			p.rt = p.l + 1 // never thinner than a pixel
		}
		if !b.merge || !p.stroke.IsZero() {
			draw(p) // outlined boxes stand alone
			continue
		}
		key := [2]int{p.t, int(p.fill.R)<<24 | int(p.fill.G)<<16 | int(p.fill.B)<<8 | int(p.fill.A)}
		if i, ok := open[key]; ok && p.l <= pending[i].rt+1 && p.rt >= pending[i].l-1 && pending[i].bt == p.bt {
			pending[i].l = min(pending[i].l, p.l)
			pending[i].rt = max(pending[i].rt, p.rt)
			continue
		} else if ok {
			draw(pending[i])
			pending[i] = p
			continue
		}
		open[key] = len(pending)
		pending = append(pending, p)
	}
	for _, p := range pending {
		draw(p)
	}
}

// hatchRect draws lines rising at 45° every 6 pixels across the rectangle
// l..rt × t..bt, in colour c.
func hatchRect(r chart.Renderer, l, t, rt, bt int, c drawing.Color) {
	h := bt - t
	if h <= 0 || rt <= l {
		return
	}
	r.SetStrokeColor(c)
	r.SetStrokeWidth(1.5)
	for x := l - h; x < rt; x += 6 {
		// the line from (x, bt) to (x+h, t), clipped to l..rt
		x0, x1 := max(x, l), min(x+h, rt)
		if x1 <= x0 {
			continue
		}
		r.MoveTo(x0, bt-(x0-x))
		r.LineTo(x1, bt-(x1-x))
		r.Stroke()
	}
}
