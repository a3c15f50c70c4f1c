package app

import (
	"errors"
	"io/fs"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

// followInterval is how often a followed journal is read: fifteen times a
// second, often enough for a fan-out to grow smoothly, rarely enough that
// an idle journal costs nothing.
const followInterval = 66 * time.Millisecond

// followState is what following a journal has come to; the view reports
// each change to the callback given to [TimelineView.followJournal].
type followState struct {
	// Waiting: the file does not exist yet; it is looked for again at
	// every poll (start the inspector first, the proxy second).
	waiting bool
	// Ended: the journal's writer closed it (its end line was read), so
	// following stopped.
	ended bool
	// Err: reading failed (a damaged line, a file that shrank or cannot be
	// read), so following stopped; what was read stays shown.
	err error
}

// followJournal shows the journal at path as it grows, while another
// process (inspector proxy, inspector run) writes it: a goroutine reads
// what was appended [followInterval] apart and hands each new frame to the
// main goroutine, as [TimelineView.setRecording] does for a live
// recording. A file that does not exist yet is waited for. onState (on
// the main goroutine) hears whether it is waiting, following, ended or
// failed. The view is the follow's one owner: SetSnapshot, setRecording,
// another followJournal and Stop end it, and close the file.
func (t *TimelineView) followJournal(path string, onState func(followState)) {
	t.Stop()
	t.gantt.SetFollow(true)
	t.pick.Store(pickLatest)
	t.names[0] = ""
	t.followSeen = nil
	if onState == nil {
		onState = func(followState) {}
	}
	t.live = startJournalFeed(path, t.followEvery, t.handOff(), t.pick.Load, func(f liveFrame) {
		if n := endedSpans(f.raw); len(t.followSeen) == 0 || t.followSeen[len(t.followSeen)-1] != n {
			t.followSeen = append(t.followSeen, n)
		}
		t.apply(f)
	}, onState)
}

// FollowSeen returns how a followed journal grew: the number of ended
// spans (answered, failed, aborted) of each frame drawn that had a
// different number than the frame before.
func (t *TimelineView) FollowSeen() []int { return t.followSeen }

// startJournalFeed follows the journal at path every interval on its own
// goroutine, which alone touches the [recorder.Tail] and closes it when
// the feed stops, the journal ends or reading fails.
func startJournalFeed(path string, every time.Duration, runOnMain func(func()), pick func() int64, show func(liveFrame), state func(followState)) *liveFeed {
	l := newLiveFeed()
	if every <= 0 {
		every = followInterval
	}
	// onMain runs f on the main goroutine unless the feed was stopped
	// meanwhile, and waits for it: a busy main goroutine gets no backlog.
	onMain := func(f func()) bool {
		shown := make(chan struct{})
		runOnMain(func() {
			defer close(shown)
			select {
			case <-l.done:
			default:
				f()
			}
		})
		select {
		case <-l.done:
			return false
		case <-shown:
			return true
		}
	}
	go func() {
		defer close(l.exited)
		var (
			tail *recorder.Tail
			pace statsPace // which frames are summarized
		)
		defer func() {
			if tail != nil {
				tail.Close()
			}
		}()
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		waiting := false
		for first := true; ; first = false {
			if !first {
				select {
				case <-l.done:
					return
				case <-ticker.C:
				}
			}
			if tail == nil {
				t, err := recorder.OpenTail(path)
				if errors.Is(err, fs.ErrNotExist) {
					if !waiting {
						waiting = true
						onMain(func() { state(followState{waiting: true}) })
					}
					continue
				}
				if err != nil {
					onMain(func() { state(followState{err: err}) })
					return
				}
				tail = t
				if waiting && !onMain(func() { state(followState{}) }) {
					return
				}
			}
			changed, err := tail.Poll()
			snap := tail.Snapshot()
			if snap != nil && (changed || err != nil || tail.Ended() || hasOpen(snap)) {
				p := &pace
				if tail.Ended() {
					p = nil // the last frame: its own figures, open or not
				}
				f := makeLiveFrame(snap, pick(), nil, p)
				if !tail.Ended() {
					// its writer is still at it: the verdict is what it is so far
					f.scope.provisional = true
				}
				if !onMain(func() { show(f); timeline.FlushFrames() }) {
					return
				}
			}
			switch {
			case err != nil:
				onMain(func() { state(followState{err: err}) })
				return
			case tail.Ended():
				onMain(func() { state(followState{ended: true}) })
				return
			}
		}
	}()
	return l
}

// endedSpans counts the spans of snap no longer in flight.
func endedSpans(snap *recorder.Snapshot) int {
	n := 0
	for _, s := range snap.Spans {
		if !s.Open() {
			n++
		}
	}
	return n
}

// hasOpen reports whether a request of snap is still in flight (it grows
// with time, so the view is redrawn though nothing was appended).
func hasOpen(snap *recorder.Snapshot) bool {
	for _, s := range snap.Spans {
		if s.Open() {
			return true
		}
	}
	return false
}
