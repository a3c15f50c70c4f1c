package recorder

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/montanaflynn/stats"
)

// Summarize computes the statistics of a snapshot: counts, peak
// concurrency, elapsed time, hand-off, queue and serve time percentiles,
// achieved concurrency and a verdict. Open spans count as pending until
// snap.Now and are left out of the time distributions; aborted spans
// (never answered) are counted apart and left out of the distributions
// and the verdict.
func Summarize(snap *Snapshot) Summary {
	if snap == nil {
		return SummarizeSteps(nil, nil)
	}
	if snap.Meta.Mode == ModeProxy {
		return summarizeProxy(snap)
	}
	return SummarizeSteps(snap, Steps(snap))
}

// SummarizeSteps is [Summarize] for a caller that already has
// steps = [Steps](snap), as a live view drawing the concurrency chart does:
// it saves computing them twice per frame.
func SummarizeSteps(snap *Snapshot, steps []Step) Summary {
	sum := Summary{
		ToolCalls:      CallCounts{Errors: []ErrorCount{}},
		ServerRequests: RequestCounts{ByMethod: map[string]int{}, DuplicateIDs: []string{}},
		Errors:         []ErrorKind{},
		ByMethodMS:     map[string]MethodTimes{},
	}
	if snap == nil {
		sum.Verdict, sum.VerdictText = VerdictNoFanout, "no fan-out: the recording is empty"
		return sum
	}
	if sm := snap.Sampled; sm != nil && sm.Totals != nil {
		sum = sm.Totals.summary(snap)
		sum.Sampled = &SampledSpans{Spans: sm.Spans, Kept: sm.Kept, Note: sm.Note()}
		return sum
	}
	var handoff, queue, serve, stalled []float64
	errs := map[string]int{}
	kinds := map[ErrorKind]int{}
	lat := NewLatencies()
	hasRounds := map[SpanID]bool{} // logical calls with round spans
	for _, s := range snap.Spans {
		if s.Kind == KindRound {
			hasRounds[s.Parent] = true
		}
	}
	seenDup := map[string]bool{}
	firstCall, lastCall := time.Duration(math.MaxInt64), time.Duration(-1)
	firstSpan, lastSpan := time.Duration(math.MaxInt64), time.Duration(-1)
	for _, s := range snap.Spans {
		end := SpanEnd(snap, s)
		if s.Received != Unset {
			firstSpan = min(firstSpan, s.Received)
			lastSpan = max(lastSpan, end)
		}
		if s.Stalled > 0 {
			sum.StalledMessages++
		}
		lat.Add(s)
		switch {
		case s.Direction == Outgoing && s.Kind == KindRound:
			// A wire round of a logical call: counted as a request, its
			// time and outcome are the call's.
			sum.ToolCalls.Requests++
			if s.Outcome == OutcomeInputRequired {
				sum.ToolCalls.InputRounds++
			}
		case s.Direction == Outgoing && s.Kind == KindTool:
			sum.ToolCalls.Total++
			if !hasRounds[s.ID] {
				sum.ToolCalls.Requests++
			}
			switch s.Status {
			case StatusOK:
				sum.ToolCalls.OK++
			case StatusOpen:
			default:
				sum.ToolCalls.Failed++
				errs[errorMessage(s)]++
				k, code := errorKindOf(s)
				kinds[ErrorKind{Kind: k, Code: code}]++
			}
			if s.Received != Unset {
				firstCall = min(firstCall, s.Received)
				lastCall = max(lastCall, end)
			}
		case s.Direction == Incoming:
			sum.ServerRequests.Total++
			sum.ServerRequests.ByMethod[s.Method]++
			sum.ServerRequests.InputTokens += int64(s.InputTokens)
			sum.ServerRequests.OutputTokens += int64(s.OutputTokens)
			if s.Duplicate {
				sum.ServerRequests.Duplicates++
				if !seenDup[s.RequestID] && len(sum.ServerRequests.DuplicateIDs) < MaxDuplicateIDs {
					sum.ServerRequests.DuplicateIDs = append(sum.ServerRequests.DuplicateIDs, s.RequestID)
				}
				seenDup[s.RequestID] = true
			}
			switch s.Status {
			case StatusOK:
				sum.ServerRequests.OK++
			case StatusOpen:
			case StatusAborted:
				// Never answered: counted apart, and in no distribution.
				sum.ServerRequests.Aborted++
				continue
			default:
				sum.ServerRequests.Failed++
			}
			// A duplicate was refused, not served: it has no times.
			if !s.Open() && !s.Duplicate && s.Received != Unset && s.Queued != Unset && s.Serving != Unset {
				handoff = append(handoff, ms(s.HandoffTime()))
				queue = append(queue, ms(s.QueueTime()))
				serve = append(serve, ms(s.ServeTime()))
				stalled = append(stalled, ms(s.Stalled))
			}
		}
	}
	switch {
	case lastCall >= 0:
		sum.ElapsedMS = ms(lastCall - firstCall)
	case lastSpan >= 0:
		sum.ElapsedMS = ms(lastSpan - firstSpan)
	}
	sum.ToolCalls.Errors = topErrors(errs)
	sum.Errors = errorKinds(kinds)
	sum.CallMS = lat.Calls.Percentiles()
	sum.ByMethodMS = lat.Times()
	if n := lat.Calls.Count(); n >= 2 && sum.ElapsedMS > 0 {
		sum.ThroughputPerS = math.Round(float64(n)/(sum.ElapsedMS/1000)*100) / 100
	}
	sum.HandoffMS = percentiles(handoff)
	sum.QueueMS = percentiles(queue)
	sum.ServeMS = percentiles(serve)
	sum.StalledMS = percentiles(stalled)
	for _, e := range snap.Events {
		if e.Stalled > 0 {
			sum.StalledMessages++
		}
	}

	if snap.Sampled != nil { // a sample without totals: say so
		sum.Sampled = &SampledSpans{Kept: len(snap.Spans),
			Note: fmt.Sprintf("a sample of %s spans: statistics of the run from the spans kept", thousands(len(snap.Spans)))}
	}
	callStats(snap, &sum)
	loadFigures(snap, &sum)
	sum.PeakInFlight, sum.PeakPending = Peaks(steps)
	sum.AchievedConcurrency = math.Round(achieved(steps)*1000) / 1000
	sum.Verdict, sum.VerdictText, sum.VerdictRounds = verdict(snap, sum)
	return sum
}

// SpanEnd is when s was answered, or snap.Now while it is open: where
// charts and exports end its bar.
func SpanEnd(snap *Snapshot, s *Span) time.Duration {
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
	slices.Sort(v) // once: stats sorts a copy per percentile, fast when sorted
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

// maxErrorText is the most bytes of one error text a summary lists.
const maxErrorText = 300

// errorMessage is why a span failed, in a summary's words: the first line
// of its error text (a tool's error result can go on with details that
// differ from call to call, such as timings), at most maxErrorText bytes.
func errorMessage(s *Span) string {
	msg, _, _ := strings.Cut(strings.TrimSpace(strings.ToValidUTF8(s.Error, "\uFFFD")), "\n")
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return fmt.Sprintf("%s without an error text", s.Status)
	}
	if len(msg) > maxErrorText {
		cut := maxErrorText
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// topErrors lists error texts by how often they occurred, most frequent
// first (ties alphabetically), at most MaxErrorKinds.
func topErrors(counts map[string]int) []ErrorCount {
	out := make([]ErrorCount, 0, len(counts))
	for m, n := range counts {
		out = append(out, ErrorCount{Message: m, Count: n})
	}
	slices.SortFunc(out, func(a, b ErrorCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Message, b.Message)
	})
	return out[:min(len(out), MaxErrorKinds)]
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

// Slowest returns the n finished spans of s with the longest total time
// (received → answered), the slowest first. Round spans are left out:
// their logical call stands for them.
func Slowest(s *Snapshot, n int) []*Span {
	var done []*Span
	for _, sp := range s.Spans {
		// A round is part of its call, which is listed for it.
		if !sp.Open() && sp.Received != Unset && sp.Kind != KindRound {
			done = append(done, sp)
		}
	}
	slices.SortStableFunc(done, func(a, b *Span) int {
		switch {
		case a.Total() > b.Total():
			return -1
		case a.Total() < b.Total():
			return 1
		}
		return 0
	})
	return done[:min(n, len(done))]
}
