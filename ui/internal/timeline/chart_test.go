package timeline

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

func TestColumns(t *testing.T) {
	tests := []struct {
		name       string
		steps      []recorder.Step
		start, end time.Duration
		until      time.Duration // 0: no limit
		cols       int
		fl, pe     []int
	}{
		{
			name:  "a change at a column's start replaces the level",
			steps: []recorder.Step{{At: 0, InFlight: 1, Pending: 1}, {At: 10 * ms, InFlight: 0, Pending: 0}},
			end:   20 * ms, cols: 4,
			fl: []int{1, 1, 0, 0}, pe: []int{1, 1, 0, 0},
		},
		{
			name:  "a spike inside a column is kept as the column's maximum",
			steps: []recorder.Step{{At: 0}, {At: 6 * ms, InFlight: 3, Pending: 4}, {At: 7 * ms, InFlight: 1, Pending: 1}},
			end:   20 * ms, cols: 4,
			fl: []int{0, 3, 1, 1}, pe: []int{0, 4, 1, 1},
		},
		{
			name:  "the level in force before the range",
			steps: []recorder.Step{{At: 0, InFlight: 2, Pending: 5}, {At: 100 * ms}},
			start: 50 * ms, end: 60 * ms, cols: 2,
			fl: []int{2, 2}, pe: []int{5, 5},
		},
		{name: "no columns", end: time.Second},
		{
			name:  "a live recording's columns stop at its Now, at the level in force",
			steps: []recorder.Step{{At: 0, InFlight: 1, Pending: 3}, {At: 5 * ms, InFlight: 2, Pending: 3}},
			end:   20 * ms, until: 12 * ms, cols: 4,
			fl: []int{1, 2, 2}, pe: []int{3, 3, 3},
		},
		{
			name:  "a Now before the range draws nothing",
			steps: []recorder.Step{{At: 0, InFlight: 1, Pending: 1}},
			start: 10 * ms, end: 20 * ms, until: 5 * ms, cols: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			until := tt.until
			if until == 0 {
				until = math.MaxInt64
			}
			fl, pe := columns(tt.steps, tt.start, tt.end, until, tt.cols)
			if !slices.Equal(fl, tt.fl) || !slices.Equal(pe, tt.pe) {
				t.Errorf("columns =\n in flight %v\n pending %v\nwant\n in flight %v\n pending %v", fl, pe, tt.fl, tt.pe)
			}
		})
	}
}

// manySteps is n concurrency changes, a jagged saw between 0 and 50.
func manySteps(n int) []recorder.Step {
	steps := make([]recorder.Step, n)
	for i := range steps {
		v := (i * 7919) % 51
		steps[i] = recorder.Step{At: time.Duration(i) * 37 * time.Microsecond, InFlight: v / 2, Pending: v}
	}
	return steps
}

// countAbove counts the pixels of img in colour c above the bottom
// margin rows: the parts of a line that rose off zero.
func countAbove(img *image.RGBA, c color.RGBA, margin int) int {
	n := 0
	for y := 0; y < img.Rect.Dy()-margin; y++ {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < img.Rect.Dx(); x++ {
			if row[4*x] == c.R && row[4*x+1] == c.G && row[4*x+2] == c.B {
				n++
			}
		}
	}
	return n
}

func TestRenderConcurrency(t *testing.T) {
	tests := []struct {
		name       string
		steps      []recorder.Step
		start, end time.Duration
		wantLine   bool
		wantErr    bool
	}{
		{"100,000 steps", manySteps(100000), 0, 3700 * ms, true, false},
		{"one step", []recorder.Step{{At: 5 * ms, InFlight: 1, Pending: 1}}, 0, 10 * ms, true, false},
		{"one step at the range's start", []recorder.Step{{At: 0, InFlight: 1, Pending: 1}}, 0, 10 * ms, true, false},
		{"no steps", nil, 0, time.Second, false, false},
		{"empty range", manySteps(10), time.Second, time.Second, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, peak := recorder.Peaks(tt.steps)
			yMax := float64(max(peak, 1)) * 1.15
			img, err := renderConcurrency(tt.steps, tt.start, tt.end, math.MaxInt64, 1400, 140, yMax, toRGBA(test.Theme().Color("background", 0)))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if img.Bounds().Dx() != 1400 || img.Bounds().Dy() != 140 {
				t.Errorf("image is %v, want 1400×140", img.Bounds())
			}
			if got := countAbove(img, inFlightColor, 4) > 0; got != tt.wantLine {
				t.Errorf("in-flight line drawn = %v, want %v", got, tt.wantLine)
			}
		})
	}
}

func TestConcurrencyChartGolden(t *testing.T) {
	test.NewTempApp(t)
	tests := []struct {
		name string
		snap *recorder.Snapshot
	}{
		{"chart_fixed", fixedSnapshot()},
		{"chart_empty", &recorder.Snapshot{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, c := NewGantt(), NewConcurrencyChart()
			c.useAxis(g.axis)
			w := test.NewTempWindow(t, c)
			w.SetPadded(false)
			w.Resize(fyne.NewSize(800, ConcurrencyChartHeight))
			g.SetSnapshot(tt.snap)
			c.SetSnapshot(tt.snap)
			assertImage(t, tt.name+".png", w.Canvas().Capture())
			if err := c.Err(); err != nil {
				t.Errorf("chart error: %v", err)
			}
			// the readout under the pointer: at 1.2 s in the fixed recording,
			// sampling #4 and the elicitation were served, 4 were pending
			if tt.name == "chart_fixed" {
				start, end := c.VisibleRange()
				x := ganttGutter + float32(float64(1260*ms-start)/float64(end-start))*(800-ganttGutter)
				test.MoveMouse(w.Canvas(), fyne.NewPos(x, 50))
				if got := c.hoverText(); !strings.HasSuffix(got, ": 2 in flight, 4 pending") {
					t.Errorf("readout = %q, want 2 in flight, 4 pending", got)
				}
				test.MoveMouse(w.Canvas(), fyne.NewPos(20, 50))
				if got := c.hoverText(); got != "" {
					t.Errorf("readout over the gutter = %q, want none", got)
				}
			}
			// zooming the Gantt moves the chart with it
			g.ZoomIn()
			gs, ge := g.VisibleRange()
			if cs, ce := c.VisibleRange(); cs != gs || ce != ge {
				t.Errorf("chart shows %v – %v, Gantt %v – %v", cs, ce, gs, ge)
			}
		})
	}
}

// BenchmarkConcurrencyRender measures reducing concurrency changes to
// pixel columns and drawing them at 1420×140: a live demo run's few
// hundred, which a live frame draws on the main goroutine, and 100,000:
// go test ./ui/ -run '^$' -bench ConcurrencyRender
func BenchmarkConcurrencyRender(b *testing.B) {
	bg := toRGBA(test.Theme().Color("background", 0))
	for _, n := range []int{300, 100000} {
		b.Run(fmt.Sprintf("%d steps", n), func(b *testing.B) {
			steps := manySteps(n)
			end := steps[n-1].At * 21 / 20
			b.ReportAllocs()
			for b.Loop() {
				if _, err := renderConcurrency(steps, 0, end, math.MaxInt64, 1420, 140, 60, bg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSteps measures the concurrency steps of 100,000 spans, which
// the live ticker computes off the main goroutine.
func BenchmarkSteps(b *testing.B) {
	snap := bigSnapshot(100000)
	for b.Loop() {
		recorder.Steps(snap)
	}
}

func TestConcurrencyChartOnItsOwn(t *testing.T) {
	test.NewTempApp(t)
	c := NewConcurrencyChart()
	w := test.NewTempWindow(t, c)
	w.Resize(fyne.NewSize(600, ConcurrencyChartHeight))
	c.SetSnapshot(fixedSnapshot())
	if start, end := c.VisibleRange(); start != 0 || end != 2835*ms {
		t.Errorf("a chart on its own shows %v – %v, want the whole recording, 0 – 2.835 s", start, end)
	}
	if f, p := c.ValueAt(100 * ms); f != 1 || p != 5 {
		t.Errorf("at 0.1 s: %d in flight, %d pending; want 1 and 5", f, p)
	}
}

// echoLoad is a load test as the Workload panel runs it: n echo calls,
// c at once, each taking d, in waves; the server sends nothing.
func echoLoad(n, c int, d time.Duration) *recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "load", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	for i := range n {
		at := time.Duration(i/c)*d + time.Duration(i%c)*d/time.Duration(4*c) // a wave starts over a quarter of d
		snap.Spans = append(snap.Spans, &recorder.Span{ID: recorder.SpanID(i + 1), Session: "s1", Direction: recorder.Outgoing,
			Method: "tools/call", Kind: recorder.KindTool, Name: "echo", Received: at, Queued: at, Serving: at, Answered: at + d,
			Status: recorder.StatusOK})
		snap.Now = max(snap.Now, at+d)
	}
	return snap
}

// TestLoadChartShowsCalls checks that a load test, where the server sends
// no requests, draws the client's calls in flight with a legend that says
// so, instead of an empty chart.
func TestLoadChartShowsCalls(t *testing.T) {
	test.NewTempApp(t)
	snap := echoLoad(5000, 50, 10*ms)
	g, c := NewGantt(), NewConcurrencyChart()
	c.useAxis(g.axis)
	w := test.NewTempWindow(t, c)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(800, ConcurrencyChartHeight))
	g.SetSnapshot(snap)
	c.SetSteps(snap, recorder.Steps(snap))
	if !c.showsCalls() {
		t.Fatal("a load test's chart does not show the calls in flight")
	}
	if f, _ := c.ValueAt(505 * ms); f != 50 {
		t.Errorf("at 0.505 s the chart says %d calls in flight, want 50", f)
	}
	var texts []string
	for _, o := range test.WidgetRenderer(c).Objects() {
		if tx, ok := o.(*canvas.Text); ok && tx.Visible() {
			texts = append(texts, tx.Text)
		}
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"calls in flight", "throughput 4,988 calls/s" /* 5,000 in 1.0025 s */, "|50|"} {
		if !strings.Contains("|"+joined+"|", want) {
			t.Errorf("the chart's texts %q do not say %q", texts, want)
		}
	}
	img := w.Canvas().Capture().(*image.NRGBA)
	if n := countColor(img, inFlightColor); n < 500 {
		t.Errorf("%d pixels of the calls-in-flight line drawn, want a line across the plot", n)
	}
	assertImage(t, "chart_load.png", img)

	// a fan-out (the server sent requests) keeps the requests' chart
	c.SetSteps(fixedSnapshot(), recorder.Steps(fixedSnapshot()))
	if c.showsCalls() {
		t.Error("a fan-out recording's chart shows calls instead of the server's requests")
	}
}

func countColor(img *image.NRGBA, c color.RGBA) int {
	n := 0
	for i := 0; i+3 < len(img.Pix); i += 4 {
		if img.Pix[i] == c.R && img.Pix[i+1] == c.G && img.Pix[i+2] == c.B {
			n++
		}
	}
	return n
}

// TestProxyChartSaysWhatIsEstimated: a proxy's recording is of someone
// else's client; the chart's legend says that its in-flight line is an
// estimate and its pending line the exact wait at that client.
func TestProxyChartSaysWhatIsEstimated(t *testing.T) {
	test.NewTempApp(t)
	snap := fixedSnapshot()
	proxied := *snap
	proxied.Meta.Mode = recorder.ModeProxy
	legend := func(s *recorder.Snapshot) string {
		c := NewConcurrencyChart()
		w := test.NewTempWindow(t, c)
		w.Resize(fyne.NewSize(600, ConcurrencyChartHeight))
		c.SetSteps(s, recorder.Steps(s))
		var texts []string
		for _, o := range test.WidgetRenderer(c).Objects() {
			if tx, ok := o.(*canvas.Text); ok && tx.Visible() {
				texts = append(texts, tx.Text)
			}
		}
		return strings.Join(texts, "|")
	}
	if got := legend(&proxied); !strings.Contains(got, "in flight (estimated from the answers)") || !strings.Contains(got, "pending (waiting at the client)") {
		t.Errorf("proxy recording's chart legend %q does not say what is estimated", got)
	}
	if got := legend(snap); !strings.Contains(got, "in flight (serving)") {
		t.Errorf("client-mode chart legend %q", got)
	}
}
