package timeline

import (
	"math"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// rowChunk is how many rows of the layout share one entry of the
// [rowIndex].
const rowChunk = 256

// rowIndex knows, for each full chunk of [rowChunk] rows of the layout,
// the time its requests cover, so that finding the rows in view skips
// the chunks wholly before or after it: a frame of a long live recording
// looks at the rows of the visible time, not at every row. An entry is
// settled once every request of its chunk was answered; a chunk with a
// request in flight (whose end grows with Now) is looked at again every
// time. A settled entry stays true because an answered span never
// changes (the recorder changes a copy), and rows laid out again
// ([ganttLayout.rowsFrom]) drop the entries from there on.
type rowIndex struct {
	chunks []rowChunkTimes // one per full chunk looked at, in row order
}

type rowChunkTimes struct {
	from, to time.Duration // the earliest start and the latest end of its requests
	settled  bool          // all answered: from and to are final
}

// truncate forgets the entries of the chunks from row on.
func (x *rowIndex) truncate(row int) {
	x.chunks = x.chunks[:min(len(x.chunks), row/rowChunk)]
}

// syncRows brings what is kept per row (the index, the groups of an
// aggregated view) up to the layout: the rows it laid out again since
// the last call are forgotten, to be looked at afresh.
func (g *Gantt) syncRows() {
	from := g.layout.rowsFrom
	g.layout.rowsFrom = len(g.layout.rows)
	g.rowIdx.truncate(from)
	g.agg.truncate(from)
}

// eachRowInView calls fn with every row whose request overlaps the time
// from start to end (both included), in row order, until fn returns
// false. It costs a look at each chunk's entry plus the rows of the
// chunks that overlap that time or are still in flight.
func (g *Gantt) eachRowInView(start, end time.Duration, fn func(row int, s *recorder.Span) bool) {
	rows, x := g.layout.rows, &g.rowIdx
	for lo := 0; lo < len(rows); lo += rowChunk {
		c := lo / rowChunk
		if c < len(x.chunks) && x.chunks[c].settled && (x.chunks[c].from > end || x.chunks[c].to < start) {
			continue
		}
		hi := min(lo+rowChunk, len(rows))
		times := rowChunkTimes{from: math.MaxInt64, to: math.MinInt64, settled: true}
		for r := lo; r < hi; r++ {
			s := g.snap.Spans[rows[r].span]
			if s.Open() || s.Answered == recorder.Unset {
				times.settled = false // its end is still to come
			}
			if s.Received == recorder.Unset {
				continue
			}
			e := recorder.SpanEnd(g.snap, s)
			times.from, times.to = min(times.from, s.Received), max(times.to, e)
			if s.Received <= end && e >= start && !fn(r, s) {
				return
			}
		}
		if hi-lo < rowChunk {
			break // a chunk still filling: no entry yet
		}
		if c == len(x.chunks) {
			x.chunks = append(x.chunks, times)
		} else {
			x.chunks[c] = times
		}
	}
}
