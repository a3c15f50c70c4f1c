package timeline

import (
	"math/rand/v2"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestLiveEndMatchesExtent checks that where a followed Gantt slides to,
// kept up to date frame by frame, is in every frame what Extent says of
// the whole snapshot: Now while calls are in flight, the last instant
// recorded once none is (the last frame of a run that is not stuck).
func TestLiveEndMatchesExtent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var l liveEnd
	idled := false
	for _, stuck := range []bool{false, true} {
		for step, snap := range liveFrames(rng, stuck) {
			want := Extent(snap)
			if !anyInFlight(snap) {
				idle := *snap
				idle.Now = 0
				want, idled = Extent(&idle), true
			}
			if got := l.of(snap); got != want {
				t.Fatalf("stuck %v, frame %d: the live end at %v, want %v", stuck, step, got, want)
			}
		}
	}
	if !idled {
		t.Error("no frame had nothing in flight: the idle end went untested")
	}
}

func anyInFlight(snap *recorder.Snapshot) bool {
	for _, s := range snap.Spans {
		if s.Open() {
			return true
		}
	}
	return false
}
