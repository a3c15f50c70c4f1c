package recorder

import "time"

// NextRounds maps each [KindRound] span of snap to the next round of the
// same logical call (Round one higher), for the rounds that have one: the
// client's retry after fulfilling the round's input requests.
func NextRounds(snap *Snapshot) map[SpanID]*Span {
	type key struct {
		call  SpanID
		round int32
	}
	byRound := map[key]*Span{}
	for _, s := range snap.Spans {
		if s.Kind == KindRound {
			byRound[key{s.Parent, s.Round}] = s
		}
	}
	next := make(map[SpanID]*Span, len(byRound))
	for k, s := range byRound {
		if n, ok := byRound[key{k.call, k.round + 1}]; ok {
			next[s.ID] = n
		}
	}
	return next
}

// FulfilmentTime is the client's fulfilment time between a round and the
// next round of the same call: from the round's input_required result
// read off the wire to the retry sent. It is derived, not stored; false
// when either end is missing (the round is still open, or no retry was
// sent).
func FulfilmentTime(round, next *Span) (time.Duration, bool) {
	if round == nil || next == nil || round.Answered == Unset || next.Received == Unset {
		return 0, false
	}
	return max(next.Received-round.Answered, 0), true
}
