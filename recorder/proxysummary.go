package recorder

import (
	"fmt"
	"strings"
	"time"
)

// VerdictUnseen is a proxy recording's verdict when the client's fan-out
// never crossed the wire: on protocol 2026-07-28 a round's input requests
// are fulfilled inside the client, and without a one-request round to
// compare with, their concurrency cannot be seen.
const VerdictUnseen = "unseen"

// Fulfilment is one multi-round-trip round's input requests as a proxy
// saw them: asked for in the server's input_required answer, fulfilled
// inside the client, answered in the retry.
type Fulfilment struct {
	// Call is the logical tool call's span, Round the round that asked.
	Call  SpanID `json:"call"`
	Round int    `json:"round"`
	// Requests is how many input requests the round asked for; MS the
	// time from the input_required answer to the retry.
	Requests int     `json:"requests"`
	MS       float64 `json:"ms"`
}

// isFulfilment reports whether s is a proxy's span of a round's input
// requests (which never crossed the wire).
func isFulfilment(s *Span) bool { return s.Direction == Incoming && s.InputRequests > 0 }

// summarizeProxy is [Summarize] for a proxy recording: the server
// requests that crossed the wire, with the client's work estimated
// ([EstimateClientWork]); the fulfilments of rounds apart; and a verdict
// that speaks of the client.
func summarizeProxy(snap *Snapshot) Summary {
	wire := *snap
	wire.Spans = make([]*Span, 0, len(snap.Spans))
	var fulfil []Fulfilment
	for _, s := range snap.Spans {
		if !isFulfilment(s) {
			wire.Spans = append(wire.Spans, s)
			continue
		}
		f := Fulfilment{Round: int(s.Round), Requests: int(s.InputRequests)}
		if p := snap.SpanByID(s.Parent); p != nil {
			f.Call = p.Parent
		}
		if s.Answered != Unset && s.Status == StatusOK {
			f.MS = roundMicro(ms(s.Answered - s.Received))
			fulfil = append(fulfil, f)
		}
	}
	est := EstimateClientWork(&wire)
	sum := SummarizeSteps(est, Steps(est))
	sum.Estimated = true
	sum.Fulfilments = fulfil
	sum.Verdict, sum.VerdictText = proxyVerdict(est, sum)
	return sum
}

// estimateNote is what every proxy verdict says of how it knows.
const estimateNote = "estimated from when its answers came back: the proxy sees when each request reached your client and when it was answered, not when your client started on it"

// proxyVerdict words the verdict of a proxy recording for the person
// whose client it is.
func proxyVerdict(est *Snapshot, sum Summary) (string, string) {
	v, text := sum.Verdict, sum.VerdictText
	n := sum.ServerRequests.Total - sum.ServerRequests.Aborted - sum.ServerRequests.Duplicates
	burst := ""
	if took, one := proxyBurst(est); took > 0 && one > 0 {
		burst = fmt.Sprintf(" — %s, %.1f× one request (%s)", seconds(took), float64(took)/float64(one), seconds(one))
	}
	// The client-mode judge reads gate waits, and an estimate has a wait
	// before every request's work by construction (the jitter share):
	// judge a proxy by the estimated peaks instead.
	// A run of tool calls alone is a load test, as in client mode: with
	// no server requests there is no client fan-out to judge.
	if v != VerdictNoFanout && v != VerdictTooFast && v != VerdictLoad {
		switch {
		case sum.PeakInFlight <= 1:
			v = VerdictSerialized
			text = fmt.Sprintf("serialized: your client served %d requests one at a time%s (%s)", n, burst, estimateNote)
		case sum.PeakInFlight >= sum.PeakPending:
			v = VerdictConcurrent
			text = fmt.Sprintf("concurrent: your client overlapped all %d requests pending at once%s (%s)", sum.PeakPending, burst, estimateNote)
		default:
			v = VerdictBounded
			text = fmt.Sprintf("bounded: your client served at most %d of the %d requests pending at once%s (%s)", sum.PeakInFlight, sum.PeakPending, burst, estimateNote)
		}
	}
	if v == VerdictTooFast {
		text = fmt.Sprintf("too fast to tell: your client answered in under %v (median) — too fast for the order of its answers to say whether it overlapped them", TooFastFloor)
	}
	if len(sum.Fulfilments) == 0 {
		return v, text
	}
	rounds := fulfilmentWords(sum.Fulfilments)
	if n >= 2 && v != VerdictNoFanout {
		return v, text + "; " + rounds
	}
	if fv, words := judgeFulfilments(sum.Fulfilments); fv != "" {
		return fv, fv + ": " + words + "; " + rounds
	}
	return VerdictUnseen, "unseen: " + rounds
}

// proxyBurst is the biggest burst's span, from its first arrival to its
// last answer, and the fastest answer in it (one request's time).
func proxyBurst(est *Snapshot) (took, one time.Duration) {
	var from, to time.Duration = -1, -1
	best := 0
	count := 0
	var bFrom, bTo, bOne time.Duration
	fastest := time.Duration(-1)
	flush := func() {
		if count > best && count >= 2 {
			best, bFrom, bTo, bOne = count, from, to, fastest
		}
	}
	for _, s := range est.Spans {
		if s.Direction != Incoming || !answered(s) || s.Duplicate {
			continue
		}
		if to < 0 || s.Received >= to {
			flush()
			from, to, count, fastest = s.Received, s.Answered, 0, -1
		}
		to = max(to, s.Answered)
		count++
		if w := s.Answered - s.Received; fastest < 0 || w < fastest {
			fastest = w
		}
	}
	flush()
	if best == 0 {
		return 0, 0
	}
	return bTo - bFrom, bOne
}

// fulfilmentWords says what the proxy saw of each round's input
// requests, and that their concurrency cannot be seen.
func fulfilmentWords(fs []Fulfilment) string {
	var parts []string
	for i, f := range fs {
		if i == maxRoundVerdicts {
			parts = append(parts, fmt.Sprintf("%s more", plural(len(fs)-i, "round", "rounds")))
			break
		}
		parts = append(parts, fmt.Sprintf("round %d: %s fulfilled inside your client in %.2f s", f.Round, plural(f.Requests, "input request", "input requests"), f.MS/1000))
	}
	return strings.Join(parts, "; ") + " (input requests never cross the wire: how many your client served at once cannot be seen, only how long each round took)"
}

// judgeFulfilments compares rounds of several input requests with a
// round of one, as the demo server's probe tool does: about as long →
// concurrent, about n times as long → serialized, in between → bounded.
// Without a one-request round there is nothing to compare with.
func judgeFulfilments(fs []Fulfilment) (string, string) {
	var one float64
	for _, f := range fs {
		if f.Requests == 1 && f.MS > 0 && (one == 0 || f.MS < one) {
			one = f.MS
		}
	}
	if one == 0 {
		return "", ""
	}
	var big *Fulfilment
	for i := range fs {
		if fs[i].Requests >= 2 && (big == nil || fs[i].Requests > big.Requests) {
			big = &fs[i]
		}
	}
	if big == nil {
		return "", ""
	}
	ratio := big.MS / one
	n := float64(big.Requests)
	words := fmt.Sprintf("a round of %d input requests took %.1f× a round of 1 (%.2f s against %.2f s), judged from the rounds' times", big.Requests, ratio, big.MS/1000, one/1000)
	switch {
	case ratio < 1.5:
		return VerdictConcurrent, "your client fulfilled them at once — " + words
	case ratio > 0.8*n:
		return VerdictSerialized, "your client fulfilled them one at a time — " + words
	}
	return VerdictBounded, fmt.Sprintf("your client fulfilled about %.0f at a time — %s", n/ratio, words)
}
