// Package app is the desktop app's window and everything in it; package
// ui (the command's face) opens it, and nothing else imports it.
//
// [MainWindow] (window.go) builds the window from [Options], wires its
// parts together and owns the live connection. Its parts, each in the
// file named after it:
//
//   - the side panels, one tab each: the Server panel (connection.go, with
//     serverlist.go for the servers of the client configs found and oauth.go
//     for the OAuth sign-in row), the Callbacks panel (policy.go: how the
//     app answers the server's requests, with endpointinputs.go for a
//     chat-completions endpoint that answers sampling), the Workload panel (workload.go, workloadshape.go
//     for load shapes, history.go for the runs made and schemaform.go for
//     a tool's arguments as a form), the Manual panel (manual.go: requests
//     waiting for a person's answer) and the Logs tab (logview.go: the
//     server's log messages, stderr and the connection's events, filtered
//     and searched; loglevel.go: the level asked of the server);
//   - the bridge (bridge.go): the widget-free layer between the window and
//     the engine, which connects, runs workloads and reports back;
//   - the File, Run and View menus (menu.go): open, follow, compare, save
//     and export recordings;
//   - the hosted HTTP proxy (proxyhost.go);
//   - errors.go, the one way errors reach the person, and settings.go,
//     what the app remembers between starts;
//   - panes.go and flowlayout.go: how the window shares its width.
//
// The right-hand side is one widget, [TimelineView] (timelineview.go),
// made of
//
//   - a [timeline.Gantt]: one row per request, grouped (and foldable)
//     under the tool call that caused it — on a multi-round-trip session,
//     a call's rounds under it and each round's input requests under the
//     round — each bar split into its queued (pale) and serving (solid)
//     phases, coloured by kind, the client's fulfilment time between
//     rounds and stalled time (read, not yet seen by the client) marked
//     apart, failures in red, notifications as ticks, with zoom, pan,
//     follow-live, hover tooltips, selection by mouse or keyboard, and
//     kinds hidden from the legend (legend.go);
//   - a [timeline.ConcurrencyChart] under it on the same time axis:
//     requests in flight and pending over time, filled pixel by pixel into
//     one reused image from steps downsampled to one value per pixel
//     column;
//   - the stats bar (statsbar.go): peaks, elapsed time, percentiles and the
//     verdict in words (serialized, concurrent, bounded…), for the run the
//     run picker chose (runpicker.go);
//   - the details pane (details.go, jsontree.go): the selected request's
//     phases, ids, params and result as formatted JSON, and the
//     notifications that name it; format.go writes times and names as
//     the timeline does.
//
// The view shows a live recording through one ticker (livefeed.go,
// ticker.go) that redraws it at most about 30 times a second, and only
// when the recording changed; a followed journal (follow.go) or a finished
// recording with [TimelineView.SetSnapshot]; and a second recording under
// the first on the same time scale (compareview.go). Every method of the
// package's widgets must be called on Fyne's main goroutine; background
// work hands its results over through the window's [mainloop.Gate], which
// drops them once the window closed (after the app quit, fyne.Do would run
// them on the background goroutine).
package app
