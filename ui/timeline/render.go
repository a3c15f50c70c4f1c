package timeline

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"github.com/fanout-inspector/inspector/recorder"
)

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (g *Gantt) CreateRenderer() fyne.WidgetRenderer {
	r := &ganttRenderer{g: g}
	r.raster = canvas.NewRaster(g.draw)
	r.empty = canvas.NewText("No requests recorded yet", theme.Color(theme.ColorNameDisabled))
	r.empty.Alignment = fyne.TextAlignCenter
	r.count = canvas.NewText("", theme.Color(theme.ColorNameDisabled))
	r.count.TextSize = theme.Size(theme.SizeNameCaptionText)
	r.tipBg = canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	r.tipBg.StrokeColor = theme.Color(theme.ColorNameShadow)
	r.tipBg.StrokeWidth = 1
	r.tipBg.CornerRadius = 3
	r.tipBg.Hide()
	r.refreshObjects()
	return r
}

type ganttRenderer struct {
	g       *Gantt
	raster  *canvas.Raster
	ruler   []*canvas.Text
	labels  []*canvas.Text
	empty   *canvas.Text
	count   *canvas.Text // how many requests, in the gutter over the labels
	tipBg   *canvas.Rectangle
	tip     []*canvas.Text
	objects []fyne.CanvasObject
}

func (r *ganttRenderer) Destroy() {}

func (r *ganttRenderer) Layout(size fyne.Size) {
	r.raster.Resize(size)
	r.g.clampScroll()
	r.Refresh()
}

func (r *ganttRenderer) MinSize() fyne.Size { return r.g.MinSize() }

func (r *ganttRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *ganttRenderer) refreshObjects() {
	r.objects = r.objects[:0]
	r.objects = append(r.objects, r.raster)
	for _, t := range r.ruler {
		r.objects = append(r.objects, t)
	}
	for _, t := range r.labels {
		r.objects = append(r.objects, t)
	}
	r.objects = append(r.objects, r.count, r.empty, r.tipBg)
	for _, t := range r.tip {
		r.objects = append(r.objects, t)
	}
}

// text returns the i-th text of pool, growing it when needed.
func (r *ganttRenderer) text(pool *[]*canvas.Text, i int, size float32) *canvas.Text {
	for len(*pool) <= i {
		t := canvas.NewText("", theme.Color(theme.ColorNameForeground))
		t.TextSize = size
		*pool = append(*pool, t)
		r.refreshObjects()
	}
	t := (*pool)[i]
	t.Show()
	return t
}

func hideFrom(pool []*canvas.Text, i int) {
	for ; i < len(pool); i++ {
		pool[i].Hide()
	}
}

func (r *ganttRenderer) Refresh() {
	g := r.g
	size := g.Size()
	fg := theme.Color(theme.ColorNameForeground)
	small := theme.Size(theme.SizeNameCaptionText)

	// ruler labels
	ticks := rulerTicks(g.axis.start, g.axis.end, g.plotW())
	g.lastTicks = g.lastTicks[:0]
	n := 0
	for _, t := range ticks {
		x := ganttGutter + float32(float64(t.at-g.axis.start)/float64(g.axis.end-g.axis.start))*g.plotW()
		if x+40 > size.Width {
			continue
		}
		lbl := r.text(&r.ruler, n, small)
		n++
		lbl.Text, lbl.Color = t.label, fg
		lbl.Move(fyne.NewPos(x+3, 2))
		lbl.Resize(lbl.MinSize())
		lbl.Refresh()
		g.lastTicks = append(g.lastTicks, t.label)
	}
	hideFrom(r.ruler, n)

	// row labels
	n = 0
	if g.snap != nil && !g.compact {
		top := float32(ganttRulerH + ganttLaneH)
		first := max(int(g.scrollY/ganttRowH), 0)
		for row := first; row < len(g.layout.rows); row++ {
			y := top + float32(row)*ganttRowH - g.scrollY
			if y >= size.Height {
				break
			}
			if y < top-2 {
				continue
			}
			ref := g.layout.rows[row]
			s := g.snap.Spans[ref.span]
			lbl := r.text(&r.labels, n, small)
			n++
			lbl.Text = Truncate(rowLabel(s), 24-2*int(ref.depth))
			lbl.Color = fg
			if s.Status != recorder.StatusOpen && s.Status != recorder.StatusOK {
				lbl.Color = FailColor
			}
			x := 12 + float32(ref.depth)*ganttIndent
			lbl.Move(fyne.NewPos(x, y+(ganttRowH-lbl.MinSize().Height)/2))
			lbl.Resize(fyne.NewSize(ganttGutter-x-4, lbl.MinSize().Height))
			lbl.Refresh()
		}
	}
	hideFrom(r.labels, n)

	// the number of requests, over their labels
	total := 0
	if g.snap != nil {
		total = len(g.snap.Spans)
	}
	switch n := len(g.layout.rows); {
	case n < total:
		r.count.Text = fmt.Sprintf("%d of %d requests", n, total)
	case n == 1:
		r.count.Text = "1 request"
	default:
		r.count.Text = fmt.Sprintf("%d requests", n)
	}
	r.count.Color = theme.Color(theme.ColorNameDisabled)
	r.count.Move(fyne.NewPos(8, 4))
	r.count.Resize(r.count.MinSize())
	r.count.Refresh()

	// empty state
	if g.snap == nil || len(g.layout.rows) == 0 {
		r.empty.Show()
		r.empty.Color = theme.Color(theme.ColorNameDisabled)
		r.empty.Move(fyne.NewPos(ganttGutter, ganttRulerH+ganttLaneH+ganttRowH))
		r.empty.Resize(fyne.NewSize(max(size.Width-ganttGutter, 0), r.empty.MinSize().Height))
		r.empty.Refresh()
	} else {
		r.empty.Hide()
	}

	// tooltip
	lines := g.Tooltip()
	if len(lines) == 0 {
		r.tipBg.Hide()
		hideFrom(r.tip, 0)
	} else {
		var w, h float32
		for i, l := range lines {
			t := r.text(&r.tip, i, small)
			t.Text, t.Color = l, fg
			ms := t.MinSize()
			w = max(w, ms.Width)
			h += ms.Height
		}
		hideFrom(r.tip, len(lines))
		w, h = w+12, h+8
		pos := g.hoverPos.Add(fyne.NewPos(14, 16))
		if pos.X+w > size.Width {
			pos.X = max(g.hoverPos.X-w-8, 0)
		}
		if pos.Y+h > size.Height {
			pos.Y = max(g.hoverPos.Y-h-8, 0)
		}
		r.tipBg.FillColor = theme.Color(theme.ColorNameOverlayBackground)
		r.tipBg.Move(pos)
		r.tipBg.Resize(fyne.NewSize(w, h))
		r.tipBg.Show()
		r.tipBg.Refresh()
		y := pos.Y + 4
		for i := range lines {
			t := r.tip[i]
			t.Move(fyne.NewPos(pos.X+6, y))
			t.Resize(t.MinSize())
			t.Refresh()
			y += t.MinSize().Height
		}
	}
	r.raster.Refresh()
}
