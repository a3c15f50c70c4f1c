package timeline

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestPictureEndsAtLastRow: a Gantt with fewer rows than room draws its
// picture down to its last row only, and the lines that run down its
// whole height (the grid under each tick, the gutter's edge, the live
// end, the keyboard focus's frame) go on below it, each in the pixel
// column it has in the picture.
func TestPictureEndsAtLastRow(t *testing.T) {
	test.NewTempApp(t)
	g, w := showGantt(t, fanoutSnapshot(5, 5, 500*ms), fyne.NewSize(600, 400))
	g.SetFollow(true)
	w.Canvas().Focus(g)
	img := w.Canvas().Capture()

	r := test.WidgetRenderer(g).(*ganttRenderer)
	foot := ganttRulerH + ganttLaneH + float32(len(g.Rows()))*ganttRowH
	if got := r.raster.Size().Height; got != foot {
		t.Fatalf("the picture is %v tall, want %v: the ruler, the lane and %d rows", got, foot, len(g.Rows()))
	}
	bg := toRGBA(img.At(img.Bounds().Dx()/2+3, int(foot)+40))
	lines := func(y int) []int {
		var xs []int
		for x := range img.Bounds().Dx() {
			if toRGBA(img.At(x, y)) != bg {
				xs = append(xs, x)
			}
		}
		return xs
	}
	// the notification lane has no events here: only the grid, the
	// gutter's edge and the frame cross it (the live end stops at the
	// ruler's lane); under the rows they go on, and so does the live end
	inLane, below := lines(ganttRulerH+ganttLaneH/2), lines(int(foot)+40)
	if len(inLane) < 5 {
		t.Fatalf("%d line pixels across the lane, want the grid, the gutter's edge and the frame: %v", len(inLane), inLane)
	}
	var extra []int
	for _, x := range below {
		if !slices.Contains(inLane, x) {
			extra = append(extra, x)
		}
	}
	if missing := len(inLane) - (len(below) - len(extra)); missing != 0 || len(extra) != 1 ||
		toRGBA(img.At(extra[0], int(foot)+40)) != newGanttPalette().now {
		t.Errorf("lines under the rows at x = %v, want those crossing the lane (%v) and the live end", below, inLane)
	}
	if foot := lines(img.Bounds().Dy() - 1); len(foot) != img.Bounds().Dx() {
		t.Errorf("the focus frame's foot covers %d of %d pixels of the bottom row", len(foot), img.Bounds().Dx())
	}

	// without the live end and the focus, their lines go from under the rows too
	g.SetFollow(false)
	w.Canvas().Unfocus()
	img = w.Canvas().Capture()
	if inLane, below := lines(ganttRulerH+ganttLaneH/2), lines(int(foot)+40); !slices.Equal(inLane, below) {
		t.Errorf("after the live end and the focus went: lines under the rows at x = %v, across the lane %v", below, inLane)
	}
}
