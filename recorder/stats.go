package recorder

// Summary is the statistics of one run, in the shape `inspector run --json`
// prints. Times are milliseconds. Compute it with [Summarize].
//
// The time distributions and the verdict count only requests that were
// answered: a request the connection ended before it was answered
// (status aborted) is counted in ServerRequests.Aborted and nowhere else.
type Summary struct {
	ToolCalls      CallCounts    `json:"tool_calls"`
	ServerRequests RequestCounts `json:"server_requests"`
	// PeakInFlight is the most incoming requests being served at once.
	// The peaks and AchievedConcurrency describe the timeline as the
	// concurrency chart draws it, aborted requests included.
	PeakInFlight int `json:"peak_in_flight"`
	// PeakPending is the most incoming requests received and not yet
	// answered at once (queued + serving).
	PeakPending int `json:"peak_pending"`
	// ElapsedMS runs from the first tool call sent to the last tool result
	// received; without tool calls, from the first to the last span.
	ElapsedMS float64 `json:"elapsed_ms"`
	// HandoffMS is the distribution of the time from reading a request off
	// the wire to its handler reaching the dispatch gate: the SDK's
	// hand-off, before the client's own queue.
	HandoffMS Percentiles `json:"handoff_ms"`
	// QueueMS is the distribution of the time requests waited at the
	// dispatch gate for a slot (from reaching the gate to being let in);
	// ServeMS that of the time they were served (from being let in to the
	// answer).
	QueueMS Percentiles `json:"queue_ms"`
	ServeMS Percentiles `json:"serve_ms"`
	// StalledMS is the distribution of the time incoming requests were
	// withheld from the client after being read off the wire (dispatch
	// "inline": a client whose receive loop awaits each request); all
	// zero when nothing was withheld.
	StalledMS Percentiles `json:"stalled_ms"`
	// StalledMessages counts every message withheld from the client for
	// any time: requests, responses to the client's own calls and
	// notifications.
	StalledMessages int `json:"stalled_messages"`
	// AchievedConcurrency is the time-weighted mean of in-flight requests
	// over the time at least one was in flight.
	AchievedConcurrency float64 `json:"achieved_concurrency"`
	// Verdict is "serialized", "concurrent", "bounded", "partial",
	// "too-fast" or "no-fanout" (and, for a proxy, "unseen");
	// VerdictText says it in words for a person.
	Verdict     string `json:"verdict"`
	VerdictText string `json:"verdict_text"`
	// VerdictRounds are the parts of VerdictText that describe rounds one
	// by one ("round 1: …", "round 2: …"), when it does: a view may show
	// the first and unfold the rest. Not in the JSON: the text has them.
	VerdictRounds []string `json:"-"`
	// Estimated is set on a proxy recording's summary: the client's
	// serving times (and so PeakInFlight, QueueMS, ServeMS and the
	// verdict) are estimated from when its answers came back
	// ([EstimateClientWork]); PeakPending and the waits are exact.
	Estimated bool `json:"estimated,omitempty"`
	// Fulfilments lists, for a proxy recording, each multi-round-trip
	// round's input requests as the proxy saw them (fulfilled inside the
	// client).
	Fulfilments []Fulfilment `json:"fulfilments,omitempty"`
	// Sessions counts the sessions the recording holds (a load test with
	// --sessions M has M); Dropped the open-loop arrivals not sent
	// because --max-in-flight calls were outstanding; LateStarts the
	// open-loop calls sent more than [LateStart] after their intended
	// start. See load.go.
	Sessions   int `json:"sessions"`
	Dropped    int `json:"dropped"`
	LateStarts int `json:"late_starts"`

	// CallMS is the distribution of the finished tool calls' latencies
	// ([CallDuration]) from an HDR histogram: p50, p90, p99, p99.9 and
	// max, to three significant digits at microsecond resolution.
	CallMS TailPercentiles `json:"call_ms"`
	// ThroughputPerS is the tool calls finished per second of the run's
	// elapsed time (ElapsedMS), to 0.01; 0 with fewer than two.
	ThroughputPerS float64 `json:"throughput_per_s"`
	// Errors counts the failed tool calls by kind and JSON-RPC code
	// ([ErrorKind]), most frequent first; empty when none failed.
	Errors []ErrorKind `json:"errors"`
	// ByMethodMS holds per JSON-RPC method the HDR percentiles of its
	// times: call_ms for the client's requests, queue_ms and serve_ms
	// for the server's.
	ByMethodMS map[string]MethodTimes `json:"by_method_ms"`
	// Sampled is set when the recording kept only a sample of its spans
	// (--max-spans): every figure above still counts all of them.
	Sampled *SampledSpans `json:"sampled,omitempty"`
}

// SampledSpans says how many spans a sampled recording had and kept.
type SampledSpans struct {
	// Spans is 0 for one run of several of a sampled recording, whose
	// figures come from the spans kept.
	Spans int `json:"spans"`
	Kept  int `json:"kept"`
	// Note says it in words: "kept 100,000 of 1,000,000 spans;
	// statistics are exact".
	Note string `json:"note"`
}

// CallCounts counts the tool calls of a run.
type CallCounts struct {
	// Total counts logical tool calls: a multi-round-trip call that took
	// three wire requests counts once. OK and Failed split it.
	Total  int `json:"total"`
	OK     int `json:"ok"`
	Failed int `json:"failed"`
	// Requests counts the tools/call requests sent on the wire: each
	// round of a multi-round-trip call (protocol 2026-07-28), one per
	// call otherwise.
	Requests int `json:"requests"`
	// InputRounds counts the rounds the server answered with
	// input_required (asking the client for input before it retries).
	InputRounds int `json:"input_rounds"`
	// Errors says why calls failed: each distinct error text with how many
	// calls ended with it, most frequent first, at most [MaxErrorKinds].
	Errors []ErrorCount `json:"errors"`
	// PeakInFlight is the most tool calls sent and not yet answered at
	// once: the load a run put on the server.
	PeakInFlight int `json:"peak_in_flight"`
	// ThroughputPerS is the calls finished per second of the run's
	// elapsed time (0 with fewer than two calls or no elapsed time).
	ThroughputPerS float64 `json:"throughput_per_s"`
	// DurationMS is the distribution of the finished calls' times, from
	// sending the call to its result.
	DurationMS Percentiles `json:"duration_ms"`
}

// ErrorCount is one reason tool calls failed and how many did.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// RequestCounts counts the server→client requests of a run.
type RequestCounts struct {
	Total int `json:"total"`
	OK    int `json:"ok"`
	// Failed counts requests answered with an error, a timeout or a
	// cancellation; Aborted those never answered because the connection
	// ended first. Total = OK + Failed + Aborted + those still open.
	Failed  int `json:"failed"`
	Aborted int `json:"aborted"`
	// Duplicates counts requests that reused the JSON-RPC id of a request
	// still pending; DuplicateIDs names those ids, at most
	// [MaxDuplicateIDs], in the order they were first reused.
	Duplicates   int            `json:"duplicates"`
	DuplicateIDs []string       `json:"duplicate_ids"`
	ByMethod     map[string]int `json:"by_method"`
	// InputTokens and OutputTokens total the token counts of the
	// sampling requests a model endpoint answered ([Span.InputTokens]).
	InputTokens  int64 `json:"input_tokens,omitempty"`
	OutputTokens int64 `json:"output_tokens,omitempty"`
}

// The most entries a [Summary] lists where a run can have any number.
const (
	MaxErrorKinds   = 10
	MaxDuplicateIDs = 10
)

// Percentiles of a distribution of times, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}
