package timeline

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"github.com/fanout-inspector/inspector/recorder"
)

// placeLabels writes the label of each visible row in the gutter,
// indented by its depth.
func (r *ganttRenderer) placeLabels() {
	g := r.g
	size := g.Size()
	fg := theme.Color(theme.ColorNameForeground)
	small := theme.Size(theme.SizeNameCaptionText)
	if !g.agg.on {
		hideFrom(r.counts, 0) // the groups' counts (aggregate.go)
	}
	n := 0
	if g.agg.on {
		n = r.placeGroupLabels()
	} else if g.snap != nil && !g.compact {
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
			var c color.Color = fg
			if s.Status != recorder.StatusOpen && s.Status != recorder.StatusOK {
				c = FailColor
			}
			setText(lbl, Truncate(rowLabel(s), g.labelChars(int(ref.depth))), c)
			x := 12 + float32(ref.depth)*ganttIndent
			lbl.Move(fyne.NewPos(x, y+(ganttRowH-lbl.MinSize().Height)/2))
			lbl.Resize(fyne.NewSize(g.axis.gutter-x-4, lbl.MinSize().Height))
		}
	}
	hideFrom(r.labels, n)
}

// placeCount writes how many requests there are, and how many are
// shown, over the labels.
func (r *ganttRenderer) placeCount() {
	g := r.g
	total := 0
	if g.snap != nil {
		total = len(g.snap.Spans)
	}
	var text string
	switch n := len(g.layout.rows); {
	case n < total:
		text = fmt.Sprintf("%d of %d requests", n, total)
	case n == 1:
		text = "1 request"
	default:
		text = fmt.Sprintf("%d requests", n)
	}
	setPaced(r.count, &r.countPace, nil, text, theme.Color(theme.ColorNameDisabled), g.axis, g.changed)
	r.count.Move(fyne.NewPos(8, 4))
	r.count.Resize(r.count.MinSize())
}

// placeEmpty says so when there is nothing to show.
func (r *ganttRenderer) placeEmpty() {
	g := r.g
	size := g.Size()
	if g.snap == nil || len(g.layout.rows) == 0 {
		r.empty.Show()
		r.empty.Color = theme.Color(theme.ColorNameDisabled)
		r.empty.Move(fyne.NewPos(g.axis.gutter, ganttRulerH+ganttLaneH+ganttRowH))
		r.empty.Resize(fyne.NewSize(max(size.Width-g.axis.gutter, 0), r.empty.MinSize().Height))
		r.empty.Refresh()
	} else {
		r.empty.Hide()
	}
}

// setText shows text in colour c on t, refreshing t only when either
// changed: a refresh throws the text's texture away, and drawing it again
// was a good part of every live frame.
func setText(t *canvas.Text, text string, c color.Color) {
	if t.Text == text && t.Color == c {
		return
	}
	t.Text, t.Color = text, c
	t.Refresh()
}
