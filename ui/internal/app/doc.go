// Package app is the Fyne user interface of Fanout Inspector: the main
// window with its connection, callback and workload panels, and the
// timeline that shows which requests were in flight when.
//
// The timeline side is one widget, [TimelineView], made of
//
//   - a [timeline.Gantt]: one row per request, grouped (and foldable) under the tool
//     call that caused it — on a multi-round-trip session, a call's rounds
//     under it and each round's input requests under the round — each bar
//     split into its queued (pale) and serving (solid) phases, coloured by
//     kind, the client's fulfilment time between rounds and stalled time
//     (read, not yet seen by the client) marked apart, failures in red,
//     notifications as ticks, with zoom, pan, follow-live, hover tooltips,
//     selection by mouse or keyboard, and kinds hidden from the legend;
//   - a [timeline.ConcurrencyChart] under it on the same time axis: requests in
//     flight and pending over time, filled pixel by pixel into one reused
//     image from steps downsampled to one value per pixel column;
//   - a [statsBar]: peaks, elapsed time, percentiles and the verdict in
//     words (serialized, concurrent, bounded…);
//   - a [details] pane: the selected request's phases, ids, params and
//     result as formatted JSON, and the notifications that name it.
//
// Give a TimelineView a live [recorder.Recording] with
// [TimelineView.setRecording] (one ticker redraws it at most about 30 times
// a second, and only when the recording changed) or a finished one with
// [TimelineView.SetSnapshot]; [TimelineView.setCompare] shows a second
// recording under the first on the same time scale. Every method of the
// package's widgets must be called on Fyne's main goroutine; the live
// ticker hands its snapshots over with [fyne.Do].
package app
