package recorder

import (
	"testing"
	"time"
)

// proxySnap is a proxy recording of server requests, each arriving at
// recv[i] and answered at ans[i] (milliseconds).
func proxySnap(recv, ans []int) *Snapshot {
	snap := &Snapshot{Meta: Meta{Mode: ModeProxy}}
	for i := range recv {
		s := NewSpan("proxy", Incoming, "sampling/createMessage")
		s.ID = SpanID(i + 1)
		s.Received, s.Queued = time.Duration(recv[i])*time.Millisecond, time.Duration(recv[i])*time.Millisecond
		s.Serving = time.Duration(ans[i]) * time.Millisecond // as Recording.End leaves it
		s.Answered = s.Serving
		s.Status = StatusOK
		snap.Spans = append(snap.Spans, &s)
		snap.Now = max(snap.Now, s.Answered)
	}
	return snap
}

// TestEstimateClientWork: the serving concurrency read from the answers
// alone, with a few milliseconds of jitter as on a real machine.
func TestEstimateClientWork(t *testing.T) {
	for _, c := range []struct {
		name      string
		recv, ans []int
		peak      int
	}{
		{"one at a time", []int{0, 1, 1, 2, 2}, []int{503, 1001, 1507, 2004, 2510}, 1},
		{"all at once", []int{0, 1, 1, 2, 2}, []int{503, 501, 507, 504, 510}, 5},
		{"two at a time", []int{0, 1, 1, 2, 2, 3}, []int{502, 505, 1003, 1009, 1504, 1510}, 2},
		// The documented blind spot: concurrent, with staircase latencies.
		{"staircase", []int{0, 0, 0}, []int{500, 1000, 1500}, 1},
		// Two bursts far apart: each estimated on its own.
		{"two bursts", []int{0, 0, 5000, 5001}, []int{300, 301, 5100, 5202}, 2},
	} {
		snap := proxySnap(c.recv, c.ans)
		before, _ := Peaks(Steps(snap))
		est := EstimateClientWork(snap)
		inFlight, pending := Peaks(Steps(est))
		if inFlight != c.peak {
			t.Errorf("%s: estimated peak in flight %d, want %d", c.name, inFlight, c.peak)
		}
		if pending != max(pending, 1) || before != 0 {
			t.Errorf("%s: before the estimate %d in flight (want 0: all waiting), pending %d", c.name, before, pending)
		}
		for i, s := range est.Spans {
			if s.Serving < s.Received || s.Serving > s.Answered || s.Received != snap.Spans[i].Received || s.Answered != snap.Spans[i].Answered {
				t.Errorf("%s: span %d estimated %v..%v..%v, want work inside the exact wait %v..%v", c.name, i, s.Received, s.Serving, s.Answered, snap.Spans[i].Received, snap.Spans[i].Answered)
			}
		}
		if snap.Spans[0].Serving != snap.Spans[0].Answered {
			t.Errorf("%s: the estimate changed the snapshot it was given", c.name)
		}
	}
}

// TestEstimateLeavesClientModeAlone: a recording made as the client has
// its serving times measured, not estimated.
func TestEstimateLeavesClientModeAlone(t *testing.T) {
	snap := proxySnap([]int{0, 0}, []int{100, 200})
	snap.Meta.Mode = ""
	if EstimateClientWork(snap) != snap {
		t.Error("a client-mode recording was changed")
	}
}
