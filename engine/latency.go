package engine

import (
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// Sample draws one latency from the model using r. Normal latencies are
// clamped at 0; an empty model is no latency.
func (m LatencyModel) Sample(r *rand.Rand) time.Duration {
	switch m.Dist {
	case Uniform:
		if m.B <= m.A {
			return m.A
		}
		return m.A + time.Duration(r.Float64()*float64(m.B-m.A))
	case Normal:
		d := float64(m.A) + r.NormFloat64()*float64(m.B)
		if d < 0 {
			return 0
		}
		return time.Duration(d)
	case Exponential:
		return time.Duration(r.ExpFloat64() * float64(m.A))
	}
	return m.A
}

// requestRand returns the random source of one request: a function of the
// seed, the method and the request's 1-based arrival index among requests
// of that method, and of nothing else. Concurrency can change which
// goroutine serves a request, never the values it draws.
func requestRand(seed int64, method string, index int64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(method))
	return rand.New(rand.NewPCG(uint64(seed)^h.Sum64(), uint64(index)))
}

// draw is what the seeded model decided for one request: how long to wait
// and whether to fail.
type draw struct {
	latency time.Duration
	fail    bool
}

// drawFor draws the latency and failure of the index-th request of method
// under policy. The latency is drawn first, then the failure, always, so that
// changing the fail rate does not change the latencies.
func drawFor(policy *AnswerPolicy, method string, index int64) draw {
	r := requestRand(policy.Seed, method, index)
	m := policy.Latency
	if o, ok := policy.MethodLatency[method]; ok {
		m = o
	}
	d := draw{latency: m.Sample(r)}
	d.fail = r.Float64() < policy.FailRate
	return d
}
