package timeline

import (
	"image"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

// rampLoad is a load test whose rate rises: rates[i] calls started evenly
// over second i, each taking 5 ms plus 3 ms per second of the run.
func rampLoad(rates []int) *recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "ramp", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, Version: 1}
	for sec, r := range rates {
		for k := range r {
			at := time.Duration(sec)*time.Second + time.Duration(k)*time.Second/time.Duration(r)
			d := time.Duration(5+3*sec)*ms + time.Duration(k%7)*ms
			snap.Spans = append(snap.Spans, &recorder.Span{ID: recorder.SpanID(len(snap.Spans) + 1), Session: "s1",
				Direction: recorder.Outgoing, Method: "tools/call", Kind: recorder.KindTool, Name: "echo",
				Received: at, Queued: at, Serving: at, Answered: at + d, Status: recorder.StatusOK})
			snap.Now = at + d
		}
	}
	return snap
}

// TestOverTimeChart checks that the chart under the Gantt shows the calls
// per second and their latency on the Gantt's time axis.
func TestOverTimeChart(t *testing.T) {
	test.NewTempApp(t)
	snap := rampLoad([]int{20, 20, 20, 40, 60, 80})
	g := NewGantt()
	c := NewOverTimeChart(g)
	w := test.NewTempWindow(t, c)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(800, overTimeChartHeight))
	g.SetSnapshot(snap)
	g.axis.set(0, 6*time.Second)
	c.SetSnapshot(snap)
	// six seconds of starts, and the last calls finishing in a seventh
	if n := len(c.Series()); n != 7 {
		t.Fatalf("%d seconds in the chart, want 7", n)
	}
	var texts []string
	for _, o := range test.WidgetRenderer(c).Objects() {
		if tx, ok := o.(*canvas.Text); ok && tx.Visible() {
			texts = append(texts, tx.Text)
		}
	}
	joined := "|" + strings.Join(texts, "|") + "|"
	for _, want := range []string{"|calls per second|", "|80/s|", "|latency|", "|— p99|"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the chart's texts %q do not say %q", texts, want)
		}
	}
	img := w.Canvas().Capture().(*image.NRGBA)
	if n := countColor(img, inFlightColor); n < 600 {
		t.Errorf("%d pixels of the finished and p50 lines drawn, want lines across the plot", n)
	}
	if n := countColor(img, pendingColor); n < 600 {
		t.Errorf("%d pixels of the started and p99 lines drawn, want lines across the plot", n)
	}
	assertImage(t, "overtime_ramp.png", img)

	// the finished area rises with the rate: higher at the right
	left, right := ganttGutter+10, 790
	if a, b := topOf(img, left), topOf(img, right); a <= b || b < 0 {
		t.Errorf("the finished area's top at x=%d is row %d, at x=%d row %d: want it higher on the right", left, a, right, b)
	}
	// zoomed on the Gantt's axis to the first half second, the chart
	// shows one second's level across
	g.axis.set(0, 500*ms)
	zoomed := w.Canvas().Capture().(*image.NRGBA)
	if a, b := topOf(zoomed, left), topOf(zoomed, right); a != b || a < 0 {
		t.Errorf("zoomed in: the finished area's top is row %d at x=%d and %d at x=%d, want one level", a, left, b, right)
	}
}

// topOf is the first row of column x in the chart's upper band drawn in
// the colour of the finished or the started line (drawn over it where
// they are equal), or -1.
func topOf(img *image.NRGBA, x int) int {
	for y := 0; y < img.Rect.Dy()/2; y++ {
		i := y*img.Stride + 4*x
		for _, c := range []color.RGBA{inFlightColor, pendingColor} {
			if img.Pix[i] == c.R && img.Pix[i+1] == c.G && img.Pix[i+2] == c.B {
				return y
			}
		}
	}
	return -1
}

// inlineChart is an over-time chart 800 px wide in a window, showing 0
// to end, that computes a live series on the test's goroutine.
func inlineChart(t *testing.T, end time.Duration) (*OverTimeChart, fyne.Window) {
	g := NewGantt()
	c := NewOverTimeChart(g)
	c.inline = true
	w := test.NewTempWindow(t, c)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(800, overTimeChartHeight))
	g.axis.set(0, end)
	return c, w
}

// TestOverTimeChartStopsAtNow checks that during a live run the chart
// draws nothing after the run's Now, as the concurrency chart does.
func TestOverTimeChartStopsAtNow(t *testing.T) {
	test.NewTempApp(t)
	snap := rampLoad([]int{20, 20, 20})
	last := snap.Spans[len(snap.Spans)-1]
	last.Answered, last.Status = recorder.Unset, recorder.StatusOpen // still in flight
	snap.Now = 2500 * ms
	c, w := inlineChart(t, 5*time.Second)
	c.SetSnapshot(snap)
	img := w.Canvas().Capture().(*image.NRGBA)
	// 2.5 s of 5 s over the plot right of the gutter
	now := ganttGutter + (800-ganttGutter)/2
	if topOf(img, now-10) < 0 {
		t.Errorf("nothing drawn just before Now (x=%d)", now-10)
	}
	if y := topOf(img, now+10); y >= 0 {
		t.Errorf("the chart draws after Now (x=%d, row %d)", now+10, y)
	}
}

// TestOverTimeChartLiveRunWithoutCallsInFlight: a frame of a live open
// loop often has no call in flight; while its run goes on, the chart
// still treats it as live (it stops at Now, and in the app its series is
// computed off the main goroutine) rather than as a finished recording.
func TestOverTimeChartLiveRunWithoutCallsInFlight(t *testing.T) {
	test.NewTempApp(t)
	snap := rampLoad([]int{20, 20, 20})
	snap.Now = 2500 * ms
	var kept []*recorder.Span
	for _, s := range snap.Spans { // what had been sent and answered by Now
		if s.Answered <= snap.Now {
			kept = append(kept, s)
		}
	}
	snap.Spans = kept
	snap.Runs = []recorder.Run{{Name: "Run 1", Start: 0, End: recorder.Unset, Tool: "echo"}}
	c, w := inlineChart(t, 5*time.Second)
	c.SetSnapshot(snap)
	img := w.Canvas().Capture().(*image.NRGBA)
	now := ganttGutter + (800-ganttGutter)/2 // 2.5 s of 5 s
	if topOf(img, now-10) < 0 {
		t.Errorf("nothing drawn just before Now (x=%d)", now-10)
	}
	if y := topOf(img, now+10); y >= 0 {
		t.Errorf("the chart of a run still going draws after its Now (x=%d, row %d): it took the run for finished", now+10, y)
	}

	// The run ended: the same spans are a finished recording, drawn to
	// their last second.
	snap.Runs[0].End = snap.Now
	snap.Version++
	c.SetSnapshot(snap)
	img = w.Canvas().Capture().(*image.NRGBA)
	if topOf(img, now+10) < 0 {
		t.Errorf("the chart of a finished run stops at the moment it was taken (x=%d)", now+10)
	}
}
