package recorder

// Verdicts of a [Summary].
const (
	VerdictSerialized = "serialized"
	VerdictBounded    = "bounded"
	VerdictConcurrent = "concurrent"
	VerdictPartial    = "partial"
	VerdictNoFanout   = "no-fanout"
)

// Summarize computes the statistics of a snapshot.
func Summarize(snap *Snapshot) Summary { return Summary{} }

// Get returns the numeric value of the summary field named by a dotted key
// as it appears in the summary's JSON, such as "peak_in_flight",
// "tool_calls.failed", "queue_ms.p99" or
// "server_requests.by_method.sampling/createMessage".
func (s Summary) Get(key string) (float64, bool) { return 0, false }

// Keys returns every key [Summary.Get] knows, sorted.
func (s Summary) Keys() []string { return nil }
