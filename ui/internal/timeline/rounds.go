package timeline

import (
	"fmt"
	"slices"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// A multi-round-trip tool call (protocol 2026-07-28) is one span with a
// child span per wire round, and each round has the input requests its
// input_required result asked for as children. Between round n's answer
// and round n+1's send, the client is fulfilling those input requests:
// that fulfilment time is derived here, for the Gantt, its tooltip and
// the details pane.

// fulfilment is the client's time between two rounds of a call: from
// round After's input_required answer to the next round being sent, or to
// now while the client is still fulfilling.
type fulfilment struct {
	after    int32 // the round whose input was being fulfilled
	from, to time.Duration
	open     bool // no next round yet: To is now
}

// roundsOf returns the round spans of call in snap, in round order.
func roundsOf(snap *recorder.Snapshot, call *recorder.Span) []*recorder.Span {
	if snap == nil || call == nil || call.Kind != recorder.KindTool {
		return nil
	}
	var rounds []*recorder.Span
	for _, s := range snap.Spans {
		if s.Parent == call.ID && s.Kind == recorder.KindRound {
			rounds = append(rounds, s)
		}
	}
	sortRounds(rounds)
	return rounds
}

// roundsUnder returns the round spans among the children of span index
// call in the layout, in round order.
func (l *ganttLayout) roundsUnder(snap *recorder.Snapshot, call int32) []*recorder.Span {
	var rounds []*recorder.Span
	for k := l.firstKid[call]; k >= 0; k = l.nextKid[k] {
		if s := snap.Spans[k]; s.Kind == recorder.KindRound {
			rounds = append(rounds, s)
		}
	}
	sortRounds(rounds)
	return rounds
}

func sortRounds(rounds []*recorder.Span) {
	slices.SortStableFunc(rounds, func(a, b *recorder.Span) int { return int(a.Round - b.Round) })
}

// fulfilments returns the client's fulfilment times between the rounds of
// a call, given in round order. A round that asked for input and has no
// next round yet is being fulfilled until now while the call is open.
func fulfilments(rounds []*recorder.Span, now time.Duration, callOpen bool) []fulfilment {
	var out []fulfilment
	for i, r := range rounds {
		if r.Outcome != recorder.OutcomeInputRequired || r.Answered == recorder.Unset {
			continue
		}
		switch {
		case i+1 < len(rounds) && rounds[i+1].Received != recorder.Unset:
			out = append(out, fulfilment{after: r.Round, from: r.Answered, to: max(rounds[i+1].Received, r.Answered)})
		case i+1 == len(rounds) && callOpen:
			out = append(out, fulfilment{after: r.Round, from: r.Answered, to: max(now, r.Answered), open: true})
		}
	}
	return out
}

// outcomeText says what the server answered a round.
func outcomeText(s *recorder.Span) string {
	switch s.Outcome {
	case recorder.OutcomeInputRequired:
		return fmt.Sprintf("input_required with %s", plural(int(s.InputRequests), "request"))
	case recorder.OutcomeResult:
		return "the result"
	case recorder.OutcomeError:
		return "an error"
	}
	if s.Open() {
		return "nothing yet"
	}
	return "no outcome recorded"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// rowLabel is the label of a span's row in the Gantt's gutter: a round
// says its number and outcome, an input request its key.
func rowLabel(s *recorder.Span) string {
	switch {
	case s.Kind == recorder.KindRound:
		switch s.Outcome {
		case recorder.OutcomeInputRequired:
			return fmt.Sprintf("round %d: %s", s.Round, plural(int(s.InputRequests), "input"))
		case recorder.OutcomeResult:
			return fmt.Sprintf("round %d: result", s.Round)
		case recorder.OutcomeError:
			return fmt.Sprintf("round %d: error", s.Round)
		}
		return fmt.Sprintf("round %d", s.Round)
	case s.InputKey != "":
		return s.InputKey + " " + s.Method
	}
	return SpanLabel(s)
}

// stalledText says how long a span was withheld from the client, in the
// words of its direction, or "" when it was not.
func stalledText(s *recorder.Span) string {
	if s.Stalled <= 0 {
		return ""
	}
	if s.Direction == recorder.Incoming {
		return fmt.Sprintf("stalled %s (read, not yet seen by the client)", FormatDuration(s.Stalled))
	}
	return fmt.Sprintf("response stalled %s (read, not yet seen by the client)", FormatDuration(s.Stalled))
}

// roundFacts describes where s stands in a multi-round-trip call, as
// (name, value) pairs for the details pane: the rounds of a call and the
// client's fulfilment time in all; a round's number, outcome and the
// fulfilment before and after it; an input request's round and key.
func roundFacts(snap *recorder.Snapshot, s *recorder.Span) [][2]string {
	var facts [][2]string
	add := func(k, v string) { facts = append(facts, [2]string{k, v}) }
	switch {
	case s.Kind == recorder.KindTool:
		rounds := roundsOf(snap, s)
		if len(rounds) == 0 {
			return nil
		}
		asked := 0
		for _, r := range rounds {
			if r.Outcome == recorder.OutcomeInputRequired {
				asked++
			}
		}
		add("rounds", fmt.Sprintf("%d (%d input_required)", len(rounds), asked))
		var total time.Duration
		for _, f := range fulfilments(rounds, snapNow(snap), s.Open()) {
			total += f.to - f.from
		}
		add("fulfilment", FormatDuration(total)+" in all (the client, between rounds)")
	case s.Kind == recorder.KindRound:
		call := snap.SpanByID(s.Parent)
		add("round", fmt.Sprint(s.Round))
		add("outcome", outcomeText(s))
		rounds := roundsOf(snap, call)
		callOpen := call != nil && call.Open()
		for _, f := range fulfilments(rounds, snapNow(snap), callOpen) {
			switch {
			case f.after == s.Round-1:
				add("fulfilment", fmt.Sprintf("%s before it: the client fulfilling round %d's input (round %d answered → round %d sent)",
					FormatDuration(f.to-f.from), f.after, f.after, s.Round))
			case f.after == s.Round && f.open:
				add("fulfilment", fmt.Sprintf("%s so far after it: the client fulfilling its input (round %d not sent yet)",
					FormatDuration(f.to-f.from), s.Round+1))
			case f.after == s.Round:
				add("fulfilment", fmt.Sprintf("%s after it: the client fulfilling its input (round %d answered → round %d sent)",
					FormatDuration(f.to-f.from), s.Round, s.Round+1))
			}
		}
	case s.Round > 0:
		add("round", fmt.Sprint(s.Round))
		if s.InputKey != "" {
			add("input key", s.InputKey)
		}
	}
	return facts
}

// roundSummary is roundFacts as tooltip lines.
func roundSummary(snap *recorder.Snapshot, s *recorder.Span) []string {
	var lines []string
	for _, f := range roundFacts(snap, s) {
		switch f[0] {
		case "round":
			if s.Kind == recorder.KindRound {
				continue // said with the outcome
			}
			lines = append(lines, "input request of round "+f[1])
		case "outcome":
			lines = append(lines, fmt.Sprintf("round %d answered: %s", s.Round, f[1]))
		case "input key":
			lines = append(lines, "input key "+f[1])
		default:
			lines = append(lines, f[0]+" "+f[1])
		}
	}
	return lines
}

// snapNow is the snapshot's Now, or 0 without one.
func snapNow(snap *recorder.Snapshot) time.Duration {
	if snap == nil {
		return 0
	}
	return snap.Now
}
