package engine

import (
	"sync"
	"sync/atomic"

	"github.com/fanout-inspector/inspector/recorder"
)

// hooks are the user's callbacks (log lines, tool-list changes, requests
// waiting for a person) and the queue that runs them off the session's
// goroutines.
type hooks struct {
	mu      sync.Mutex
	onLog   func(recorder.Event)
	onTools func()
	manual  func(*PendingRequest)
	waiting map[*PendingRequest]struct{} // requests waiting for a person

	notices *noticeQueue
}

// endWaits ends every wait for a person: the session has ended.
func (h *hooks) endWaits() {
	h.mu.Lock()
	for p := range h.waiting {
		p.end()
	}
	h.waiting = nil
	h.mu.Unlock()
}

// OnToolsChanged sets f to be called, from its own goroutine, when the
// server says its tool list changed.
func (s *Session) OnToolsChanged(f func()) {
	s.hooks.mu.Lock()
	s.hooks.onTools = f
	s.hooks.mu.Unlock()
}

// OnLog sets f to be called with each line the server writes to stderr,
// each log message it sends, and connection changes. f runs on its own
// goroutine and never holds up the session; if f falls far behind, events
// are dropped (see [Session.DroppedLogs]) rather than slowing the reader.
func (s *Session) OnLog(f func(recorder.Event)) {
	s.hooks.mu.Lock()
	s.hooks.onLog = f
	s.hooks.mu.Unlock()
}

// DroppedLogs reports how many OnLog and OnToolsChanged calls were
// dropped because the callback could not keep up.
func (s *Session) DroppedLogs() int64 { return s.hooks.notices.dropped.Load() }

// SetManualHandler sets f to be called, from its own goroutine, with each
// request that waits for a person (manual sampling or elicitation).
func (s *Session) SetManualHandler(f func(*PendingRequest)) {
	s.hooks.mu.Lock()
	s.hooks.manual = f
	s.hooks.mu.Unlock()
}

func (s *Session) toolsChanged() {
	s.hooks.mu.Lock()
	f := s.hooks.onTools
	s.hooks.mu.Unlock()
	if f != nil {
		s.hooks.notices.push(f)
	}
}

func (s *Session) emitLog(e recorder.Event) {
	s.hooks.mu.Lock()
	f := s.hooks.onLog
	s.hooks.mu.Unlock()
	if f != nil {
		e = s.rec.ScrubEvent(e) // the copy the log shows is as clean as the stored one
		s.hooks.notices.push(func() { f(e) })
	}
}

// noticeQueue runs callbacks on one goroutine, in order, dropping (and
// counting) what does not fit rather than blocking whoever pushes.
type noticeQueue struct {
	ch      chan func()
	quit    chan struct{}
	once    sync.Once
	dropped atomic.Int64
}

func newNoticeQueue(n int) *noticeQueue {
	q := &noticeQueue{ch: make(chan func(), n), quit: make(chan struct{})}
	go q.run()
	return q
}

func (q *noticeQueue) run() {
	for {
		select {
		case f := <-q.ch:
			f()
		case <-q.quit:
			for { // deliver what was queued before the stop
				select {
				case f := <-q.ch:
					f()
				default:
					return
				}
			}
		}
	}
}

func (q *noticeQueue) push(f func()) {
	select {
	case q.ch <- f:
	default:
		q.dropped.Add(1)
	}
}

func (q *noticeQueue) stop() { q.once.Do(func() { close(q.quit) }) }
