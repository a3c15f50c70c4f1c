package timeline

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/palette"
)

// A server log message that belongs to a request (see
// [recorder.Event.Span]) is marked on that request's row: a thin line in
// its level's colour with a small flag at the top, so that warnings and
// errors stand out among a call's steps. Only the rows in view are drawn,
// and the pointer is matched against the messages of the row under it,
// so neither costs more with more messages off screen.

// LogColor is the colour of a log message at level.
func LogColor(level string) color.RGBA { return palette.LogLevel(level) }

// drawLogMark marks the log message e at x on a row from y0 to y1.
func drawLogMark(img *image.RGBA, e recorder.Event, x, y0, y1, plotX0, w, line int) {
	if x < plotX0 || x >= w {
		return
	}
	m, _ := recorder.LogOf(e)
	c := LogColor(m.Level)
	fillRect(img, x, y0, x+line, y1, c)
	// the flag: a triangle pointing right from the line's top
	h := max((y1-y0)*2/5, 3)
	for dy := range h {
		half := h / 2
		reach := half - abs(dy-half) + 1
		fillRect(img, x+line, y0+dy, min(x+line+reach*2, w), y0+dy+1, c)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// rowEventAt returns the index in the snapshot's events of the log
// message marked on row nearest to pos (within a few units), or -1.
func (g *Gantt) rowEventAt(row int, pos fyne.Position) int {
	if g.snap == nil || row < 0 || row >= len(g.layout.rows) || pos.X < g.axis.gutter {
		return -1
	}
	perUnit := float64(g.axis.end-g.axis.start) / float64(g.plotW())
	at := float64(g.axis.real(g.axis.start + time.Duration(float64(pos.X-g.axis.gutter)*perUnit)))
	best, bestD := -1, 4*perUnit
	for _, ei := range g.layout.spanEv[g.layout.rows[row].span] {
		e := g.snap.Events[ei]
		if e.Kind != recorder.EventLog {
			continue
		}
		if d := math.Abs(float64(e.At) - at); d <= bestD {
			best, bestD = int(ei), d
		}
	}
	return best
}

// logSummary describes a log message in a few lines, for the tooltip:
// its level, logger and time, the message (up to three lines), and the
// request it belongs to.
func logSummary(snap *recorder.Snapshot, e recorder.Event) []string {
	m, _ := recorder.LogOf(e)
	head := "log"
	if m.Level != "" {
		head += " " + m.Level
	}
	if m.Logger != "" {
		head += " · " + m.Logger
	}
	lines := []string{fmt.Sprintf("%s at %s", head, FormatOffset(e.At))}
	text := strings.Join(strings.Fields(m.Message), " ")
	for i := 0; i < 3 && text != ""; i++ {
		r := []rune(text)
		if len(r) <= 80 {
			lines = append(lines, text)
			break
		}
		if i == 2 {
			lines = append(lines, Truncate(text, 80))
			break
		}
		cut := strings.LastIndex(string(r[:81]), " ") // a space just after 80 runes: they fit
		if cut <= 0 {
			cut = len(string(r[:80]))
		}
		lines = append(lines, text[:cut])
		text = strings.TrimSpace(text[cut:])
	}
	if s := snap.SpanByID(e.Span); s != nil {
		lines = append(lines, fmt.Sprintf("from #%d %s", s.ID, SpanLabel(s)))
	}
	return lines
}
