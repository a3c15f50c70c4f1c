package app

import (
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// noticeShown is how long a notice stays on the window.
const noticeShown = 5 * time.Second

// notices shows short messages that need no answer ("Saved to …") at the
// foot of the window for a few seconds, without a dialog to dismiss, and
// keeps them in the Log panel. It keeps their texts for tests.
type notices struct {
	mu    sync.Mutex
	texts []string
	popup *widget.PopUp // the notice on the window now (main goroutine)
	seq   int           // which notice is on the window (main goroutine)
}

// notify shows text as a notice. Call it on the main goroutine.
func (m *MainWindow) notify(text string) {
	m.notices.mu.Lock()
	m.notices.texts = append(m.notices.texts, text)
	m.notices.mu.Unlock()
	m.logNote(recorder.EventOther, text)
	n := &m.notices
	if n.popup != nil {
		n.popup.Hide()
	}
	label := widget.NewLabel(text)
	label.Truncation = fyne.TextTruncateEllipsis
	c := m.window.Canvas()
	n.popup = widget.NewPopUp(container.NewPadded(label), c)
	size := c.Size()
	w := min(label.MinSize().Width+40, size.Width-24)
	n.popup.Resize(fyne.NewSize(w, n.popup.MinSize().Height))
	n.popup.ShowAtPosition(fyne.NewPos(12, size.Height-n.popup.MinSize().Height-12))
	n.seq++
	seq, popup := n.seq, n.popup
	time.AfterFunc(noticeShown, func() {
		fyne.Do(func() {
			if n.seq == seq { // not replaced by a later notice
				popup.Hide()
				n.popup = nil
			}
		})
	})
}

// shownNotices returns the texts of the notices shown, oldest first.
func (m *MainWindow) shownNotices() []string {
	m.notices.mu.Lock()
	defer m.notices.mu.Unlock()
	return append([]string(nil), m.notices.texts...)
}
