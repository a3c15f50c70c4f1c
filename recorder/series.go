package recorder

import (
	"slices"
	"time"
)

// SecondStat is one second of a run over time: second T covers offsets
// [T s, T+1 s) from the recording's start, the time axis of the Gantt.
type SecondStat struct {
	// T is the second's start, in whole seconds from the recording's
	// start.
	T int `json:"t_s"`
	// Started counts the tool calls sent in the second; Finished those
	// answered in it, Errors those of them that failed.
	Started  int `json:"started"`
	Finished int `json:"finished"`
	Errors   int `json:"errors"`
	// InFlight is the most tool calls in flight at once during the
	// second; Queued the most server requests waiting at the dispatch
	// gate at once.
	InFlight int `json:"in_flight"`
	Queued   int `json:"queued"`
	// P50MS and P99MS are the latencies ([CallDuration]) of the calls
	// that finished in the second, in milliseconds (nearest rank); 0
	// when none did.
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
}

// Series returns the tool calls and server requests of snap second by
// second, from the recording's start to its last instant (open spans
// count as in flight until snap.Now).
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
	n := int(end/time.Second) + 1
	out := make([]SecondStat, n)
	for i := range out {
		out[i].T = i
	}
	at := func(d time.Duration) int { return min(max(int(d/time.Second), 0), n-1) }
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
	peakPerSecond(CallSteps(snap), n, func(i int, st Step) {
		out[i].InFlight = max(out[i].InFlight, st.InFlight)
	})
	peakPerSecond(Steps(snap), n, func(i int, st Step) {
		out[i].Queued = max(out[i].Queued, st.Pending-st.InFlight)
	})
	return out
}

// peakPerSecond calls f for every step with the second it falls in, and
// for every second a step carries over into from an earlier one.
func peakPerSecond(steps []Step, n int, f func(int, Step)) {
	for i, st := range steps {
		from := min(max(int(st.At/time.Second), 0), n-1)
		to := n - 1
		if i+1 < len(steps) {
			// the step holds until the next one, within its second
			to = min(max(int((steps[i+1].At-1)/time.Second), from), n-1)
		}
		for sec := from; sec <= to; sec++ {
			f(sec, st)
		}
	}
}

// nearestRank is the p-th percentile of sorted values by nearest rank.
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	rank := int(p/100*float64(len(sorted)) + 0.5)
	return sorted[min(max(rank, 1), len(sorted))-1]
}
