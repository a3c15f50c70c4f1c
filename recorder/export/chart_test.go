package export

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"image"
	"image/png"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// svgText is one <text> element of an SVG image.
type svgText struct {
	body    string
	rotated bool // its transform turns it
}

// svgTexts returns the <text> elements of the SVG image svg, in order.
func svgTexts(t *testing.T, svg []byte) []svgText {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var texts []svgText
	in := -1 // the index of the text being read, -1 outside one
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return texts
		}
		if err != nil {
			t.Fatalf("SVG is not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "text" {
				rotated := false
				for _, a := range tok.Attr {
					if a.Name.Local == "transform" && strings.Contains(a.Value, "rotate") {
						rotated = true
					}
				}
				texts = append(texts, svgText{rotated: rotated})
				in = len(texts) - 1
			}
		case xml.CharData:
			if in >= 0 {
				texts[in].body += string(tok)
			}
		case xml.EndElement:
			if tok.Name.Local == "text" {
				in = -1
			}
		}
	}
}

// chartTitles are how each chart's title begins.
var chartTitles = map[Chart]string{
	ChartConcurrency: "Concurrency: ",
	ChartGantt:       "Timeline",
	ChartLatency:     "Latency of ",
	ChartThroughput:  "Throughput: ",
	ChartLatencyTime: "Latency over time: ",
}

// yAxisNames are the y axes' names, the one text a chart turns.
var yAxisNames = map[Chart]string{ChartThroughput: "calls/s", ChartLatencyTime: "latency"}

// checkUpright fails unless the only turned text of an SVG chart is its y
// axis's name, and its title reads left to right. A browser draws a
// turned text on its side: the title, the legend or a tick label drawn so
// reads as a stray vertical fragment.
func checkUpright(t *testing.T, c Chart, svg []byte) {
	t.Helper()
	title := false
	rotated := 0
	for _, tx := range svgTexts(t, svg) {
		if tx.rotated {
			rotated++
			if want := cmp.Or(yAxisNames[c], "requests"); tx.body != want {
				t.Errorf("%s chart: the text %q is drawn turned; only the y axis's name should be", c, tx.body)
			}
			continue
		}
		if strings.HasPrefix(tx.body, chartTitles[c]) {
			title = true
		}
	}
	if rotated > 1 {
		t.Errorf("%s chart: %d turned texts, want at most the y axis's name", c, rotated)
	}
	if !title {
		t.Errorf("%s chart: no upright title beginning %q", c, chartTitles[c])
	}
}

func TestChartTextUpright(t *testing.T) {
	for name, snap := range snapshots() {
		for _, c := range Charts {
			t.Run("svg/"+name+"/"+string(c), func(t *testing.T) {
				var buf bytes.Buffer
				if err := WriteChartSVG(&buf, snap, c, 800, 400); err != nil {
					t.Fatal(err)
				}
				checkUpright(t, c, buf.Bytes())
				if c == ChartConcurrency {
					legend := 0
					for _, tx := range svgTexts(t, buf.Bytes()) {
						if !tx.rotated && (tx.body == "in flight (serving)" || tx.body == "pending (queued + serving)") {
							legend++
						}
					}
					if legend != 2 {
						t.Errorf("%d upright legend labels, want 2", legend)
					}
				}
			})
		}
	}
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`)
	for _, c := range []struct {
		name  string
		snaps []*recorder.Snapshot
	}{
		{"html/one", []*recorder.Snapshot{fixedSnapshot()}},
		{"html/comparison", []*recorder.Snapshot{fixedSnapshot(), loadSnapshot(300, 2)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteHTML(&buf, c.snaps...); err != nil {
				t.Fatal(err)
			}
			found := svgs.FindAll(buf.Bytes(), -1)
			if len(found) != 5*len(c.snaps) {
				t.Fatalf("%d inline charts, want %d", len(found), 5*len(c.snaps))
			}
			// Each recording's charts come in the page's order.
			order := []Chart{ChartConcurrency, ChartConcurrency, ChartThroughput, ChartLatencyTime, ChartThroughput, ChartLatencyTime,
				ChartGantt, ChartGantt, ChartLatency, ChartLatency}
			if len(c.snaps) == 1 {
				order = Charts
			}
			for i, svg := range found {
				checkUpright(t, order[i], svg)
			}
		})
	}
}

// TestChartPNGTitleUpright checks that each PNG chart's title is written
// across the band above the canvas, not down from it.
func TestChartPNGTitleUpright(t *testing.T) {
	for _, c := range Charts {
		t.Run(string(c), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteChartPNG(&buf, fixedSnapshot(), c, 640, 360); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			// The title sits in the top 30 pixels, above the legend.
			left, right := inkColumns(img, image.Rect(0, 0, 640, 30))
			if right-left < 200 {
				t.Errorf("the title's ink spans columns %d..%d: not a line of text across the top", left, right)
			}
		})
	}
}

// inkColumns returns the first and last column of r with a dark pixel,
// or 0, 0 when there is none.
func inkColumns(img image.Image, r image.Rectangle) (left, right int) {
	left, right = r.Max.X, r.Min.X-1
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr+cg+cb < 3*0x8000 {
				left, right = min(left, x), max(right, x)
			}
		}
	}
	if right < left {
		return 0, 0
	}
	return left, right
}

func TestTimeAxisLabelsDiffer(t *testing.T) {
	cases := []struct {
		name         string
		start, end   float64
		width        int
		first, final string
	}{
		{"seconds", 0, 3000, 1200, "0.0 s", "3.0 s"},
		{"long run", 0, 65000, 1200, "0 s", "70 s"},
		{"milliseconds", 0, 250, 800, "0 ms", "250 ms"},
		{"narrow latency spread", 500, 502, 600, "500.0 ms", "502.0 ms"},
		{"one millisecond in seconds", 2000, 2001, 1200, "2.0000 s", "2.0010 s"},
		{"microseconds", 0, 0.05, 800, "0.00 ms", "0.05 ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ax := timeAxis("time", c.start, c.end, c.width)
			seen := map[string]bool{}
			for _, tk := range ax.Ticks {
				if seen[tk.Label] {
					t.Errorf("two ticks read %q: %v", tk.Label, ax.Ticks)
				}
				seen[tk.Label] = true
			}
			if got := ax.Ticks[0].Label; got != c.first {
				t.Errorf("first tick %q, want %q", got, c.first)
			}
			if got := ax.Ticks[len(ax.Ticks)-1].Label; got != c.final {
				t.Errorf("last tick %q, want %q", got, c.final)
			}
		})
	}
}

func TestDownsampleKeepsPeaks(t *testing.T) {
	snap := loadSnapshot(20_000, 5)
	steps := recorder.Steps(snap)
	in, pend := recorder.Peaks(steps)
	for _, width := range []int{100, 800, 3000} {
		small := downsampleSteps(steps, ms(snap.Now), width)
		if len(small) > 2*width+2 {
			t.Errorf("width %d: %d steps, want about one or two per pixel", width, len(small))
		}
		if i, p := recorder.Peaks(small); i != in || p != pend {
			t.Errorf("width %d: peaks %d/%d after downsampling, want %d/%d", width, i, p, in, pend)
		}
		for k := 1; k < len(small); k++ {
			if small[k].At < small[k-1].At {
				t.Fatalf("width %d: steps out of time order at %d", width, k)
			}
		}
	}
}

// TestChartsDrawRounds pins what the charts make of a multi-round-trip
// call: the Gantt names rounds and stalled time in its legend, and the
// latency of outgoing requests counts the logical call, not its rounds
// as well.
func TestChartsDrawRounds(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteChartSVG(&buf, roundsSnapshot(), ChartGantt, 800, 400); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, tx := range svgTexts(t, buf.Bytes()) {
		texts = append(texts, tx.body)
	}
	all := strings.Join(texts, "|")
	for _, w := range []string{"|round|", "|stalled|", "Timeline of 9 requests"} {
		if !strings.Contains("|"+all+"|", w) {
			t.Errorf("Gantt lacks %q: %s", w, all)
		}
	}
	outgoing := roundsSnapshot()
	outgoing.Spans = slices.DeleteFunc(outgoing.Spans, func(s *recorder.Span) bool { return s.Direction == recorder.Incoming })
	buf.Reset()
	if err := WriteChartSVG(&buf, outgoing, ChartLatency, 800, 400); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("Latency of 1 client-to-server requests")) {
		t.Errorf("latency chart of one call and its three rounds does not say it counts 1 request: %v", svgTexts(t, buf.Bytes()))
	}
}
