// Package timeline draws a recording as time: the [Gantt] (one row per
// request, grouped and foldable under the tool call that caused it, each
// bar split into its queued and serving phases) and the
// [ConcurrencyChart] (requests in flight and pending over time) that sits
// under it on the same time range ([Gantt.ShareAxis]).
//
// Give either widget a [recorder.Snapshot] with SetSnapshot; a live view
// hands the chart the snapshot's steps, computed off the main goroutine,
// with [ConcurrencyChart.SetSteps], so that both show the same snapshot in
// a frame. Call every method on Fyne's main goroutine.
//
// The Gantt is one widget over several files, each named after what it
// does, so that a change has one place to go:
//
//   - gantt.go: the type and its API (what to show, selection, folding);
//   - input.go: mouse, wheel and keyboard;
//   - rows.go: the row model (which request is on which row, folding) and
//     the row geometry;
//   - axis.go: the time range shared with the chart, zoom, pan, follow
//     live, and the time ruler's ticks;
//   - draw.go and phases.go: the rasteriser that paints bars into one
//     reused image;
//   - render.go: the Fyne renderer, a few dozen lines that place the
//     texts over the picture: the ruler (axis.go), the row labels, count
//     and empty state (labels.go) and the tooltip (tooltip.go);
//   - redraw.go: the one path that asks for a frame, at most one per
//     frame of the window's 60 Hz paint loop;
//   - aggregate.go and rowindex.go: the groups shown instead of rows for
//     a load test, kept frame by frame, and the index that finds the rows
//     in the visible time without walking all of them;
//   - settled.go, liveend.go, callsteps.go: what a live view derives from
//     a growing recording (where following slides to, a load test's calls
//     in flight), each answered span taken in once, so that a frame costs
//     what is new and what is in view, not the whole recording;
//   - tooltip.go, format.go, rounds.go: the words shown for a request;
//   - palette.go: the colours;
//   - chart.go: the concurrency chart.
package timeline
