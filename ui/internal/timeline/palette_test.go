package timeline

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
	"github.com/fanout-inspector/inspector/recorder/palette"
)

// colourCount counts the pixels of img that are exactly c (opaque).
func colourCount(img image.Image, c color.RGBA) int {
	n := 0
	if m, ok := img.(interface{ RGBAAt(x, y int) color.RGBA }); ok {
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if m.RGBAAt(x, y) == c {
					n++
				}
			}
		}
		return n
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if toRGBA(img.At(x, y)) == c {
				n++
			}
		}
	}
	return n
}

// TestAppAndExportsShareColours draws one recording in the app's
// timeline (light theme) and as an exported Gantt chart, and checks that
// each kind's serving and queued colours, a failure's red and stalled
// pink are the same pixels in both: a tool call is not one colour in the
// app and another in a report.
func TestAppAndExportsShareColours(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.LightTheme())
	draw := func(snap *recorder.Snapshot) (app, exported image.Image) {
		_, w := showGantt(t, snap, fyne.NewSize(640, 300))
		app = w.Canvas().Capture()
		var buf bytes.Buffer
		if err := export.WriteChartPNG(&buf, snap, export.ChartGantt, 640, 300); err != nil {
			t.Fatal(err)
		}
		exported, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		return app, exported
	}
	fixedApp, fixedExport := draw(fixedSnapshot())
	roundsApp, roundsExport := draw(roundsSnapshot())
	for _, c := range []struct {
		what        string
		app, export image.Image
		want        color.RGBA
	}{
		{"a tool call", fixedApp, fixedExport, KindColor(recorder.KindTool)},
		{"a sampling request served", fixedApp, fixedExport, KindColor(recorder.KindSampling)},
		{"a sampling request queued", fixedApp, fixedExport, QueuedColor(recorder.KindSampling)},
		{"an elicitation", fixedApp, fixedExport, KindColor(recorder.KindElicitation)},
		{"a failure", fixedApp, fixedExport, FailColor},
		{"a round", roundsApp, roundsExport, KindColor(recorder.KindRound)},
		{"stalled time", roundsApp, roundsExport, StalledColor},
	} {
		inApp, inExport := colourCount(c.app, c.want), colourCount(c.export, c.want)
		if inApp < 10 || inExport < 10 {
			t.Errorf("%s: %d pixels of %v in the app, %d in the exported chart; want both to paint it", c.what, inApp, c.want, inExport)
		}
	}
}

// TestVerdictColoursAreTheThemes checks that the palette's verdict
// colours, which the HTML report boxes its verdict in, are the colours the
// app's light theme shows the verdict in (danger, warning, success).
func TestVerdictColoursAreTheThemes(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.LightTheme())
	for _, c := range []struct {
		verdict string
		name    fyne.ThemeColorName
	}{
		{recorder.VerdictSerialized, theme.ColorNameError},
		{recorder.VerdictBounded, theme.ColorNameWarning},
		{recorder.VerdictPartial, theme.ColorNameWarning},
		{recorder.VerdictConcurrent, theme.ColorNameSuccess},
	} {
		if got, want := palette.Verdict(c.verdict), toRGBA(theme.Color(c.name)); got != want {
			t.Errorf("verdict %s: palette %v, the app's %s colour %v", c.verdict, got, c.name, want)
		}
	}
}
