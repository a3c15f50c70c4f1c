package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

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
		sw, _, look := item(timeline.KindColor(k), k.String())
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
	t.details.setProxy(on)
	t.left.Refresh() // the legend's width changed
}

// legendText returns the legend's words, in order.
func (t *TimelineView) legendText() []string {
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
