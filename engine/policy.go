package engine

import (
	"encoding/json"
	"sync"

	"github.com/fanout-inspector/inspector/recorder"
)

// policyBox holds the answering policy in force: read by every request
// as it starts, replaced by SetCallbacks.
type policyBox struct {
	mu sync.RWMutex
	cb Callbacks
}

func (b *policyBox) get() Callbacks {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.cb
}

func (b *policyBox) set(cb Callbacks) {
	b.mu.Lock()
	b.cb = cb
	b.mu.Unlock()
}

// Callbacks returns the callbacks in use.
func (s *Session) Callbacks() Callbacks {
	return s.policy.get().clone()
}

// clone copies cb's map and slice, so that a caller changing them does
// not change the session's.
func (cb Callbacks) clone() Callbacks {
	cb.Roots = append([]string(nil), cb.Roots...)
	if cb.MethodLatency != nil {
		ml := make(map[string]LatencyModel, len(cb.MethodLatency))
		for k, v := range cb.MethodLatency {
			ml[k] = v
		}
		cb.MethodLatency = ml
	}
	return cb
}

// current is the callbacks as they are, for a request about to be
// served; the caller must not change them.
func (s *Session) current() Callbacks {
	return s.policy.get()
}

// SetCallbacks changes how the server's requests are answered, from the
// next request on, without reconnecting. Requests already being served
// keep the callbacks they started with; a larger dispatch limit lets
// queued requests in at once. An invalid sampling reply template makes
// sampling answers fail with the template's error; check
// [Callbacks.Validate] first to tell the user.
func (s *Session) SetCallbacks(cb Callbacks) {
	old := s.Callbacks()
	s.setCallbacks(cb)
	if s.client != nil && !equalStrings(old.Roots, cb.Roots) {
		s.client.RemoveRoots(old.Roots...)
		s.client.AddRoots(rootsOf(cb.Roots)...)
	}
	config, _ := json.Marshal(cb)
	s.rec.SetMeta(func(m *recorder.Meta) { m.Config = config })
}

func (s *Session) setCallbacks(cb Callbacks) {
	cb = cb.clone()
	cb.reply, _ = parseReply(cb.SamplingReply)
	s.policy.set(cb)
	s.gate.setLimit(cb.Dispatch.Slots())
}
