package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// TestLayoutAt1024 opens the main window at 1024×700: the timeline keeps
// most of the width (before, the plot shrank to about 200 px while the
// side panels kept theirs, and the window could not get narrower than
// 1034 px); the details unfold when a request is selected; Ctrl+B and
// Ctrl+I fold and unfold the sides.
func TestLayoutAt1024(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	const W, H = 1024, 700
	m.window.Resize(fyne.NewSize(W, H))
	m.timeline.SetSnapshot(fixedSnapshot())
	look := func() (timeline, plot, details, left float32) {
		m.window.Canvas().Capture()
		if m.panes.rightShown() {
			details = m.timeline.Details().Size().Width
		}
		if m.panes.leftShown() {
			left = m.panes.left.Size().Width
		}
		return m.timeline.Size().Width, m.timeline.Gantt().Size().Width - ganttGutter, details, left
	}
	press := func(key fyne.KeyName) {
		m.window.Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShortcutDefault})
	}
	if min := m.window.Content().MinSize().Width; min > W {
		t.Fatalf("the window cannot be %d px wide: its content needs %.0f", W, min)
	}

	tl, plot, details, left := look()
	t.Logf("nothing selected: timeline %.0f px (%.0f%%), plot %.0f px, left %.0f, details %.0f", tl, 100*tl/W, plot, left, details)
	if tl < 0.55*W || details != 0 {
		t.Errorf("nothing selected: the timeline has %.0f px of %d (want ≥ 55%%), the details %.0f (want folded)", tl, W, details)
	}
	if left < leftFloor {
		t.Errorf("the left panel has %.0f px, want at least %d", left, leftFloor)
	}

	m.timeline.Gantt().Select(4)
	tl, plot, details, left = look()
	t.Logf("a request selected: timeline %.0f px (%.0f%%), plot %.0f px, left %.0f, details %.0f", tl, 100*tl/W, plot, left, details)
	if !m.panes.rightShown() || details < detailsMinWidth {
		t.Errorf("selecting a request did not unfold the details (%.0f px)", details)
	}
	// both sides at their floors: the timeline keeps about half
	if body := m.panes.Size().Width; tl < 0.48*body {
		t.Errorf("with the details shown the timeline has %.0f px of the window's %.0f, want ≥ 48%%", tl, body)
	}

	press(fyne.KeyB)
	tl2, _, _, left := look()
	if m.panes.leftShown() || left != 0 || tl2 < tl+200 {
		t.Errorf("Ctrl+B: left panel shown %v (%.0f px), timeline %.0f px (was %.0f)", m.panes.leftShown(), left, tl2, tl)
	}
	press(fyne.KeyI)
	tl3, _, details, _ := look()
	if m.panes.rightShown() || details != 0 || tl3 < m.panes.Size().Width-2*handleWidth-1 {
		t.Errorf("Ctrl+I: details shown %v, timeline %.0f px of %d", m.panes.rightShown(), tl3, W)
	}
	// a live frame of the same selection does not unfold them again
	m.timeline.Details().setSpan(m.timeline.Gantt().Selected(), nil)
	if m.panes.rightShown() {
		t.Errorf("the same request shown again unfolded the details a person folded")
	}
	// the handles fold and unfold too, and the menu ticks what is shown
	test.Tap(m.panes.leftHandle)
	test.Tap(m.panes.rightHandle)
	if !m.panes.leftShown() || !m.panes.rightShown() {
		t.Errorf("tapping the handles did not unfold the sides")
	}
	view := m.window.MainMenu().Items[2]
	for _, it := range view.Items[len(view.Items)-2:] {
		if !it.Checked {
			t.Errorf("View ▸ %s is not ticked while shown", it.Label)
		}
	}
	// Escape clears the selection: the details fold
	m.timeline.Gantt().Select(0)
	if m.panes.rightShown() {
		t.Errorf("the details stay unfolded with nothing selected")
	}
}

// TestPaneWidths: the sides shrink before the timeline does.
func TestPaneWidths(t *testing.T) {
	for _, tt := range []struct {
		total, leftWant, rightWant float32
		leftOn, rightOn            bool
		l, c, r                    float32
	}{
		{1400, 398, 308, true, false, 398, 1400 - 32 - 398, 0},
		{1024, 398, 225, true, false, 398, 1024 - 32 - 398, 0},
		{1024, 398, 225, true, true, leftFloor, 1024 - 32 - leftFloor - detailsMinWidth, detailsMinWidth},
		{1024, 398, 225, false, true, 0, 1024 - 32 - 225, 225},
		{800, 398, 225, true, true, leftFloor, 800 - 32 - leftFloor - detailsMinWidth, detailsMinWidth},
	} {
		l, c, r := paneWidths(tt.total, tt.leftWant, tt.rightWant, 380, tt.leftOn, tt.rightOn)
		if abs(l-tt.l) > 0.5 || abs(c-tt.c) > 0.5 || abs(r-tt.r) > 0.5 {
			t.Errorf("%.0f px, sides %v %v: %.1f | %.1f | %.1f, want %.1f | %.1f | %.1f", tt.total, tt.leftOn, tt.rightOn, l, c, r, tt.l, tt.c, tt.r)
		}
	}
}

func abs(f float32) float32 { return max(f, -f) }
