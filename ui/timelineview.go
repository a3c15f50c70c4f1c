package ui

import (
	"image/color"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/timeline"
)

// TimelineView is the whole right-hand side of the main window: the
// [Gantt], the [ConcurrencyChart] under it sharing its time axis, the
// [StatsBar], and the [Details] pane for the selected span, with a toolbar
// for zoom, follow-live and the colour legend.
//
// Show a live recording with [TimelineView.SetRecording] or a finished one
// with [TimelineView.SetSnapshot]; [TimelineView.SetCompare] adds a second
// recording under the first on the same time scale. Call its methods on
// Fyne's main goroutine.
type TimelineView struct {
	widget.BaseWidget

	gantt   *timeline.Gantt
	chart   *timeline.ConcurrencyChart
	stats   *StatsBar
	details *Details

	cmpGantt *timeline.Gantt
	cmpChart *timeline.ConcurrencyChart
	cmpSnap  *recorder.Snapshot
	// cmpShown is cmpSnap moved in time so that its first tool call
	// starts where the first of the run shown above does; cmpShift is by
	// how much.
	cmpShown *recorder.Snapshot
	cmpShift time.Duration
	// names label the two panes when comparing ("" for either: the
	// recording's run and target)
	names [2]string
	// cmpRelease detaches the compared Gantt and chart from the time axis
	cmpRelease func()

	// snap is what the view draws: for a proxy recording, raw with the
	// client's work estimated ([recorder.EstimateClientWork]); raw is the
	// recording as it was recorded, which saving and exporting write.
	snap  *recorder.Snapshot
	raw   *recorder.Snapshot
	steps []recorder.Step // of snap, for a new choice of run
	scope runScope        // the part of snap the stats describe
	// runPick chooses what the stats, verdict and Fit describe: one run,
	// or the whole session; pick is its choice, read by the live feed.
	runPick    *widget.Select
	runLabels  []string
	runPickW   *canvas.Rectangle // gives runPick the width of its longest choice
	runPickBox *fyne.Container   // runPick over runPickW; hidden without runs
	pick       atomic.Int64
	statsAt    time.Time // when the stats line last followed a live frame
	settingRun bool      // runPick is being set by the view, not the person
	follow     *widget.Check
	compact    *widget.Check
	fold       *widget.Check
	title      *widget.Label
	cmpTtl     *widget.Label
	area       *fyne.Container // the Gantt and chart, or both recordings
	overTime   *timeline.OverTimeChart
	left       *fyne.Container // toolbar, area and stats bar
	content    fyne.CanvasObject

	// kindToggles hide and show the rows of a kind: the legend's kinds
	kindToggles  map[recorder.Kind]*widget.Button
	kindSwatches map[recorder.Kind]*canvas.Rectangle
	queuedSwatch *canvas.Rectangle
	legendTexts  []*canvas.Text // the kinds' names first, in legendKinds order
	// queuedText and servingText name the two phases of a server
	// request; a proxy recording names them for what a proxy can know
	queuedText, servingText *canvas.Text
	proxy                   bool // the recording shown is a proxy's

	// runOnMain hands work from the ticker to the main goroutine; tests
	// replace it.
	runOnMain func(func())
	live      *liveFeed
	// followEvery is how often a followed journal is read (see
	// [TimelineView.FollowJournal]); tests shorten it.
	followEvery time.Duration
	followSeen  []int // span counts of a followed journal's frames, as it grew
}

// NewTimelineView returns a timeline with nothing to show.
func NewTimelineView() *TimelineView {
	t := &TimelineView{
		gantt:       timeline.NewGantt(),
		chart:       timeline.NewConcurrencyChart(),
		stats:       NewStatsBar(),
		details:     NewDetails(),
		runOnMain:   fyne.Do,
		followEvery: FollowInterval,
		title:       widget.NewLabel(""),
		cmpTtl:      widget.NewLabel(""),
	}
	t.title.TextStyle.Bold = true
	t.cmpTtl.TextStyle.Bold = true
	t.chart.ShareAxis(t.gantt)
	t.overTime = timeline.NewOverTimeChart(t.gantt)
	t.overTime.Hide() // until a load test: see showOverTime
	t.gantt.OnSelect = func(s *recorder.Span) {
		if s != nil && t.cmpGantt != nil {
			t.cmpGantt.Deselect() // one selection across both recordings
		}
		t.showDetails(s, t.snap)
	}
	t.gantt.OnFollowChanged = func(on bool) {
		if t.follow.Checked != on {
			t.follow.SetChecked(on)
		}
	}

	t.follow = widget.NewCheck("Follow live", func(on bool) { t.gantt.SetFollow(on) })
	t.compact = widget.NewCheck("Compact rows", func(on bool) {
		t.gantt.SetCompact(on)
		if t.cmpGantt != nil {
			t.cmpGantt.SetCompact(on)
		}
	})
	t.fold = widget.NewCheck("Fold tool calls", func(on bool) {
		t.gantt.CollapseAll(on)
		if t.cmpGantt != nil {
			t.cmpGantt.CollapseAll(on)
		}
	})
	zoom := container.NewHBox(
		widget.NewButtonWithIcon("", theme.ZoomOutIcon(), t.ZoomOut),
		widget.NewButtonWithIcon("", theme.ZoomInIcon(), t.ZoomIn),
		widget.NewButtonWithIcon("Fit", theme.ZoomFitIcon(), t.Fit),
	)
	hint := widget.NewLabel("wheel: rows · Ctrl+wheel: zoom · Shift+wheel or drag: pan · click: details · keys: ↑ ↓ ← → + − 0 Esc")
	hint.Importance = widget.LowImportance
	hint.Truncation = fyne.TextTruncateEllipsis
	// The toolbar's buttons, hint and legend wrap onto more lines when the
	// view is narrow, so that it never asks for more than its widest item.
	bar := &flowLayout{stretch: hint, breakAfter: hint}
	items := append([]fyne.CanvasObject{zoom, t.follow, t.compact, t.fold, timeline.NewFilterEntry(t.gantt), hint}, t.legend()...)
	toolbar := container.New(bar, items...)
	t.area = container.NewStack(t.pane(t.gantt, t.chart, nil))
	t.runPick = widget.NewSelect(nil, t.pickRun)
	t.runPickW = canvas.NewRectangle(color.Transparent)
	t.runPickBox = container.NewStack(t.runPickW, t.runPick)
	t.runPickBox.Hide() // until the recording has runs
	statsRow := container.NewBorder(nil, nil, container.NewVBox(t.runPickBox), nil, t.stats)
	t.left = container.New(&columnLayout{bar: bar}, toolbar, t.area, statsRow)
	split := container.NewHSplit(t.left, t.details)
	split.SetOffset(0.74)
	t.content = split
	t.ExtendBaseWidget(t)
	t.SetSnapshot(nil)
	return t
}

// pane stacks a Gantt over its chart, with a title when comparing.
func (t *TimelineView) pane(g *timeline.Gantt, c *timeline.ConcurrencyChart, title *widget.Label) fyne.CanvasObject {
	var top fyne.CanvasObject
	if title != nil {
		top = title
	}
	if c == t.chart {
		// the over-time chart, on the same time axis, under the first
		// recording's concurrency chart
		return container.NewBorder(top, container.NewVBox(c, t.overTime), nil, nil, g)
	}
	return container.NewBorder(top, c, nil, nil, g)
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (t *TimelineView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(t.content)
}

// Gantt returns the timeline's Gantt.
func (t *TimelineView) Gantt() *timeline.Gantt { return t.gantt }

// Chart returns the timeline's concurrency chart.
func (t *TimelineView) Chart() *timeline.ConcurrencyChart { return t.chart }

// Details returns the timeline's details pane.
func (t *TimelineView) Details() *Details { return t.details }

// SetRecording follows a live recording: one ticker (about 30 a second)
// takes a snapshot when the recording changed, or while requests are in
// flight, and hands it to the main goroutine. Following the live end is
// switched on. A nil rec stops following.
func (t *TimelineView) SetRecording(rec *recorder.Recording) {
	t.Stop()
	if rec == nil {
		return
	}
	t.gantt.SetFollow(true)
	t.pick.Store(pickLatest) // a new recording: its latest run
	t.names[0] = ""
	t.live = startLiveFeed(rec, t.runOnMain, t.pick.Load, func(f liveFrame) { t.apply(f) })
}

// SetSnapshot shows a finished or loaded recording, fitted to the view. It
// stops following a live recording; when snap is the final snapshot of the
// recording shown, the selected request stays selected.
func (t *TimelineView) SetSnapshot(snap *recorder.Snapshot) {
	t.Stop()
	if snap == nil {
		snap = &recorder.Snapshot{}
	}
	if t.snap == nil || !t.snap.Meta.Created.Equal(snap.Meta.Created) {
		t.pick.Store(pickLatest) // another recording: its latest run
	}
	t.gantt.SetFollow(false)
	t.apply(makeFrame(snap, t.pick.Load()))
	t.Fit()
}

// SetCompare shows snap under the current recording, on the same time
// scale, each labelled by its title or target; nil removes it.
func (t *TimelineView) SetCompare(snap *recorder.Snapshot) {
	t.cmpSnap = snap
	if snap == nil {
		t.setStats(func() { t.stats.SetCompare(nil) })
		if t.cmpRelease != nil {
			t.cmpRelease() // the shared axis forgets the removed widgets
			t.cmpRelease = nil
		}
		t.cmpGantt, t.cmpChart, t.cmpShown, t.cmpShift = nil, nil, nil, 0
		t.chart.SetHeight(timeline.ConcurrencyChartHeight)
		t.area.Objects = []fyne.CanvasObject{t.pane(t.gantt, t.chart, nil)}
		t.area.Refresh()
		return
	}
	if t.cmpGantt == nil {
		t.cmpGantt, t.cmpChart = timeline.NewGantt(), timeline.NewConcurrencyChart()
		r1, r2 := t.cmpGantt.ShareAxis(t.gantt), t.cmpChart.ShareAxis(t.gantt)
		t.cmpRelease = func() { r1(); r2() }
		t.cmpGantt.SetCompact(t.compact.Checked)
		t.cmpGantt.CollapseAll(t.fold.Checked)
		for _, k := range t.gantt.HiddenKinds() {
			t.cmpGantt.SetKindHidden(k, true)
		}
		t.cmpGantt.OnSelect = func(s *recorder.Span) {
			if s != nil {
				t.gantt.Deselect()
			}
			t.showDetails(s, t.cmpShown)
		}
		// two charts of full height would leave the Gantts no room: the
		// charts are half height, and the two panes share the height
		// equally
		t.chart.SetHeight(timeline.ConcurrencyChartHeight / 2)
		t.cmpChart.SetHeight(timeline.ConcurrencyChartHeight / 2)
		split := container.NewVSplit(
			t.pane(t.gantt, t.chart, t.title),
			t.pane(t.cmpGantt, t.cmpChart, t.cmpTtl),
		)
		t.area.Objects = []fyne.CanvasObject{split}
	}
	cmpSum := recorder.Summarize(snap)
	t.setStats(func() { t.stats.SetCompare(&cmpSum) })
	t.cmpShown, t.cmpShift = nil, 0
	t.alignCompare()
	t.setTitles()
	t.area.Refresh()
	t.Fit()
}

// SetName labels the recording shown when comparing, with its file's
// name say; "" labels it with its run and target. A live recording (see
// [TimelineView.SetRecording]) has no name.
func (t *TimelineView) SetName(name string) {
	t.names[0] = name
	t.setTitles()
}

// SetCompareName labels the compared recording, with its file's name
// say; "" labels it with its title or target.
func (t *TimelineView) SetCompareName(name string) {
	t.names[1] = name
	t.setTitles()
}

// setTitles labels the two panes when comparing.
func (t *TimelineView) setTitles() {
	if t.cmpGantt == nil {
		return
	}
	a, b := t.names[0], t.names[1]
	if a == "" {
		a = recordingName(t.snap)
		if !t.scope.whole {
			a = t.scope.run.Label() + " — " + a
		}
	}
	if b == "" {
		b = recordingName(t.cmpSnap)
	}
	if shift := t.cmpShift; shift != 0 {
		b += " (moved " + formatDuration(shift.Abs())
		if shift > 0 {
			b += " later"
		} else {
			b += " earlier"
		}
		b += ": the first tool calls start together)"
	}
	if a = "A: " + a; t.title.Text != a {
		t.title.SetText(a)
	}
	if b = "B: " + b; t.cmpTtl.Text != b {
		t.cmpTtl.SetText(b)
	}
}

// alignCompare moves the compared recording in time so that its first
// tool call (of its latest run) starts where the first tool call of the
// run shown above does, and shows it.
func (t *TimelineView) alignCompare() {
	if t.cmpSnap == nil || t.cmpGantt == nil {
		return
	}
	shift := time.Duration(0)
	a, aok := firstCall(t.snap, t.scope)
	b, bok := firstCall(t.cmpSnap, scopeOf(t.cmpSnap, pickLatest))
	if aok && bok {
		shift = a - b
	}
	if t.cmpShown != nil && shift == t.cmpShift {
		return
	}
	t.cmpShift = shift
	t.cmpShown = shifted(t.cmpSnap, shift)
	t.cmpGantt.SetSnapshot(t.cmpShown)
	t.cmpChart.SetSnapshot(t.cmpShown)
}

// recordingName is how a recording is labelled: its title, its target, or
// when it was made.
func recordingName(snap *recorder.Snapshot) string {
	switch {
	case snap == nil:
		return "(nothing)"
	case snap.Meta.Title != "" && snap.Meta.Target != "":
		return snap.Meta.Title + " — " + snap.Meta.Target
	case snap.Meta.Title != "":
		return snap.Meta.Title
	case snap.Meta.Target != "":
		return snap.Meta.Target
	case !snap.Meta.Created.IsZero():
		return "recording of " + snap.Meta.Created.Format(time.DateTime)
	}
	return "recording"
}

// Snapshot returns the recording shown now, as it was recorded (for a
// proxy recording, without the estimate the timeline draws).
func (t *TimelineView) Snapshot() *recorder.Snapshot {
	if t.raw != nil {
		return t.raw
	}
	return t.snap
}

// Summary returns the statistics shown now.
func (t *TimelineView) Summary() recorder.Summary { return t.stats.Summary() }

// Rows returns the Gantt's rows in display order.
func (t *TimelineView) Rows() []timeline.GanttRow { return t.gantt.Rows() }

// StatsText returns the stats bar's text as shown.
func (t *TimelineView) StatsText() string { return t.stats.Text() }

// FramesDrawn returns how many frames the Gantt has drawn; sample it twice
// during a live run to measure frames per second.
func (t *TimelineView) FramesDrawn() int64 { return t.gantt.FramesDrawn() }

// ZoomIn shows half as much time.
func (t *TimelineView) ZoomIn() { t.gantt.ZoomIn() }

// ZoomOut shows twice as much time.
func (t *TimelineView) ZoomOut() { t.gantt.ZoomOut() }

// Fit shows the run the stats describe (the latest, unless the run
// picker says otherwise), or the whole recording, and the compared one.
func (t *TimelineView) Fit() {
	start, end := time.Duration(0), timeline.Extent(t.snap)
	if !t.scope.whole {
		start = t.scope.run.Start
		if !t.scope.run.Open() {
			end = t.scope.run.End
		}
	}
	if t.cmpShown != nil {
		end = max(end, timeline.Extent(t.cmpShown))
	}
	if end <= start {
		end = start + time.Second
	}
	margin := (end - start) / 40
	t.gantt.SetVisibleRange(max(start-margin, 0), end+margin)
}

// Stop stops following a live recording (call it when the window closes).
func (t *TimelineView) Stop() {
	if t.live != nil {
		t.live.stop()
		t.live = nil
	}
}

// setStats changes the stats bar through f and lays the view out again
// when the bar's height changed (a verdict that wraps, a compare line).
func (t *TimelineView) setStats(f func()) {
	h := t.stats.MinSize().Height
	f()
	if t.stats.MinSize().Height != h {
		t.left.Refresh()
	}
}

// showOverTime shows the run second by second under the concurrency
// chart when it looks like a load test: ten tool calls or more over two
// seconds or more (fewer leave the Gantt its room, and say little per
// second).
func (t *TimelineView) showOverTime(snap *recorder.Snapshot, sum recorder.Summary) {
	if sum.ToolCalls.Total < 10 || timeline.Extent(snap) < 2*time.Second {
		if t.overTime.Visible() {
			t.overTime.Hide()
			t.area.Refresh()
		}
		return
	}
	t.overTime.SetSnapshot(snap)
	if !t.overTime.Visible() {
		t.overTime.Show()
		t.area.Refresh()
	}
}

// OverTime returns the chart of the run second by second.
func (t *TimelineView) OverTime() *timeline.OverTimeChart { return t.overTime }

// showDetails shows the clicked span of snap in the details pane.
func (t *TimelineView) showDetails(s *recorder.Span, snap *recorder.Snapshot) {
	if s == nil {
		t.details.SetSpan(nil, nil)
		return
	}
	r := timeline.RelatedTo(snap, s)
	t.details.SetSpan(s, r.Parent)
	t.details.SetRoundFacts(r.RoundFacts)
	t.details.SetNotifications(r.Events)
	t.details.SetChildren(r.Children, r.Failed)
}

// apply shows a frame: on the main goroutine.
func (t *TimelineView) apply(f liveFrame) {
	t.snap, t.raw, t.steps, t.scope = f.snap, f.raw, f.steps, f.scope
	t.setProxy(f.snap != nil && f.snap.Meta.Mode == recorder.ModeProxy)
	t.gantt.SetSnapshot(f.snap)
	t.chart.SetSteps(f.snap, f.steps)
	t.showOverTime(f.snap, f.summary)
	t.showRuns(f.snap)
	// While requests are in flight the figures change every frame, faster
	// than anyone reads them, and each new text costs the painter a new
	// texture: they follow at most every statsEvery; the frame after the
	// last change shows the final figures.
	if !f.open || timeline.MinFrameInterval <= 0 || time.Since(t.statsAt) >= statsEvery {
		t.statsAt = time.Now()
		t.setStats(func() { t.stats.SetRunSummary(f.summary, f.scope.provisional) })
	}
	t.alignCompare()
	if sel := t.gantt.Selected(); sel != nil && sel != t.details.Span() {
		// the selected request changed (it was answered, say)
		t.showDetails(sel, f.snap)
	} else if sel == nil && t.details.Span() != nil && t.cmpGantt == nil {
		t.details.SetSpan(nil, nil)
	}
	t.setTitles()
	// The Gantt and the chart share a time axis, and so a frame: the
	// frame after this event draws both, from this one snapshot.
}

// liveFrame is what one tick hands to the main goroutine: the snapshot and
// what was computed from it off the main goroutine. Everything the view
// shows in a frame (the Gantt, the chart, the stats) comes from its one
// snapshot.
type liveFrame struct {
	snap    *recorder.Snapshot // as drawn: see [TimelineView.snap]
	raw     *recorder.Snapshot // as recorded
	steps   []recorder.Step
	scope   runScope
	summary recorder.Summary // of scope
	open    bool             // some request is still in flight
}

// statsEvery is how often the stats line follows a live run while
// requests are in flight (see [TimelineView.apply]).
const statsEvery = 200 * time.Millisecond

// makeFrame makes the frame of snap whose stats describe the part of it
// pick chooses.
//
// A proxy's recording is drawn with the client's work estimated
// ([recorder.EstimateClientWork]): the proxy measured when each request
// reached the client and when it was answered, not when the client began
// on it, and a Gantt drawn from the raw spans would show every request
// waiting for its whole life. Its stats are the proxy summary
// ([recorder.Summarize]), which speaks of the client.
func makeFrame(snap *recorder.Snapshot, pick int64) liveFrame {
	drawn := recorder.EstimateClientWork(snap)
	steps := recorder.Steps(drawn)
	scope := scopeOf(drawn, pick)
	open := false
	for _, s := range snap.Spans {
		if s.Open() {
			open = true
			break
		}
	}
	return liveFrame{snap: drawn, raw: snap, steps: steps, scope: scope, summary: scope.summarize(drawn, steps), open: open}
}

// liveFeed is the one ticker that follows a live recording.
type liveFeed struct {
	done   chan struct{}
	exited chan struct{} // closed when the feed's goroutine has returned
	once   sync.Once
}

// startLiveFeed takes a snapshot of rec about 30 times a second when it
// changed (or while requests are open, since they grow with time), makes a
// frame of it (its steps and summary) and hands it to show through
// runOnMain. A frame is not taken while the previous one has not been
// shown yet, so a busy main goroutine never builds a backlog; the next is
// taken one frame interval after the last one was begun (at once when
// showing it took longer), not at the next tick of a fixed clock, which
// lost a whole interval whenever showing a frame straddled a tick; nor
// sooner after the last one than that one took to make, so a huge
// recording is shown less often rather than keeping a core busy.
func startLiveFeed(rec *recorder.Recording, runOnMain func(func()), pick func() int64, show func(liveFrame)) *liveFeed {
	l := newLiveFeed()
	interval := max(timeline.MinFrameInterval, time.Millisecond)
	go func() {
		defer close(l.exited)
		timer := time.NewTimer(0)
		defer timer.Stop()
		shown := make(chan struct{}, 1)
		var (
			last        uint64
			first, open = true, false
		)
		for {
			select {
			case <-l.done:
				return
			case <-timer.C:
			}
			if v := rec.Version(); !first && v == last && !open {
				timer.Reset(interval)
				continue
			}
			first = false
			began := time.Now()
			snap := rec.Snapshot()
			last = snap.Version
			open = false
			for _, s := range snap.Spans {
				if s.Open() {
					open = true
					break
				}
			}
			f := makeFrame(snap, pick())
			made := time.Since(began)
			runOnMain(func() {
				defer func() { shown <- struct{}{} }()
				select {
				case <-l.done:
					return // stopped meanwhile: show nothing more
				default:
				}
				show(f)
			})
			select {
			case <-l.done:
				return
			case <-shown:
			}
			timer.Reset(max(interval-time.Since(began), made))
		}
	}()
	return l
}

// newLiveFeed returns a feed whose goroutine the caller starts, closing
// exited when it returns.
func newLiveFeed() *liveFeed {
	return &liveFeed{done: make(chan struct{}), exited: make(chan struct{})}
}

// stop ends the feed and waits (up to a second) for its goroutine to
// return. Once the app's main loop has ended, fyne.Do runs a frame at
// once on the feed's own goroutine: without the wait, a frame begun just
// before stop could still be drawing while the window shuts down.
func (l *liveFeed) stop() {
	l.once.Do(func() { close(l.done) })
	select {
	case <-l.exited:
	case <-time.After(time.Second):
	}
}

// legend shows what the colours and marks of the Gantt and chart mean.
// Clicking a kind hides its rows, or shows them again.
func (t *TimelineView) legend() []fyne.CanvasObject {
	small := theme.Size(theme.SizeNameCaptionText)
	item := func(c color.Color, label string) (*canvas.Rectangle, *canvas.Text, fyne.CanvasObject) {
		sw := canvas.NewRectangle(c)
		sw.SetMinSize(fyne.NewSize(10, 10))
		txt := canvas.NewText(label, theme.Color(theme.ColorNameForeground))
		txt.TextSize = small
		t.legendTexts = append(t.legendTexts, txt)
		return sw, txt, container.NewHBox(container.NewCenter(sw), txt)
	}
	items := []fyne.CanvasObject{}
	t.kindToggles = map[recorder.Kind]*widget.Button{}
	t.kindSwatches = map[recorder.Kind]*canvas.Rectangle{}
	for _, k := range timeline.LegendKinds {
		sw, _, look := item(timeline.KindColor(k), string(k))
		t.kindSwatches[k] = sw
		b := widget.NewButton("", func() {
			hide := !t.gantt.KindHidden(k)
			t.gantt.SetKindHidden(k, hide)
			if t.cmpGantt != nil {
				t.cmpGantt.SetKindHidden(k, hide)
			}
			t.paintLegend()
		})
		b.Importance = widget.LowImportance
		t.kindToggles[k] = b
		// the button takes the clicks; the swatch and name show through it
		items = append(items, container.NewStack(b, look))
	}
	items = append(items, widget.NewSeparator())
	for _, o := range []struct {
		c     color.Color
		label string
	}{
		{nil, "queued"}, {timeline.KindColor(recorder.KindSampling), "serving"},
		{timeline.FulfilColor, "client fulfilling input (between rounds)"},
		{timeline.StalledColor, "stalled (read, not yet seen by the client)"},
		{timeline.FailColor, "failed (hatched: cancelled, timeout, aborted)"},
		{timeline.EventColor(recorder.EventProgress), "notification"},
	} {
		sw, txt, look := item(o.c, o.label)
		switch o.label {
		case "queued":
			t.queuedSwatch = sw // its colour depends on the theme's background
			t.queuedText = txt
		case "serving":
			t.servingText = txt
		}
		items = append(items, look)
	}
	t.paintLegend()
	return items
}

// Legend words for the two phases of a server request: measured by the
// inspector as a client, and as a proxy sees them.
const (
	legendQueued       = "queued"
	legendServing      = "serving"
	legendProxyQueued  = "waiting at the client"
	legendProxyServing = "estimated work (the client is a black box: no queued/serving split is measured)"
)

// setProxy names the phases in the legend for a proxy's recording (on) or
// the inspector's own, and tells the details pane.
func (t *TimelineView) setProxy(on bool) {
	if t.proxy == on {
		return
	}
	t.proxy = on
	q, s := legendQueued, legendServing
	if on {
		q, s = legendProxyQueued, legendProxyServing
	}
	t.queuedText.Text, t.servingText.Text = q, s
	t.queuedText.Refresh()
	t.servingText.Refresh()
	t.details.SetProxy(on)
	t.left.Refresh() // the legend's width changed
}

// LegendText returns the legend's words, in order.
func (t *TimelineView) LegendText() []string {
	var out []string
	for _, txt := range t.legendTexts {
		out = append(out, txt.Text)
	}
	return out
}

// paintLegend colours the legend for the current theme: a hidden kind's
// swatch is hollow and its name faint.
func (t *TimelineView) paintLegend() {
	fg, faint := theme.Color(theme.ColorNameForeground), theme.Color(theme.ColorNameDisabled)
	for i, txt := range t.legendTexts {
		txt.Color = fg
		if i < len(timeline.LegendKinds) && t.gantt.KindHidden(timeline.LegendKinds[i]) {
			txt.Color = faint
		}
		txt.Refresh()
	}
	for k, sw := range t.kindSwatches {
		sw.FillColor, sw.StrokeColor, sw.StrokeWidth = timeline.KindColor(k), timeline.KindColor(k), 0
		if t.gantt.KindHidden(k) {
			sw.FillColor, sw.StrokeWidth = color.Transparent, 1
		}
		sw.Refresh()
	}
	t.queuedSwatch.FillColor = timeline.QueuedColor(recorder.KindSampling)
	t.queuedSwatch.Refresh()
}

// Refresh redraws the timeline, with the colours of the current theme.
func (t *TimelineView) Refresh() {
	t.paintLegend()
	t.BaseWidget.Refresh()
}

// flowLayout places objects from left to right and starts a new line when
// the next one would not fit, like words in a paragraph, so that it needs
// no more width than its widest object. Each line is as tall as its
// tallest object, and objects are centred in it (a separator runs its
// height). The stretch object (a
// truncating label) takes the rest of its line when at least
// flowStretchMin is left, else a line of its own; breakAfter ends a line.
type flowLayout struct {
	stretch, breakAfter fyne.CanvasObject
	width               float32 // the width of the last layout, 0 before
	// gap is the space between two objects on a line; 0 means the
	// theme's padding
	gap float32
}

// gapOr returns the gap between objects on a line.
func (l *flowLayout) gapOr() float32 {
	if l.gap > 0 {
		return l.gap
	}
	return theme.Padding()
}

// flowStretchMin is the least width the stretch object is given beside
// other objects.
const flowStretchMin = 160

// flowPlace is where an object goes: its line and its position and width
// within the line.
type flowPlace struct {
	line int
	x, w float32
}

// place lays objects out in lines of width w, returning where each goes
// and each line's height.
func (l *flowLayout) place(objects []fyne.CanvasObject, w float32) ([]flowPlace, []float32) {
	gap := l.gapOr()
	places := make([]flowPlace, len(objects))
	var heights []float32
	x, line := float32(0), 0
	newLine := func() {
		line++
		x = 0
	}
	for i, o := range objects {
		if !o.Visible() {
			places[i].line = -1
			continue
		}
		size := o.MinSize()
		need := size.Width
		if o == l.stretch {
			need = max(need, flowStretchMin)
		}
		if x > 0 && x+need > w {
			newLine()
		}
		if line == len(heights) {
			heights = append(heights, 0)
		}
		width := size.Width
		if o == l.stretch {
			width = max(w-x, size.Width)
		}
		places[i] = flowPlace{line: line, x: x, w: width}
		heights[line] = max(heights[line], size.Height)
		x += width + gap
		if o == l.breakAfter && i+1 < len(objects) {
			newLine()
		}
	}
	return places, heights
}

// heightFor is how tall objects are when laid out in width w.
func (l *flowLayout) heightFor(objects []fyne.CanvasObject, w float32) float32 {
	_, heights := l.place(objects, w)
	var h float32
	for i, lh := range heights {
		if i > 0 {
			h += theme.Padding() / 2
		}
		h += lh
	}
	return h
}

// MinSize is the widest object, and the height of the lines at the width
// of the last layout.
func (l *flowLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objects {
		if o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	if l.stretch != nil && l.stretch.Visible() {
		w = max(w, flowStretchMin)
	}
	return fyne.NewSize(w, l.heightFor(objects, max(l.width, w)))
}

// Layout places objects in lines of the container's width.
func (l *flowLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	places, heights := l.place(objects, size.Width)
	tops := make([]float32, len(heights))
	for i := 1; i < len(heights); i++ {
		tops[i] = tops[i-1] + heights[i-1] + theme.Padding()/2
	}
	for i, o := range objects {
		p := places[i]
		if p.line < 0 {
			continue
		}
		h := o.MinSize().Height
		if _, ok := o.(*widget.Separator); ok {
			h = heights[p.line] // a divider runs the line's height
		}
		o.Move(fyne.NewPos(p.x, tops[p.line]+(heights[p.line]-h)/2))
		o.Resize(fyne.NewSize(p.w, h))
	}
}

// columnLayout stacks the timeline's toolbar (a [flowLayout] container, as
// tall as its lines are at the width given), the Gantt and chart area
// (the rest) and the stats bar (its own height) from top to bottom.
type columnLayout struct {
	bar *flowLayout
}

// MinSize is the widest of the three, and their heights one above the
// other.
func (l *columnLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var size fyne.Size
	for i, o := range objects {
		m := o.MinSize()
		size.Width = max(size.Width, m.Width)
		size.Height += m.Height
		if i > 0 {
			size.Height += theme.Padding()
		}
	}
	return size
}

// Layout gives the toolbar the height of its lines at the full width,
// the stats bar its own height at the bottom, and the area what is left.
func (l *columnLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	bar, area, stats := objects[0], objects[1], objects[2]
	pad := theme.Padding()
	bh := l.bar.heightFor(bar.(*fyne.Container).Objects, size.Width)
	bar.Move(fyne.NewPos(0, 0))
	bar.Resize(fyne.NewSize(size.Width, bh))
	// at the full width first, so that its figures and verdict wrap to
	// that width before its height is asked
	stats.Resize(fyne.NewSize(size.Width, stats.Size().Height))
	sh := stats.MinSize().Height
	stats.Move(fyne.NewPos(0, size.Height-sh))
	stats.Resize(fyne.NewSize(size.Width, sh))
	area.Move(fyne.NewPos(0, bh+pad))
	area.Resize(fyne.NewSize(size.Width, max(size.Height-bh-sh-2*pad, 0)))
}
