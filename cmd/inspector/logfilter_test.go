//go:build !nogui

package main

import (
	"bytes"
	"log"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
)

// TestFileDialogLogsNoFavouritesError opens a real file dialog in a home
// that defines no Videos (or other) folder, as on a fresh account or under
// Xvfb: Fyne logs "Getting favorite locations … does not define a VIDEOS
// folder" for every dialog, which the GUI's log filter must keep off the
// terminal, while it lets every other line through.
func TestFileDialogLogsNoFavouritesError(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var raw, shown bytes.Buffer
	defer log.SetOutput(log.Writer())
	defer log.SetFlags(log.Flags())

	open := func(out *bytes.Buffer, filtered bool) {
		a := test.NewTempApp(t)
		w := a.NewWindow("dialog")
		w.Resize(fyne.NewSize(900, 700))
		if filtered {
			log.SetOutput(newLogFilter(out))
		} else {
			log.SetOutput(out)
		}
		d := dialog.NewFileOpen(func(fyne.URIReadCloser, error) {}, w)
		d.Show()
		d.Hide()
		log.Println("error: Opening run.json: no such file") // one of ours, shown
		w.Close()
	}
	open(&raw, false)
	if !strings.Contains(raw.String(), "Getting favorite locations") {
		t.Skipf("Fyne's file dialog logged no favourites error here, nothing to filter:\n%s", raw.String())
	}
	open(&shown, true)
	if strings.Contains(shown.String(), "favorite") || strings.Contains(shown.String(), "Cause:") || strings.Contains(shown.String(), "At: ") {
		t.Errorf("the filtered log still shows the favourites error:\n%s", shown.String())
	}
	if !strings.Contains(shown.String(), "error: Opening run.json: no such file") {
		t.Errorf("the filter dropped a line of ours:\n%s", shown.String())
	}
}

// TestLogFilterDropsOnlyTheKnownNoise: the preferences' EOF block (another
// instance caught Fyne's file mid-write) is dropped, the same reason with
// another cause is not, and nothing else is touched.
func TestLogFilterDropsOnlyTheKnownNoise(t *testing.T) {
	var out bytes.Buffer
	l := log.New(newLogFilter(&out), "", 0)
	l.Println("Fyne error:  Preferences load error:")
	l.Println("  Cause: EOF")
	l.Println("  At: preferences.go:103")
	l.Println("Fyne error:  Preferences load error:")
	l.Println("  Cause: invalid character 'x'")
	l.Println("  At: preferences.go:103")
	l.Println("Fyne error:  Getting favorite locations")
	l.Println("  Cause: this computer does not define a VIDEOS folder")
	l.Println("  At: file.go:396")
	l.Println("error: Connecting to demo: refused")
	want := "Fyne error:  Preferences load error:\n  Cause: invalid character 'x'\n  At: preferences.go:103\nerror: Connecting to demo: refused\n"
	if out.String() != want {
		t.Errorf("filtered log:\n%s\nwant:\n%s", out.String(), want)
	}
}
