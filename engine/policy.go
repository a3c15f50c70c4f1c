package engine

import (
	"encoding/json"
	"sync"

	"github.com/fanout-inspector/inspector/recorder"
)

// policyBox holds the answering policy in force: read by every request
// as it starts, replaced by SetAnswerPolicy.
type policyBox struct {
	mu sync.RWMutex
	cb AnswerPolicy
}

func (b *policyBox) get() AnswerPolicy {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.cb
}

func (b *policyBox) set(cb AnswerPolicy) {
	b.mu.Lock()
	b.cb = cb
	b.mu.Unlock()
}

// AnswerPolicy returns the answering policy in use.
func (s *Session) AnswerPolicy() AnswerPolicy {
	return s.policy.get().clone()
}

// clone copies cb's map and slice, so that a caller changing them does
// not change the session's.
func (cb AnswerPolicy) clone() AnswerPolicy {
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

// current is the answering policy as it is, for a request about to be
// served; the caller must not change it.
func (s *Session) current() AnswerPolicy {
	return s.policy.get()
}

// SetAnswerPolicy changes how the server's requests are answered, from the
// next request on, without reconnecting. Requests already being served
// keep the policy they started with, except those waiting for a person
// that cb no longer leaves to one: they get cb's answer now. A larger dispatch limit lets
// queued requests in at once. An invalid sampling reply template makes
// sampling answers fail with the template's error; check
// [AnswerPolicy.Validate] first to tell the user.
func (s *Session) SetAnswerPolicy(cb AnswerPolicy) {
	old := s.AnswerPolicy()
	s.setAnswerPolicy(cb)
	if s.client != nil && !equalStrings(old.Roots, cb.Roots) {
		s.client.RemoveRoots(old.Roots...)
		s.client.AddRoots(rootsOf(cb.Roots)...)
	}
	config, _ := json.Marshal(cb)
	s.rec.SetMeta(func(m *recorder.Meta) { m.Config = config })
	s.releaseWaiting(s.current())
}

func (s *Session) setAnswerPolicy(cb AnswerPolicy) {
	cb = cb.clone()
	cb.reply, _ = parseReply(cb.SamplingReply)
	cb.endpoint = newEndpointClient(cb.SamplingEndpoint)
	s.rec.AddSecrets(cb.endpoint.secrets()...) // before any request can show the key
	s.policy.set(cb)
	s.gate.setLimit(cb.Dispatch.Slots())
}
