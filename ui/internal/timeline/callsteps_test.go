package timeline

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestLiveCallsMatchesCallSteps follows live load tests frame by frame
// and checks that the chart's calls in flight, kept up to date, are in
// every frame what recorder.CallSteps makes of the whole snapshot, with
// the same peak and calls per second: calls answered out of order, some
// at the instant another starts, one stuck in flight from the start, and
// then another recording, and a part of it (a run picked).
func TestLiveCallsMatchesCallSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l liveCalls
	check := func(step int, snap *recorder.Snapshot) {
		t.Helper()
		steps, peak, tally := l.update(snap)
		want := recorder.CallSteps(snap)
		if !slices.Equal(steps, want) {
			t.Fatalf("frame %d: %d steps, want recorder.CallSteps' %d", step, len(steps), len(want))
		}
		if wantPeak, _ := recorder.Peaks(want); peak != wantPeak {
			t.Fatalf("frame %d: peak %d, want %d", step, peak, wantPeak)
		}
		if got, want := tally.perSecond(snap), perSecondOf(snap); got != want {
			t.Fatalf("frame %d: %v calls per second, want %v", step, got, want)
		}
		if tally.isLoad() != IsLoad(snap) {
			t.Fatalf("frame %d: load %v, want %v", step, tally.isLoad(), IsLoad(snap))
		}
	}
	for _, stuck := range []bool{false, true} {
		frames := liveFrames(rng, stuck)
		for step, snap := range frames {
			check(step, snap)
		}
		// a run picked: a part of the recording, then the whole again
		snap := frames[len(frames)-1]
		part := *snap
		part.Spans = snap.Spans[len(snap.Spans)/2:]
		check(100, &part)
		check(101, snap)
	}
}

// liveFrames returns the snapshots of a live load test, frame by frame:
// calls answered out of order, some at the instant another starts, and,
// when stuck, the first one in flight throughout; in the last frame the
// others are answered. Each is another recording.
func liveFrames(rng *rand.Rand, stuck bool) []*recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Created: time.Date(2026, 1, 2, 3, 4, 5, rng.IntN(1000), time.UTC)}}
	var frames []*recorder.Snapshot
	for range 60 {
		next := *snap
		next.Spans = slices.Clone(snap.Spans)
		next.Now += 10 * ms
		// some calls in flight are answered, at random times
		for i, s := range next.Spans {
			if s.Open() && !(stuck && i == 0) && rng.IntN(3) > 0 {
				c := *s
				c.Answered = c.Received + time.Duration(rng.IntN(int(next.Now-c.Received)/int(ms)+1))*ms
				c.Status = recorder.StatusOK
				next.Spans[i] = &c
			}
		}
		for range rng.IntN(30) {
			at := next.Now - time.Duration(rng.IntN(10))*ms // whole milliseconds: many share an instant
			next.Spans = append(next.Spans, &recorder.Span{ID: recorder.SpanID(len(next.Spans) + 1), Direction: recorder.Outgoing,
				Kind: recorder.KindTool, Method: "tools/call", Name: "echo", Received: at, Answered: recorder.Unset, Status: recorder.StatusOpen})
		}
		if rng.IntN(4) == 0 {
			next.Events = append(slices.Clip(next.Events), recorder.Event{At: next.Now + time.Duration(rng.IntN(20))*ms})
		}
		next.Version++
		snap = &next
		frames = append(frames, snap)
	}
	// the run ends: every call answered, but a stuck one
	stuckAt := -1
	if stuck {
		stuckAt = 0
	}
	last := answerOpen(snap, stuckAt)
	last.Now += 100 * ms
	return append(frames, last)
}

// answerOpen returns the snapshot after snap in which every span in
// flight but the one at index except (-1: none) is answered, at snap's
// Now, each a new copy as a recording's snapshot has.
func answerOpen(snap *recorder.Snapshot, except int) *recorder.Snapshot {
	last := *snap
	last.Spans = slices.Clone(snap.Spans)
	for i, s := range last.Spans {
		if s.Open() && i != except {
			c := *s
			c.Answered, c.Status = last.Now, recorder.StatusOK
			last.Spans[i] = &c
		}
	}
	return &last
}

// perSecondOf is how many tool calls of snap finished per second, counted
// over every span.
func perSecondOf(snap *recorder.Snapshot) float64 {
	t := newTally()
	for _, s := range snap.Spans {
		t.add(snap, s)
	}
	return t.perSecond(snap)
}
