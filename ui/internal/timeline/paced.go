package timeline

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2/canvas"
)

// LiveTextEvery is how often a text that a live run changes with every
// frame (a row's count, the number of requests, the throughput, the stats
// line, the Workload panel's progress) is redrawn. A changed text is a
// new texture for the painter, and a wrapped one is measured again word
// by word: at 2,000 calls a second, redrawn five times a second, such
// texts took more than half of the main goroutine's time, for figures
// nobody reads faster than twice a second.
const LiveTextEvery = 500 * time.Millisecond

// paced is the pacing of one such text (see [setPaced]).
type paced struct {
	key any       // what the text is about: another key shows at once
	at  time.Time // when it last changed
	due time.Time // when the redraw asked for a held-back change comes
}

// setPaced is [setText] for a text whose figure changes with every live
// frame: a change comes at most every LiveTextEvery. A change held back asks
// for a redraw (redraw) when the interval is up, so the last figure always
// shows, at most LiveTextEvery late. A text about something else (key: the
// group a pooled row label now stands for), a first text or a changed
// colour shows at once, and so does everything when frames are not paced
// (MinFrameInterval 0, as in tests).
func setPaced(t *canvas.Text, p *paced, key any, text string, c color.Color, a *timeAxis, redraw func()) {
	if t.Text == text && t.Color == c {
		return
	}
	if MinFrameInterval > 0 && p.key == key && t.Text != "" && t.Color == c {
		if wait := LiveTextEvery - time.Since(p.at); wait > 0 {
			if due := p.at.Add(LiveTextEvery); !p.due.Equal(due) {
				p.due = due // one redraw an interval
				a.frame.gate.After(wait, redraw)
			}
			return
		}
	}
	p.key, p.at = key, time.Now()
	setText(t, text, c)
}
