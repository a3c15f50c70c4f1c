package wire

import (
	"fmt"
	"sync"
)

// MaxProtocolEvents is how many protocol_error events one connection
// records: a peer that keeps misbehaving cannot grow the recording
// without end.
const MaxProtocolEvents = 1000

// ProtocolEvents counts one connection's protocol_error events, for the
// client engine and the proxy alike. The zero value is ready to use.
type ProtocolEvents struct {
	mu sync.Mutex
	n  int
}

// Next counts one more protocol event and says how to record it: keep
// it as it is; or, for the first past [MaxProtocolEvents], record
// instead an event whose text is summary (with no method, span or
// payload); or drop it (keep false, summary "").
func (p *ProtocolEvents) Next() (keep bool, summary string) {
	p.mu.Lock()
	p.n++
	n := p.n
	p.mu.Unlock()
	switch {
	case n <= MaxProtocolEvents:
		return true, ""
	case n == MaxProtocolEvents+1:
		return false, fmt.Sprintf("more protocol errors: only the first %d are recorded", MaxProtocolEvents)
	}
	return false, ""
}
