package timeline

import (
	"image"
	"image/color"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/palette"
)

// The marks of the two protocol eras that are neither queued nor served:
// the client fulfilling a round's input requests between two rounds of a
// multi-round-trip call, and a message read off the wire but withheld
// from the client (dispatch "inline").
var (
	FulfilColor  = palette.Fulfil  // gold, drawn as a dotted pale bar
	StalledColor = palette.Stalled // pink, drawn with pale stripes
)

// drawFulfilment paints, on a multi-round-trip call's row, the client's
// fulfilment time between its rounds as a pale gold bar dotted with gold,
// over the call's bar: a stretch a round, each set in from the round
// boundaries by a line of the call's own colour so that rounds answered
// at once still part the band. A stretch wide enough for its duration
// (written on it by placeRoundDurations) is dotted only along its edges
// and framed in gold at its ends.
func (g *Gantt) drawFulfilment(img *image.RGBA, call int32, y0, y1 int, xOf func(time.Duration) int, plotX0, w, line int, pal ganttPalette) {
	s := g.snap.Spans[call]
	if s.Kind != recorder.KindTool || !g.layout.hasKids(call) {
		return
	}
	for _, f := range fulfilments(g.layout.roundsUnder(g.snap, call), g.snap.Now, s.Open()) {
		x0, x1 := xOf(f.from), max(xOf(f.to), xOf(f.from)+1)
		if x1-x0 > 6*line {
			x0, x1 = x0+line, x1-line
		}
		x0, x1 = max(x0, plotX0), min(x1, w)
		if x1 <= x0 {
			continue
		}
		fillRect(img, x0, y0, x1, y1, mix(pal.bg, FulfilColor, 0.3))
		if x1-x0 < 60*line || y1-y0 < 8*line {
			dots(img, x0, y0, x1, y1, FulfilColor)
			continue
		}
		// wide enough for its duration: dotted along its edges, plain
		// where the text goes, and parted from the next round's by a
		// line of gold
		dots(img, x0, y0, x1, y0+2*line, FulfilColor)
		dots(img, x0, y1-2*line, x1, y1, FulfilColor)
		fillRect(img, x0, y0, x0+line, y1, FulfilColor)
		fillRect(img, x1-line, y0, x1, y1, FulfilColor)
	}
}

// drawStalled paints the time a span was withheld from the client: for an
// incoming request from Received on (before its hand-off and queue), for
// an outgoing one from Answered on (its response read, not yet seen).
func drawStalled(img *image.RGBA, s *recorder.Span, y0, y1 int, xOf func(time.Duration) int, plotX0, w int, pal ganttPalette) {
	if s.Stalled <= 0 {
		return
	}
	from := s.Received
	if s.Direction != recorder.Incoming {
		from = s.Answered
	}
	if from == recorder.Unset {
		return
	}
	stalledBar(img, xOf(from), y0, xOf(from+s.Stalled), y1, plotX0, w, pal)
}

// stalledBar paints [x0,x1)×[y0,y1), clipped to the plot's columns, as a
// stalled phase: pink with pale stripes, at least a pixel wide.
func stalledBar(img *image.RGBA, x0, y0, x1, y1, plotX0, w int, pal ganttPalette) {
	x1 = max(x1, x0+1)
	x0, x1 = max(x0, plotX0), min(x1, w)
	if x1 <= x0 {
		return
	}
	fillRect(img, x0, y0, x1, y1, StalledColor)
	pale := mix(pal.bg, StalledColor, 0.45)
	for y := y0 + 1; y < y1; y += 3 {
		fillRect(img, x0, y, x1, y+1, pale)
	}
}

// drawRowEvent marks a notification on the row of the request it names:
// a tick at its arrival, and its stalled time after it.
func (g *Gantt) drawRowEvent(img *image.RGBA, e recorder.Event, y0, y1 int, xOf func(time.Duration) int, plotX0, w, line int, pal ganttPalette) {
	x := xOf(e.At)
	if e.Stalled > 0 {
		mid := (y0 + y1) / 2
		stalledBar(img, x, mid-line, xOf(e.At+e.Stalled), mid+line, plotX0, w, pal)
	}
	if e.Kind == recorder.EventLog {
		drawLogMark(img, e, x, y0, y1, plotX0, w, line) // logmarks.go
		return
	}
	if x >= plotX0 && x < w {
		fillRect(img, x, y0, x+line, y1, pal.fg)
	}
}

// drawLaneStall marks a notification's stalled time in the lane under the
// ruler: a thin pink line from its arrival on.
func drawLaneStall(img *image.RGBA, e recorder.Event, y0, y1 int, xOf func(time.Duration) int, plotX0, w int, pal ganttPalette) {
	if e.Stalled > 0 {
		stalledBar(img, xOf(e.At), y0, xOf(e.At+e.Stalled), y1, plotX0, w, pal)
	}
}

// dots draws a checker of 2×2 cells over [x0,x1)×[y0,y1).
func dots(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	b := img.Rect
	x0, y0 = max(x0, b.Min.X), max(y0, b.Min.Y)
	x1, y1 = min(x1, b.Max.X), min(y1, b.Max.Y)
	for y := y0; y < y1; y++ {
		row := img.Pix[y*img.Stride:]
		for x := x0; x < x1; x++ {
			if (x/2+y/2)%2 == 0 {
				i := x * 4
				row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, c.A
			}
		}
	}
}
