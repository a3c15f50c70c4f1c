package timeline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// walkedLevels counts each column's spans in flight by walking every span
// of snap: what the overview strip did for every frame before it kept a
// tally, and what the tally must give.
func walkedLevels(snap *recorder.Snapshot, cols int, col func(time.Duration) int) ([]int, int) {
	diff := make([]int, cols+1)
	level := make([]int, cols)
	count := func(keep func(*recorder.Span) bool) int {
		clear(diff)
		for _, s := range snap.Spans {
			if s.Received == recorder.Unset || !keep(s) {
				continue
			}
			end := s.Answered
			if end == recorder.Unset {
				end = snap.Now
			}
			diff[col(s.Received)]++
			diff[col(end)+1]--
		}
		peak := 0
		for i, n := 0, 0; i < cols; i++ {
			n += diff[i]
			level[i], peak = n, max(peak, n)
		}
		return peak
	}
	peak := count(isRequest)
	if peak == 0 {
		peak = count(func(s *recorder.Span) bool { return s.Kind == recorder.KindTool })
	}
	return level, peak
}

// mixedFrames returns the snapshots of a live recording frame by frame:
// tool calls, their rounds and server requests begun and answered out of
// order (many at one instant), some never sent (no Received), some ended
// without an answer, one in flight throughout; then every one answered.
// With requests false it holds tool calls alone, as a load test does.
func mixedFrames(rng *rand.Rand, requests bool) []*recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Created: time.Date(2026, 12, 3, 0, 0, 0, rng.IntN(1000), time.UTC)}}
	kinds := []recorder.Kind{recorder.KindTool}
	if requests {
		kinds = append(kinds, recorder.KindSampling, recorder.KindElicitation, recorder.KindRound)
	}
	var frames []*recorder.Snapshot
	for f := range 80 {
		next := *snap
		next.Spans = slices.Clone(snap.Spans)
		next.Now += 10 * ms
		for i, s := range next.Spans {
			if !s.Open() || i == 0 || rng.IntN(3) == 0 {
				continue
			}
			c := *s // the recorder changes a copy
			switch {
			case rng.IntN(10) == 0: // ended without an answer
				c.Status = recorder.StatusAborted
			case c.Received == recorder.Unset:
				c.Status = recorder.StatusCancelled
			default:
				c.Answered = c.Received + time.Duration(rng.IntN(int(next.Now-c.Received)/int(ms)+1))*ms
				c.Status = recorder.StatusOK
			}
			next.Spans[i] = &c
		}
		for range rng.IntN(25) + 1 {
			at := next.Now - time.Duration(rng.IntN(10))*ms
			if f == 0 {
				at = 0
			}
			if rng.IntN(15) == 0 {
				at = recorder.Unset
			}
			next.Spans = append(next.Spans, &recorder.Span{ID: recorder.SpanID(len(next.Spans) + 1),
				Kind: kinds[rng.IntN(len(kinds))], Received: at, Answered: recorder.Unset, Status: recorder.StatusOpen})
		}
		next.Version++
		snap = &next
		frames = append(frames, snap)
	}
	last := answerOpen(snap, -1)
	last.Now += 50 * ms
	return append(frames, last)
}

// TestLevelTallyMatchesWalk follows live recordings frame by frame at
// several widths and checks that the overview's tally gives, in every
// frame, the levels and peak that walking every span gives, though the
// strip rescales with each frame: server requests with tool calls and
// rounds, tool calls alone (a load test), then another recording, a part
// of it (a run picked) and the whole again.
func TestLevelTallyMatchesWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, cols := range []int{1, 7, 600, 1900} {
		var tally levelTally
		var end liveEnd
		check := func(name string, snap *recorder.Snapshot) {
			t.Helper()
			total := max(end.of(snap), snap.Now, time.Second)
			if want := max(Extent(snap), time.Second); total != want {
				t.Fatalf("%d columns, %s: the strip spans %v, want Extent's %v", cols, name, total, want)
			}
			col := func(at time.Duration) int {
				return min(max(int(float64(at)/float64(total)*float64(cols)), 0), cols-1)
			}
			got, gotPeak := tally.levels(snap, cols, col)
			want, wantPeak := walkedLevels(snap, cols, col)
			if gotPeak != wantPeak || !slices.Equal(got, want) {
				i := 0
				for i < cols && got[i] == want[i] {
					i++
				}
				t.Fatalf("%d columns, %s: peak %d, want %d; first difference at column %d of %d", cols, name, gotPeak, wantPeak, i, cols)
			}
		}
		for _, requests := range []bool{true, false} {
			frames := mixedFrames(rng, requests)
			for i, snap := range frames {
				check(fmt.Sprintf("requests %v, frame %d", requests, i), snap)
			}
			snap := frames[len(frames)-1]
			part := *snap
			part.Spans = snap.Spans[len(snap.Spans)/2:]
			check(fmt.Sprintf("requests %v, the second half", requests), &part)
			check(fmt.Sprintf("requests %v, the whole again", requests), snap)
		}
	}
}
