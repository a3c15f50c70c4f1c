package export

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/palette"
)

// countColor counts the pixels of img that are exactly c.
func countColor(img image.Image, c color.RGBA) int {
	var pix []uint8
	switch m := img.(type) {
	case *image.RGBA:
		pix = m.Pix
	case *image.NRGBA:
		pix = m.Pix // the same bytes for opaque pixels, the only ones c can be
	default:
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, a := img.At(x, y).RGBA()
				if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(bl>>8) == c.B && uint8(a>>8) == c.A {
					n++
				}
			}
		}
		return n
	}
	n := 0
	for i := 0; i+3 < len(pix); i += 4 {
		if pix[i] == c.R && pix[i+1] == c.G && pix[i+2] == c.B && pix[i+3] == c.A {
			n++
		}
	}
	return n
}

func chartPNG(t *testing.T, snap *recorder.Snapshot, c Chart) image.Image {
	return chartPNGSized(t, snap, c, 640, 300)
}

func chartPNGSized(t *testing.T, snap *recorder.Snapshot, c Chart, width, height int) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteChartPNG(&buf, snap, c, width, height); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestChartsUseThePalette checks that the PNG charts paint each kind and
// phase in the app's colours: a tool call slate, not purple (the app's
// elicitation), a queued request its kind's colour made pale as the app
// makes it on a light theme, stalled time pink, a failure red.
func TestChartsUseThePalette(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	fixed := chartPNG(t, fixedSnapshot(), ChartGantt)
	rounds := chartPNG(t, roundsSnapshot(), ChartGantt)
	for _, c := range []struct {
		name string
		img  image.Image
		want color.RGBA
	}{
		{"tool call", fixed, palette.Kind(recorder.KindTool)},
		{"sampling serving", fixed, palette.Kind(recorder.KindSampling)},
		{"sampling queued", fixed, palette.Queued(white, recorder.KindSampling)},
		{"elicitation serving", fixed, palette.Kind(recorder.KindElicitation)},
		{"elicitation queued", fixed, palette.Queued(white, recorder.KindElicitation)},
		{"failed outline", fixed, palette.Failed},
		{"round", rounds, palette.Kind(recorder.KindRound)},
		{"stalled", rounds, palette.Stalled},
	} {
		if n := countColor(c.img, c.want); n < 20 {
			t.Errorf("%s: %d pixels of the palette's %s, want a bar of them", c.name, n, palette.Hex(c.want))
		}
	}
	// The rounds recording has no elicitation: nothing in it is purple.
	if n := countColor(rounds, palette.Kind(recorder.KindElicitation)); n > 0 {
		t.Errorf("%d purple pixels in a timeline without elicitations: purple is the app's elicitation", n)
	}
	conc := chartPNG(t, roundsSnapshot(), ChartConcurrency)
	for _, c := range []color.RGBA{palette.InFlight, palette.Pending} {
		if n := countColor(conc, c); n < 20 {
			t.Errorf("concurrency chart: %d pixels of the palette's %s, want its line and legend", n, palette.Hex(c))
		}
	}
}

// TestHTMLUsesThePalette checks that the HTML report's styles, legend
// and inline charts use the palette's colours.
func TestHTMLUsesThePalette(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, fixedSnapshot()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	svgFill := func(c color.RGBA) string {
		return "fill:rgba(" + strconv.Itoa(int(c.R)) + "," + strconv.Itoa(int(c.G)) + "," + strconv.Itoa(int(c.B)) + ",1.0)"
	}
	for _, k := range palette.Kinds {
		if want := "--kind-" + k.String() + ": " + palette.Hex(palette.Kind(k)) + ";"; !strings.Contains(page, want) {
			t.Errorf("report's styles lack %q", want)
		}
		if want := `<span class="sw kind-` + k.String() + `">`; !strings.Contains(page, want) {
			t.Errorf("report's legend lacks %q", want)
		}
	}
	for _, k := range []recorder.Kind{recorder.KindTool, recorder.KindSampling, recorder.KindElicitation} {
		if want := svgFill(palette.Kind(k)); !strings.Contains(page, want) {
			t.Errorf("report's timeline has no %s bar in %s (%s)", k, palette.Hex(palette.Kind(k)), want)
		}
	}
	ser := palette.Verdict(recorder.VerdictSerialized)
	if want := ".verdict.serialized { background: " + palette.Hex(palette.Mix(color.RGBA{255, 255, 255, 255}, ser, 0.12)) +
		"; border-color: " + palette.Hex(ser) + "; }"; !strings.Contains(page, want) {
		t.Errorf("report's verdict style lacks %q", want)
	}
	// The exports' old colours are gone: d3's purple for tools, its blue,
	// orange, green and red.
	for _, old := range []string{"148,103,189", "31,119,180", "255,127,14", "44,160,44", "214,39,40", "#9467bd", "#d62728", "#2ca02c"} {
		if strings.Contains(page, old) {
			t.Errorf("report still has the old chart colour %s", old)
		}
	}
}

// latencyBar is a histogram bar of an SVG chart, in pixels.
type latencyBar struct{ left, right, top, bottom int }

var barPath = regexp.MustCompile(`<path\s+d="M (\d+) (\d+)\s+L (\d+) \d+\s+L \d+ (\d+)[^"]*"\s+style="[^"]*fill:rgba\(59,130,246,0\.8\)`)

// latencyBars returns the bars of a latency histogram drawn as SVG.
func latencyBars(svg []byte) []latencyBar {
	var bars []latencyBar
	for _, m := range barPath.FindAllSubmatch(svg, -1) {
		n := func(b []byte) int { v, _ := strconv.Atoi(string(b)); return v }
		bars = append(bars, latencyBar{left: n(m[1]), top: n(m[2]), right: n(m[3]), bottom: n(m[4])})
	}
	return bars
}

// TestCompareLatencySharesScales checks that a comparison's two latency
// histograms are drawn on the same axes, in the same bins, so that they
// can be read side by side: every axis label is the same, every bar is
// as wide, and a bar of n requests is as tall in both.
func TestCompareLatencySharesScales(t *testing.T) {
	a, b := fixedSnapshot(), loadSnapshot(300, 2)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAll(buf.Bytes(), -1)
	if len(svgs) != 10 {
		t.Fatalf("%d inline charts, want 10", len(svgs))
	}
	hist := svgs[8:10] // the page's order: two concurrency, two pairs over time, two timelines, two latency
	var axes [2][]string
	var bars [2][]latencyBar
	for i, svg := range hist {
		for _, tx := range svgTexts(t, svg) {
			if strings.HasPrefix(tx.body, "Latency of ") {
				continue // the title says how many requests: it differs
			}
			axes[i] = append(axes[i], tx.body)
		}
		bars[i] = latencyBars(svg)
		if len(bars[i]) == 0 {
			t.Fatalf("histogram %c: no bars found", 'A'+i)
		}
	}
	if !slices.Equal(axes[0], axes[1]) {
		t.Errorf("the histograms' axes differ:\nA: %q\nB: %q", axes[0], axes[1])
	}
	widths := map[int]bool{}
	for i := range bars {
		for _, br := range bars[i] {
			widths[br.right-br.left] = true
		}
	}
	if len(widths) > 2 { // rounding to pixels may make one a pixel wider
		t.Errorf("bars of %d widths across both histograms, want one bin width: %v", len(widths), widths)
	}
	// The same bins: every bar's left edge, in both histograms, lies on
	// one grid of bin-wide steps.
	var sum, n float64
	left0, left1 := 1<<30, 0
	for i := range bars {
		for _, br := range bars[i] {
			sum, n = sum+float64(br.right-br.left), n+1
			left0, left1 = min(left0, br.left), max(left1, br.left)
		}
	}
	// a bar is drawn a whole number of pixels wide: the step is the
	// spread of the left edges over the whole number of bins it spans
	width := sum / n
	if k := math.Round(float64(left1-left0) / width); k > 0 {
		width = float64(left1-left0) / k
	}
	for i := range bars {
		for _, br := range bars[i] {
			k := math.Round(float64(br.left-left0) / width)
			if d := math.Abs(float64(br.left-left0) - k*width); d > 1.5 {
				t.Errorf("histogram %c: a bar at %d px is %.1f px off the bins %.1f px wide from %d px", 'A'+i, br.left, d, width, left0)
			}
		}
	}
	// The same y scale: both sit on one baseline.
	if bars[0][0].bottom != bars[1][0].bottom {
		t.Errorf("baselines at %d and %d px", bars[0][0].bottom, bars[1][0].bottom)
	}
}

// TestScaleOfLatency pins the shared bins: they start at or below the
// faster recording's fastest request, end past the slower one's slowest,
// and are tall enough for both recordings' highest bar.
func TestScaleOfLatency(t *testing.T) {
	a, b := fixedSnapshot(), loadSnapshot(300, 2)
	sc := scaleOf(a, b)
	if sc.latency == nil {
		t.Fatal("no shared latency bins")
	}
	bins := *sc.latency
	for _, s := range []*recorder.Snapshot{a, b} {
		v, _ := latencies(s)
		if bins.lo > slices.Min(v) || bins.lo+float64(bins.n)*bins.bin <= slices.Max(v) {
			t.Errorf("%s: latencies %.1f..%.1f ms outside the bins %.1f..%.1f", s.Meta.Title, slices.Min(v), slices.Max(v),
				bins.lo, bins.lo+float64(bins.n)*bins.bin)
		}
		if top := slices.Max(bins.count(v)); top > bins.top {
			t.Errorf("%s: a bar of %d requests over the top %d", s.Meta.Title, top, bins.top)
		}
	}
	// One recording alone keeps its own fit.
	v, _ := latencies(a)
	if own := binsOf(v); own == bins {
		t.Errorf("the fixture's own bins %+v equal the shared ones: the pair does not test sharing", own)
	}
}

// TestGanttHatchesCutShortRequests checks that the exported Gantt marks a
// cancelled, timed-out or aborted request as the app does: a red outline
// and red hatching across its bar, where a request that failed with an
// error has the outline only.
func TestGanttHatchesCutShortRequests(t *testing.T) {
	red := func(status recorder.Status) int {
		snap := &recorder.Snapshot{Now: msd(1000), Spans: []*recorder.Span{{
			ID: 1, Direction: recorder.Incoming, Method: "sampling/createMessage", Kind: recorder.KindSampling,
			Received: 0, Queued: 0, Serving: 0, Answered: msd(1000), Status: status,
		}}}
		return countColor(chartPNGSized(t, snap, ChartGantt, 320, 160), palette.Failed)
	}
	outlined := red(recorder.StatusError)
	for _, st := range []recorder.Status{recorder.StatusCancelled, recorder.StatusTimeout, recorder.StatusAborted} {
		if n := red(st); n < 2*outlined {
			t.Errorf("%s: %d red pixels, an error's outline alone has %d: no hatching", st, n, outlined)
		}
	}
}
