package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"github.com/fanout-inspector/inspector/internal/outfile"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
)

// Export is one way to write the shown recording out.
type Export struct {
	// name is the menu item's text.
	name string
	// ext is the file name extension, with its dot.
	ext string
	// write writes the recording (and the compared one, for formats that
	// show both; it may be nil).
	write func(w io.Writer, snap, compare *recorder.Snapshot) error
}

// The size of exported chart images.
const exportWidth, exportHeight = 1600, 900

// exports lists the formats of File ▸ Export, in menu order.
var exports = []Export{
	{"Chrome trace (Perfetto)…", ".trace.json", func(w io.Writer, s, _ *recorder.Snapshot) error { return export.WriteChromeTrace(w, s) }},
	{"OTLP JSON (Jaeger)…", ".otlp.json", func(w io.Writer, s, _ *recorder.Snapshot) error { return export.WriteOTLP(w, s) }},
	{"CSV…", ".csv", func(w io.Writer, s, _ *recorder.Snapshot) error { return export.WriteCSV(w, s) }},
	{"Gantt chart as PNG…", ".gantt.png", chartExport(export.WriteChartPNG, export.ChartGantt)},
	{"Concurrency chart as PNG…", ".concurrency.png", chartExport(export.WriteChartPNG, export.ChartConcurrency)},
	{"Gantt chart as SVG…", ".gantt.svg", chartExport(export.WriteChartSVG, export.ChartGantt)},
	{"Concurrency chart as SVG…", ".concurrency.svg", chartExport(export.WriteChartSVG, export.ChartConcurrency)},
	{"HTML report…", ".html", func(w io.Writer, s, c *recorder.Snapshot) error {
		if c != nil {
			return export.WriteHTML(w, s, c)
		}
		return export.WriteHTML(w, s)
	}},
}

// chartExport adapts a chart writer to an [Export].
func chartExport(write func(io.Writer, *recorder.Snapshot, export.Chart, int, int) error, c export.Chart) func(io.Writer, *recorder.Snapshot, *recorder.Snapshot) error {
	return func(w io.Writer, s, _ *recorder.Snapshot) error { return write(w, s, c, exportWidth, exportHeight) }
}

// exportHTML is the index of the HTML report in [exports].
const exportHTML = 7

// buildMenu gives the window its main menu and keyboard shortcuts.
func (m *MainWindow) buildMenu() {
	shortcut := func(key fyne.KeyName, mods fyne.KeyModifier) fyne.Shortcut {
		return &desktop.CustomShortcut{KeyName: key, Modifier: mods}
	}
	ctrl := fyne.KeyModifierShortcutDefault
	item := func(label string, sc fyne.Shortcut, action func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, action)
		if sc != nil {
			it.Shortcut = sc
			m.window.Canvas().AddShortcut(sc, func(fyne.Shortcut) { action() })
		}
		return it
	}

	var exportItems []*fyne.MenuItem
	for i, e := range exports {
		var sc fyne.Shortcut
		if i == exportHTML {
			sc = shortcut(fyne.KeyE, ctrl)
		}
		exportItems = append(exportItems, item(e.name, sc, func() { m.exportDialog(e) }))
	}
	export := fyne.NewMenuItem("Export", nil)
	export.ChildMenu = fyne.NewMenu("", exportItems...)

	quit := item("Quit", shortcut(fyne.KeyQ, ctrl), m.quitAsked)
	quit.IsQuit = true
	file := fyne.NewMenu("File",
		item("Open recording…", shortcut(fyne.KeyO, ctrl), m.openDialog),
		item("Follow journal…", shortcut(fyne.KeyF, ctrl|fyne.KeyModifierShift), m.followDialog),
		item("Open second recording to compare…", shortcut(fyne.KeyO, ctrl|fyne.KeyModifierShift), m.compareDialog),
		item("Close comparison", nil, func() { m.setCompare(nil) }),
		item("Save recording…", shortcut(fyne.KeyS, ctrl), m.saveDialog),
		export,
		fyne.NewMenuItemSeparator(),
		item("New run", shortcut(fyne.KeyN, ctrl), m.newRun),
		fyne.NewMenuItemSeparator(),
		quit,
	)
	run := fyne.NewMenu("Run",
		item("Run workload", shortcut(fyne.KeyR, ctrl), m.run),
		item("Stop", shortcut(fyne.KeyPeriod, ctrl), m.stop),
		fyne.NewMenuItemSeparator(),
		item("Connect", shortcut(fyne.KeyK, ctrl), m.connection.connectBtn.OnTapped),
		item("Disconnect", nil, m.disconnect),
	)
	view := fyne.NewMenu("View",
		item("Zoom in", shortcut(fyne.KeyEqual, ctrl), m.timeline.zoomIn),
		item("Zoom out", shortcut(fyne.KeyMinus, ctrl), m.timeline.zoomOut),
		item("Fit", shortcut(fyne.Key0, ctrl), m.timeline.fit),
		fyne.NewMenuItemSeparator(),
		item("Show panels", shortcut(fyne.KeyB, ctrl), func() { m.panes.setLeft(!m.panes.leftShown()) }),
		item("Show details", shortcut(fyne.KeyI, ctrl), func() { m.panes.setRight(!m.panes.rightShown()) }),
	)
	panels, details := view.Items[len(view.Items)-2], view.Items[len(view.Items)-1]
	m.panes.onChanged = func() { // tick the items of the sides shown
		panels.Checked, details.Checked = m.panes.leftShown(), m.panes.rightShown()
		view.Refresh()
	}
	m.panes.onChanged()
	m.window.SetMainMenu(fyne.NewMainMenu(file, run, view))
}

// openFile shows a saved recording or a journal. Call it on the main
// goroutine.
func (m *MainWindow) openFile(path string) error {
	snap, err := recorder.LoadFile(path)
	if err != nil {
		return err
	}
	m.timeline.SetSnapshot(snap)
	m.opened = filepath.Base(path)
	m.log.showRecording(m.opened, snap.Events)
	m.setFollowing("")
	m.timeline.SetName(m.opened)
	m.updateTitle()
	return nil
}

// openCompare shows a second recording beside the current one.
func (m *MainWindow) openCompare(path string) error {
	snap, err := recorder.LoadFile(path)
	if err != nil {
		return err
	}
	m.setCompare(snap)
	m.timeline.setCompareName(filepath.Base(path))
	return nil
}

// compareRun shows a run of this window's history (its segment, titled
// by the run) for comparison. Above it is the run the picker chooses;
// when that is the whole session, which holds the run compared, or the
// run compared itself, the picker moves to the latest other run, so
// that two runs are compared, never a run with itself.
func (m *MainWindow) compareRun(seg *recorder.Snapshot) {
	if snap := m.timeline.snapshot(); snap != nil && seg != nil {
		if sc := scopeOf(snap, m.timeline.pick.Load()); sc.whole || sc.run.Label() == seg.Meta.Title {
			for i := len(snap.Runs) - 1; i >= 0; i-- {
				if l := snap.Runs[i].Label(); l != seg.Meta.Title {
					m.timeline.PickRun(l)
					break
				}
			}
		}
	}
	m.setCompare(seg)
}

// setCompare shows snap (nil: nothing) for comparison.
func (m *MainWindow) setCompare(snap *recorder.Snapshot) {
	m.compare = snap
	m.timeline.setCompare(snap)
	m.timeline.setCompareName("") // a run of this session: named by its run
}

// saveFile saves the recording shown as path.
func (m *MainWindow) saveFile(path string) error {
	snap, err := m.shown()
	if err != nil {
		return err
	}
	return recorder.SaveFile(path, snap)
}

// exportFile writes what the screen shows in format e to path (see
// [MainWindow.exported]).
func (m *MainWindow) exportFile(e Export, path string) (err error) {
	snap, err := m.exported()
	if err != nil {
		return err
	}
	// A regular file is replaced only once complete; a device, pipe or
	// symbolic link is written through, never replaced nor removed.
	return outfile.Write(path, func(w io.Writer) error { return m.exportTo(w, e, snap) })
}

// exportTo writes snap in format e, turning a panic in an exporter into
// an error.
func (m *MainWindow) exportTo(w io.Writer, e Export, snap *recorder.Snapshot) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error while exporting (please report it): %v", p)
		}
	}()
	return e.write(w, snap, m.compareSnapshot())
}

// shown is the recording the timeline shows, or an error saying there is
// none yet.
func (m *MainWindow) shown() (*recorder.Snapshot, error) {
	snap := m.timeline.snapshot()
	if rec := m.liveRecording(); rec != nil && m.opened == "" {
		snap = rec.Snapshot() // the latest, not the last frame drawn
	}
	if snap == nil || (len(snap.Spans) == 0 && len(snap.Events) == 0) {
		return nil, errors.New("there is nothing to save yet: connect and run a workload, or open a recording")
	}
	return snap, nil
}

// exported is what an export writes, as the screen shows it: the run
// chosen in the run picker (its part of the recording, titled by the
// run), or the whole recording when the picker is on the whole session
// or the recording has no runs. A comparison's B is the recording
// compared, as shown.
func (m *MainWindow) exported() (*recorder.Snapshot, error) {
	snap, err := m.shown()
	if err != nil {
		return nil, err
	}
	if sc := scopeOf(snap, m.timeline.pick.Load()); !sc.whole {
		return snap.Segment(sc.run), nil
	}
	return snap, nil
}

// compareSnapshot is the recording shown for comparison, or nil.
func (m *MainWindow) compareSnapshot() *recorder.Snapshot { return m.compare }

// openDialog asks for a recording to open.
func (m *MainWindow) openDialog() {
	m.fileOpen("Opening the recording", func(path string) error { return m.openFile(path) })
}

// followDialog asks for a journal to follow as it grows.
func (m *MainWindow) followDialog() {
	m.fileOpen("Following the journal", func(path string) error {
		m.followFile(path)
		return nil
	})
}

// followFile shows the journal at path as it grows (written by
// inspector proxy, say, in another terminal) and draws it live; a file
// that does not exist yet is waited for. The title says "following
// FILE", and whether it waits, ended or failed; a journal that cannot be
// read further shows an error and keeps what was read. Opening another
// file, connecting, a new run or closing the window stops following.
func (m *MainWindow) followFile(path string) {
	m.setFollowing(path)
	m.followNote = ""
	m.opened = filepath.Base(path)
	m.timeline.setIdle(idleFollow)
	m.timeline.SetName(m.opened)
	m.timeline.followJournal(path, func(st followState) {
		if m.following != path {
			return // another file is shown by now
		}
		switch {
		case st.err != nil:
			m.followNote = "stopped: the journal could not be read further"
			m.logNote(recorder.EventOther, "following "+path+" stopped: "+st.err.Error())
			m.errors.Show("Following "+path+" (what was read stays shown)", st.err)
		case st.ended:
			m.followNote = "the journal ended"
			m.timeline.fit() // the whole session, now that it is whole
			m.logNote(recorder.EventOther, "the journal "+path+" ended: its writer closed it")
		case st.waiting:
			m.followNote = "waiting for it to appear"
			m.logNote(recorder.EventOther, path+" does not exist yet: waiting for it to appear (start the proxy with --journal "+path+")")
		default:
			m.followNote = ""
		}
		m.updateTitle()
	})
	m.logNote(recorder.EventOther, "following the journal "+path)
	m.updateTitle()
}

// setFollowing notes the journal followed ("" for none). Following one
// without a connection of the window's own turns Run off, saying why;
// no longer following turns it back on (unless the proxy is hosted).
func (m *MainWindow) setFollowing(path string) {
	was := m.following != ""
	m.following = path
	switch {
	case path != "" && m.bridge.session() == nil && m.proxy == nil:
		m.workload.setRunOff(followNoRun)
	case path == "" && was && m.proxy == nil:
		m.workload.setRunOff("")
	}
}

// Following returns the journal followed ("" for none), how it goes, as
// the title says it, and the number of ended spans of each frame drawn
// that had a different number than the frame before
// ([TimelineView.FollowSeen]).
func (m *MainWindow) Following() (path, note string, seen []int) {
	return m.following, m.followNote, m.timeline.FollowSeen()
}

// compareDialog asks for a second recording to compare.
func (m *MainWindow) compareDialog() {
	m.fileOpen("Opening the recording to compare", m.openCompare)
}

// saveDialog asks where to save the recording.
func (m *MainWindow) saveDialog() {
	if _, err := m.shown(); err != nil {
		m.errors.Show("Saving the recording", err)
		return
	}
	m.fileSave("Saving the recording", m.suggestedName(".json", false), m.saveFile)
}

// exportDialog asks where to export the recording in format e.
func (m *MainWindow) exportDialog(e Export) {
	doing := "Exporting " + strings.TrimSuffix(e.name, "…")
	if _, err := m.shown(); err != nil {
		m.errors.Show(doing, err)
		return
	}
	m.fileSave(doing, m.suggestedName(e.ext, true), func(path string) error { return m.exportFile(e, path) })
}

// fileOpen shows an open dialog and calls open with the chosen path.
func (m *MainWindow) fileOpen(doing string, open func(path string) error) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			m.errors.Show(doing, err)
			return
		}
		if r == nil {
			return // cancelled
		}
		path := r.URI().Path()
		r.Close()
		m.rememberDir(path)
		m.errors.Show(doing+" "+filepath.Base(path), open(path))
	}, m.window)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json", ".jsonl"}))
	m.startIn(d.SetLocation)
	d.Resize(fyne.NewSize(900, 600))
	d.Show()
}

// fileSave shows a save dialog and writes the chosen file with save,
// saying where it went. The dialog has created the file (or emptied the
// one chosen) by then, readable by all: it is made private (0600, as the
// command line's new files) before anything is written to it, and save
// then replaces it whole (see [outfile.Write]).
func (m *MainWindow) fileSave(doing, name string, save func(path string) error) {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		m.savedAs(doing, wc, err, save)
	}, m.window)
	d.SetFileName(name)
	m.startIn(d.SetLocation)
	d.Resize(fyne.NewSize(900, 600))
	d.Show()
}

// savedAs is the save dialog's answer: the file it opened for writing
// (nil when cancelled) or the error it met.
func (m *MainWindow) savedAs(doing string, wc fyne.URIWriteCloser, err error, save func(path string) error) {
	if err != nil {
		m.errors.Show(doing, err)
		return
	}
	if wc == nil {
		return // cancelled
	}
	path := wc.URI().Path()
	m.rememberDir(path)
	err = wc.Close()
	if err == nil {
		err = os.Chmod(path, outfile.PrivateMode)
	}
	if err == nil {
		err = save(path)
	}
	if err != nil {
		m.errors.Show(doing+" as "+filepath.Base(path), err)
		return
	}
	m.notify("Saved to " + path)
}

// startIn points a file dialog at the folder last used.
func (m *MainWindow) startIn(set func(fyne.ListableURI)) {
	dir := m.settings.String("lastDir")
	if dir == "" {
		return
	}
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		set(l)
	}
}

// rememberDir keeps the folder of path for the next file dialog.
func (m *MainWindow) rememberDir(path string) {
	m.settings.SetString("lastDir", filepath.Dir(path))
}

// suggestedName is a file name for what is shown: the opened file's
// name, else the server's (its name, or the target), and for an export
// (ofScreen) the run chosen and the recording compared, as in
// "fanout-demo-run-2-fanout-concurrent-vs-run-1-fanout-serial.html".
func (m *MainWindow) suggestedName(ext string, ofScreen bool) string {
	snap, _ := m.shown()
	base := ""
	switch {
	case m.opened != "":
		base = strings.TrimSuffix(strings.TrimSuffix(m.opened, ".jsonl"), ".json")
	case snap != nil && snap.Meta.Server != "":
		base = fileSlug(serverName(snap.Meta.Server))
	case snap != nil:
		base = fileSlug(snap.Meta.Target)
	}
	if base == "" {
		base = "fanout-recording"
	}
	if ofScreen && snap != nil {
		if sc := scopeOf(snap, m.timeline.pick.Load()); !sc.whole {
			base += "-" + fileSlug(sc.run.Label())
		}
		if c := m.compareSnapshot(); c != nil {
			if b := fileSlug(c.Meta.Title); b != "" {
				base += "-vs-" + b
			}
		}
	}
	return base + ext
}

// serverName is the server's name without its version: "fanout-demo"
// of "fanout-demo 1.0.0".
func serverName(server string) string {
	if i := strings.LastIndexByte(server, ' '); i > 0 {
		v := strings.TrimPrefix(server[i+1:], "v")
		if v != "" && v[0] >= '0' && v[0] <= '9' {
			return server[:i]
		}
	}
	return server
}

// fileSlug is text as a piece of a file name: lower-case letters and
// digits, other runs of characters as one dash, at most 48 bytes.
func fileSlug(text string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(text) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			if b.Len() >= 48 {
				break
			}
			continue
		}
		dash = true
	}
	return b.String()
}
