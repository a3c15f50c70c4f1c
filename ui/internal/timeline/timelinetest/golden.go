package timelinetest

import (
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// Update makes AssertImage and AssertMarkup rewrite the golden files:
// go test ./ui/... -update
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// AssertImage compares img with the golden file testdata/name, or writes
// it with -update.
func AssertImage(t *testing.T, name string, img image.Image) {
	t.Helper()
	if *Update {
		path := filepath.Join("testdata", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		return
	}
	test.AssertImageMatches(t, name, img)
}

// AssertMarkup compares the canvas's markup with testdata/name, or writes
// it with -update.
func AssertMarkup(t *testing.T, name string, c fyne.Canvas) {
	t.Helper()
	if *Update {
		if err := os.WriteFile(filepath.Join("testdata", name), []byte(test.RenderToMarkup(c)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	test.AssertRendersToMarkup(t, name, c)
}
