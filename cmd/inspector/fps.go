package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fpsMeter samples a frame counter once a second while the app runs.
type fpsMeter struct {
	frames func() int64
	start  time.Time
	stop   chan struct{}

	mu     sync.Mutex
	perSec []int64 // frames drawn in each second
}

// startFPSMeter starts sampling frames.
func startFPSMeter(frames func() int64) *fpsMeter {
	f := &fpsMeter{frames: frames, start: time.Now(), stop: make(chan struct{})}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		last := frames()
		for {
			select {
			case <-f.stop:
				return
			case <-t.C:
			}
			n := frames()
			f.mu.Lock()
			f.perSec = append(f.perSec, n-last)
			f.mu.Unlock()
			last = n
		}
	}()
	return f
}

// report stops sampling and says how many frames were drawn: in all, per
// second on average, and per second over the seconds that drew any (the
// timeline draws only when the recording changed).
func (f *fpsMeter) report() string {
	close(f.stop)
	total := f.frames()
	secs := time.Since(f.start).Seconds()
	f.mu.Lock()
	defer f.mu.Unlock()
	var active, activeFrames, peak int64
	for _, n := range f.perSec {
		if n > 0 {
			active++
			activeFrames += n
			peak = max(peak, n)
		}
	}
	mean := 0.0
	if active > 0 {
		mean = float64(activeFrames) / float64(active)
	}
	var drew []string
	for _, n := range f.perSec {
		if n > 0 {
			drew = append(drew, strconv.FormatInt(n, 10))
		}
	}
	// The first and last seconds that drew are usually partial (the run
	// began or ended inside them): the series shows them for what they are.
	return fmt.Sprintf("fps: %d frames in %.1f s (%.1f per second overall); %.1f per second over the %d seconds that drew, peak %d; each second that drew: %s",
		total, secs, float64(total)/max(secs, 0.001), mean, active, peak, strings.Join(drew, " "))
}
