package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// chartFold folds a chart to a one-line header, so that the Gantt keeps
// its room: the concurrency chart when it says nothing (its series never
// leaves 0, or one value), the chart second by second when the window
// is too short for it and a Gantt of [ganttMinHeight]. A tap on the
// header unfolds the chart (and folds it again). A chart that has room
// and something to say shows as it is, without the header.
type chartFold struct {
	widget.BaseWidget

	chart fyne.CanvasObject
	name  string // what the chart shows, for the header
	text  *canvas.Text
	shown bool // the chart applies to the recording at all
	flat  bool
	level int // the one value of a flat chart
	// cramped is set by the layout when the window has no room for the
	// chart beside a Gantt of ganttMinHeight
	cramped bool
	open    bool // the person unfolded the chart
	// changed asks the view to lay out again
	changed func()
}

// newChartFold folds chart, named name in its header, when it is flat or
// cramped; changed is called when a tap or new data shows or hides it.
func newChartFold(chart fyne.CanvasObject, name string, changed func()) *chartFold {
	f := &chartFold{chart: chart, name: name, shown: true, changed: changed}
	f.text = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	f.text.TextSize = theme.Size(theme.SizeNameCaptionText)
	f.ExtendBaseWidget(f)
	f.sync()
	return f
}

// setShown shows the chart (folded or not), or hides it with its header
// when it does not apply to the recording.
func (f *chartFold) setShown(on bool) {
	if f.shown != on {
		f.shown = on
		f.sync()
		f.changed()
	}
}

// setCramped folds the chart (unless the person unfolded it) for want of
// room; the layout calls it, and lays out what it changed itself.
func (f *chartFold) setCramped(on bool) {
	if f.cramped != on {
		f.cramped = on
		f.sync()
	}
}

// setSteps tells the fold what the chart draws.
func (f *chartFold) setSteps(steps []recorder.Step) {
	flat, level := flatSteps(steps)
	if flat == f.flat && level == f.level {
		return
	}
	f.flat, f.level = flat, level
	f.sync()
	f.changed()
}

// flatSteps reports whether steps never leave 0 or one value, and that
// value.
func flatSteps(steps []recorder.Step) (flat bool, level int) {
	var seen *recorder.Step
	for i, s := range steps {
		if s.InFlight == 0 && s.Pending == 0 {
			continue
		}
		if seen != nil && (s.InFlight != seen.InFlight || s.Pending != seen.Pending) {
			return false, 0
		}
		seen = &steps[i]
	}
	if seen != nil {
		level = seen.Pending
	}
	return true, level
}

// folded reports whether the chart is folded to its header.
func (f *chartFold) folded() bool { return (f.flat || f.cramped) && !f.open }

// sync shows the header and the chart as the state says.
func (f *chartFold) sync() {
	arrow, verb := "▾", "fold it"
	if f.folded() {
		arrow, verb = "▸", "show it"
	}
	why := "folded to leave the Gantt its room"
	if f.flat {
		why = fmt.Sprintf("flat at %d throughout", f.level)
	}
	f.text.Text = fmt.Sprintf("%s %s: %s — click to %s", arrow, f.name, why, verb)
	f.text.Refresh()
	setVisible(f, f.shown && (f.flat || f.cramped))
	setVisible(f.chart, f.shown && !f.folded())
}

// setVisible shows or hides o.
func setVisible(o fyne.CanvasObject, on bool) {
	if on {
		o.Show()
	} else {
		o.Hide()
	}
}

// Tapped unfolds the flat chart, or folds it again.
func (f *chartFold) Tapped(*fyne.PointEvent) {
	f.open = !f.open
	f.sync()
	f.changed()
}

// Cursor shows that the header can be clicked.
func (f *chartFold) Cursor() desktop.Cursor { return desktop.PointerCursor }

// MinSize is one line of small text.
func (f *chartFold) MinSize() fyne.Size {
	m := f.text.MinSize()
	return fyne.NewSize(m.Width+2*theme.Padding(), m.Height+2*theme.Padding())
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (f *chartFold) CreateRenderer() fyne.WidgetRenderer { return &chartFoldRenderer{f: f} }

type chartFoldRenderer struct{ f *chartFold }

func (r *chartFoldRenderer) Layout(size fyne.Size) {
	m := r.f.text.MinSize()
	r.f.text.Move(fyne.NewPos(theme.Padding(), (size.Height-m.Height)/2))
	r.f.text.Resize(m)
}
func (r *chartFoldRenderer) MinSize() fyne.Size { return r.f.MinSize() }
func (r *chartFoldRenderer) Refresh() {
	r.f.text.Color = theme.Color(theme.ColorNameForeground)
	r.f.text.Refresh()
}
func (r *chartFoldRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.f.text} }
func (r *chartFoldRenderer) Destroy()                     {}
