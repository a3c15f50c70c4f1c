package export

import (
	"fmt"
	"math"
	"slices"

	"github.com/fanout-inspector/inspector/recorder"
	chart "github.com/wcharczuk/go-chart/v2"
)

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
