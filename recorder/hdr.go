package recorder

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: times are recorded in microseconds, from 1 µs to one
// hour, to three significant digits (a value is within 0.1% of the time
// it stands for). A longer time is recorded as one hour.
const (
	histLowestUS  = 1
	histHighestUS = int64(time.Hour / time.Microsecond)
	histDigits    = 3
)

// TailPercentiles are the percentiles of a distribution of times that hold
// at the tail, in milliseconds with microsecond resolution, read from an
// HDR histogram (three significant digits).
type TailPercentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

// Histogram is an HDR histogram of times: constant memory whatever the
// number of values, percentiles exact to three significant digits, and
// histograms of several runs merge exactly. The zero value is not ready:
// make one with [NewHistogram].
type Histogram struct {
	h   *hdrhistogram.Histogram
	max int64 // the exact largest value, in µs: a percentile never passes it
}

// NewHistogram returns an empty [Histogram].
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(histLowestUS, histHighestUS, histDigits)}
}

// Record adds one time; negative times count as zero, times over an hour
// as one hour.
func (h *Histogram) Record(d time.Duration) {
	us := min(max(int64(d/time.Microsecond), 0), histHighestUS)
	_ = h.h.RecordValue(us) // in range by construction
	h.max = max(h.max, us)
}

// Merge adds every value of o to h.
func (h *Histogram) Merge(o *Histogram) {
	h.h.Merge(o.h)
	h.max = max(h.max, o.max)
}

// Count is how many times were recorded.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Percentiles returns p50, p90, p95, p99, p99.9 and the max in milliseconds;
// all zero when nothing was recorded. A percentile is the highest value
// equivalent to the recorded ones at three significant digits, but never
// more than the exact max.
func (h *Histogram) Percentiles() TailPercentiles {
	if h == nil || h.h.TotalCount() == 0 {
		return TailPercentiles{}
	}
	v := h.h.ValueAtPercentilesSlice([]float64{50, 90, 95, 99, 99.9})
	ms := func(us int64) float64 { return float64(min(us, h.max)) / 1000 }
	return TailPercentiles{P50: ms(v[0]), P90: ms(v[1]), P95: ms(v[2]), P99: ms(v[3]), P999: ms(v[4]), Max: ms(h.max)}
}

// MethodTimes are the HDR percentiles of one method's times: Call for
// the client's own requests (sent to answered), Queue and Serve for the
// server's requests (waiting at the dispatch gate, being served).
type MethodTimes struct {
	Count int64            `json:"count"`
	Call  *TailPercentiles `json:"call_ms,omitempty"`
	Queue *TailPercentiles `json:"queue_ms,omitempty"`
	Serve *TailPercentiles `json:"serve_ms,omitempty"`
}

// Latencies are a run's HDR histograms: every finished tool call's
// duration ([CallDuration]), and per method the client's requests' call
// times and the server's requests' queue and serve times.
type Latencies struct {
	Calls *Histogram `json:"calls"`
	// ByMethod holds, per JSON-RPC method, "call", "queue" and "serve"
	// histograms (only those the method has).
	ByMethod map[string]map[string]*Histogram `json:"by_method"`
}

// NewLatencies returns empty [Latencies].
func NewLatencies() *Latencies {
	return &Latencies{Calls: NewHistogram(), ByMethod: map[string]map[string]*Histogram{}}
}

func (l *Latencies) hist(method, what string) *Histogram {
	m := l.ByMethod[method]
	if m == nil {
		m = map[string]*Histogram{}
		l.ByMethod[method] = m
	}
	h := m[what]
	if h == nil {
		h = NewHistogram()
		m[what] = h
	}
	return h
}

// Add records the times of one span: an outgoing span's call time (a
// tool call's also into Calls), an incoming one's queue and serve times.
// Open, aborted and duplicate spans and multi-round-trip rounds are left
// out, as [Summarize] leaves them out of its distributions.
func (l *Latencies) Add(s *Span) {
	if s.Open() || s.Received == Unset || s.Answered == Unset || s.Kind == KindRound {
		return
	}
	switch s.Direction {
	case Outgoing:
		d, ok := CallDuration(s)
		if !ok {
			return
		}
		if isToolCall(s) {
			l.Calls.Record(d)
		}
		l.hist(s.Method, "call").Record(d)
	case Incoming:
		if s.Status == StatusAborted || s.Duplicate || s.Queued == Unset || s.Serving == Unset {
			return
		}
		l.hist(s.Method, "queue").Record(s.QueueTime())
		l.hist(s.Method, "serve").Record(s.ServeTime())
	}
}

// LatenciesOf returns the [Latencies] of every span of snap.
func LatenciesOf(snap *Snapshot) *Latencies {
	l := NewLatencies()
	if snap == nil {
		return l
	}
	for _, s := range snap.Spans {
		l.Add(s)
	}
	return l
}

// Times returns the percentiles of each method's histograms.
func (l *Latencies) Times() map[string]MethodTimes {
	out := make(map[string]MethodTimes, len(l.ByMethod))
	for m, hs := range l.ByMethod {
		var t MethodTimes
		pick := func(what string) *TailPercentiles {
			h := hs[what]
			if h == nil {
				return nil
			}
			t.Count = max(t.Count, h.Count())
			p := h.Percentiles()
			return &p
		}
		t.Call, t.Queue, t.Serve = pick("call"), pick("queue"), pick("serve")
		out[m] = t
	}
	return out
}

// ErrorKind counts the tool calls that failed one way: Kind is "jsonrpc"
// (the server answered with a JSON-RPC error, Code its code), "tool" (a
// result with isError set), "timeout", "cancelled", "aborted" (the
// connection was lost), or "error" (any other failure).
type ErrorKind struct {
	Kind  string `json:"kind"`
	Code  int64  `json:"code,omitempty"`
	Count int    `json:"count"`
}

// errorKindOf is how a failed span failed, as an [ErrorKind]'s kind and
// code.
func errorKindOf(s *Span) (string, int64) {
	switch {
	case s.Status == StatusError && s.ErrorCode != 0:
		return "jsonrpc", s.ErrorCode
	case s.Status == StatusError && len(s.Result) > 0:
		return "tool", 0
	case s.Status == StatusError:
		return "error", 0
	}
	return s.Status.String(), 0
}

// errorKinds lists counts by kind and code, most frequent first (ties by
// kind, then code).
func errorKinds(counts map[ErrorKind]int) []ErrorKind {
	out := make([]ErrorKind, 0, len(counts))
	for k, n := range counts {
		k.Count = n
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b ErrorKind) int {
		switch {
		case a.Count != b.Count:
			return b.Count - a.Count
		case a.Kind != b.Kind:
			if a.Kind < b.Kind {
				return -1
			}
			return 1
		case a.Code < b.Code:
			return -1
		case a.Code > b.Code:
			return 1
		}
		return 0
	})
	return out
}

// clone returns a copy of h.
func (h *Histogram) clone() *Histogram {
	return &Histogram{h: hdrhistogram.Import(h.h.Export()), max: h.max}
}

// legacy is [Histogram.Percentiles] in the shape of the summary's older
// distributions (p50, p90, p99, max).
func (h *Histogram) legacy() Percentiles {
	p := h.Percentiles()
	return Percentiles{P50: p.P50, P90: p.P90, P99: p.P99, Max: p.Max}
}

// histogramJSON is a [Histogram] in a recording: the exact max and each
// non-empty bucket as [lowest value in µs, count].
type histogramJSON struct {
	MaxUS  int64      `json:"max_us"`
	Counts [][2]int64 `json:"counts"`
}

// MarshalJSON writes the histogram's non-empty buckets.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	j := histogramJSON{MaxUS: h.max, Counts: [][2]int64{}}
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			j.Counts = append(j.Counts, [2]int64{b.From, b.Count})
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*h = *NewHistogram()
	for _, c := range j.Counts {
		if c[0] < 0 || c[0] > histHighestUS || c[1] < 0 {
			return fmt.Errorf("histogram bucket %d µs × %d: outside 0 .. 1 hour, or a negative count", c[0], c[1])
		}
		_ = h.h.RecordValues(c[0], c[1])
	}
	h.max = min(max(j.MaxUS, 0), histHighestUS)
	return nil
}
