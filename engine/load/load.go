package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// load is one run of a [Workload] over one or more sessions sharing a
// recording: it hands out the calls (round robin over the sessions),
// counts their outcomes and reports progress.
type load struct {
	ctx      context.Context
	sessions []*engine.Session
	w        Workload
	progress func(Progress)
	total    int // Progress.Total

	turn    atomic.Int64 // the next call's session, round robin
	stopped atomic.Bool  // a session was lost: start no more calls

	mu         sync.Mutex
	progressMu sync.Mutex
	res        RunResult
	seen       map[string]bool
	start      time.Time
	lastAt     time.Time
	lost       *engine.Session // the first session whose connection broke

	mix *mix // the operations a call picks from, nil for one tool (mix.go)
}

// Run runs the workload w over sessions, which share one recording,
// handing the calls to them in turn (round robin): each call an outgoing
// span with the server requests it causes as children. progress, if not
// nil, is called after each call, from the calling goroutines but one
// call at a time, with Done increasing.
//
// Run returns an error when the workload is invalid or when a session's connection was lost during the run, which stops
// it; failed calls alone are counted in the result, not returned as an
// error.
func Run(ctx context.Context, sessions []*engine.Session, w Workload, progress func(Progress)) (RunResult, error) {
	if err := w.Validate(); err != nil {
		return RunResult{}, err
	}
	if len(sessions) == 0 {
		return RunResult{}, fmt.Errorf("run: no session to call %s on: connect first", w.what())
	}
	l := &load{ctx: ctx, sessions: sessions, w: w, progress: progress, seen: map[string]bool{}, mix: newMix(w)}
	for _, s := range sessions {
		if err := s.CheckOpen("run"); err != nil {
			return RunResult{}, err
		}
	}
	defer holdGCRoom()() // one call's fan-out too (see gcroom.go)
	l.start = time.Now()
	switch {
	case w.open():
		if w.Rate > 0 {
			l.total = int(math.Ceil(w.Rate * w.Duration.Seconds()))
		}
		l.openLoop()
	case len(w.Stages) > 0:
		l.rampedLoop()
	case w.Duration > 0:
		l.closedLoop(max(w.Concurrency, 1), func(int) bool { return time.Since(l.start) < w.Duration })
	default:
		calls := max(w.Calls, 1)
		l.total = calls
		l.closedLoop(min(max(w.Concurrency, 1), calls), func(n int) bool { return n < calls })
	}
	return l.finish()
}

// next returns the session the next call goes to.
func (l *load) next() *engine.Session {
	return l.sessions[int(l.turn.Add(1)-1)%len(l.sessions)]
}

// going reports whether calls may still be started.
func (l *load) going() bool { return !l.stopped.Load() && l.ctx.Err() == nil }

// closedLoop runs conc callers that each call again when answered, as
// long as more(calls started so far) holds.
func (l *load) closedLoop(conc int, more func(started int) bool) {
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		started int
	)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if !l.going() || !more(started) {
					mu.Unlock()
					return
				}
				started++
				mu.Unlock()
				l.call(l.next(), time.Time{})
			}
		}()
	}
	wg.Wait()
}

// rampedLoop is a closed loop whose number of callers follows the
// stages, from the workload's Concurrency: every 10 ms the wanted number
// is set, and caller k calls only while k is below it.
func (l *load) rampedLoop() {
	from := float64(l.w.Concurrency)
	most := from
	for _, st := range l.w.Stages {
		most = math.Max(most, st.Target)
	}
	length := stagesDuration(l.w.Stages)
	var (
		mu     sync.Mutex
		cond   = sync.NewCond(&mu)
		wanted = int(math.Round(from))
		over   bool
	)
	done := make(chan struct{})
	go func() { // the controller
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-l.ctx.Done():
			case <-done:
			}
			el := time.Since(l.start)
			mu.Lock()
			wanted = int(math.Round(level(from, l.w.Stages, el)))
			over = el >= length || !l.going()
			mu.Unlock()
			cond.Broadcast()
			if over {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for k := range int(math.Ceil(most)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				for !over && k >= wanted {
					cond.Wait()
				}
				stop := over
				mu.Unlock()
				if stop {
					return
				}
				l.call(l.next(), time.Time{})
			}
		}()
	}
	wg.Wait()
	close(done)
}

// openLoop starts calls on the schedule whatever their answers do, and
// drops an arrival while MaxInFlight calls are outstanding.
//
// Shortly before each arrival (wakeEarly) the loop hands it to a sender
// goroutine, an idle one from the run's earlier calls when there is one
// (so that a start pays neither a goroutine's creation nor the growth of
// its stack), else a new one. The sender sleeps out the rest precisely
// and makes the call at once: no other goroutine has to be woken between
// the arrival and the call's write.
func (l *load) openLoop() {
	sched := newSchedule(l.w.Rate, l.w.Duration, l.w.Stages)
	var (
		wg   sync.WaitGroup
		idle = make(chan arrival) // idle senders wait here
		o    outstanding
	)
	sender := func(a arrival) {
		defer wg.Done()
		for ok := true; ok; a, ok = <-idle {
			sleepUntil(a.at)
			if !l.going() {
				continue
			}
			if n, sent := o.take(l.w.MaxInFlight); !sent {
				l.drop(a.s, a.at, n)
				continue
			}
			l.call(a.s, a.at)
			o.done()
		}
	}
	clock := newArrivalClock()
	defer clock.stop()
	for i := 0; l.going(); i++ {
		off, ok := sched.at(i)
		if !ok {
			break
		}
		a := arrival{at: l.start.Add(off)}
		if !clock.wakeBefore(l.ctx, a.at) || !l.going() {
			break
		}
		a.s = l.next()
		select {
		case idle <- a:
		default:
			wg.Add(1)
			go sender(a)
		}
	}
	close(idle)
	wg.Wait()
}

// arrival is an open-loop call to make: on s, meant to start at at.
type arrival struct {
	s  *engine.Session
	at time.Time
}

// outstanding counts an open loop's calls sent and not yet answered.
type outstanding struct{ n atomic.Int64 }

// take counts one more call unless limit (0: no bound) are outstanding;
// false and how many are when it does not.
func (o *outstanding) take(limit int) (int64, bool) {
	for {
		n := o.n.Load()
		if limit > 0 && n >= int64(limit) {
			return n, false
		}
		if o.n.CompareAndSwap(n, n+1) {
			return n + 1, true
		}
	}
}

// done counts a call answered.
func (o *outstanding) done() { o.n.Add(-1) }

// drop records an arrival at its intended start that was not sent.
func (l *load) drop(s *engine.Session, at time.Time, outstanding int64) {
	rec := s.Recording()
	rec.AddEvent(recorder.Event{At: at.Sub(rec.Start()), Session: s.Name(), Kind: recorder.EventDropped,
		Text: fmt.Sprintf("a call of %s was not sent: %d calls were outstanding (max in flight %d)", l.w.what(), outstanding, l.w.MaxInFlight)})
	l.mu.Lock()
	l.res.Dropped++
	p := l.progressLocked()
	if l.progress != nil {
		l.progressMu.Lock()
	}
	l.mu.Unlock()
	if l.progress != nil {
		l.progress(p)
		l.progressMu.Unlock()
	}
}

// progressLocked is the progress so far; l.mu is held.
func (l *load) progressLocked() Progress {
	return Progress{Total: l.total, Done: l.res.OK + l.res.Failed, OK: l.res.OK, Failed: l.res.Failed,
		Dropped: l.res.Dropped, Elapsed: time.Since(l.start)}
}

// call makes one call on s, meant to start at intended (zero outside an
// open loop), and counts its outcome.
func (l *load) call(s *engine.Session, intended time.Time) {
	out := l.send(s, intended) // mix.go
	failText := out.Failure
	if len(l.sessions) > 1 && failText != "" {
		failText = s.Name() + ": " + failText
	}

	l.mu.Lock()
	l.lastAt = time.Now()
	if failText == "" {
		l.res.OK++
	} else {
		l.res.Failed++
		if !l.seen[failText] && len(l.res.Errors) < maxErrors {
			l.seen[failText] = true
			l.res.Errors = append(l.res.Errors, failText)
		}
		if out.Lost {
			l.stopped.Store(true)
			if l.lost == nil {
				l.lost = s
			}
		}
	}
	p := l.progressLocked()
	if l.progress != nil {
		// One at a time and in order, while the next calls go on.
		l.progressMu.Lock()
	}
	l.mu.Unlock()
	if l.progress != nil {
		l.progress(p)
		l.progressMu.Unlock()
	}
}

// finish returns the run's result, and why it stopped early if it did.
func (l *load) finish() (RunResult, error) {
	res := l.res
	res.Total = l.total
	res.Operations = l.mix.stats()
	if res.Total == 0 {
		res.Total = res.OK + res.Failed
	}
	if !l.lastAt.IsZero() {
		res.Elapsed = l.lastAt.Sub(l.start)
	}
	done := res.OK + res.Failed
	of := fmt.Sprintf("%d calls", done)
	if l.total > 0 {
		of = fmt.Sprintf("%d of %d calls", done, l.total)
	}
	for _, s := range l.sessions {
		if s != l.lost && !ended(s) {
			continue
		}
		reason := errors.New("the connection was lost")
		if waitEnded(s, 2*time.Second) {
			if cause := s.Err(); cause != nil {
				reason = cause // a ConnectionLostError, for errors.As
			}
		}
		who := ""
		if len(l.sessions) > 1 {
			who = " of session " + s.Name()
		}
		return res, fmt.Errorf("run stopped: the connection%s was lost after %s: %w", who, of, reason)
	}
	if err := l.ctx.Err(); err != nil {
		return res, fmt.Errorf("run stopped after %s: %w", of, err)
	}
	return res, nil
}

// ended reports whether s's connection has ended.
func ended(s *engine.Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// waitEnded waits up to d for s's connection to end, and reports whether
// it has.
func waitEnded(s *engine.Session, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.Done():
		return true
	case <-t.C:
		return false
	}
}
