package export

import (
	"fmt"
	"math"

	"github.com/fanout-inspector/inspector/recorder"
	chart "github.com/wcharczuk/go-chart/v2"
	"github.com/wcharczuk/go-chart/v2/drawing"
)

// baseline is an invisible line along the x axis: a chart needs one
// series, and a run without tool calls has none of its own.
func baseline(endMS float64) chart.Series {
	return chart.ContinuousSeries{XValues: []float64{0, endMS}, YValues: []float64{0, 0}, Style: chart.Style{StrokeColor: drawing.ColorTransparent, StrokeWidth: 1}}
}

// secondLines draws one value of every step of a [recorder.Series] (a
// second, or a power of 2 of them in a long run) as a step line over the
// time axis [0, endMS]: flat across each step. Steps where keep is false
// break the line.
func secondLines(series []recorder.SecondStat, endMS float64, v func(recorder.SecondStat) float64,
	keep func(recorder.SecondStat) bool, style chart.Style) []chart.Series {
	out := []chart.Series{baseline(endMS)}
	var xs, ys []float64
	flush := func() {
		if len(xs) >= 2 {
			out = append(out, chunkedLine(xs, ys, style)...)
		}
		xs, ys = nil, nil
	}
	for _, st := range series {
		if !keep(st) {
			flush()
			continue
		}
		x0, x1 := float64(st.T)*1000, math.Min(float64(st.T+max(st.Width, 1))*1000, endMS)
		if x1 <= x0 {
			continue
		}
		y := v(st)
		xs, ys = append(xs, x0, x1), append(ys, y, y)
	}
	flush()
	return out
}

func always(recorder.SecondStat) bool { return true }

// throughputChart draws, per second, the tool calls started and
// finished and those that failed, on the time axis of the other charts.
func throughputChart(snap *recorder.Snapshot, width int, sc chartScale) chart.Chart {
	series := recorder.Series(snap)
	xr := timeRange(snap, sc)
	top, peakStarted, peakFinished := 1, 0, 0
	step := 1 // seconds per step of the series
	for _, st := range series {
		step = max(st.Width, 1)
		top = max(top, (max(st.Started, st.Finished)+step-1)/step)
		peakStarted, peakFinished = max(peakStarted, st.Started), max(peakFinished, st.Finished)
	}
	title := fmt.Sprintf("Throughput: tool calls per second, peak %d started, %d finished", peakStarted, peakFinished)
	if step > 1 {
		title = fmt.Sprintf("Throughput: tool calls per second, averaged over steps of %d s; most in a step %d started, %d finished", step, peakStarted, peakFinished)
	}
	// A step of a long run covers several seconds: its counts are drawn
	// as rates per second.
	rate := func(n func(recorder.SecondStat) int) func(recorder.SecondStat) float64 {
		return func(s recorder.SecondStat) float64 { return float64(n(s)) / float64(max(s.Width, 1)) }
	}
	lines := secondLines(series, xr.Max, rate(func(s recorder.SecondStat) int { return s.Started }), always,
		chart.Style{StrokeColor: pendingColor, StrokeWidth: 2, StrokeDashArray: []float64{5, 3}})
	lines = append(lines, secondLines(series, xr.Max, rate(func(s recorder.SecondStat) int { return s.Finished }), always,
		chart.Style{StrokeColor: inFlightColor, StrokeWidth: 2, FillColor: inFlightColor.WithAlpha(48)})...)
	lines = append(lines, secondLines(series, xr.Max, rate(func(s recorder.SecondStat) int { return s.Errors }), always,
		chart.Style{StrokeColor: failedColor, StrokeWidth: 2})...)
	return chart.Chart{
		Title: title,
		XAxis: timeAxis("time", 0, xr.Max, width),
		YAxis: chart.YAxis{Name: "calls/s", Range: &chart.ContinuousRange{Min: 0, Max: float64(top) * 1.1},
			ValueFormatter: intFormatter, Ticks: intTicks(float64(top))},
		YAxisSecondary: chart.YAxis{Style: chart.Style{StrokeColor: drawing.ColorTransparent, StrokeWidth: 1}},
		Series:         lines,
		Elements: []chart.Renderable{legend([]legendEntry{
			{"started", pendingColor},
			{"finished", inFlightColor},
			{"failed", failedColor},
		})},
	}
}

// latencyTimeChart draws, per second, the p50 and p99 latency of the
// tool calls that finished in it; seconds where none finished are gaps.
func latencyTimeChart(snap *recorder.Snapshot, width int, sc chartScale) chart.Chart {
	series := recorder.Series(snap)
	xr := timeRange(snap, sc)
	top := 0.0
	for _, st := range series {
		top = math.Max(top, st.P99MS)
	}
	if top <= 0 {
		top = 1
	}
	finished := func(s recorder.SecondStat) bool { return s.Finished > 0 }
	lines := secondLines(series, xr.Max, func(s recorder.SecondStat) float64 { return s.P99MS }, finished,
		chart.Style{StrokeColor: pendingColor, StrokeWidth: 2})
	lines = append(lines, secondLines(series, xr.Max, func(s recorder.SecondStat) float64 { return s.P50MS }, finished,
		chart.Style{StrokeColor: inFlightColor, StrokeWidth: 2})...)
	step := niceStep(top / 6)
	var ticks []chart.Tick
	format := timeFormatter(top, step)
	for v := 0.0; v <= top*1.1+step*1e-9; v += step {
		ticks = append(ticks, chart.Tick{Value: v, Label: format(v)})
	}
	if len(ticks) < 2 {
		ticks = append(ticks, chart.Tick{Value: step, Label: format(step)})
	}
	return chart.Chart{
		Title: fmt.Sprintf("Latency over time: tool calls finished each second, p99 up to %s", format(top)),
		XAxis: timeAxis("time", 0, xr.Max, width),
		YAxis: chart.YAxis{Name: "latency", Range: &chart.ContinuousRange{Min: 0, Max: ticks[len(ticks)-1].Value},
			Ticks: ticks},
		YAxisSecondary: chart.YAxis{Style: chart.Style{StrokeColor: drawing.ColorTransparent, StrokeWidth: 1}},
		Series:         lines,
		Elements: []chart.Renderable{legend([]legendEntry{
			{"p50", inFlightColor},
			{"p99", pendingColor},
		})},
	}
}
