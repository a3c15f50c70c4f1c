package engine

import (
	"encoding/json"
	"sync"

	"github.com/fanout-inspector/inspector/recorder"
)

// policyBox holds the answering policy in force: read by every request
// as it starts, replaced by SetAnswerPolicy.
type policyBox struct {
	mu     sync.RWMutex
	policy AnswerPolicy
}

func (b *policyBox) get() AnswerPolicy {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.policy
}

func (b *policyBox) set(policy AnswerPolicy) {
	b.mu.Lock()
	b.policy = policy
	b.mu.Unlock()
}

// AnswerPolicy returns the answering policy in use.
func (s *Session) AnswerPolicy() AnswerPolicy {
	return s.policy.get().clone()
}

// clone copies policy's map and slice, so that a caller changing them does
// not change the session's.
func (policy AnswerPolicy) clone() AnswerPolicy {
	policy.Roots = append([]string(nil), policy.Roots...)
	if policy.MethodLatency != nil {
		ml := make(map[string]LatencyModel, len(policy.MethodLatency))
		for k, v := range policy.MethodLatency {
			ml[k] = v
		}
		policy.MethodLatency = ml
	}
	return policy
}

// current is the answering policy as it is, for a request about to be
// served; the caller must not change it.
func (s *Session) current() AnswerPolicy {
	return s.policy.get()
}

// SetAnswerPolicy changes how the server's requests are answered, from the
// next request on, without reconnecting. Requests already being served
// keep the policy they started with, except those waiting for a person
// that policy no longer leaves to one: they get policy's answer now. A larger dispatch limit lets
// queued requests in at once. An invalid sampling reply template makes
// sampling answers fail with the template's error; check
// [AnswerPolicy.Validate] first to tell the user.
func (s *Session) SetAnswerPolicy(policy AnswerPolicy) {
	old := s.AnswerPolicy()
	s.setAnswerPolicy(policy)
	if s.client != nil && !equalStrings(old.Roots, policy.Roots) {
		s.client.RemoveRoots(old.Roots...)
		s.client.AddRoots(rootsOf(policy.Roots)...)
	}
	config, _ := json.Marshal(policy)
	s.rec.SetMeta(func(m *recorder.Meta) { m.Config = config })
	s.releaseWaiting(s.current())
}

func (s *Session) setAnswerPolicy(policy AnswerPolicy) {
	policy = policy.clone()
	policy.reply, _ = parseReply(policy.SamplingReply)
	policy.endpoint = newEndpointClient(policy.SamplingEndpoint)
	s.rec.AddSecrets(policy.endpoint.secrets()...) // before any request can show the key
	s.policy.set(policy)
	s.gate.setLimit(policy.Dispatch.Slots())
}
