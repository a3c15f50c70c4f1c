// Package ui opens Fanout Inspector's desktop app: [NewMainWindow] builds
// the main window from [Options] (the server, the answer policy, the
// workload, a file to open or follow), [MainWindow.Run] shows it until
// the app quits, and [MainWindow.Stats] and [MainWindow.Following] say
// what the window showed, for scripts that check it.
//
// This package is the app's face to the command; the window, its panels
// and the timeline widgets live under ui/internal (package app, and the
// Gantt and concurrency chart in package timeline) and are no API.
package ui
