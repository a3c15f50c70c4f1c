package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
)

// TestQuitMidRunLeavesTheWidgetsAlone quits while a run is going on, in
// the three ways the app quits: the window's close, Ctrl+Q, and the main
// loop ending before the window closes (what Fyne's own SIGINT handler
// did: the connection then closed after the loop, when fyne.Do runs its
// work at once on the caller's goroutine, which printed "Error in Fyne
// call thread" and, in the title's update, panicked in a terminated
// GLFW). However it quits, the journal must end with its end record and
// nothing the connection or the run reports afterwards may change what
// the window shows (under -race, nor touch it off the main goroutine).
func TestQuitMidRunLeavesTheWidgetsAlone(t *testing.T) {
	cases := []struct {
		name string
		quit func(l *mainLoop, m *MainWindow)
	}{
		{"window closed", func(l *mainLoop, m *MainWindow) {
			m.window.Close()
			l.drv.ended.Store(true)
		}},
		{"File > Quit (Ctrl+Q)", func(l *mainLoop, m *MainWindow) {
			quit := quitItem(t, m)
			if sc, ok := quit.Shortcut.(*desktop.CustomShortcut); !ok || sc.KeyName != fyne.KeyQ {
				t.Errorf("the Quit item's shortcut is %v, want Ctrl+Q", quit.Shortcut)
			}
			quit.Action()
			l.drv.ended.Store(true)
		}},
		{"main loop ended first", func(l *mainLoop, m *MainWindow) {
			l.drv.ended.Store(true)
			m.Close()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loop := newMainLoop(t)
			journals := t.TempDir()
			policy := engine.DefaultAnswerPolicy()
			policy.Latency.A = 150 * time.Millisecond
			m := openMainWindow(t, loop, Options{
				journalDir: &journals, Version: "test", Policy: policy,
				Connect: true, AutoRun: true,
				Workload: load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":4,"kind":"sampling"}`), Calls: 40, Concurrency: 2},
			})
			m.Start()
			loop.waitFor(t, "the run to be under way", 15*time.Second, func() bool {
				return m.workload.Running() && m.workload.last.Done > 0
			})
			title, status := m.window.Title(), m.workload.Status()

			tc.quit(loop, m)
			if m.bridge.session() != nil {
				t.Fatalf("the connection is still open after quitting")
			}
			logLines := len(m.log.lines)
			// a server's stderr after the quit; its batch is due within
			// the settle below
			appended := make(chan struct{})
			go func() { m.log.Append("a late line"); close(appended) }()
			<-appended
			// Nothing may change from now on: for longer than every throttle
			// and ticker, run whatever background work hands to the main
			// loop (a bare sleep would leave it queued, unseen).
			loop.settle(600 * time.Millisecond)
			if got := len(m.log.lines); got != logLines {
				t.Errorf("after quitting the Logs tab went from %d lines to %d", logLines, got)
			}

			m.errors.Show("Listing the server's tools", errors.New("a late answer")) // a goroutine's late error
			if top := m.window.Canvas().Overlays().Top(); top != nil {
				t.Errorf("after quitting an error dialog opened: %T", top)
			}
			if got := m.window.Title(); got != title {
				t.Errorf("after quitting the title changed from %q to %q", title, got)
			}
			if got := m.workload.Status(); got != status {
				t.Errorf("after quitting the run's status changed from %q to %q", status, got)
			}
			files, _ := filepath.Glob(filepath.Join(journals, "*.jsonl"))
			if len(files) != 1 {
				t.Fatalf("journals: %v, want one", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
			if last := lines[len(lines)-1]; !bytes.HasPrefix(last, []byte(`{"end":`)) {
				t.Errorf("the journal does not end with its end record: last line %.100s", last)
			}
		})
	}
}

// quitItem finds the main menu's Quit item.
func quitItem(t *testing.T, m *MainWindow) *fyne.MenuItem {
	t.Helper()
	for _, menu := range m.window.MainMenu().Items {
		for _, it := range menu.Items {
			if it.IsQuit {
				return it
			}
		}
	}
	t.Fatal("the main menu has no Quit item")
	return nil
}
