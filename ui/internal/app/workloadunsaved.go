package app

import (
	"bytes"
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Unsaved changes to the Workload panel's file. Opening another file with
// Open… and a person quitting the app (the window's close button, or the
// File menu's Quit) ask first: Save, Discard or Cancel. The app quitting
// by itself (--exit-after, a signal) and a test closing the window do
// not ask: they go through [MainWindow.Quit] and [MainWindow.Close].

// unsaved reports whether the panel shows a file and holds changes not
// saved to it: what the unsaved mark after the file's name says. A field
// that cannot be written as a file counts as a change.
func (p *workloadPanel) unsaved() bool {
	if p.filePath == "" {
		return false
	}
	now, err := p.fileText()
	return err != nil || !bytes.Equal(now, p.fileSaved)
}

// askUnsaved runs then at once when the Workload panel holds no unsaved
// changes. Otherwise it asks whether to save them first: Save saves to
// the panel's file and runs then (a save that fails shows its error and
// stops there), Discard runs then, Cancel does nothing. doing says what
// then does, as "Quitting" or "Opening other.toml".
func (m *MainWindow) askUnsaved(doing string, then func()) {
	p := m.workload
	if !p.unsaved() {
		then()
		return
	}
	if p.unsavedAsk != nil {
		p.unsavedAsk.Hide() // asked again: one question at a time
	}
	path := p.filePath
	name := filepath.Base(path)
	text := widget.NewLabel(fmt.Sprintf("The Workload panel has changes not saved to %s.\n%s loses them unless you save them first.", name, doing))
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons("Save changes to "+name+"?", container.NewPadded(text), m.window)
	answer := func(f func()) func() {
		return func() {
			d.Hide()
			p.unsavedAsk = nil
			f()
		}
	}
	save := widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), answer(func() {
		if err := p.saveWorkload(path); err != nil {
			m.errors.Show("Saving the workload to "+name, err)
			return
		}
		m.notify("Saved to " + path)
		then()
	}))
	save.Importance = widget.HighImportance
	discard := widget.NewButtonWithIcon("Discard", theme.DeleteIcon(), answer(then))
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), answer(func() {}))
	d.SetButtons([]fyne.CanvasObject{cancel, discard, save})
	d.Resize(fyne.NewSize(460, d.MinSize().Height))
	p.unsavedAsk = d
	d.Show()
}

// closeAsked is what a person's close of the window does: it asks about
// unsaved workload changes, then closes the window (which quits the app).
func (m *MainWindow) closeAsked() {
	m.askUnsaved("Quitting", m.window.Close)
}

// quitAsked is the File menu's Quit (Ctrl+Q): it asks about unsaved
// workload changes, then quits.
func (m *MainWindow) quitAsked() {
	m.askUnsaved("Quitting", m.Quit)
}

// openWorkloadAsked opens the workload file at path once the panel's
// unsaved changes are saved or discarded.
func (m *MainWindow) openWorkloadAsked(path string) {
	m.askUnsaved("Opening "+filepath.Base(path), func() { m.openWorkloadFile(path) })
}
