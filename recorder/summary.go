package recorder

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/montanaflynn/stats"
)

// Verdicts of a [Summary]: what the concurrency of the incoming requests
// says about how the client served the server's fan-out.
const (
	// VerdictSerialized: two or more requests were pending at once, yet
	// never more than one was served at a time.
	VerdictSerialized = "serialized"
	// VerdictBounded: the requests in flight hit a ceiling well below the
	// requests pending, and every wait happened while the ceiling was full.
	VerdictBounded = "bounded"
	// VerdictConcurrent: every pending request was served at once, or
	// waiting took a negligible share (under 5 %) of the requests' time.
	VerdictConcurrent = "concurrent"
	// VerdictPartial: some requests ran at once, but some waited while
	// there was no clear ceiling.
	VerdictPartial = "partial"
	// VerdictNoFanout: fewer than two incoming requests, never two pending
	// at once, or one at a time with only a brief overlap: there was no
	// fan-out to judge.
	VerdictNoFanout = "no-fanout"
)

// Summarize computes the statistics of a snapshot: counts, peak
// concurrency, elapsed time, queue and serve time percentiles, achieved
// concurrency and a verdict. Open spans count as pending until snap.Now
// and are left out of the time distributions.
func Summarize(snap *Snapshot) Summary {
	if snap == nil {
		return SummarizeSteps(nil, nil)
	}
	return SummarizeSteps(snap, Steps(snap))
}

// SummarizeSteps is [Summarize] for a caller that already has
// steps = [Steps](snap), as a live view drawing the concurrency chart does:
// it saves computing them twice per frame.
func SummarizeSteps(snap *Snapshot, steps []Step) Summary {
	sum := Summary{ServerRequests: RequestCounts{ByMethod: map[string]int{}}}
	if snap == nil {
		sum.Verdict, sum.VerdictText = VerdictNoFanout, "no fan-out: the recording is empty"
		return sum
	}
	var queue, serve []float64
	firstCall, lastCall := time.Duration(math.MaxInt64), time.Duration(-1)
	firstSpan, lastSpan := time.Duration(math.MaxInt64), time.Duration(-1)
	for _, s := range snap.Spans {
		end := spanEnd(snap, s)
		if s.Received != Unset {
			firstSpan = min(firstSpan, s.Received)
			lastSpan = max(lastSpan, end)
		}
		switch {
		case s.Direction == Outgoing && s.Kind == KindTool:
			sum.ToolCalls.Total++
			switch s.Status {
			case StatusOK:
				sum.ToolCalls.OK++
			case StatusOpen:
			default:
				sum.ToolCalls.Failed++
			}
			if s.Received != Unset {
				firstCall = min(firstCall, s.Received)
				lastCall = max(lastCall, end)
			}
		case s.Direction == Incoming:
			sum.ServerRequests.Total++
			sum.ServerRequests.ByMethod[s.Method]++
			switch s.Status {
			case StatusOK:
				sum.ServerRequests.OK++
			case StatusOpen:
			default:
				sum.ServerRequests.Failed++
			}
			if !s.Open() {
				queue = append(queue, ms(s.QueueTime()))
				serve = append(serve, ms(s.ServeTime()))
			}
		}
	}
	switch {
	case lastCall >= 0:
		sum.ElapsedMS = ms(lastCall - firstCall)
	case lastSpan >= 0:
		sum.ElapsedMS = ms(lastSpan - firstSpan)
	}
	sum.QueueMS = percentiles(queue)
	sum.ServeMS = percentiles(serve)

	sum.PeakInFlight, sum.PeakPending = Peaks(steps)
	sum.AchievedConcurrency = math.Round(achieved(steps)*1000) / 1000
	sum.Verdict, sum.VerdictText = verdict(snap, steps, sum)
	return sum
}

// spanEnd is when s was answered, or snap.Now while it is open.
func spanEnd(snap *Snapshot, s *Span) time.Duration {
	if s.Answered != Unset {
		return s.Answered
	}
	return max(snap.Now, s.Received)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// roundMicro rounds milliseconds to the microsecond, so that summaries
// print 749.85, not 749.8499999999999.
func roundMicro(v float64) float64 { return math.Round(v*1000) / 1000 }

func percentiles(v []float64) Percentiles {
	if len(v) == 0 {
		return Percentiles{}
	}
	p := func(q float64) float64 {
		x, err := stats.Percentile(v, q)
		if err != nil {
			return 0
		}
		return x
	}
	m, _ := stats.Max(v)
	return Percentiles{P50: roundMicro(p(50)), P90: roundMicro(p(90)), P99: roundMicro(p(99)), Max: roundMicro(m)}
}

// achieved is the time-weighted mean of in-flight requests over the time
// at least one was in flight.
func achieved(steps []Step) float64 {
	var busy, weighted float64
	for i := 0; i+1 < len(steps); i++ {
		if steps[i].InFlight < 1 {
			continue
		}
		dt := float64(steps[i+1].At - steps[i].At)
		busy += dt
		weighted += dt * float64(steps[i].InFlight)
	}
	if busy == 0 {
		return 0
	}
	return weighted / busy
}

// burst is the busy period (pending ≥ 1 throughout) around the first
// moment of peak pending: the requests that arrived together.
type burst struct {
	from, to time.Duration
	requests int
	// longest is the longest serve time among the burst's requests: what
	// the whole burst would have taken had they all been served at once.
	longest time.Duration
	// fullWait and wait are how long requests waited in the queue while
	// every slot up to the peak in flight was taken, and in all; serve is
	// how long they were served (all summed over requests, whole run).
	fullWait, wait, serve time.Duration
}

// negligibleWait is the share of waiting in all request time (waiting +
// serving) below which requests count as served at once: a request that
// arrives a few microseconds before another ends and waits that long is
// not a sign of serialization.
const negligibleWait = 0.05

func findBurst(snap *Snapshot, steps []Step, peakInFlight, peakPending int) burst {
	var b burst
	peak := -1
	for i, s := range steps {
		if s.Pending == peakPending {
			peak = i
			break
		}
	}
	if peak < 0 {
		return b
	}
	lo := peak
	for lo > 0 && steps[lo-1].Pending > 0 {
		lo--
	}
	hi := peak
	for hi+1 < len(steps) && steps[hi].Pending > 0 {
		hi++
	}
	b.from, b.to = steps[lo].At, steps[hi].At
	for _, s := range snap.Spans {
		if s.Direction != Incoming || s.Received == Unset || s.Received < b.from || s.Received > b.to {
			continue
		}
		b.requests++
		serve := s.ServeTime()
		if s.Open() && s.Serving != Unset {
			serve = max(snap.Now, s.Serving) - s.Serving
		}
		b.longest = max(b.longest, serve)
	}
	for i := 0; i+1 < len(steps); i++ {
		span := steps[i+1].At - steps[i].At
		b.serve += span * time.Duration(steps[i].InFlight)
		if waiting := steps[i].Pending - steps[i].InFlight; waiting > 0 {
			dt := span * time.Duration(waiting)
			b.wait += dt
			if steps[i].InFlight >= peakInFlight {
				b.fullWait += dt
			}
		}
	}
	return b
}

// seconds says d in seconds with two decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func verdict(snap *Snapshot, steps []Step, sum Summary) (string, string) {
	n := sum.ServerRequests.Total
	switch {
	case n == 0:
		return VerdictNoFanout, "no fan-out: the server sent no requests to the client"
	case n == 1:
		return VerdictNoFanout, "no fan-out: the server sent only 1 request to the client"
	case sum.PeakPending < 2:
		return VerdictNoFanout, fmt.Sprintf("no fan-out: the server sent %d requests, but never two pending at once", n)
	}
	b := findBurst(snap, steps, sum.PeakInFlight, sum.PeakPending)
	took := b.to - b.from
	waitShare := 0.0
	if total := b.wait + b.serve; total > 0 {
		waitShare = float64(b.wait) / float64(total)
	}
	// When the busy period holds just the requests pending at the peak,
	// they arrived together: compare its length with what serving them all
	// at once would have taken. A longer busy period (a load test, calls
	// overlapping) has no such single figure: say how much time went to
	// waiting instead.
	var together, cost string
	if b.requests <= sum.PeakPending && b.requests >= 2 {
		together = fmt.Sprintf("%d requests arrived together", b.requests)
		cost = " — " + seconds(took)
		if b.longest > 0 {
			cost += fmt.Sprintf(", %.1f× the concurrent time (%s, the longest serve time among them)",
				float64(took)/float64(b.longest), seconds(b.longest))
		}
	} else {
		together = fmt.Sprintf("up to %d requests were pending at once (%d in a busy period of %s)",
			sum.PeakPending, b.requests, seconds(took))
		cost = fmt.Sprintf(" — %.1f%% of the requests' time went to waiting", 100*waitShare)
	}
	switch {
	case sum.PeakInFlight <= 1 && waitShare < negligibleWait:
		return VerdictNoFanout, fmt.Sprintf("no fan-out: the server sent %d requests; they overlapped only briefly (%.1f%% of their time waiting)",
			n, 100*waitShare)
	case sum.PeakInFlight <= 1:
		return VerdictSerialized, fmt.Sprintf("serialized: %s and were served one at a time%s", together, cost)
	case sum.PeakInFlight >= sum.PeakPending:
		return VerdictConcurrent, fmt.Sprintf("concurrent: %s and all %d were served at once%s",
			together, sum.PeakPending, cost)
	case waitShare < negligibleWait:
		return VerdictConcurrent, fmt.Sprintf("concurrent: %s and up to %d were served at once, with no noticeable wait (%.1f%% of their time)%s",
			together, sum.PeakInFlight, 100*waitShare, cost)
	}
	// A ceiling: in flight stays well below pending, and (almost) all the
	// waiting happened while every slot was taken.
	ceiling := float64(sum.PeakInFlight) <= 0.8*float64(sum.PeakPending) &&
		b.wait > 0 && float64(b.fullWait) >= 0.9*float64(b.wait)
	if ceiling {
		return VerdictBounded, fmt.Sprintf("bounded: %s and at most %d were served at once while up to %d waited%s",
			together, sum.PeakInFlight, sum.PeakPending-sum.PeakInFlight, cost)
	}
	return VerdictPartial, fmt.Sprintf("partial: %s; up to %d were served at once, but some waited while fewer were running%s",
		together, sum.PeakInFlight, cost)
}

// Get returns the numeric value of the summary field named by a dotted key
// as it appears in the summary's JSON, such as "peak_in_flight",
// "tool_calls.failed", "queue_ms.p99" or
// "server_requests.by_method.sampling/createMessage". A method the run
// never saw counts 0. Non-numeric fields (the verdict) and unknown keys
// give false; [Summary.Keys] lists the keys.
func (s Summary) Get(key string) (float64, bool) {
	if m, ok := strings.CutPrefix(key, "server_requests.by_method."); ok && m != "" {
		return float64(s.ServerRequests.ByMethod[m]), true
	}
	v, ok := s.flat()[key]
	return v, ok
}

// Keys returns every key [Summary.Get] knows for this summary, sorted.
func (s Summary) Keys() []string {
	flat := s.flat()
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// flat maps every numeric leaf of the summary's JSON to its dotted key.
func (s Summary) flat() map[string]float64 {
	out := map[string]float64{}
	b, err := json.Marshal(s)
	if err != nil {
		return out
	}
	var tree map[string]any
	if json.Unmarshal(b, &tree) != nil {
		return out
	}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case float64:
			out[prefix] = v
		case map[string]any:
			for k, x := range v {
				walk(prefix+"."+k, x)
			}
		}
	}
	for k, v := range tree {
		walk(k, v)
	}
	return out
}
