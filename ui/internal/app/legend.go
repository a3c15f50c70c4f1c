package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

// legendSet is one drawing of the legend: what the colours and marks of
// the Gantt and chart mean. Clicking a kind hides its rows, or shows them
// again. The view has two: its line, and the whole legend in the popup of
// Legend ▾ for what the line had no room for.
type legendSet struct {
	items    []fyne.CanvasObject
	texts    []*canvas.Text // the kinds' names first, in LegendKinds order
	toggles  map[recorder.Kind]*widget.Button
	swatches map[recorder.Kind]*canvas.Rectangle
	// queuedSwatch's colour depends on the theme's background; queuedText
	// and servingText name the two phases of a server request, which a
	// proxy recording names for what a proxy can know
	queuedSwatch            *canvas.Rectangle
	queuedText, servingText *canvas.Text
}

// newLegendSet draws the legend once.
func (t *TimelineView) newLegendSet() *legendSet {
	l := &legendSet{toggles: map[recorder.Kind]*widget.Button{}, swatches: map[recorder.Kind]*canvas.Rectangle{}}
	small := theme.Size(theme.SizeNameCaptionText)
	item := func(c color.Color, label string) (*canvas.Rectangle, *canvas.Text, fyne.CanvasObject) {
		sw := canvas.NewRectangle(c)
		sw.SetMinSize(fyne.NewSize(10, 10))
		txt := canvas.NewText(label, theme.Color(theme.ColorNameForeground))
		txt.TextSize = small
		l.texts = append(l.texts, txt)
		return sw, txt, container.NewHBox(container.NewCenter(sw), txt)
	}
	for _, k := range timeline.LegendKinds {
		sw, _, look := item(timeline.KindColor(k), k.String())
		l.swatches[k] = sw
		b := widget.NewButton("", func() { t.toggleKind(k) })
		b.Importance = widget.LowImportance
		l.toggles[k] = b
		// the button takes the clicks; the swatch and name show through it
		l.items = append(l.items, container.New(tightLayout{}, b, look))
	}
	l.items = append(l.items, widget.NewSeparator())
	for _, o := range []struct {
		c     color.Color
		label string
	}{
		{nil, legendQueued}, {timeline.KindColor(recorder.KindSampling), legendServing},
		{timeline.FulfilColor, "client fulfilling input (between rounds)"},
		{timeline.StalledColor, "stalled (read, not yet seen by the client)"},
		{timeline.FailColor, "failed (hatched: cancelled, timeout, aborted)"},
		{timeline.EventColor(recorder.EventProgress), "notification"},
	} {
		sw, txt, look := item(o.c, o.label)
		switch o.label {
		case legendQueued:
			l.queuedSwatch, l.queuedText = sw, txt
		case legendServing:
			l.servingText = txt
		}
		l.items = append(l.items, look)
	}
	return l
}

// newLegendLine returns the legend's line: as much of the legend as fits
// in one line, the rest folded behind Legend ▾, which shows the whole
// legend in a popup.
func (t *TimelineView) newLegendLine() *fyne.Container {
	t.legend, t.legendAll = t.newLegendSet(), t.newLegendSet()
	t.legendMore = widget.NewButton("", t.showLegend)
	t.legendMore.Importance = widget.LowImportance
	word := canvas.NewText("Legend ▾", theme.Color(theme.ColorNameForeground))
	word.TextSize = theme.Size(theme.SizeNameCaptionText)
	word.TextStyle.Bold = true
	more := container.New(tightLayout{}, t.legendMore, word)
	// the meanings fold first, from the last, then the kinds
	var fold []fyne.CanvasObject
	for i := len(t.legend.items) - 1; i >= 0; i-- {
		fold = append(fold, t.legend.items[i])
	}
	t.legendBar = &lineLayout{fold: fold, more: more}
	t.paintLegend()
	return container.New(t.legendBar, append(append([]fyne.CanvasObject{}, t.legend.items...), more)...)
}

// showLegend shows the whole legend under Legend ▾, a meaning a line.
func (t *TimelineView) showLegend() {
	c := fyne.CurrentApp().Driver().CanvasForObject(t.legendMore)
	if c == nil {
		return
	}
	box := container.New(layout.NewVBoxLayout(), t.legendAll.items...)
	pop := widget.NewPopUp(box, c)
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(t.legendMore)
	pop.ShowAtPosition(legendPopupAt(at, t.legendMore.Size(), box.MinSize(), c.Size()))
}

// legendPopupAt places a popup of size pop under a button at `at` of
// size button, kept inside the window.
func legendPopupAt(at fyne.Position, button, pop, window fyne.Size) fyne.Position {
	x := min(at.X, window.Width-pop.Width-2*theme.Padding())
	return fyne.NewPos(max(x, 0), at.Y+button.Height)
}

// toggleKind hides the rows of kind k, or shows them again, in both
// recordings.
func (t *TimelineView) toggleKind(k recorder.Kind) {
	hide := !t.gantt.KindHidden(k)
	t.gantt.SetKindHidden(k, hide)
	if t.cmpGantt != nil {
		t.cmpGantt.SetKindHidden(k, hide)
	}
	t.paintLegend()
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
	for _, l := range []*legendSet{t.legend, t.legendAll} {
		l.queuedText.Text, l.servingText.Text = q, s
		l.queuedText.Refresh()
		l.servingText.Refresh()
	}
	t.details.setProxy(on)
	t.left.Refresh() // the legend's width changed: what fits its line too
}

// legendText returns the legend's words, in order.
func (t *TimelineView) legendText() []string {
	var out []string
	for _, txt := range t.legend.texts {
		out = append(out, txt.Text)
	}
	return out
}

// paintLegend colours the legend for the current theme: a hidden kind's
// swatch is hollow and its name faint.
func (t *TimelineView) paintLegend() {
	fg, faint := theme.Color(theme.ColorNameForeground), theme.Color(theme.ColorNameDisabled)
	for _, l := range []*legendSet{t.legend, t.legendAll} {
		for i, txt := range l.texts {
			txt.Color = fg
			if i < len(timeline.LegendKinds) && t.gantt.KindHidden(timeline.LegendKinds[i]) {
				txt.Color = faint
			}
			txt.Refresh()
		}
		for k, sw := range l.swatches {
			sw.FillColor, sw.StrokeColor, sw.StrokeWidth = timeline.KindColor(k), timeline.KindColor(k), 0
			if t.gantt.KindHidden(k) {
				sw.FillColor, sw.StrokeWidth = color.Transparent, 1
			}
			sw.Refresh()
		}
		l.queuedSwatch.FillColor = timeline.QueuedColor(recorder.KindSampling)
		l.queuedSwatch.Refresh()
	}
}

// tightLayout stacks a button under what it shows, as small as what it
// shows (a button asks for a line of normal text and its padding): the
// legend's line is a line of small text.
type tightLayout struct{}

func (tightLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	m := objects[len(objects)-1].MinSize()
	return fyne.NewSize(m.Width+theme.Padding(), m.Height+theme.Padding())
}

func (tightLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		m := o.MinSize()
		if o == objects[0] { // the button: the whole of it
			m = size
		}
		o.Move(fyne.NewPos((size.Width-m.Width)/2, (size.Height-m.Height)/2))
		o.Resize(m)
	}
}
