package app

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

// setCompare shows snap under the current recording, on the same time
// scale, each labelled by its title or target; nil removes it.
func (t *TimelineView) setCompare(snap *recorder.Snapshot) {
	t.cmpSnap = snap
	if snap == nil {
		t.setStats(func() { t.stats.setCompare(nil) })
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
		// the overview over both panes, whose time axis it shows: each
		// pane's Gantt then has the same height
		t.area.Objects = []fyne.CanvasObject{container.NewBorder(container.NewVBox(t.overview), nil, nil, nil, split)}
	}
	cmpSum := recorder.Summarize(snap)
	t.setStats(func() { t.stats.setCompare(&cmpSum) })
	t.cmpShown, t.cmpShift = nil, 0
	t.alignCompare()
	t.setTitles()
	t.area.Refresh()
	t.fit()
}

// SetName labels the recording shown when comparing, with its file's
// name say; "" labels it with its run and target. A live recording (see
// [TimelineView.setRecording]) has no name.
func (t *TimelineView) SetName(name string) {
	t.names[0] = name
	t.setTitles()
}

// setCompareName labels the compared recording, with its file's name
// say; "" labels it with its title or target.
func (t *TimelineView) setCompareName(name string) {
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
