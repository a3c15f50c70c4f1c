package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// intendedKey is the context key of an open-loop call's intended start
// (a time.Time), which the call's span records (call.go).
type intendedKey struct{}

// load is one run of a [Workload] over one or more sessions sharing a
// recording: it hands out the calls (round robin over the sessions),
// counts their outcomes and reports progress.
type load struct {
	ctx      context.Context
	sessions []*Session
	w        Workload
	args     json.RawMessage
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
	lost       *Session // the first session whose connection broke
}

// runLoad runs w over sessions, which share one recording.
func runLoad(ctx context.Context, sessions []*Session, w Workload, progress func(Progress)) (RunResult, error) {
	if err := w.Validate(); err != nil {
		return RunResult{}, err
	}
	l := &load{ctx: ctx, sessions: sessions, w: w, args: json.RawMessage("{}"), progress: progress, seen: map[string]bool{}}
	if len(w.Args) > 0 {
		l.args = w.Args
	}
	for _, s := range sessions {
		select {
		case <-s.life.done:
			return RunResult{}, s.explainCallError("run", mcp.ErrConnectionClosed)
		default:
		}
	}
	if w.Calls > 1 || w.length() > 0 || w.open() { // a load, not one call
		defer holdGCRoom()()
	}
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
func (l *load) next() *Session {
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
	s  *Session
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
func (l *load) drop(s *Session, at time.Time, outstanding int64) {
	rec := s.rec
	rec.AddEvent(recorder.Event{At: at.Sub(rec.Start()), Session: s.name, Kind: recorder.EventDropped,
		Text: fmt.Sprintf("a call of %s was not sent: %d calls were outstanding (max in flight %d)", l.w.Tool, outstanding, l.w.MaxInFlight)})
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
func (l *load) call(s *Session, intended time.Time) {
	ctx := l.ctx
	if !intended.IsZero() {
		ctx = context.WithValue(ctx, intendedKey{}, intended)
	}
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if l.w.CallTimeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, l.w.CallTimeout)
	}
	r, err := s.cs.CallTool(cctx, &mcp.CallToolParams{Name: l.w.Tool, Arguments: l.args})
	cancel()
	failText := ""
	switch {
	case err != nil && s.isDone() && s.Err() != nil:
		failText = "the connection was lost: " + s.Err().Error()
	case err != nil:
		failText = err.Error()
		if l.w.CallTimeout > 0 && errors.Is(err, context.DeadlineExceeded) && l.ctx.Err() == nil {
			failText = fmt.Sprintf("no result within the call timeout (%v)", l.w.CallTimeout)
		}
	case r.IsError:
		failText = toolErrorText(r)
	}
	failText = s.rec.Scrub(failText) // a server may echo a credential in its error
	if len(l.sessions) > 1 && failText != "" {
		failText = s.name + ": " + failText
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
		if err != nil && s.connectionBroken(err) {
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
		if s != l.lost && !s.isDone() {
			continue
		}
		reason := errors.New("the connection was lost")
		if s.waitDone(2 * time.Second) {
			if cause := s.Err(); cause != nil {
				reason = cause // a ConnectionLostError, for errors.As
			}
		}
		who := ""
		if len(l.sessions) > 1 {
			who = " of session " + s.name
		}
		return res, fmt.Errorf("run stopped: the connection%s was lost after %s: %w", who, of, reason)
	}
	if err := l.ctx.Err(); err != nil {
		return res, fmt.Errorf("run stopped after %s: %w", of, err)
	}
	return res, nil
}
