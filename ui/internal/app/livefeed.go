package app

import (
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

// liveFrame is what one tick hands to the main goroutine: the snapshot and
// what was computed from it off the main goroutine. Everything the view
// shows in a frame (the Gantt, the chart, the stats) comes from its one
// snapshot.
type liveFrame struct {
	snap  *recorder.Snapshot // as drawn: see [TimelineView.snap]
	raw   *recorder.Snapshot // as recorded
	steps []recorder.Step
	scope runScope
	// chart and chartSteps are what the charts draw: the part of snap in
	// scope and its steps ([liveFrame.scopeCharts]); charted is what the
	// concurrency chart plots of it ([chartedSteps]), made with summary
	// (nil in a stale frame).
	chart      *recorder.Snapshot
	chartSteps []recorder.Step
	charted    []recorder.Step
	summary    recorder.Summary // of scope
	// stale says summary is the one made for an earlier frame of the same
	// run, kept while requests are in flight (see [statsPace]): the stats
	// line leaves it alone
	stale bool
	open  bool // some request is still in flight
}

// statsEvery is how often the stats line follows a live run while it
// goes on (see [statsPace]): as often as the other live texts.
const statsEvery = timeline.LiveTextEvery

// statsPace decides which frames of a live feed get a summary of their
// own. While a run goes on the figures change every frame, faster than
// anyone reads them, and summarizing a 20,000-call run took about a
// tenth of the app's CPU at 60 frames a second (CPU the painter and the
// calls wanted); each new stats text also costs the painter a new texture.
// So a frame of a run still going, or with requests in flight, is
// summarized at most every statsEvery, and the others carry the last
// summary, marked stale. A run still going counts even with nothing in
// flight: an open loop's calls are in flight for a fraction of each
// arrival, and pacing by them alone summarized half the frames of a run
// at 2,000 calls/s. A frame of a run that has ended with nothing in
// flight, one of another run (the picker changed, or a new run began),
// and every frame when frames are not paced (MinFrameInterval 0, as in
// tests) is summarized.
type statsPace struct {
	at   time.Time
	of   paceKey // what the last summary describes
	last recorder.Summary
	made bool
}

// paceKey is what a frame's summary describes: the pick and the run it
// chose.
type paceKey struct {
	pick  int64
	run   string
	start time.Duration
	whole bool
}

// due reports whether a frame of of needs a summary of its own; going
// says its run goes on or requests are in flight.
func (p *statsPace) due(of paceKey, going bool) bool {
	return !going || !p.made || of != p.of || timeline.MinFrameInterval <= 0 || time.Since(p.at) >= statsEvery
}

// keep notes sum, the summary made for a frame of of.
func (p *statsPace) keep(of paceKey, sum recorder.Summary) {
	p.at, p.of, p.last, p.made = time.Now(), of, sum, true
}

// makeFrame makes the frame of snap whose stats describe the part of it
// pick chooses.
//
// A proxy's recording is drawn with the client's work estimated
// ([recorder.EstimateClientWork]): the proxy measured when each request
// reached the client and when it was answered, not when the client began
// on it, and a Gantt drawn from the raw spans would show every request
// waiting for its whole life. Its stats are the proxy summary
// ([recorder.Summarize]), which speaks of the client.
func makeFrame(snap *recorder.Snapshot, pick int64) liveFrame {
	return makeLiveFrame(snap, pick, nil, nil)
}

// makeLiveFrame is [makeFrame] for a feed that follows a recording: the
// run it describes is segmented with seg, which copies only the spans
// that changed since the last frame; copying every span of a long run
// each frame took a third of making one (a 20,000-call load test: 16 ms).
// A nil seg segments afresh. With pace, a frame in flight is summarized
// only when pace says so (see [statsPace]); with nil, always.
func makeLiveFrame(snap *recorder.Snapshot, pick int64, seg *recorder.Segmenter, pace *statsPace) liveFrame {
	drawn := recorder.EstimateClientWork(snap)
	steps := recorder.Steps(drawn)
	f := liveFrame{snap: drawn, raw: snap, steps: steps, scope: scopeOf(drawn, pick), open: hasOpen(snap)}
	f.scopeCharts()
	of := paceKey{pick: pick, run: f.scope.run.Name, start: f.scope.run.Start, whole: f.scope.whole}
	if pace != nil && !pace.due(of, f.open || f.scope.provisional) {
		f.summary, f.stale = pace.last, true
		return f
	}
	if seg != nil && !f.scope.whole {
		f.summarized(recorder.Summarize(seg.Segment(drawn, f.scope.run)))
	} else {
		f.summarized(f.scope.summarize(drawn, steps))
	}
	if pace != nil {
		pace.keep(of, f.summary)
	}
	return f
}

// scopeCharts sets what the charts draw of the frame: the part of its
// snapshot in its scope, and that part's steps. The feed does it off the
// main goroutine; in [TimelineView.apply] it walked every span of the
// recording, and copied those of the run, in each frame the window
// waited for (about 2 ms a frame at 40,000 calls).
func (f *liveFrame) scopeCharts() {
	f.chart, f.chartSteps = f.snap, f.steps
	if cs := scopeSnapshot(f.snap, f.scope); cs != f.snap {
		f.chart, f.chartSteps = cs, recorder.Steps(cs)
	}
}

// summarized gives the frame sum, its own summary, and what the
// concurrency chart plots with it (charted, of the part set by
// [liveFrame.scopeCharts]).
func (f *liveFrame) summarized(sum recorder.Summary) {
	f.summary = sum
	f.charted = chartedSteps(f.chart, f.chartSteps)
}

// liveFeed is the one ticker that follows a live recording.
type liveFeed struct {
	done   chan struct{}
	exited chan struct{} // closed when the feed's goroutine has returned
	once   sync.Once
}

// startLiveFeed takes a snapshot of rec about 60 times a second when it
// changed (or while requests are open, since they grow with time), makes a
// frame of it (its steps and summary) and hands it to show through
// runOnMain. A frame is made while the one before waits for the main
// goroutine (busy painting the window, the longest part of a frame under
// load), and handed over once that one was shown, and a frame interval
// after it was handed over: at most one frame waits for the main
// goroutine, so a busy one never builds a backlog, making a frame no
// longer adds to the time between two, and no two frames are shown for
// one paint of the window. The next is
// taken one frame interval after the last one was begun (at once when
// that is past), not at the next tick of a fixed clock, which lost a
// whole interval whenever showing a frame straddled a tick; nor sooner
// after the last one than that one took to make, so a huge recording is
// shown less often rather than keeping a core busy.
func startLiveFeed(rec *recorder.Recording, runOnMain func(func()), pick func() int64, show func(liveFrame)) *liveFeed {
	l := newLiveFeed()
	interval := max(timeline.MinFrameInterval, time.Millisecond)
	go func() {
		defer close(l.exited)
		timer := time.NewTimer(0)
		defer timer.Stop()
		pause := time.NewTimer(0)
		defer pause.Stop()
		<-pause.C
		shown := make(chan struct{}, 1)
		var (
			last        uint64
			first, open = true, false
			waiting     bool               // a frame was handed over and not shown yet
			handed      time.Time          // when the last one was
			seg         recorder.Segmenter // the spans each frame's run shares with the last
			pace        statsPace          // which frames are summarized
		)
		for {
			select {
			case <-l.done:
				return
			case <-timer.C:
			}
			if v := rec.Version(); !first && v == last && !open {
				timer.Reset(interval)
				continue
			}
			first = false
			began := time.Now()
			snap := rec.Snapshot()
			last = snap.Version
			f := makeLiveFrame(snap, pick(), &seg, &pace)
			// A frame that carries the last summary is followed by
			// another even if nothing changes, until one has its own:
			// the stats line never keeps a stale summary once the
			// recording is still.
			open = f.open || f.stale
			made := time.Since(began)
			if waiting { // the frame before is not shown yet
				select {
				case <-l.done:
					return
				case <-shown:
				}
			}
			// nor two frames in one paint: a frame made while the main
			// goroutine was busy would follow the one before at once
			if wait := interval - time.Since(handed); wait > 0 {
				pause.Reset(wait)
				select {
				case <-l.done:
					return
				case <-pause.C:
				}
			}
			handed = time.Now()
			runOnMain(func() {
				defer func() { shown <- struct{}{} }()
				select {
				case <-l.done:
					return // stopped meanwhile: show nothing more
				default:
				}
				show(f)
				timeline.FlushFrames() // drawn in the next paint, not a turn later
			})
			waiting = true
			timer.Reset(max(interval-time.Since(began), made))
		}
	}()
	return l
}

// newLiveFeed returns a feed whose goroutine the caller starts, closing
// exited when it returns.
func newLiveFeed() *liveFeed {
	return &liveFeed{done: make(chan struct{}), exited: make(chan struct{})}
}

// stop ends the feed and waits (up to a second) for its goroutine to
// return. Once the app's main loop has ended, fyne.Do runs a frame at
// once on the feed's own goroutine: without the wait, a frame begun just
// before stop could still be drawing while the window shuts down.
func (l *liveFeed) stop() {
	l.once.Do(func() { close(l.done) })
	select {
	case <-l.exited:
	case <-time.After(time.Second):
	}
}
