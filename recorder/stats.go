package recorder

// Summary is the statistics of one run, in the shape `inspector run --json`
// prints. Times are milliseconds. Compute it with [Summarize].
type Summary struct {
	ToolCalls      CallCounts    `json:"tool_calls"`
	ServerRequests RequestCounts `json:"server_requests"`
	// PeakInFlight is the most incoming requests being served at once.
	PeakInFlight int `json:"peak_in_flight"`
	// PeakPending is the most incoming requests received and not yet
	// answered at once (queued + serving).
	PeakPending int `json:"peak_pending"`
	// ElapsedMS runs from the first tool call sent to the last tool result
	// received; without tool calls, from the first to the last span.
	ElapsedMS float64 `json:"elapsed_ms"`
	// QueueMS and ServeMS are the distributions of the incoming requests'
	// queue and serve times.
	QueueMS Percentiles `json:"queue_ms"`
	ServeMS Percentiles `json:"serve_ms"`
	// AchievedConcurrency is the time-weighted mean of in-flight requests
	// over the time at least one was in flight.
	AchievedConcurrency float64 `json:"achieved_concurrency"`
	// Verdict is "serialized", "concurrent", "bounded", "partial" or
	// "no-fanout"; VerdictText says it in words for a person.
	Verdict     string `json:"verdict"`
	VerdictText string `json:"verdict_text"`
}

// CallCounts counts the tool calls of a run.
type CallCounts struct {
	Total  int `json:"total"`
	OK     int `json:"ok"`
	Failed int `json:"failed"`
}

// RequestCounts counts the server→client requests of a run.
type RequestCounts struct {
	Total    int            `json:"total"`
	OK       int            `json:"ok"`
	Failed   int            `json:"failed"`
	ByMethod map[string]int `json:"by_method"`
}

// Percentiles of a distribution of times, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}
