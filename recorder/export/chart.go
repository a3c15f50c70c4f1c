package export

import (
	"fmt"
	"image/color"
	"io"
	"math"
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
