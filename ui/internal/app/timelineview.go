package app

import (
	"image/color"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

// TimelineView is the whole right-hand side of the main window: the
// [Gantt], the [ConcurrencyChart] under it sharing its time axis, the
// [statsBar], and the [details] pane for the selected span, with a toolbar
// for zoom, follow-live and the colour legend.
//
// Show a live recording with [TimelineView.setRecording] or a finished one
// with [TimelineView.SetSnapshot]; [TimelineView.setCompare] adds a second
// recording under the first on the same time scale. Call its methods on
// Fyne's main goroutine.
type TimelineView struct {
	widget.BaseWidget

	gantt   *timeline.Gantt
	chart   *timeline.ConcurrencyChart
	stats   *statsBar
	details *details

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
	settingRun bool // runPick is being set by the view, not the person
	follow     *widget.Check
	compact    *widget.Check
	fold       *widget.Check
	title      *widget.Label
	cmpTtl     *widget.Label
	area       *fyne.Container // the Gantt and chart, or both recordings
	overTime   *timeline.OverTimeChart
	// overview is the strip of the whole recording over the Gantt, with
	// the range shown marked on it
	overview *timeline.Overview
	left     *fyne.Container // toolbar, area and stats bar
	content  fyne.CanvasObject

	// bar lays the toolbar out on one line; more offers what it folded.
	bar  *lineLayout
	more *widget.Button
	// legend is the legend's line, legendAll the whole legend that
	// Legend ▾ shows when the line folded some of it.
	legend, legendAll *legendSet
	legendBar         *lineLayout
	legendMore        *widget.Button
	// chartFold folds the concurrency chart to a line when it is flat,
	// overFold the chart second by second when the window is short.
	chartFold, overFold *chartFold
	// ganttWants is the height the Gantt is given before its charts
	// (paneLayout), 0 until settleGanttHeight decides it
	ganttWants float32
	proxy      bool // the recording shown is a proxy's

	// runOnMain hands work from the live feed to the main goroutine (see
	// setGate); tests replace it.
	runOnMain func(func())
	live      *liveFeed
	handoff   *beforePaint // how live hands its work to the main goroutine (beforepaint.go)
	// followEvery is how often a followed journal is read (see
	// [TimelineView.followJournal]); tests shorten it.
	followEvery time.Duration
	followSeen  []int // span counts of a followed journal's frames, as it grew
}

// NewTimelineView returns a timeline with nothing to show.
func NewTimelineView() *TimelineView {
	t := &TimelineView{
		gantt:       timeline.NewGantt(),
		chart:       timeline.NewConcurrencyChart(),
		stats:       newStatsBar(),
		details:     newDetails(),
		runOnMain:   fyne.Do,
		followEvery: followInterval,
		title:       widget.NewLabel(""),
		cmpTtl:      widget.NewLabel(""),
	}
	t.title.TextStyle.Bold = true
	t.cmpTtl.TextStyle.Bold = true
	t.chart.ShareAxis(t.gantt)
	t.overTime = timeline.NewOverTimeChart(t.gantt)
	t.overview, _ = timeline.NewOverview(t.gantt) // lives as long as the Gantt
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
		widget.NewButtonWithIcon("", theme.ZoomOutIcon(), t.zoomOut),
		widget.NewButtonWithIcon("", theme.ZoomInIcon(), t.zoomIn),
		widget.NewButtonWithIcon("Fit", theme.ZoomFitIcon(), t.fit),
	)
	hint := widget.NewLabel(toolbarHint)
	hint.Importance = widget.LowImportance
	hint.Truncation = fyne.TextTruncateEllipsis
	// The toolbar and the legend are one line each at any width, so that
	// the rows never move when the details pane takes width from the
	// view: what does not fit folds into the ⋯ menu, and the legend's
	// meanings into Legend ▾.
	filter := timeline.NewFilterEntry(t.gantt)
	if box, ok := filter.(*fyne.Container); ok && len(box.Objects) == 1 {
		filter = box.Objects[0] // the entry itself, to give it the width there is
	}
	t.more = widget.NewButtonWithIcon("", theme.MoreHorizontalIcon(), t.showMore)
	t.more.Importance = widget.LowImportance
	t.bar = &lineLayout{stretch: filter, stretchMin: 160, stretchMax: 300, rest: hint, restMin: 240,
		fold: []fyne.CanvasObject{t.compact, t.fold}, more: t.more}
	toolbar := container.New(t.bar, zoom, t.follow, t.compact, t.fold, filter, hint, t.more)
	legend := t.newLegendLine()
	t.area = container.NewStack(t.pane(t.gantt, t.chart, nil))
	t.runPick = widget.NewSelect(nil, t.pickRun)
	t.runPickW = canvas.NewRectangle(color.Transparent)
	t.runPickBox = container.NewStack(t.runPickW, t.runPick)
	t.runPickBox.Hide() // until the recording has runs
	statsRow := container.NewBorder(nil, nil, container.NewVBox(t.runPickBox), nil, t.stats)
	t.left = container.New(columnLayout{stats: statsRow}, toolbar, legend, t.area, container.NewVScroll(statsRow))
	split := container.NewHSplit(t.left, t.details)
	split.SetOffset(0.74)
	t.content = split
	t.ExtendBaseWidget(t)
	t.SetSnapshot(nil)
	return t
}

// relayout lays the Gantt and its charts out again.
func (t *TimelineView) relayout() {
	if t.area != nil {
		t.area.Refresh()
	}
}

// pane stacks a Gantt over its chart, with a title when comparing.
func (t *TimelineView) pane(g *timeline.Gantt, c *timeline.ConcurrencyChart, title *widget.Label) fyne.CanvasObject {
	if c == t.chart {
		// the overview strip of the whole recording over the Gantt
		// (over both panes when comparing: see compareview.go); the
		// over-time chart, on the same time axis, under its concurrency
		// chart. The Gantt keeps its height first: the charts shrink, and
		// a flat concurrency chart folds to a line
		head := container.NewVBox(t.overview)
		if title != nil {
			head = container.NewVBox(title)
		}
		if t.chartFold == nil {
			t.chartFold = newChartFold(c, "concurrency chart", t.relayout)
			t.overFold = newChartFold(t.overTime, "calls per second and latency", t.relayout)
			t.overFold.setShown(false) // until a load test: see showOverTime
		}
		l := &paneLayout{head: head, gantt: g, below: []fyne.CanvasObject{t.chartFold, c, t.overFold, t.overTime},
			wants: func() float32 { return t.ganttWants }}
		if title == nil { // two recordings share the height: their charts stay
			l.cramp = []*chartFold{t.overFold, t.chartFold}
		} else {
			t.overFold.setCramped(false)
			t.chartFold.setCramped(false)
		}
		return container.New(l, head, g, t.chartFold, c, t.overFold, t.overTime)
	}
	// the compared recording's pane is laid out as the first's, so that
	// the two Gantts are alike
	head := container.NewVBox(title)
	l := &paneLayout{head: head, gantt: g, below: []fyne.CanvasObject{c}, wants: func() float32 { return t.ganttWants }}
	return container.New(l, head, g, c)
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (t *TimelineView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(t.content)
}

// Gantt returns the timeline's Gantt.
func (t *TimelineView) Gantt() *timeline.Gantt { return t.gantt }

// Overview returns the strip of the whole recording over the Gantt.
func (t *TimelineView) Overview() *timeline.Overview { return t.overview }

// Chart returns the timeline's concurrency chart.
func (t *TimelineView) Chart() *timeline.ConcurrencyChart { return t.chart }

// Details returns the timeline's details pane.
func (t *TimelineView) Details() *details { return t.details }

// setRecording follows a live recording: one ticker (about 30 a second)
// takes a snapshot when the recording changed, or while requests are in
// flight, and hands it to the main goroutine. Following the live end is
// switched on. A nil rec stops following.
func (t *TimelineView) setRecording(rec *recorder.Recording) {
	t.Stop()
	if rec == nil {
		return
	}
	t.gantt.SetFollow(true)
	t.pick.Store(pickLatest) // a new recording: its latest run
	t.names[0] = ""
	t.live = startLiveFeed(rec, t.handOff(), t.pick.Load, func(f liveFrame) { t.apply(f) })
}

// handOff returns how a feed starting now hands its work to the main
// goroutine: before the window's next paint at the latest
// (beforepaint.go), until Stop.
func (t *TimelineView) handOff() func(func()) {
	t.handoff = newBeforePaint(t.runOnMain)
	return t.handoff.do
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
	t.fit()
	t.settleGanttHeight()
}

// settleGanttHeight decides, from the rows shown, how tall the Gantt is
// before its charts (see paneLayout): as tall as its rows, up to
// ganttMinHeight, so that a few rows leave the charts open. It is decided
// when a recording is shown and when a run followed live ends, not frame
// by frame, so that rows coming in do not move the charts as they are
// watched; until then the Gantt keeps what was last decided. An empty
// recording decides nothing.
func (t *TimelineView) settleGanttHeight() {
	if t.snap == nil || len(t.snap.Spans) == 0 {
		return
	}
	if want := ganttWantsFor(t.gantt); want != t.ganttWants {
		t.ganttWants = want
		t.relayout()
	}
}

// snapshot returns the recording shown now, as it was recorded (for a
// proxy recording, without the estimate the timeline draws).
func (t *TimelineView) snapshot() *recorder.Snapshot {
	if t.raw != nil {
		return t.raw
	}
	return t.snap
}

// Summary returns the statistics shown now.
func (t *TimelineView) Summary() recorder.Summary { return t.stats.Summary() }

// Rows returns the Gantt's rows in display order.
func (t *TimelineView) Rows() []timeline.GanttRow { return t.gantt.Rows() }

// statsText returns the stats bar's text as shown.
func (t *TimelineView) statsText() string { return t.stats.Text() }

// framesDrawn returns how many frames the Gantt has drawn; sample it twice
// during a live run to measure frames per second.
func (t *TimelineView) framesDrawn() int64 { return t.gantt.FramesDrawn() }

// zoomIn shows half as much time.
func (t *TimelineView) zoomIn() { t.gantt.ZoomIn() }

// zoomOut shows twice as much time.
func (t *TimelineView) zoomOut() { t.gantt.ZoomOut() }

// fit shows the run the stats describe (the latest, unless the run
// picker says otherwise), or the whole recording, and the compared one:
// all of its time, and its rows from its first when they do not all fit.
func (t *TimelineView) fit() {
	start, end := scopeTimes(t.snap, t.scope)
	t.gantt.ShowRowsIn(start, end)
	if t.cmpShown != nil {
		from, to := scopeTimes(t.cmpShown, scopeOf(t.cmpShown, pickLatest))
		t.cmpGantt.ShowRowsIn(from, to)
		end = max(end, timeline.Extent(t.cmpShown))
	}
	if end <= start {
		end = start + time.Second
	}
	margin := (end - start) / 40
	t.gantt.SetVisibleRange(max(start-margin, 0), end+margin)
}

// scopeTimes is when the part of snap that scope picks begins and ends:
// a run's start and end (its latest instant while it goes on), or the
// whole recording's.
func scopeTimes(snap *recorder.Snapshot, scope runScope) (start, end time.Duration) {
	end = timeline.Extent(snap)
	if !scope.whole {
		start = scope.run.Start
		if !scope.run.Open() {
			end = scope.run.End
		}
	}
	return start, end
}

// setGate makes the timeline hand its live frames, redraws and
// background results to the main goroutine through gate, which drops
// them once the window closed it.
func (t *TimelineView) setGate(gate *mainloop.Gate) {
	t.runOnMain = gate.Do
	t.gantt.SetGate(gate)
}

// Stop stops following a live recording (call it when the window closes).
func (t *TimelineView) Stop() {
	if t.live != nil {
		t.live.stop()
		t.live = nil
	}
	if t.handoff != nil {
		t.handoff.stop()
		t.handoff = nil
	}
}

// setStats changes the stats bar through f and lays the view out again
// when the bar's height changed (a verdict that wraps, a compare line).
// setIdle sets what the stats line says while nothing is recorded
// (idleRun, idleFollow, idleProxy).
func (t *TimelineView) setIdle(text string) { t.setStats(func() { t.stats.setIdle(text) }) }

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
func (t *TimelineView) showOverTime(snap *recorder.Snapshot, sum recorder.Summary, scope runScope) {
	if sum.ToolCalls.Total < 10 || !lastsTwoSeconds(snap, scope) {
		t.overFold.setShown(false)
		return
	}
	t.overTime.SetSnapshot(snap)
	t.overFold.setShown(true)
}

// lastsTwoSeconds says whether the part of snap that scope picks lasts
// two seconds or more: a run from its own start to its end (to Now while
// it goes on), the whole session from its start.
func lastsTwoSeconds(snap *recorder.Snapshot, scope runScope) bool {
	const least = 2 * time.Second
	if !scope.whole {
		end := scope.run.End
		if scope.run.Open() {
			end = snap.Now
		}
		return end-scope.run.Start >= least
	}
	// Extent is never before Now: a session past 2 s is not walked
	return snap.Now >= least || timeline.Extent(snap) >= least
}

// OverTime returns the chart of the run second by second.
func (t *TimelineView) OverTime() *timeline.OverTimeChart { return t.overTime }

// showDetails shows the clicked span of snap in the details pane.
func (t *TimelineView) showDetails(s *recorder.Span, snap *recorder.Snapshot) {
	if s == nil {
		t.details.setSpan(nil, nil)
		return
	}
	r := timeline.RelatedTo(snap, s)
	t.details.setSpanIn(s, r.Parent, runOf(snap, s))
	t.details.setRoundFacts(r.RoundFacts)
	t.details.setNotifications(r.Events)
	t.details.setChildren(r.Children, r.Failed)
}

// runOf returns the run of snap that s was sent or received in, or nil.
func runOf(snap *recorder.Snapshot, s *recorder.Span) *recorder.Run {
	if snap == nil {
		return nil
	}
	for i := len(snap.Runs) - 1; i >= 0; i-- {
		if snap.Runs[i].Contains(s.Received) {
			return &snap.Runs[i]
		}
	}
	return nil
}

// apply shows a frame: on the main goroutine.
func (t *TimelineView) apply(f liveFrame) {
	// A run followed live that has just ended is fitted, as a person
	// would press Fit to see it whole; one navigated by hand (Follow live
	// off) is left where the person put it.
	ended := !t.scope.whole && t.scope.run.Open() && !f.scope.whole && !f.scope.run.Open() &&
		t.scope.run.Start == f.scope.run.Start && t.gantt.Following()
	t.snap, t.raw, t.steps, t.scope = f.snap, f.raw, f.steps, f.scope
	t.setProxy(f.snap != nil && f.snap.Meta.Mode == recorder.ModeProxy)
	t.gantt.SetSnapshot(f.snap)
	// the whole session folds the idle time between its runs (not when
	// comparing: the other recording's runs fall elsewhere)
	t.gantt.SetFoldIdle(f.scope.whole && t.cmpSnap == nil)
	// the charts draw the run picked: their mode and axes follow it
	t.chart.SetSteps(f.chart, f.chartSteps)
	t.overview.Refresh()
	t.showOverTime(f.chart, f.summary, f.scope)
	t.showRuns(f.snap)
	// While requests are in flight the feeds summarize a frame at most
	// every statsEvery (statsPace); the frame after the last change shows
	// the final figures.
	if !f.stale {
		t.setStats(func() { t.stats.setRunSummary(f.summary, f.scope.provisional) })
		t.chartFold.setSteps(f.charted)
	}
	t.alignCompare()
	if sel := t.gantt.Selected(); sel != nil && sel != t.details.Span() {
		// the selected request changed (it was answered, say)
		t.showDetails(sel, f.snap)
	} else if sel == nil && t.details.Span() != nil && t.cmpGantt == nil {
		t.details.setSpan(nil, nil)
	}
	t.setTitles()
	if ended {
		t.fit()
		t.settleGanttHeight()
	}
	// The Gantt and the chart share a time axis, and so a frame: the
	// frame after this event draws both, from this one snapshot.
}

// Refresh redraws the timeline, with the colours of the current theme.
func (t *TimelineView) Refresh() {
	t.paintLegend()
	t.BaseWidget.Refresh()
}

// toolbarHint says what the mouse and keys do; the ⋯ menu says it a line
// each when the toolbar has no room for it.
const toolbarHint = "wheel: rows · Ctrl+wheel or drag on the ruler: zoom · Shift+wheel or drag: pan · click: details · keys: ↑ ↓ ← → + − 0 Esc"

// moreMenu is the ⋯ menu: the toolbar's switches that folded, and the
// mouse and keys when the hint folded.
func (t *TimelineView) moreMenu() *fyne.Menu {
	var items []*fyne.MenuItem
	for _, o := range t.bar.folded {
		if c, ok := o.(*widget.Check); ok {
			item := fyne.NewMenuItem(c.Text, func() { c.SetChecked(!c.Checked) })
			item.Checked = c.Checked
			items = append(items, item)
		}
	}
	if slices.Contains(t.bar.folded, t.bar.rest) {
		if len(items) > 0 {
			items = append(items, fyne.NewMenuItemSeparator())
		}
		for _, part := range strings.Split(toolbarHint, " · ") {
			item := fyne.NewMenuItem(part, nil)
			item.Disabled = true
			items = append(items, item)
		}
	}
	return fyne.NewMenu("", items...)
}

// showMore opens the ⋯ menu under its button.
func (t *TimelineView) showMore() {
	c := fyne.CurrentApp().Driver().CanvasForObject(t.more)
	if c == nil {
		return
	}
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(t.more)
	widget.ShowPopUpMenuAtPosition(t.moreMenu(), c, at.AddXY(0, t.more.Size().Height))
}

// chartedSteps returns what the concurrency chart draws of snap: the
// server's requests (steps), or for a load test, where the server sent
// none, the tool calls in flight.
func chartedSteps(snap *recorder.Snapshot, steps []recorder.Step) []recorder.Step {
	if len(steps) > 0 || snap == nil || !timeline.IsLoad(snap) {
		return steps
	}
	return recorder.CallSteps(snap)
}
