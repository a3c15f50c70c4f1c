package recorder

import (
	"math"
	"slices"
	"testing"
	"time"
)

// exactPercentile is the nearest-rank percentile of sorted values, the
// definition HDR histograms follow.
func exactPercentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Round(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func TestCallPercentilesMatchRawSpans(t *testing.T) {
	snap := syntheticCalls(100_000)
	var raw []time.Duration
	for _, s := range snap.Spans {
		d, _ := CallDuration(s)
		raw = append(raw, d.Truncate(time.Microsecond))
	}
	slices.Sort(raw)
	sum := Summarize(snap)
	for _, c := range []struct {
		key string
		p   float64
	}{{"call_ms.p50", 50}, {"call_ms.p90", 90}, {"call_ms.p99", 99}, {"call_ms.p99_9", 99.9}, {"call_ms.max", 100}} {
		got, ok := sum.Get(c.key)
		if !ok {
			t.Fatalf("%s: no such key in the summary", c.key)
		}
		want := float64(exactPercentile(raw, c.p)) / float64(time.Millisecond)
		// three significant digits: within 0.1% (and one microsecond)
		if math.Abs(got-want) > want/1000+0.001 {
			t.Errorf("%s = %.3f ms, exact from the raw spans %.3f ms: off by more than 0.1%%", c.key, got, want)
		}
	}
	if sum.CallMS.P50 >= sum.CallMS.P99 || sum.CallMS.P99 >= sum.CallMS.P999 {
		t.Errorf("percentiles do not rise along the tail: %+v", sum.CallMS)
	}
	if got := sum.ByMethodMS["tools/call"]; got.Count != 100_000 || got.Call == nil || *got.Call != sum.CallMS {
		t.Errorf("by_method_ms tools/call = %+v, want 100,000 calls with call_ms %+v", got, sum.CallMS)
	}
	// 100,000 calls started 1,000 a second
	if sum.ThroughputPerS < 950 || sum.ThroughputPerS > 1000 {
		t.Errorf("throughput_per_s = %v, want about 1,000", sum.ThroughputPerS)
	}
	if want := []ErrorKind{{Kind: "jsonrpc", Code: -32603, Count: 2000}}; !slices.Equal(sum.Errors, want) {
		t.Errorf("errors = %+v, want %+v", sum.Errors, want)
	}
}

func TestErrorKinds(t *testing.T) {
	snap := echoLoad(6, 6, time.Millisecond)
	fail := []struct {
		status Status
		code   int64
		result string
	}{{StatusError, -32602, ""}, {StatusError, -32602, ""}, {StatusError, 0, `{"isError":true}`}, {StatusTimeout, 0, ""}, {StatusError, 0, ""}}
	for i, f := range fail {
		s := snap.Spans[i]
		s.Status, s.ErrorCode, s.Error = f.status, f.code, "failed"
		if f.result != "" {
			s.Result = []byte(f.result)
		}
	}
	got := Summarize(snap).Errors
	want := []ErrorKind{{Kind: "jsonrpc", Code: -32602, Count: 2}, {Kind: "error", Count: 1}, {Kind: "timeout", Count: 1}, {Kind: "tool", Count: 1}}
	if !slices.Equal(got, want) {
		t.Errorf("errors = %+v, want %+v", got, want)
	}
}

func TestHistogramMerge(t *testing.T) {
	a, b, all := NewHistogram(), NewHistogram(), NewHistogram()
	for i := range 1000 {
		d := time.Duration(i) * time.Millisecond
		all.Record(d)
		if i%3 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
	}
	a.Merge(b)
	if a.Count() != 1000 || a.Percentiles() != all.Percentiles() {
		t.Errorf("merged %d values %+v, want 1000 values %+v", a.Count(), a.Percentiles(), all.Percentiles())
	}
}
