package recorder

import (
	"slices"
	"time"
)

// SecondStat is one step of a run over time: it covers offsets
// [T s, T+Width s) from the recording's start, the time axis of the
// Gantt. Width is 1 (a second) unless the run is longer than
// [MaxSeriesPoints] seconds: then every step of the series covers the
// same power of 2 of seconds, the smallest that keeps the series within
// MaxSeriesPoints steps, so that its size is bounded whatever the span
// of the recording.
type SecondStat struct {
	// T is the step's start, in whole seconds from the recording's
	// start; Width its length in seconds.
	T     int `json:"t_s"`
	Width int `json:"width_s"`
	// Started counts the tool calls sent in the step; Finished those
	// answered in it, Errors those of them that failed.
	Started  int `json:"started"`
	Finished int `json:"finished"`
	Errors   int `json:"errors"`
	// InFlight is the most tool calls in flight at once during the
	// step; Queued the most server requests waiting at the dispatch
	// gate at once.
	InFlight int `json:"in_flight"`
	Queued   int `json:"queued"`
	// P50MS and P99MS are the latencies ([CallDuration]) of the calls
	// that finished in the step, in milliseconds (nearest rank); 0
	// when none did. (In the [Totals] of a sampled recording longer than
	// MaxSeriesPoints seconds, steps merged as the run grew carry the
	// larger p99 of the two merged and their p50 weighted by the calls
	// each finished: close, not exact.)
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
}

// MaxSeriesPoints is the most steps a series ([Series]) has: a longer
// run is counted in steps of 2, 4, 8 … seconds.
const MaxSeriesPoints = 4096

// seriesWidth is the width in seconds of the steps of a series of n
// seconds: the smallest power of 2 that keeps it within MaxSeriesPoints
// steps.
func seriesWidth(n int) int {
	w := 1
	for (n-1)/w+1 > MaxSeriesPoints {
		w *= 2
	}
	return w
}

// Series returns the tool calls and server requests of snap step by
// step (second by second, unless the run is longer than
// [MaxSeriesPoints] seconds), from the recording's start to its last
// instant (open spans count as in flight until snap.Now).
func Series(snap *Snapshot) []SecondStat {
	if snap == nil {
		return nil
	}
	if sm := snap.Sampled; sm != nil && sm.Totals != nil {
		return sm.Totals.series(snap.Now)
	}
	end := snap.Now
	for _, s := range snap.Spans {
		if s.Received != Unset {
			end = max(end, SpanEnd(snap, s))
		}
	}
	if end <= 0 {
		return nil
	}
	secs := int(end/time.Second) + 1
	w := seriesWidth(secs)
	n := (secs-1)/w + 1
	out := make([]SecondStat, n)
	for i := range out {
		out[i].T, out[i].Width = i*w, w
	}
	at := func(d time.Duration) int { return min(max(int(d/time.Second)/w, 0), n-1) }
	lat := make([][]time.Duration, n)
	for _, s := range snap.Spans {
		if !isToolCall(s) {
			continue
		}
		out[at(s.Received)].Started++
		if s.Open() {
			continue
		}
		sec := at(s.Answered)
		out[sec].Finished++
		if s.Status != StatusOK {
			out[sec].Errors++
		}
		if d, ok := CallDuration(s); ok {
			lat[sec] = append(lat[sec], d)
		}
	}
	for i, ds := range lat {
		if len(ds) == 0 {
			continue
		}
		slices.Sort(ds)
		out[i].P50MS = roundMicro(ms(nearestRank(ds, 50)))
		out[i].P99MS = roundMicro(ms(nearestRank(ds, 99)))
	}
	peakPerStep(CallSteps(snap), n, w, func(i int, st Step) {
		out[i].InFlight = max(out[i].InFlight, st.InFlight)
	})
	peakPerStep(Steps(snap), n, w, func(i int, st Step) {
		out[i].Queued = max(out[i].Queued, st.Pending-st.InFlight)
	})
	return out
}

// peakPerStep calls f for every step with the series step (of w
// seconds, n of them) it falls in, and for every series step it carries
// over into from an earlier one.
func peakPerStep(steps []Step, n, w int, f func(int, Step)) {
	at := func(d time.Duration) int { return min(max(int(d/time.Second)/w, 0), n-1) }
	for i, st := range steps {
		from := at(st.At)
		to := n - 1
		if i+1 < len(steps) {
			// the step holds until the next one, within its series step
			to = max(at(steps[i+1].At-1), from)
		}
		for sec := from; sec <= to; sec++ {
			f(sec, st)
		}
	}
}

// mergePairs halves a series: each two steps of width w become one of
// 2w, with the counts added, the peaks the larger, the p99 the larger
// and the p50 the mean weighted by the calls each finished.
func mergePairs(s []SecondStat) []SecondStat {
	out := make([]SecondStat, (len(s)+1)/2)
	for i := range out {
		a := s[2*i]
		a.Width = 2 * max(a.Width, 1)
		if 2*i+1 < len(s) {
			b := s[2*i+1]
			if f := a.Finished + b.Finished; f > 0 {
				a.P50MS = roundMicro((a.P50MS*float64(a.Finished) + b.P50MS*float64(b.Finished)) / float64(f))
			}
			a.P99MS = max(a.P99MS, b.P99MS)
			a.Started += b.Started
			a.Finished += b.Finished
			a.Errors += b.Errors
			a.InFlight = max(a.InFlight, b.InFlight)
			a.Queued = max(a.Queued, b.Queued)
		}
		out[i] = a
	}
	return out
}

// nearestRank is the p-th percentile of sorted values by nearest rank.
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	rank := int(p/100*float64(len(sorted)) + 0.5)
	return sorted[min(max(rank, 1), len(sorted))-1]
}
