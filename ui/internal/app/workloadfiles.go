package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/internal/outfile"
	"github.com/fanout-inspector/inspector/internal/workloadfile"
	"github.com/fanout-inspector/inspector/recorder"
)

// The Workload panel's file: Open…, Save and Save as… read and write the
// panel as a workload file (TOML, package workloadfile), the same file
// `inspector run --workload` runs and `inspector init` writes. The panel
// shows the file's name, marked while the panel differs from what was
// last opened or saved.

// workloadFileInputs are the file row's widgets and the file shown.
type workloadFileInputs struct {
	filePath   string // the file opened or last saved, "" for none
	fileSaved  []byte // the panel as that file, when opened or saved
	fileLabel  *widget.Label
	openFile   *widget.Button
	saveFile   *widget.Button
	saveFileAs *widget.Button
	// onOpenFile, onSaveFile and onSaveFileAs ask the window for a file
	// dialog, or to save to filePath.
	onOpenFile, onSaveFile, onSaveFileAs func()
	// unsavedAsk is the question about unsaved changes while it is
	// shown (workloadunsaved.go).
	unsavedAsk *dialog.CustomDialog
}

// unsavedMark follows the file's name while the panel holds changes not
// saved to it.
const unsavedMark = " • unsaved changes"

// newFileRow makes the row with the file's name and its three buttons.
func (p *workloadPanel) newFileRow() fyne.CanvasObject {
	p.fileLabel = widget.NewLabel("")
	p.fileLabel.Truncation = fyne.TextTruncateEllipsis
	call := func(f *func()) func() {
		return func() {
			if *f != nil {
				(*f)()
			}
		}
	}
	p.openFile = widget.NewButtonWithIcon("Open…", theme.FolderOpenIcon(), call(&p.onOpenFile))
	p.saveFile = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), call(&p.onSaveFile))
	p.saveFileAs = widget.NewButton("Save as…", call(&p.onSaveFileAs))
	p.showFile()
	return container.NewVBox(
		container.NewBorder(nil, nil, boldLabel("Workload file"), nil, p.fileLabel),
		container.NewGridWithColumns(3, p.openFile, p.saveFile, p.saveFileAs),
	)
}

// FileName returns the file's name as the panel shows it, with the
// unsaved mark.
func (p *workloadPanel) FileName() string { return p.fileLabel.Text }

// showFile shows the file's name and whether the panel differs from it.
func (p *workloadPanel) showFile() {
	if p.fileLabel == nil {
		return
	}
	text := "none: Save as… writes one, Open… reads one"
	if p.filePath != "" {
		text = filepath.Base(p.filePath)
		if p.unsaved() {
			text += unsavedMark
		}
	}
	p.fileLabel.SetText(text)
}

// fileText is the panel as a workload file's text; the error says what
// to fix first.
func (p *workloadPanel) fileText() ([]byte, error) {
	w, err := p.workload()
	if err != nil {
		return nil, err
	}
	w.Seed = p.mixSeed
	n, _ := p.sessionCount() // checked by workload()
	if _, err := parseThresholds(p.thresholds.Text, max(len(w.Operations), 1)); err != nil {
		return nil, fmt.Errorf("thresholds: %v", err)
	}
	f, err := workloadfile.FromWorkload(w, n, thresholdLines(p.thresholds.Text))
	if err != nil {
		return nil, err
	}
	return f.Marshal(), nil
}

// openWorkload reads the workload file at path into the panel: its load
// shape, sessions, thresholds and mix. A file that cannot be read or run
// leaves the panel as it was; the error names the line at fault.
func (p *workloadPanel) openWorkload(path string) error {
	f, err := workloadfile.Read(path)
	if err != nil {
		var fe *workloadfile.Error
		if errors.As(err, &fe) {
			return fe
		}
		return fmt.Errorf("cannot read %s: %v", path, err)
	}
	w, sessions, err := CheckWorkloadFile(f)
	if err != nil {
		return err
	}
	p.setWorkload(w)
	p.setSessions(sessions)
	p.thresholds.SetText(strings.Join(f.Thresholds, "\n"))
	if len(f.Thresholds) > 0 {
		p.loadTest.Open(0)
	}
	p.mixSeed = w.Seed
	p.filePath = path
	p.fileSaved, _ = p.fileText()
	p.showProblem("")
	p.showFile()
	return nil
}

// CheckWorkloadFile returns the workload the app runs from the file f and
// the sessions it spreads it over, or an error at the line at fault: the
// file's load, mix and thresholds must be valid, and its sessions within
// the app's [MaxSessions]. The Workload panel opens a file through it,
// and `inspector gui --workload` checks its file with it before the
// window opens.
func CheckWorkloadFile(f *workloadfile.File) (load.Workload, int, error) {
	w, sessions, err := f.Workload()
	if err != nil {
		return load.Workload{}, 0, err
	}
	if _, err := f.Checks(len(w.Operations)); err != nil {
		return load.Workload{}, 0, err
	}
	if sessions > MaxSessions {
		return load.Workload{}, 0, f.ErrorAt("load.sessions", "load.sessions %d: the app spreads a run over at most %d sessions (inspector run --workload takes up to %d)",
			sessions, MaxSessions, workloadfile.MaxSessions)
	}
	return w, sessions, nil
}

// saveWorkload writes the panel as the workload file at path (a new file
// 0600, an existing one replaced whole and keeping its permission; see
// [outfile.Write]) and makes it the panel's file.
func (p *workloadPanel) saveWorkload(path string) error {
	text, err := p.fileText()
	if err != nil {
		return err
	}
	if err := outfile.Write(path, func(w io.Writer) error { _, err := w.Write(text); return err }); err != nil {
		return err
	}
	p.filePath, p.fileSaved = path, text
	p.showFile()
	return nil
}

// watchEdits makes every field of the panel that a file holds update the
// file's unsaved mark when it changes, after what it did before.
func (p *workloadPanel) watchEdits() {
	p.onEdited = p.showFile
	for _, e := range []*widget.Entry{p.calls, p.concurrency, p.timeout, p.duration, p.rate, p.maxInFlight, p.stages, p.sessions, p.raw} {
		before := e.OnChanged
		e.OnChanged = func(s string) {
			if before != nil {
				before(s)
			}
			p.showFile()
		}
	}
	before := p.stagesRamp.OnChanged
	p.stagesRamp.OnChanged = func(s string) {
		if before != nil {
			before(s)
		}
		p.showFile()
	}
}

// wireWorkloadFile connects the panel's file buttons to the window's
// dialogs and notices, and its mix to the server's lists.
func (m *MainWindow) wireWorkloadFile() {
	p := m.workload
	p.onOpenFile = m.workloadOpenDialog
	p.onSaveFileAs = m.workloadSaveDialog
	p.onSaveFile = func() {
		if p.filePath == "" {
			m.workloadSaveDialog()
			return
		}
		m.saveWorkloadTo(p.filePath)
	}
	p.onNames = func() {
		if s := m.bridge.session(); s != nil {
			go m.listMixNames(s)
		}
	}
}

// openWorkloadFile opens the workload file at path in the Workload
// panel and shows the panel; an error is shown, the panel kept.
func (m *MainWindow) openWorkloadFile(path string) {
	if err := m.workload.openWorkload(path); err != nil {
		m.errors.Show("Opening the workload "+filepath.Base(path), err)
		return
	}
	m.tabs.SelectIndex(2)
	m.logNote(recorder.EventOther, "opened the workload file "+path)
}

// saveWorkloadTo saves the panel to path and says where it went.
func (m *MainWindow) saveWorkloadTo(path string) {
	if err := m.workload.saveWorkload(path); err != nil {
		m.errors.Show("Saving the workload as "+filepath.Base(path), err)
		return
	}
	m.notify("Saved to " + path)
}

// workloadOpenDialog asks for a workload file to open.
func (m *MainWindow) workloadOpenDialog() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			m.errors.Show("Opening a workload file", err)
			return
		}
		if r == nil {
			return // cancelled
		}
		path := r.URI().Path()
		r.Close()
		m.rememberDir(path)
		m.openWorkloadAsked(path)
	}, m.window)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".toml"}))
	m.startIn(d.SetLocation)
	d.Resize(fyne.NewSize(900, 600))
	d.Show()
}

// workloadSaveDialog asks where to save the panel as a workload file.
func (m *MainWindow) workloadSaveDialog() {
	if _, err := m.workload.fileText(); err != nil {
		m.errors.Show("Saving the workload", err)
		return
	}
	name := "workload.toml"
	if p := m.workload.filePath; p != "" {
		name = filepath.Base(p)
	}
	m.fileSave("Saving the workload", name, m.workload.saveWorkload)
}

// listMixNames asks the server for its resources, resource templates and
// prompts, to offer as the names of the mix's reads and gets. A list the
// server does not give is left empty: the names can be typed.
func (m *MainWindow) listMixNames(s *engine.Session) {
	defer m.errors.recover("listing the server's resources and prompts")
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	resources, _ := s.ListResources(ctx)
	templates, _ := s.ListResourceTemplates(ctx)
	prompts, _ := s.ListPrompts(ctx)
	m.do(func() {
		if m.bridge.session() == s {
			m.workload.setMixNames(resources, templates, prompts)
		}
	})
}
