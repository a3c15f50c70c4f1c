package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fpsSample is how often the frame-rate meter reads the frame counter:
// it places the first and the last frame to within this.
const fpsSample = 10 * time.Millisecond

// fpsMeter counts the frames drawn in each second while the app runs,
// and when the first and the last were drawn.
type fpsMeter struct {
	frames func() int64
	start  time.Time
	stop   chan struct{}

	mu     sync.Mutex
	perSec []int64 // frames drawn in each second since start
	// first and last bound when the first and the last frame were drawn,
	// since start: the first no sooner than first, the last no later
	// than last (the sampling leaves the rest unknown); first < 0 until
	// a frame was drawn
	first, last time.Duration
}

// startFPSMeter starts sampling frames.
func startFPSMeter(frames func() int64) *fpsMeter {
	f := &fpsMeter{frames: frames, start: time.Now(), stop: make(chan struct{}), first: -1}
	go func() {
		t := time.NewTicker(fpsSample)
		defer t.Stop()
		last := frames()
		for {
			select {
			case <-f.stop:
				return
			case <-t.C:
			}
			n, at := frames(), time.Since(f.start)
			f.mu.Lock()
			f.count(at, n-last)
			f.mu.Unlock()
			last = n
		}
	}()
	return f
}

// count adds n frames drawn since the last sample, which was fpsSample
// before at.
func (f *fpsMeter) count(at time.Duration, n int64) {
	sec := int(at / time.Second)
	for len(f.perSec) <= sec {
		f.perSec = append(f.perSec, 0)
	}
	if n <= 0 {
		return
	}
	f.perSec[sec] += n
	if f.first < 0 {
		f.first = at // drawn since the last sample: no sooner than this is sure to be after it
	}
	f.last = max(at-fpsSample, 0)
}

// fullSeconds returns the frames of the seconds that lie wholly between
// the first frame and the last: the first and last seconds that drew are
// usually partial (the run began or ended inside them), and a rate over
// them says little.
func (f *fpsMeter) fullSeconds() []int64 {
	if f.first < 0 {
		return nil
	}
	var out []int64
	for i, n := range f.perSec {
		from := time.Duration(i) * time.Second
		if from >= f.first && from+time.Second <= f.last {
			out = append(out, n)
		}
	}
	return out
}

// report stops sampling and says how many frames were drawn: in all, per
// second on average, per second over the seconds that drew any (the
// timeline draws only when the recording changed), and in each second
// between the first frame and the last.
func (f *fpsMeter) report() string {
	close(f.stop)
	total := f.frames()
	secs := time.Since(f.start).Seconds()
	f.mu.Lock()
	defer f.mu.Unlock()
	var active, activeFrames, peak int64
	var drew []string
	for _, n := range f.perSec {
		if n > 0 {
			active++
			activeFrames += n
			peak = max(peak, n)
			drew = append(drew, strconv.FormatInt(n, 10))
		}
	}
	mean := 0.0
	if active > 0 {
		mean = float64(activeFrames) / float64(active)
	}
	full := "no full second between the first frame and the last"
	if fs := f.fullSeconds(); len(fs) > 0 {
		words := make([]string, len(fs))
		for i, n := range fs {
			words[i] = strconv.FormatInt(n, 10)
		}
		sorted := slices.Sorted(slices.Values(fs))
		full = fmt.Sprintf("the %d full seconds between the first frame and the last: min %d, median %d (%s)",
			len(fs), sorted[0], sorted[len(sorted)/2], strings.Join(words, " "))
	}
	return fmt.Sprintf("fps: %d frames in %.1f s (%.1f per second overall); %.1f per second over the %d seconds that drew, peak %d; each second that drew: %s; %s",
		total, secs, float64(total)/max(secs, 0.001), mean, active, peak, strings.Join(drew, " "), full)
}
