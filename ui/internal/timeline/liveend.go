package timeline

import (
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// liveEnd keeps the live end a followed Gantt slides to up to date as
// the recording grows: [Extent], which walks every span and event, took a
// growing share of each live frame. Answered spans are settled once
// ([settledSpans]); events are only ever appended.
type liveEnd struct {
	spans  settledSpans
	end    time.Duration // the latest instant of the settled spans
	events int           // events looked at
	evEnd  time.Duration // the latest instant of those
}

// of returns where following snap slides to: [Extent] of snap while a
// request is in flight; when none is, the latest instant recorded (not
// Now, the wall clock), so that an idle view stays where the bars are.
func (l *liveEnd) of(snap *recorder.Snapshot) time.Duration {
	l.spans.walk(snap, func() { l.end, l.events, l.evEnd = 0, 0, 0 }, func(_ int, s *recorder.Span) bool {
		if s.Open() {
			return false
		}
		l.end = max(l.end, spanExtent(s))
		return true
	})
	end, open := l.end, false
	l.spans.each(snap, func(s *recorder.Span) {
		end, open = max(end, spanExtent(s)), true
	})
	if len(snap.Events) < l.events {
		l.events, l.evEnd = 0, 0
	}
	for ; l.events < len(snap.Events); l.events++ {
		e := snap.Events[l.events]
		l.evEnd = max(l.evEnd, e.At+max(e.Stalled, 0))
	}
	end = max(end, l.evEnd)
	if open {
		end = max(end, snap.Now)
	}
	return end
}
