package timeline

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/fanout-inspector/inspector/recorder"
)

// maxRoundTexts bounds the durations written on bands in one frame: the
// rows in view hold at most a few dozen calls, and each text is a
// texture to paint.
const maxRoundTexts = 200

// placeRoundDurations writes, on each multi-round-trip call's row in
// view, how long the client took to fulfil each round's input, centred
// on that stretch of the gold band where it fits, so the rounds read
// without hovering. Aggregated and compact rows have no room for them.
func (r *ganttRenderer) placeRoundDurations() {
	g := r.g
	n := 0
	if g.snap != nil && !g.agg.on && !g.compact && g.axis.end > g.axis.start {
		size := g.Size()
		small := theme.Size(theme.SizeNameCaptionText)
		fg := theme.Color(theme.ColorNameForeground)
		style := fyne.TextStyle{Bold: true}
		xOf := func(t time.Duration) float32 {
			return g.axis.gutter + float32(float64(g.axis.disp(t)-g.axis.start)/float64(g.axis.end-g.axis.start))*g.plotW()
		}
		top := float32(ganttRulerH + ganttLaneH)
		for row := max(int(g.scrollY/ganttRowH), 0); row < len(g.layout.rows) && n < maxRoundTexts; row++ {
			y := top + float32(row)*ganttRowH - g.scrollY
			if y >= size.Height {
				break
			}
			call := g.layout.rows[row].span
			s := g.snap.Spans[call]
			if y < top-2 || s.Kind != recorder.KindTool || !g.layout.hasKids(call) {
				continue
			}
			for _, f := range fulfilments(g.layout.roundsUnder(g.snap, call), g.snap.Now, s.Open()) {
				x0, x1 := max(xOf(f.from), g.axis.gutter), min(xOf(f.to), size.Width)
				text := FormatDuration(f.to - f.from)
				tw := fyne.MeasureText(text, small, style).Width
				if x1-x0 < tw+8 || n >= maxRoundTexts {
					continue
				}
				lbl := r.text(&r.durations, n, small)
				n++
				lbl.TextStyle = style
				setText(lbl, text, fg)
				h := lbl.MinSize().Height
				lbl.Move(fyne.NewPos((x0+x1-tw)/2, y+(ganttRowH-h)/2))
				lbl.Resize(fyne.NewSize(tw, h))
			}
		}
	}
	hideFrom(r.durations, n)
}
