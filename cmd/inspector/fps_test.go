package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFPSFullSeconds: the meter counts a second as full only when frames
// were drawn before it began and after it ended; the partial first and
// last seconds, and the idle ones around them, are left out.
func TestFPSFullSeconds(t *testing.T) {
	f := &fpsMeter{first: -1, frames: func() int64 { return 0 }, stop: make(chan struct{}), start: time.Now()}
	// idle for 1.5 s, then a frame every 20 ms until 4.3 s, then idle
	for at := fpsSample; at <= 6*time.Second; at += fpsSample {
		var n int64
		if at > 1500*time.Millisecond && at <= 4300*time.Millisecond && at%(20*time.Millisecond) == 0 {
			n = 1
		}
		f.count(at, n)
	}
	if got, want := f.fullSeconds(), []int64{50, 50}; !slices.Equal(got, want) {
		t.Errorf("full seconds %v, want %v (seconds 2 and 3: the frames began in second 1 and ended in second 4)", got, want)
	}
	if got := f.perSec[:6]; !slices.Equal(got, []int64{0, 24, 50, 50, 16, 0}) {
		t.Errorf("frames per second %v, want [0 24 50 50 16 0]", got)
	}
	r := f.report()
	if !strings.Contains(r, "the 2 full seconds between the first frame and the last: min 50, median 50 (50 50)") ||
		!strings.Contains(r, "each second that drew: 24 50 50 16") {
		t.Errorf("report %q: want the seconds that drew and the two full ones", r)
	}

	idle := &fpsMeter{first: -1, frames: func() int64 { return 0 }, stop: make(chan struct{}), start: time.Now()}
	idle.count(time.Second, 0)
	if r := idle.report(); !strings.Contains(r, "no full second") {
		t.Errorf("a meter that saw no frame reports %q, want it to say there was no full second", r)
	}
}
