package timeline

import (
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (g *Gantt) CreateRenderer() fyne.WidgetRenderer {
	r := &ganttRenderer{g: g}
	g.placeBelow = r.placeBelowPx
	r.raster = newRaster(g.draw)
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
	g      *Gantt
	raster *canvas.Raster
	// below are the lines under the picture when it ends above the
	// widget's foot (below.go)
	below  []*canvas.Rectangle
	ticks  []rulerTick // the ruler's, as last placed
	ruler  []*canvas.Text
	labels []*canvas.Text
	// durations are the fulfilment times written on multi-round-trip
	// calls' bands (rounddurations.go)
	durations []*canvas.Text
	// counts are the aggregated groups' counts under their labels, each
	// paced by countsPace (paced.go)
	counts     []*canvas.Text
	countsPace []*paced
	empty      *canvas.Text
	count      *canvas.Text // how many requests, in the gutter over the labels
	countPace  paced
	tipBg      *canvas.Rectangle
	tip        []*canvas.Text
	objects    []fyne.CanvasObject
}

func (r *ganttRenderer) Destroy() {}

func (r *ganttRenderer) Layout(size fyne.Size) {
	r.g.clampScroll()
	r.Refresh()
}

func (r *ganttRenderer) MinSize() fyne.Size { return r.g.MinSize() }

func (r *ganttRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *ganttRenderer) refreshObjects() {
	r.objects = r.objects[:0]
	r.objects = append(r.objects, r.raster)
	for _, b := range r.below {
		r.objects = append(r.objects, b)
	}
	for _, t := range r.ruler {
		r.objects = append(r.objects, t)
	}
	for _, t := range r.labels {
		r.objects = append(r.objects, t)
	}
	for _, t := range r.counts {
		r.objects = append(r.objects, t)
	}
	for _, t := range r.durations {
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

// countText returns the i-th text of counts and its pacing.
func (r *ganttRenderer) countText(i int, size float32) (*canvas.Text, *paced) {
	t := r.text(&r.counts, i, size)
	for len(r.countsPace) <= i {
		r.countsPace = append(r.countsPace, &paced{})
	}
	return t, r.countsPace[i]
}

func hideFrom(pool []*canvas.Text, i int) {
	for ; i < len(pool); i++ {
		pool[i].Hide()
	}
}

// Refresh places the texts over the picture and redraws the picture.
func (r *ganttRenderer) Refresh() {
	r.g.updateAggregate()
	r.placeRuler()
	r.placeLabels()
	r.placeRoundDurations()
	r.placeCount()
	r.placeEmpty()
	r.placeTooltip()
	r.raster.Resize(fyne.NewSize(r.g.Size().Width, r.g.pictureH()))
	r.placeBelow()
	r.raster.Refresh()
}

// newRaster returns a raster drawn by gen at the size of the pixels it
// covers, sampled texel for pixel: with nothing to scale, nearest
// sampling gives the same picture as the default smooth one, and costs a
// software renderer one texture fetch a pixel instead of four and a blend.
func newRaster(gen func(w, h int) image.Image) *canvas.Raster {
	r := canvas.NewRaster(gen)
	r.ScaleMode = canvas.ImageScalePixels
	return r
}
