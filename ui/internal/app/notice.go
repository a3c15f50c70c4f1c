package app

import (
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// noticeShown is how long a notice stays on the window.
const noticeShown = 5 * time.Second

// notices shows short messages that need no answer ("Saved to …") in a
// bar across the foot of the window for a few seconds, over the window's content and
// without taking its clicks (no dialog to dismiss, no popup that eats the
// next click), and keeps them in the Logs tab. It keeps their texts for
// tests.
type notices struct {
	mu    sync.Mutex
	texts []string
	// layer lies over the window's content: the notice at its foot,
	// hidden while there is none (main goroutine).
	layer *fyne.Container
	label *widget.Label
	seq   int // which notice is shown (main goroutine)
}

// newNoticeLayer makes the layer notices show on, hidden.
func (n *notices) newNoticeLayer() *fyne.Container {
	n.label = widget.NewLabel("")
	n.label.Truncation = fyne.TextTruncateEllipsis
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	bg.StrokeColor = theme.Color(theme.ColorNameSeparator)
	bg.StrokeWidth = 1
	bg.CornerRadius = theme.InputRadiusSize()
	box := container.NewStack(bg, container.NewPadded(n.label))
	// as wide as the window: a long path is cut at its edge, never widening
	// the window (the layer's least size is the window's too)
	n.layer = container.NewVBox(layout.NewSpacer(), box)
	n.layer.Hide()
	return n.layer
}

// notify shows text as a notice. Call it on the main goroutine.
func (m *MainWindow) notify(text string) {
	n := &m.notices
	n.mu.Lock()
	n.texts = append(n.texts, text)
	n.mu.Unlock()
	m.logNote(recorder.EventOther, text)
	if n.layer == nil {
		return
	}
	n.label.SetText(text)
	n.layer.Show()
	n.layer.Refresh()
	n.seq++
	seq := n.seq
	m.gate.After(noticeShown, func() {
		if n.seq == seq { // not replaced by a later notice
			n.layer.Hide()
		}
	})
}

// shownNotices returns the texts of the notices shown, oldest first.
func (m *MainWindow) shownNotices() []string {
	m.notices.mu.Lock()
	defer m.notices.mu.Unlock()
	return append([]string(nil), m.notices.texts...)
}
