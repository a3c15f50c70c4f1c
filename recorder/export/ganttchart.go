package export

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/palette"
	chart "github.com/wcharczuk/go-chart/v2"
	"github.com/wcharczuk/go-chart/v2/drawing"
)

// ganttRowsMax is the most requests a Gantt chart gives a row each; with
// more, requests share rows.
const ganttRowsMax = 200

// ganttChart draws each request as a box: pale while queued, solid while
// served, coloured by kind.
func ganttChart(snap *recorder.Snapshot, width, height int, sc chartScale) chart.Chart {
	xr := timeRange(snap, sc)
	var spans []*recorder.Span
	for _, s := range snap.Spans {
		if s.Received != recorder.Unset {
			spans = append(spans, s)
		}
	}
	rows := make([]int, len(spans))
	nrows := len(spans)
	if len(spans) > ganttRowsMax || len(spans) > height/3 {
		// First fit: a request goes in the first row free at its arrival.
		order := make([]int, len(spans))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return int(spans[a].Received - spans[b].Received)
		})
		// Rows thinner than 2 pixels are no use: past that many, a request
		// goes in the row that frees first, drawn over its neighbour.
		maxRows := max(1, height/2)
		var free []time.Duration // when each row is next free
		for _, i := range order {
			s := spans[i]
			r := slices.IndexFunc(free, func(t time.Duration) bool { return t <= s.Received })
			switch {
			case r >= 0:
			case len(free) < maxRows:
				r = len(free)
				free = append(free, 0)
			default:
				r = 0
				for k, t := range free {
					if t < free[r] {
						r = k
					}
				}
			}
			free[r] = recorder.SpanEnd(snap, s)
			rows[i] = r
		}
		nrows = len(free)
	} else {
		for i := range rows {
			rows[i] = i
		}
	}
	g := boxSeries{name: "requests", merge: true}
	seen := map[recorder.Kind]bool{}
	failed, stalled := false, false
	for i, s := range spans {
		col := kindColor(s.Kind)
		seen[s.Kind] = true
		y1 := float64(nrows - rows[i])
		y0 := y1 - 0.8
		end := recorder.SpanEnd(snap, s)
		serving := s.Serving
		if s.Direction == recorder.Incoming {
			if serving == recorder.Unset {
				serving = end
			}
			queued := s.Received
			if s.Stalled > 0 {
				queued = min(s.Received+s.Stalled, serving)
				g.boxes = append(g.boxes, box{x0: ms(s.Received), x1: ms(queued), y0: y0, y1: y1, fill: stalledColor})
				stalled = true
			}
			if serving > queued {
				g.boxes = append(g.boxes, box{x0: ms(queued), x1: ms(serving), y0: y0, y1: y1, fill: queuedColor(s.Kind)})
			}
		} else {
			serving = s.Received
		}
		if end > serving || s.Direction == recorder.Outgoing || s.Serving != recorder.Unset {
			b := box{x0: ms(serving), x1: ms(end), y0: y0, y1: y1, fill: col}
			if !s.Open() && s.Status != recorder.StatusOK {
				b.stroke, b.strokeWidth = failedColor, 2.5 // a red outline marks a failed request
				// and red hatching one that was cut short, as in the app
				b.hatch = s.Status == recorder.StatusCancelled || s.Status == recorder.StatusTimeout || s.Status == recorder.StatusAborted
				failed = true
			}
			g.boxes = append(g.boxes, b)
		}
	}
	var keys []legendEntry
	for _, k := range palette.Kinds {
		if seen[k] {
			keys = append(keys, legendEntry{k.String(), kindColor(k)})
		}
	}
	if stalled {
		keys = append(keys, legendEntry{"stalled", stalledColor})
	}
	if failed {
		keys = append(keys, legendEntry{"failed (outline; hatched: cancelled, timeout, aborted)", failedColor})
	}
	title := fmt.Sprintf("Timeline of %d requests (pale: queued, solid: serving)", len(spans))
	if len(spans) == 0 {
		title = "Timeline: no requests recorded"
	}
	return chart.Chart{
		Title:          title,
		XAxis:          timeAxis("time", 0, xr.Max, width),
		YAxis:          chart.YAxis{Style: chart.Style{Hidden: true}, Range: &chart.ContinuousRange{Min: 0, Max: float64(max(nrows, 1)) + 0.2}},
		YAxisSecondary: chart.YAxis{Style: chart.Style{Hidden: true}},
		Series:         []chart.Series{g},
		Elements:       []chart.Renderable{legend(keys)},
	}
}

// box is a rectangle in data units.
type box struct {
	x0, x1, y0, y1 float64
	fill, stroke   drawing.Color
	strokeWidth    float64 // 1 when 0
	hatch          bool    // diagonal lines of the stroke colour across it
}

// boxSeries is a chart series of filled rectangles: the bars of a
// histogram, the requests of a Gantt chart. With merge, boxes of one
// colour that touch on the same pixel row are drawn as one, so that a
// hundred thousand requests draw as a few thousand rectangles.
type boxSeries struct {
	name  string
	boxes []box
	merge bool
}

// GetName implements chart.Series.
func (b boxSeries) GetName() string { return b.name }

// GetYAxis implements chart.Series: boxes use the primary axis.
func (b boxSeries) GetYAxis() chart.YAxisType { return chart.YAxisPrimary }

// GetStyle implements chart.Series; each box carries its own colours.
func (b boxSeries) GetStyle() chart.Style { return chart.Style{} }

// Validate implements chart.Series: every corner must be a finite number.
func (b boxSeries) Validate() error {
	for _, x := range b.boxes {
		if math.IsNaN(x.x0+x.x1+x.y0+x.y1) || math.IsInf(x.x0+x.x1+x.y0+x.y1, 0) {
			return errors.New("box with a non-finite corner")
		}
	}
	return nil
}

// Render implements chart.Series.
func (b boxSeries) Render(r chart.Renderer, cb chart.Box, xr, yr chart.Range, _ chart.Style) {
	type rect struct {
		l, t, rt, bt int
		fill, stroke drawing.Color
		width        float64
		hatch        bool
	}
	var pending []rect // at most one open rectangle per pixel row band
	open := map[[2]int]int{}
	draw := func(p rect) {
		r.SetFillColor(p.fill)
		if p.stroke.IsZero() {
			r.SetStrokeColor(p.fill)
			r.SetStrokeWidth(0)
		} else {
			r.SetStrokeColor(p.stroke)
			r.SetStrokeWidth(max(p.width, 1))
		}
		r.MoveTo(p.l, p.t)
		r.LineTo(p.rt, p.t)
		r.LineTo(p.rt, p.bt)
		r.LineTo(p.l, p.bt)
		r.LineTo(p.l, p.t)
		r.Close()
		if p.stroke.IsZero() {
			r.Fill()
		} else {
			r.FillStroke()
		}
		if p.hatch {
			hatchRect(r, p.l, p.t, p.rt, p.bt, p.stroke)
		}
	}
	for _, x := range b.boxes {
		p := rect{
			l: cb.Left + xr.Translate(x.x0), rt: cb.Left + xr.Translate(x.x1),
			t: cb.Bottom - yr.Translate(x.y1), bt: cb.Bottom - yr.Translate(x.y0),
			fill: x.fill, stroke: x.stroke, width: x.strokeWidth, hatch: x.hatch,
		}
		if p.rt <= p.l {
			p.rt = p.l + 1 // never thinner than a pixel
		}
		if !b.merge || !p.stroke.IsZero() {
			draw(p) // outlined boxes stand alone
			continue
		}
		key := [2]int{p.t, int(p.fill.R)<<24 | int(p.fill.G)<<16 | int(p.fill.B)<<8 | int(p.fill.A)}
		if i, ok := open[key]; ok && p.l <= pending[i].rt+1 && p.rt >= pending[i].l-1 && pending[i].bt == p.bt {
			pending[i].l = min(pending[i].l, p.l)
			pending[i].rt = max(pending[i].rt, p.rt)
			continue
		} else if ok {
			draw(pending[i])
			pending[i] = p
			continue
		}
		open[key] = len(pending)
		pending = append(pending, p)
	}
	for _, p := range pending {
		draw(p)
	}
}

// hatchRect draws lines rising at 45° every 6 pixels across the rectangle
// l..rt × t..bt, in colour c.
func hatchRect(r chart.Renderer, l, t, rt, bt int, c drawing.Color) {
	h := bt - t
	if h <= 0 || rt <= l {
		return
	}
	r.SetStrokeColor(c)
	r.SetStrokeWidth(1.5)
	for x := l - h; x < rt; x += 6 {
		// the line from (x, bt) to (x+h, t), clipped to l..rt
		x0, x1 := max(x, l), min(x+h, rt)
		if x1 <= x0 {
			continue
		}
		r.MoveTo(x0, bt-(x0-x))
		r.LineTo(x1, bt-(x1-x))
		r.Stroke()
	}
}
