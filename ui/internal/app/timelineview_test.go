package app

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
	"github.com/fanout-inspector/inspector/ui/internal/timeline/timelinetest"
)

func init() {
	// redraw at once in tests: no deferred refresh from a timer goroutine
	timeline.MinFrameInterval = 0
}

const ms = time.Millisecond

// The recordings the tests show, drawn by the timeline's tests too.
var (
	fixedSnapshot  = timelinetest.Fixed
	fanoutSnapshot = timelinetest.Fanout
	bigSnapshot    = timelinetest.Big
	roundsSnapshot = timelinetest.Rounds
	assertImage    = timelinetest.AssertImage
)

// The Gantt's geometry, in units, where the tests tap and look: the time
// ruler, the notification lane and a row above the rows, the label gutter
// on their left.
const (
	ganttRulerH = 22
	ganttLaneH  = 10
	ganttRowH   = 20
	ganttGutter = 180
)

// ids writes rows as the IDs of their spans, each prefixed with one ">"
// per level of depth.
func ids(rows []timeline.GanttRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s%d ", strings.Repeat(">", r.Depth), r.Span.ID)
	}
	return strings.TrimSpace(b.String())
}

// picture draws the raster of w at width × height, as a paint would.
func picture(w fyne.Widget, width, height int) image.Image {
	for _, o := range test.WidgetRenderer(w).Objects() {
		if r, ok := o.(*canvas.Raster); ok {
			return r.Generator(width, height)
		}
	}
	return nil
}

func showTimeline(t *testing.T, size fyne.Size) (*TimelineView, fyne.Window) {
	t.Helper()
	tv := NewTimelineView()
	t.Cleanup(tv.Stop)
	w := test.NewTempWindow(t, tv)
	w.Resize(size)
	return tv, w
}

func TestTimelineTapShowsDetails(t *testing.T) {
	test.NewTempApp(t)
	tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
	tv.SetSnapshot(fixedSnapshot())
	rowY := func(row int) float32 { return ganttRulerH + ganttLaneH + (float32(row)+0.5)*ganttRowH }
	tests := []struct {
		name string
		row  int
		want []string
		not  []string
	}{
		{"a sampling request", 3, []string{
			"#4 sampling/createMessage", "direction  incoming", "status     ok", "parent     #1 tools/call fanout",
			"received   0.012 s", "serving    1.010 s", "waited     998 ms", "served     500 ms",
			`"text": "question 2"`, `"text": "answer 2"`,
		}, []string{"Notifications"}},
		{"a failed elicitation", 6, []string{
			"#8 elicitation/create", "status     error", "error      the user declined", "Params\n(none)",
		}, nil},
		{"the tool call", 0, []string{
			"#1 tools/call fanout", "direction  outgoing", "round trip 2.56 s", "caused     6 (1 failed)",
			`"name": "fanout"`, `"text": "5 answers"`,
			"Notifications\n0.600 s  notifications/progress\n1.100 s  notifications/progress",
		}, nil},
		{"the cancelled roots/list", 8, []string{"status     cancelled", "Notifications\n2.000 s  notifications/cancelled"}, nil},
		{"a request named by no notification", 4, []string{"#5 sampling/createMessage"}, []string{"Notifications", "caused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			test.TapAt(tv.Gantt(), fyne.NewPos(400, rowY(tt.row)))
			text := tv.Details().Text()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("details do not show %q:\n%s", w, text)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(text, w) {
					t.Errorf("details show %q:\n%s", w, text)
				}
			}
		})
	}
	t.Run("tapping the ruler clears the selection", func(t *testing.T) {
		test.TapAt(tv.Gantt(), fyne.NewPos(400, 5))
		if s := tv.Details().Span(); s != nil {
			t.Errorf("details still show #%d", s.ID)
		}
		if !strings.Contains(tv.Details().Text(), "Click a request") {
			t.Errorf("details do not show the hint:\n%s", tv.Details().Text())
		}
	})
}

func TestTimelineLegendAndFolding(t *testing.T) {
	test.NewTempApp(t)
	tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
	tv.SetSnapshot(fixedSnapshot())
	tv.setCompare(fixedSnapshot())
	test.Tap(tv.legend.toggles[recorder.KindSampling])
	for _, g := range []*timeline.Gantt{tv.Gantt(), tv.cmpGantt} {
		if got, want := ids(g.Rows()), "1 >8 7 9 10"; got != want {
			t.Errorf("rows with sampling hidden = %q, want %q", got, want)
		}
	}
	if !strings.Contains(tv.statsText(), "peak pending 5") {
		t.Errorf("hiding rows changed the stats:\n%s", tv.statsText())
	}
	if sw := tv.legend.swatches[recorder.KindSampling]; sw.FillColor != color.Transparent || sw.StrokeWidth != 1 {
		t.Errorf("a hidden kind's swatch is filled %v, stroke %v; want hollow", sw.FillColor, sw.StrokeWidth)
	}
	// a theme change recolours the legend
	fyne.CurrentApp().Settings().SetTheme(theme.LightTheme())
	tv.Refresh()
	if got, want := tv.legend.texts[0].Color, theme.Color(theme.ColorNameForeground); got != want {
		t.Errorf("legend text after a theme change is %v, want the theme's %v", got, want)
	}
	test.Tap(tv.legend.toggles[recorder.KindSampling])
	if got := len(tv.Rows()); got != 10 {
		t.Errorf("%d rows after showing sampling again, want 10", got)
	}

	// folding stays on for the next recording shown
	test.Tap(tv.fold)
	tv.SetSnapshot(fanoutSnapshot(3, 1, 100*ms))
	tv.setCompare(fanoutSnapshot(4, 1, 100*ms))
	for _, g := range []*timeline.Gantt{tv.Gantt(), tv.cmpGantt} {
		if got, want := ids(g.Rows()), "1"; got != want {
			t.Errorf("rows with tool calls folded = %q, want %q", got, want)
		}
	}
}

func TestTimelineStats(t *testing.T) {
	test.NewTempApp(t)
	tests := []struct {
		name string
		snap *recorder.Snapshot
		want []string
	}{
		{"serialized", fanoutSnapshot(5, 1, 500*ms), []string{
			"peak in flight 1", "peak pending 5", "elapsed 2.52 s", "serve p50 500 ms", "\nserialized",
		}},
		{"concurrent", fanoutSnapshot(5, 5, 500*ms), []string{
			"peak in flight 5", "peak pending 5", "elapsed 520 ms", "queue p50 0 µs", "\nconcurrent",
		}},
		{"bounded", fanoutSnapshot(6, 2, 100*ms), []string{"peak in flight 2", "peak pending 6", "\nbounded"}},
		{"empty", &recorder.Snapshot{}, []string{"\nNothing has run yet: choose a tool under Workload and press Run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
			tv.SetSnapshot(tt.snap)
			text := tv.statsText()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("stats do not show %q:\n%s", w, text)
				}
			}
			if sum := tv.Summary(); sum.PeakPending != recorder.Summarize(tt.snap).PeakPending {
				t.Errorf("Summary().PeakPending = %d, want the recorder's %d", sum.PeakPending, recorder.Summarize(tt.snap).PeakPending)
			}
		})
	}
}

func TestTimelineGolden(t *testing.T) {
	test.NewTempApp(t)
	tv, w := showTimeline(t, fyne.NewSize(1280, 720))
	tv.SetSnapshot(fixedSnapshot())
	tv.Gantt().Select(4)
	// the verdict's wording belongs to the recorder: pin it here so that
	// these images change only when the timeline's look does
	pinned := tv.Summary()
	pinned.VerdictText = "partial: the verdict in words, long enough to wrap onto a second line of the stats bar under the numbers"
	tv.setStats(func() { tv.stats.setSummary(pinned) })
	assertImage(t, "timeline_fixed.png", w.Canvas().Capture())

	tv.setCompare(fanoutSnapshot(5, 5, 500*ms))
	assertImage(t, "timeline_compare.png", w.Canvas().Capture())
	if got, want := tv.title.Text, "A: serial fan-out — demo"; got != want {
		t.Errorf("first recording labelled %q, want %q", got, want)
	}
	if got, want := tv.cmpTtl.Text, "B: 5 requests, 5 at a time"; got != want {
		t.Errorf("second recording labelled %q, want %q", got, want)
	}
	if text := tv.statsText(); !strings.Contains(text, "\nB: concurrent — peak in flight 5") {
		t.Errorf("stats do not show the compared recording:\n%s", text)
	}
	// selecting in B clears A's selection and shows B's request
	test.TapAt(tv.cmpGantt, fyne.NewPos(400, ganttRulerH+ganttLaneH+1.5*ganttRowH))
	if tv.Gantt().Selected() != nil || tv.Details().Span() == nil || tv.Details().Span().Serving != 10*ms {
		t.Errorf("after a tap in B: A selects %v, details show %v", tv.Gantt().Selected(), tv.Details().Span())
	}
	tv.zoomIn()
	s1, e1 := tv.Gantt().VisibleRange()
	s2, e2 := tv.cmpGantt.VisibleRange()
	if s1 != s2 || e1 != e2 {
		t.Errorf("compared Gantt shows %v – %v, the first %v – %v", s2, e2, s1, e1)
	}
	tv.setCompare(nil)
	if tv.cmpGantt != nil || strings.Contains(tv.statsText(), "B:") {
		t.Errorf("SetCompare(nil) kept the second recording:\n%s", tv.statsText())
	}
}

// pump runs the functions the live feed hands to the main goroutine until
// done reports true or a second has passed.
func pump(t *testing.T, ch chan func(), done func() bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for !done() {
		select {
		case f := <-ch:
			f()
		case <-deadline:
			t.Fatal("the live view did not catch up within 5 s")
		}
	}
}

func TestTimelineLive(t *testing.T) {
	test.NewTempApp(t)
	tv, w := showTimeline(t, fyne.NewSize(1280, 720))
	ch := make(chan func(), 1)
	tv.runOnMain = func(f func()) { ch <- f }
	rec := recorder.New(recorder.Meta{Title: "live"})
	tv.setRecording(rec)
	if !tv.Gantt().Following() || !tv.follow.Checked {
		t.Fatal("a live recording is not followed")
	}

	call := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
	call.Name, call.Received = "fanout", rec.Now()
	callID := rec.Begin(call)
	var served []recorder.SpanID
	for range 3 {
		s := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
		s.Parent, s.Received, s.Queued = callID, rec.Now(), rec.Now()
		s.Params = json.RawMessage(`{"maxTokens":1}`)
		served = append(served, rec.Begin(s))
	}
	pump(t, ch, func() bool { return len(tv.Rows()) == 4 })
	if got := ids(tv.Rows()); got != "1 >2 >3 >4" {
		t.Errorf("rows = %q", got)
	}

	// select one while it waits; it is served and answered: the details follow
	test.TapAt(tv.Gantt(), fyne.NewPos(400, ganttRulerH+ganttLaneH+1.5*ganttRowH))
	if !strings.Contains(tv.Details().Text(), "in flight") {
		t.Errorf("details of a waiting request:\n%s", tv.Details().Text())
	}
	for _, id := range served {
		rec.Update(id, func(s *recorder.Span) { s.Serving = rec.Now() })
		rec.Update(id, func(s *recorder.Span) {
			s.Answered, s.Status, s.Result = rec.Now(), recorder.StatusOK, json.RawMessage(`{"ok":true}`)
		})
	}
	rec.Update(callID, func(s *recorder.Span) { s.Answered, s.Status = rec.Now(), recorder.StatusOK })
	pump(t, ch, func() bool { return strings.Contains(tv.Details().Text(), `"ok": true`) })
	pump(t, ch, func() bool { return strings.Contains(tv.statsText(), "peak pending 3") })

	before := tv.framesDrawn()
	w.Canvas().Capture()
	if tv.framesDrawn() <= before {
		t.Errorf("FramesDrawn stayed at %d after a frame", before)
	}

	// the run's final snapshot stops following and keeps the selection
	tv.SetSnapshot(rec.Snapshot())
	if s := tv.Details().Span(); s == nil || s.ID != 2 || tv.Gantt().Following() {
		t.Errorf("after the final snapshot: details show %v, following %v; want span 2, not following", s, tv.Gantt().Following())
	}

	// a loaded snapshot stops the ticker: later changes are not shown
	tv.SetSnapshot(fixedSnapshot())
	rec.Begin(recorder.NewSpan("s1", recorder.Incoming, "ping"))
	time.Sleep(100 * time.Millisecond)
	select {
	case f := <-ch:
		f()
	default:
	}
	if got := len(tv.Rows()); got != 10 {
		t.Errorf("after SetSnapshot the view has %d rows, want the snapshot's 10", got)
	}
	if tv.Gantt().Following() {
		t.Error("a loaded snapshot is still followed")
	}
}

// BenchmarkTimelineLiveFrame measures what one live frame costs the main
// goroutine with 10,000 spans recorded and 10 more each frame: laying out
// the new spans, sliding the view, the stats, and drawing the Gantt and the
// chart: go test ./ui/ -run '^$' -bench TimelineLiveFrame
func BenchmarkTimelineLiveFrame(b *testing.B) {
	for _, part := range []string{"apply", "gantt", "chart", "all"} {
		b.Run(part, func(b *testing.B) {
			test.NewTempApp(b)
			tv := NewTimelineView()
			w := test.NewTempWindow(b, tv)
			w.Resize(fyne.NewSize(1600, 900))
			full := bigSnapshot(20000)
			frames := make([]liveFrame, 0, 1000)
			for n := 10000; n < 20000; n += 10 {
				part := *full
				part.Spans = full.Spans[:n]
				part.Now = full.Spans[n-1].Received
				frames = append(frames, makeFrame(&part, pickLatest))
			}
			tv.gantt.SetFollow(true)
			tv.apply(frames[0])
			i := 0
			for b.Loop() {
				i++
				if i == len(frames) {
					i = 1
				}
				if part != "gantt" && part != "chart" || i == 1 {
					tv.apply(frames[i])
				}
				if part == "gantt" || part == "all" {
					picture(tv.gantt, 1600, 700)
				}
				if part == "chart" || part == "all" {
					picture(tv.chart, 1000+i%2, 140) // a new size: as if the data changed
				}
			}
		})
	}
}

func TestTimelineLiveIdles(t *testing.T) {
	test.NewTempApp(t)
	tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
	ch := make(chan func(), 1)
	tv.runOnMain = func(f func()) { ch <- f }
	rec := recorder.New(recorder.Meta{Title: "idle"})
	s := recorder.NewSpan("s1", recorder.Incoming, "ping")
	s.Received, s.Queued, s.Serving, s.Answered, s.Status = 0, 0, 0, time.Millisecond, recorder.StatusOK
	rec.Begin(s)
	tv.setRecording(rec)

	// frames come while the recording changes, then stop: nothing is open
	frames := 0
	quiet := time.After(3 * time.Second)
	for idle := time.NewTimer(400 * time.Millisecond); ; {
		select {
		case f := <-ch:
			f()
			frames++
			idle.Reset(400 * time.Millisecond)
			continue
		case <-idle.C:
		case <-quiet:
			t.Fatalf("the live view kept drawing an unchanging recording: %d frames in 3 s", frames)
		}
		break
	}
	if frames == 0 || frames > 12 {
		t.Errorf("%d frames for a recording that never changed, want a first one and a few more at most", frames)
	}
	if got := len(tv.Rows()); got != 1 {
		t.Errorf("%d rows, want 1", got)
	}
	// a change brings frames back
	rec.Begin(recorder.NewSpan("s1", recorder.Incoming, "ping"))
	pump(t, ch, func() bool { return len(tv.Rows()) == 2 })
}

// TestTimelineLiveFramesAgree follows a live fan-out whose requests are
// still open: in every frame the Gantt, the chart and the stats show the
// same snapshot, and the chart keeps counting the open requests up to the
// snapshot's Now, where its lines stop, instead of drawing them as
// answered there.
func TestTimelineLiveFramesAgree(t *testing.T) {
	test.NewTempApp(t)
	tv, _ := showTimeline(t, fyne.NewSize(1280, 720))
	ch := make(chan func(), 1)
	tv.runOnMain = func(f func()) { ch <- f }
	rec := recorder.New(recorder.Meta{Title: "live"})
	call := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
	call.Name, call.Received = "fanout", rec.Now()
	callID := rec.Begin(call)
	for i := range 4 {
		s := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
		s.Parent, s.Received, s.Queued = callID, rec.Now(), rec.Now()
		if i == 0 {
			s.Serving = rec.Now() // one served, three queued behind it
		}
		rec.Begin(s)
	}
	tv.setRecording(rec)

	bg := color.RGBAModel.Convert(theme.Color(theme.ColorNameBackground)).(color.RGBA)
	deadline := time.After(5 * time.Second)
	for frame := 1; frame <= 10; frame++ {
		select {
		case f := <-ch:
			f()
		case <-deadline:
			t.Fatalf("only %d live frames in 5 s", frame-1)
		}
		snap := tv.snapshot()
		if tv.Gantt().Snapshot() != snap || tv.Chart().Snapshot() != snap {
			t.Fatalf("frame %d: the Gantt and the chart show different snapshots", frame)
		}
		want := summarize(snap, recorder.Steps(snap))
		if got := tv.Summary(); got.ElapsedMS != want.ElapsedMS {
			t.Errorf("frame %d: the stats say elapsed %.3f ms, the snapshot the Gantt shows (Now %v) %.3f ms",
				frame, got.ElapsedMS, snap.Now, want.ElapsedMS)
		}
		if !strings.Contains(tv.statsText(), "elapsed "+formatDuration(time.Duration(want.ElapsedMS*float64(time.Millisecond)))) {
			t.Errorf("frame %d: the stats bar does not show the frame's elapsed time %.3f ms:\n%s", frame, want.ElapsedMS, tv.statsText())
		}
		if f, p := tv.Chart().ValueAt(snap.Now); f != 1 || p != 4 {
			t.Errorf("frame %d: at Now the chart shows %d in flight and %d pending, want the open 1 and 4", frame, f, p)
		}

		// the picture: the lines stop at Now, where the Gantt's live end is
		c := tv.Chart()
		w, h := int(c.Size().Width), int(c.Size().Height)
		img := picture(c, w, h).(*image.RGBA)
		start, end := c.VisibleRange()
		xNow := int(ganttGutter) + int(float64(snap.Now-start)/float64(end-start)*float64(w-int(ganttGutter)))
		drawn := func(x int) bool { // anything but background near the bottom, where the lines are
			for y := h - 4; y < h; y++ {
				if i := img.PixOffset(x, y); img.Pix[i] != bg.R || img.Pix[i+1] != bg.G || img.Pix[i+2] != bg.B {
					return true
				}
			}
			return false
		}
		for x := xNow + 3; x < w; x++ {
			if drawn(x) {
				t.Errorf("frame %d: the chart draws at x=%d, after Now (x=%d, %v): the future is unknown", frame, x, xNow, snap.Now)
				break
			}
		}
		if x := xNow - 3; x > int(ganttGutter)+3 && !drawn(x) {
			t.Errorf("frame %d: nothing drawn just before Now (x=%d)", frame, x)
		}
		time.Sleep(15 * time.Millisecond) // let Now move on a few pixels
	}
}

// TestTimelineNarrow checks that the timeline fits beside the window's
// panels: its toolbar and legend stay one line each at every width,
// folding what does not fit behind ⋯ and Legend ▾, and nothing of them
// is cut off at the right.
func TestTimelineNarrow(t *testing.T) {
	test.NewTempApp(t)
	tv := NewTimelineView()
	t.Cleanup(tv.Stop)
	tv.detachDetails() // as in the window, which places the details itself
	w := test.NewTempWindow(t, tv)
	w.SetPadded(false)
	tv.SetSnapshot(fixedSnapshot())
	if got := tv.MinSize().Width; got > 800 {
		t.Errorf("the timeline needs %.0f px of width, want at most 800 so that a 1200 px window has room for the panels", got)
	}
	bar, legend := tv.left.Objects[0].(*fyne.Container), tv.left.Objects[1].(*fyne.Container)
	for _, tt := range []struct {
		name   string
		width  float32
		folded bool // something folds behind ⋯ and Legend ▾
	}{
		{"wide", 2000, false},
		{"a 1200 px window beside the panels", 800, true},
		{"as narrow as it goes", tv.MinSize().Width, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w.Resize(fyne.NewSize(tt.width, 800))
			w.Canvas().Capture()
			checkOneLine(t, "toolbar", bar)
			checkOneLine(t, "legend", legend)
			legendMore := legend.Objects[len(legend.Objects)-1]
			if tv.more.Visible() != tt.folded || legendMore.Visible() != tt.folded {
				t.Errorf("⋯ shown %v, Legend ▾ shown %v; want %v", tv.more.Visible(), legendMore.Visible(), tt.folded)
			}
			if top := tv.area.Position().Y; top < legend.Position().Y+legend.Size().Height {
				t.Errorf("the Gantt starts at y=%.0f, under the legend", top)
			}
		})
	}
	// what folded is in the ⋯ menu, and works from there
	menu := tv.moreMenu()
	var labels []string
	for _, it := range menu.Items {
		labels = append(labels, it.Label)
	}
	if got := strings.Join(labels, "|"); !strings.Contains(got, "Compact rows|Fold tool calls|") || !strings.Contains(got, "click: details") {
		t.Fatalf("the ⋯ menu offers %q, want the folded switches and the mouse and keys", got)
	}
	menu.Items[1].Action()
	if !tv.fold.Checked {
		t.Error("Fold tool calls from the ⋯ menu did not fold the tool calls")
	}
}
