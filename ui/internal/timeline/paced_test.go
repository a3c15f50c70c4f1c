package timeline

import (
	"image/color"
	"testing"
	"testing/synctest"
	"time"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// TestPacedTextShowsTheLastFigure: a live count that changes faster than
// LiveTextEvery is redrawn at most once per interval, and the last figure
// shows when the interval is up; a text about another group, or in
// another colour, shows at once.
func TestPacedTextShowsTheLastFigure(t *testing.T) {
	test.NewTempApp(t)
	defer func(was time.Duration) { MinFrameInterval = was }(MinFrameInterval)
	MinFrameInterval = 16 * time.Millisecond // paced, as in the app

	synctest.Test(t, func(t *testing.T) {
		txt := canvas.NewText("", color.White)
		var p paced
		redrawn := make(chan time.Time, 4)
		latest := ""
		set := func(key any, text string, c color.Color) {
			latest = text
			setPaced(txt, &p, key, text, c, newTimeAxis(), func() { redrawn <- time.Now() })
		}
		start := time.Now()
		set("echo", "×1", color.White)
		if txt.Text != "×1" {
			t.Fatalf("the first figure shows %q, want ×1 at once", txt.Text)
		}
		set("echo", "×2", color.White)
		set("echo", "×3", color.White)
		if txt.Text != "×1" {
			t.Errorf("changed twice within %v, the text shows %q: want ×1 until the interval is up", LiveTextEvery, txt.Text)
		}
		at := <-redrawn // the one redraw asked for
		if got := at.Sub(start); got != LiveTextEvery {
			t.Errorf("the redraw came after %v, want %v", got, LiveTextEvery)
		}
		set("echo", latest, color.White) // the frame it asked for
		if txt.Text != "×3" {
			t.Errorf("after the interval the text shows %q, want the last figure ×3", txt.Text)
		}
		synctest.Wait()
		if len(redrawn) != 0 {
			t.Errorf("%d more redraws asked for, want the one", len(redrawn))
		}

		set("roots", "×7", color.White) // the pooled text now stands for another group
		if txt.Text != "×7" {
			t.Errorf("a text about another group shows %q, want ×7 at once", txt.Text)
		}
		red := color.NRGBA{R: 255, A: 255}
		set("roots", "×7, 1 failed", red)
		if txt.Text != "×7, 1 failed" || txt.Color != red {
			t.Errorf("a text that turned red shows %q in %v, want it at once", txt.Text, txt.Color)
		}
	})
}
