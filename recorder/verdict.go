package recorder

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Verdicts of a [Summary]: what the concurrency of the incoming requests
// says about how the client served the server's fan-out.
const (
	// VerdictSerialized: requests waited at the dispatch gate, yet never
	// more than one was served at a time.
	VerdictSerialized = "serialized"
	// VerdictBounded: requests waited at the dispatch gate, and every wait
	// happened while the most requests ever served at once were being
	// served: a ceiling.
	VerdictBounded = "bounded"
	// VerdictConcurrent: no request waited at the dispatch gate (or the
	// waiting took a negligible share, under 5 %, of the requests' time),
	// and two or more were served at once.
	VerdictConcurrent = "concurrent"
	// VerdictPartial: some requests ran at once, but some waited while a
	// slot was free: no clear ceiling.
	VerdictPartial = "partial"
	// VerdictTooFast: requests were served in under [TooFastFloor] (the
	// median): too fast for their overlap to say anything about the
	// dispatch.
	VerdictTooFast = "too-fast"
	// VerdictNoFanout: fewer than two answered requests, never two
	// pending at once, or one at a time with only a brief overlap: there
	// was no fan-out to judge.
	VerdictNoFanout = "no-fanout"
	// VerdictLoad: a load test, not a fan-out: the client made two or
	// more tool calls and the server sent it no requests. The text speaks
	// of the calls: how many, how many in flight at once, how many
	// finished per second and how long they took.
	VerdictLoad = "load"
)

// TooFastFloor is the median serve time under which the verdict is
// [VerdictTooFast]. Served in microseconds (no injected latency), a
// request is over before the next one's handler has been scheduled: which
// requests overlap is then decided by the Go scheduler and the SDK's
// hand-off (tens of microseconds typically, tens of milliseconds under a
// load of thousands of requests), not by the dispatch policy, and a
// serial client can look concurrent as easily as the reverse. One
// millisecond is well above that scheduling noise for a lone request and
// below any latency worth injecting to study a fan-out.
const TooFastFloor = time.Millisecond

// negligibleWait is the share of waiting in all request time (waiting +
// serving) below which requests count as served at once: a request that
// reaches the gate a few microseconds before another ends and waits that
// long is not a sign of serialization.
const negligibleWait = 0.05

// ceilingShare is the share of the gate waiting that must have happened
// while the most requests ever in flight were in flight for the verdict
// to be [VerdictBounded].
const ceilingShare = 0.9

// gateStep is the state of the answered requests (aborted ones left out)
// from at on: wire had been read and not answered, gate had reached the
// dispatch gate and not been answered, inFlight were being served.
type gateStep struct {
	at                   time.Duration
	wire, gate, inFlight int
}

// gateSteps returns the state of the dispatch gate over time: for every
// counted incoming request (aborted ones are not), read off the wire at
// Received, at the gate from Queued, served from Serving, all until
// Answered (open requests until snap.Now). Everything at one instant is
// one step: the engine stamps a slot's release and the next request's
// grant with the same time, so a slot handed over is never seen free.
func gateSteps(snap *Snapshot) []gateStep {
	// An edge is one int64, its time shifted left by edgeBits with what
	// happened in the low bits: plain integers sort several times faster
	// than structs. Everything at one instant is coalesced into one step,
	// so the order within an instant does not matter.
	const (
		endAll  = iota // answered, was being served
		endGate        // answered, was at the gate
		endWire        // answered, had only been read
		read
		atGate
		served
		edgeBits = 3
		maxAt    = time.Duration(math.MaxInt64 >> (edgeBits + 1))
	)
	key := func(at time.Duration, what int64) int64 {
		return int64(min(max(at, -maxAt), maxAt))<<edgeBits | what
	}
	edges := make([]int64, 0, 4*len(snap.Spans))
	for _, s := range snap.Spans {
		if s.Direction != Incoming || s.Received == Unset || s.Status == StatusAborted {
			continue
		}
		end := SpanEnd(snap, s)
		edges = append(edges, key(s.Received, read))
		queued := s.Queued
		if s.Stalled > 0 && queued != Unset {
			// Withheld from the client (dispatch inline): it waited for
			// the one being served as a queued request waits for a slot.
			queued = s.Received
		}
		switch {
		case queued != Unset && s.Serving != Unset:
			edges = append(edges, key(min(queued, end), atGate), key(min(s.Serving, end), served), key(end, endAll))
		case queued != Unset:
			edges = append(edges, key(min(queued, end), atGate), key(end, endGate))
		default:
			edges = append(edges, key(end, endWire))
		}
	}
	slices.Sort(edges)
	steps := make([]gateStep, 0, len(edges)/2+1)
	var cur gateStep
	for i, e := range edges {
		switch e & (1<<edgeBits - 1) {
		case endAll:
			cur.wire, cur.gate, cur.inFlight = cur.wire-1, cur.gate-1, cur.inFlight-1
		case endGate:
			cur.wire, cur.gate = cur.wire-1, cur.gate-1
		case endWire:
			cur.wire--
		case read:
			cur.wire++
		case atGate:
			cur.gate++
		case served:
			cur.inFlight++
		}
		at := e >> edgeBits
		if i+1 < len(edges) && edges[i+1]>>edgeBits == at {
			continue
		}
		cur.at = time.Duration(at)
		steps = append(steps, cur)
	}
	return steps
}

// gateStats is what the verdict reads off the gate's steps.
type gateStats struct {
	peakWire, peakGate, peakInFlight, peakWaiting int
	// wait is the time requests waited at the gate, summed over requests;
	// waitFull the part of it while peakInFlight requests were in flight;
	// serve the time they were served, summed over requests.
	wait, waitFull, serve time.Duration
}

func gateStatsOf(steps []gateStep) gateStats {
	var g gateStats
	for _, s := range steps {
		g.peakWire = max(g.peakWire, s.wire)
		g.peakGate = max(g.peakGate, s.gate)
		g.peakInFlight = max(g.peakInFlight, s.inFlight)
		g.peakWaiting = max(g.peakWaiting, s.gate-s.inFlight)
	}
	for i := 0; i+1 < len(steps); i++ {
		dt := steps[i+1].at - steps[i].at
		g.serve += dt * time.Duration(steps[i].inFlight)
		if waiting := steps[i].gate - steps[i].inFlight; waiting > 0 {
			g.wait += dt * time.Duration(waiting)
			if steps[i].inFlight >= g.peakInFlight {
				g.waitFull += dt * time.Duration(waiting)
			}
		}
	}
	return g
}

// waitShare is the share of waiting in the requests' time at the gate.
func (g gateStats) waitShare() float64 {
	if total := g.wait + g.serve; total > 0 {
		return float64(g.wait) / float64(total)
	}
	return 0
}

// burst is the busy period (a request read and not answered throughout)
// around the first moment the most requests were pending on the wire: the
// requests that arrived together.
type burst struct {
	from, to time.Duration
	requests int
	// longest is the longest serve time among the burst's requests: what
	// the whole burst would have taken had they all been served at once.
	longest time.Duration
}

func findBurst(snap *Snapshot, steps []gateStep, peakWire int) burst {
	var b burst
	peak := slices.IndexFunc(steps, func(s gateStep) bool { return s.wire == peakWire })
	if peak < 0 {
		return b
	}
	lo := peak
	for lo > 0 && steps[lo-1].wire > 0 {
		lo--
	}
	hi := peak
	for hi+1 < len(steps) && steps[hi].wire > 0 {
		hi++
	}
	b.from, b.to = steps[lo].at, steps[hi].at
	for _, s := range snap.Spans {
		if s.Direction != Incoming || s.Received == Unset || s.Status == StatusAborted || s.Received < b.from || s.Received > b.to {
			continue
		}
		b.requests++
		serve := s.ServeTime()
		if s.Open() && s.Serving != Unset {
			serve = max(snap.Now, s.Serving) - s.Serving
		}
		b.longest = max(b.longest, serve)
	}
	return b
}

// medianServe is the median time the counted requests were served (open
// ones so far), and whether any was.
func medianServe(snap *Snapshot) (time.Duration, bool) {
	if sm := snap.Sampled; sm != nil && sm.Totals != nil && sm.Totals.Serve.Count() > 0 {
		// The sample's serve times need not be the run's: ask the totals.
		return time.Duration(sm.Totals.Serve.Percentiles().P50 * float64(time.Millisecond)), true
	}
	var serve []time.Duration
	for _, s := range snap.Spans {
		if s.Direction != Incoming || s.Status == StatusAborted || s.Serving == Unset {
			continue
		}
		if s.Open() {
			serve = append(serve, max(snap.Now, s.Serving)-s.Serving)
		} else {
			serve = append(serve, s.ServeTime())
		}
	}
	if len(serve) == 0 {
		return 0, false
	}
	slices.Sort(serve)
	return serve[len(serve)/2], true
}

// seconds says d in seconds with two decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// verdict judges the run from the dispatch gate's own queue: how long
// requests waited from reaching the gate to being let in, and how many
// were being served meanwhile. The time a request spends between being
// read and reaching the gate is the SDK's hand-off, not the client's
// queue, and does not count as waiting. Aborted requests are left out.
//
// When the verdict describes rounds one by one, rounds holds their parts
// (the text joins them), for a view that shows the first and unfolds the
// rest.
func verdict(snap *Snapshot, sum Summary) (v, text string, rounds []string) {
	v, text = judge(snap, sum)
	switch v {
	case VerdictSerialized, VerdictConcurrent, VerdictBounded, VerdictPartial:
		if rounds = roundVerdicts(snap); len(rounds) > 0 {
			text = v + ": " + strings.Join(rounds, "; ")
		}
	}
	if n := sum.StalledMessages; n > 0 {
		text += fmt.Sprintf("; while one request was served the client read nothing else: %s withheld, up to %.1f ms",
			plural(n, "message", "messages"), ms(maxStalled(snap)))
	}
	if a := sum.ServerRequests.Aborted; a > 0 && sum.ServerRequests.Total-a >= 2 {
		text += fmt.Sprintf(" (the run was cut short: %s never answered, left out)", plural(a, "request was", "requests were"))
	}
	return v, text, rounds
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func judge(snap *Snapshot, sum Summary) (string, string) {
	n := sum.ServerRequests.Total
	aborted := sum.ServerRequests.Aborted
	counted := n - aborted
	switch {
	case n == 0 && sum.IsLoad():
		return VerdictLoad, loadText(sum)
	case n == 0:
		return VerdictNoFanout, "no fan-out: the server sent no requests to the client"
	case aborted > 0 && counted < 2:
		return VerdictNoFanout, fmt.Sprintf("no fan-out to judge: the run was cut short — of the %s the server sent, %d never answered (aborted)",
			plural(n, "request", "requests"), aborted)
	case n == 1:
		return VerdictNoFanout, "no fan-out: the server sent only 1 request to the client"
	}
	if med, ok := medianServe(snap); ok && med < TooFastFloor {
		return VerdictTooFast, fmt.Sprintf("too fast to tell: serve times under %v (median %.3f ms) — which of the %d requests overlapped was up to the scheduler and the SDK's hand-off (up to %.1f ms), not the dispatch; inject latency (100 ms, say) to judge it",
			TooFastFloor, ms(med), counted, sum.HandoffMS.Max)
	}
	steps := gateSteps(snap)
	g := gateStatsOf(steps)
	if g.peakWire < 2 {
		return VerdictNoFanout, fmt.Sprintf("no fan-out: the server sent %d requests, but never two pending at once", counted)
	}
	b := findBurst(snap, steps, g.peakWire)
	took := b.to - b.from
	share := g.waitShare()
	// When the busy period holds just the requests pending at the peak,
	// they arrived together: compare its length with what serving them all
	// at once would have taken. A longer busy period (a load test, calls
	// overlapping) has no such single figure: say how much time went to
	// waiting instead.
	var together, cost string
	if b.requests <= g.peakWire && b.requests >= 2 {
		together = fmt.Sprintf("%d requests arrived together", b.requests)
		cost = " — " + seconds(took)
		if b.longest > 0 {
			cost += fmt.Sprintf(", %.1f× the concurrent time (%s, the longest serve time among them)",
				float64(took)/float64(b.longest), seconds(b.longest))
		}
	} else {
		together = fmt.Sprintf("up to %d requests were pending at once (%d in a busy period of %s)",
			g.peakWire, b.requests, seconds(took))
		cost = fmt.Sprintf(" — %.1f%% of the requests' time went to waiting for a slot", 100*share)
	}
	switch {
	case g.peakInFlight <= 1 && share < negligibleWait:
		return VerdictNoFanout, fmt.Sprintf("no fan-out: the server sent %d requests; they overlapped only briefly (%.1f%% of their time waiting)",
			counted, 100*share)
	case g.peakInFlight <= 1:
		return VerdictSerialized, fmt.Sprintf("serialized: %s and were served one at a time%s", together, cost)
	case g.wait == 0 && g.peakInFlight >= g.peakWire:
		return VerdictConcurrent, fmt.Sprintf("concurrent: %s and all %d were served at once%s",
			together, g.peakInFlight, cost)
	case g.wait == 0:
		return VerdictConcurrent, fmt.Sprintf("concurrent: %s; none waited for a slot, up to %d were served at once%s",
			together, g.peakInFlight, cost)
	case float64(g.waitFull) >= ceilingShare*float64(g.wait):
		return VerdictBounded, fmt.Sprintf("bounded: %s and at most %d were served at once while up to %d waited%s",
			together, g.peakInFlight, g.peakWaiting, cost)
	case share < negligibleWait:
		return VerdictConcurrent, fmt.Sprintf("concurrent: %s and up to %d were served at once, with no noticeable wait (%.1f%% of their time)%s",
			together, g.peakInFlight, 100*share, cost)
	}
	return VerdictPartial, fmt.Sprintf("partial: %s; up to %d were served at once, but %.0f%% of the waiting happened while fewer were running%s",
		together, g.peakInFlight, 100*float64(g.wait-g.waitFull)/float64(g.wait), cost)
}

// maxRoundVerdicts is the most rounds the verdict describes one by one.
const maxRoundVerdicts = 4

// roundVerdicts judges the input requests of each multi-round-trip round
// (the incoming children of a [KindRound] span) as a burst of its own:
// how many there were, whether they were served one at a time or at once,
// how long the round's fulfilment took and how that compares with the
// longest of them. Rounds without input requests say nothing; after
// [maxRoundVerdicts] the rest are counted.
func roundVerdicts(snap *Snapshot) []string {
	rounds := map[SpanID]*Span{}
	calls := map[SpanID]bool{}
	for _, s := range snap.Spans {
		if s.Kind == KindRound {
			rounds[s.ID] = s
		}
	}
	children := map[SpanID][]*Span{}
	var order []*Span // rounds with input requests, in span order
	for _, s := range snap.Spans {
		r, ok := rounds[s.Parent]
		if !ok || s.Direction != Incoming || s.Received == Unset || s.Status == StatusAborted {
			continue
		}
		if len(children[r.ID]) == 0 {
			order = append(order, r)
			calls[r.Parent] = true
		}
		children[r.ID] = append(children[r.ID], s)
	}
	slices.SortFunc(order, func(a, b *Span) int { return int(a.ID - b.ID) })
	var out []string
	for i, r := range order {
		if i == maxRoundVerdicts {
			out = append(out, fmt.Sprintf("%s more", plural(len(order)-i, "round", "rounds")))
			break
		}
		reqs := children[r.ID]
		g := gateStatsOf(gateSteps(&Snapshot{Spans: reqs, Now: snap.Now}))
		from, to := time.Duration(math.MaxInt64), time.Duration(0)
		var longest time.Duration
		for _, s := range reqs {
			from, to = min(from, s.Received), max(to, SpanEnd(snap, s))
			serve := s.ServeTime()
			if s.Open() && s.Serving != Unset {
				serve = max(snap.Now, s.Serving) - s.Serving
			}
			longest = max(longest, serve)
		}
		n := len(reqs)
		var how string
		switch {
		case n == 1:
			how = "1 input request"
		case g.peakInFlight <= 1:
			how = fmt.Sprintf("%d input requests served one at a time", n)
		case g.peakInFlight >= n:
			how = fmt.Sprintf("%d input requests served at once", n)
		default:
			how = fmt.Sprintf("%d input requests, at most %d served at once", n, g.peakInFlight)
		}
		name := fmt.Sprintf("round %d", r.Round)
		if len(calls) > 1 {
			name = fmt.Sprintf("call %d round %d", r.Parent, r.Round)
		}
		text := fmt.Sprintf("%s: %s — %s", name, how, seconds(to-from))
		if n > 1 && longest > 0 {
			text += fmt.Sprintf(", %.1f× the concurrent time (%s)", float64(to-from)/float64(longest), seconds(longest))
		}
		out = append(out, text)
	}
	return out
}

// maxStalled is the longest any message was withheld from the client.
func maxStalled(snap *Snapshot) time.Duration {
	var m time.Duration
	for _, s := range snap.Spans {
		m = max(m, s.Stalled)
	}
	for _, e := range snap.Events {
		m = max(m, e.Stalled)
	}
	return m
}

// loadText says what a load test did: "load: 5,000 calls, up to 50 in
// flight, 1,234.5 calls/s, call time p50 1.20 ms · p99 8.00 ms".
func loadText(sum Summary) string {
	c := sum.ToolCalls
	text := "load: " + thousands(c.Total) + " calls"
	switch {
	case c.Failed > 0:
		text += fmt.Sprintf(" (%s failed)", thousands(c.Failed))
	case c.OK < c.Total:
		text += fmt.Sprintf(" (%s done so far)", thousands(c.OK+c.Failed))
	}
	if c.PeakInFlight <= 1 {
		text += ", one at a time"
	} else {
		text += fmt.Sprintf(", up to %s in flight", thousands(c.PeakInFlight))
	}
	if c.ThroughputPerS > 0 {
		text += fmt.Sprintf(", %s calls/s", thousands1(c.ThroughputPerS))
	}
	if c.DurationMS.Max > 0 {
		text += fmt.Sprintf(", call time p50 %.2f ms · p99 %.2f ms", c.DurationMS.P50, c.DurationMS.P99)
	}
	return text + "; the server sent no requests to the client"
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// thousands1 writes v with one decimal and commas in its whole part.
func thousands1(v float64) string {
	tenths := int(math.Round(v * 10))
	return fmt.Sprintf("%s.%d", thousands(tenths/10), tenths%10)
}
