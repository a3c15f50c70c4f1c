package recorder

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// JournalStreamInterval is the least time between two lines of one open
// event stream in a [Journal]: a stream that keeps new events is written
// again at most this often while it is open, and once more when it ends.
const JournalStreamInterval = time.Second

// journalExchange is what a [Journal] last wrote of an exchange.
type journalExchange struct {
	x  *Exchange
	at time.Time
}

// exchangeLines returns the journal lines of the recording's exchanges
// that are new or changed since the last call: an exchange when it is
// added, again when it ends, and an open event stream that kept new
// events at most every [JournalStreamInterval]; with final, every change.
// Exchanges are written as the recording stores them, masked and bounded
// on entry ([Recording.AddExchange]). Only flush calls it, from one
// goroutine at a time.
func (j *Journal) exchangeLines(final bool) []journalLine {
	log, version := j.rec.HTTP()
	if log == nil || version == j.xversion && !j.xdue && !final {
		return nil
	}
	now := time.Now()
	written := make(map[ExchangeID]journalExchange, len(log.Exchanges))
	var lines []journalLine
	j.xdue = false
	for _, x := range log.Exchanges {
		w, ok := j.xwritten[x.ID]
		switch {
		case ok && w.x == x:
		case !ok, final, !x.Open():
			w = journalExchange{x, now}
			lines = append(lines, journalLine{Exchange: x})
		case len(x.Events) == len(w.x.Events):
			// only counted events past its bounds: written when it ends
		case now.Sub(w.at) >= JournalStreamInterval:
			w = journalExchange{x, now}
			lines = append(lines, journalLine{Exchange: x})
		default:
			j.xdue = true
		}
		written[x.ID] = w
	}
	j.xwritten, j.xversion = written, version
	return lines
}

// exchangeSet gathers the exchanges of a journal as its lines are read:
// the last line of an exchange wins, and no more are held than twice
// [MaxExchanges] (the first ones and the latest).
type exchangeSet struct {
	byID  map[ExchangeID]*Exchange
	maxID ExchangeID
}

func (s *exchangeSet) add(x *Exchange) {
	if s.byID == nil {
		s.byID = map[ExchangeID]*Exchange{}
	}
	s.byID[x.ID] = x
	s.maxID = max(s.maxID, x.ID)
	if len(s.byID) > 2*MaxExchanges {
		for _, id := range s.dropped(MaxExchanges) {
			delete(s.byID, id)
		}
	}
}

// dropped returns the IDs left out when only keep of the exchanges are
// kept: all but the first half and the latest.
func (s *exchangeSet) dropped(keep int) []ExchangeID {
	if len(s.byID) <= keep {
		return nil
	}
	ids := slices.Sorted(maps.Keys(s.byID))
	head := keep / 2
	return ids[head : len(ids)-(keep-head)]
}

// log returns the exchanges as a recording holds them, bounded as
// [Recording.AddExchange] bounds them (the first half of [MaxExchanges],
// then the latest), or nil when there are none. The total is the highest
// ID read: the latest exchange made is always kept.
func (s *exchangeSet) log() *HTTPLog {
	if len(s.byID) == 0 {
		return nil
	}
	drop := s.dropped(MaxExchanges)
	out := make([]*Exchange, 0, min(len(s.byID), MaxExchanges))
	for _, x := range s.byID {
		if _, gone := slices.BinarySearch(drop, x.ID); !gone {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(a, b *Exchange) int { return cmp.Compare(a.ID, b.ID) })
	return &HTTPLog{Total: int(s.maxID), Exchanges: out}
}
