package recorder

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"time"
)

// Totals are the statistics of every span of a recording that keeps only
// a sample of them ([Recording.SetMaxSpans]): the counts, HDR
// histograms, peaks and per-second series that [Summarize] and [Series]
// would compute from all the spans. The store folds each span in as it
// begins, changes and ends, under its lock. A saved sampled recording
// carries them, so that a reopened file gives the same summary.
//
// Where [Summarize] of all spans computes a distribution from the raw
// times (handoff_ms, queue_ms, serve_ms, stalled_ms, tool_calls.duration_ms)
// totals hold an HDR histogram: equal to three significant digits. Peaks
// and achieved concurrency are counted as the store saw spans begin and
// end, not re-sorted by their times.
type Totals struct {
	ToolCalls       int `json:"tool_calls"`
	ToolOK          int `json:"tool_ok"`
	ToolFailed      int `json:"tool_failed"`
	Rounds          int `json:"rounds"`
	CallsWithRounds int `json:"calls_with_rounds"`
	InputRounds     int `json:"input_rounds"`
	// ErrorTexts counts failed calls by [errorMessage], at most
	// maxErrorTexts texts (then under otherErrors); ErrorKinds by kind
	// and code, keyed "kind" or "kind code".
	ErrorTexts map[string]int    `json:"error_texts"`
	ErrorKinds map[ErrorKind]int `json:"-"`

	Server       int            `json:"server"`
	ServerOK     int            `json:"server_ok"`
	ServerFailed int            `json:"server_failed"`
	Aborted      int            `json:"aborted"`
	Duplicates   int            `json:"duplicates"`
	DuplicateIDs []string       `json:"duplicate_ids"`
	ByMethod     map[string]int `json:"by_method"`

	StalledSpans int            `json:"stalled_spans"`
	Sessions     map[string]int `json:"sessions"`
	LateStarts   int            `json:"late_starts"`
	// FirstSpan .. LastCall bound the elapsed time ([Summary.ElapsedMS]);
	// -1 when there was none.
	FirstSpan time.Duration `json:"first_span"`
	LastSpan  time.Duration `json:"last_span"`
	FirstCall time.Duration `json:"first_call"`
	LastCall  time.Duration `json:"last_call"`

	Latencies *Latencies `json:"latencies"`
	Handoff   *Histogram `json:"handoff"`
	Queue     *Histogram `json:"queue"`
	Serve     *Histogram `json:"serve"`
	Stalled   *Histogram `json:"stalled"`

	PeakServing int     `json:"peak_serving"`
	PeakPending int     `json:"peak_pending"`
	PeakCalls   int     `json:"peak_calls"`
	BusyNS      float64 `json:"busy_ns"`
	WeightedNS  float64 `json:"weighted_ns"`

	// Seconds is the per-second series ([Series]).
	Seconds []SecondStat `json:"seconds"`

	// What is in flight now, and when it last changed.
	serving, pending, calls int
	lastAt                  time.Duration
	// secLat holds the call latencies of the steps of Seconds not yet
	// closed, by index; closed counts the steps whose percentiles are
	// final. width is the steps' width in seconds (0 or 1: a second).
	secLat map[int][]time.Duration
	closed int
	width  int
}

// maxErrorTexts is the most distinct error texts totals count apart.
const maxErrorTexts = 1000

// otherErrors is where error texts past maxErrorTexts are counted.
const otherErrors = "(other error texts)"

// NewTotals returns empty [Totals].
func NewTotals() *Totals {
	return &Totals{
		ErrorTexts: map[string]int{}, ErrorKinds: map[ErrorKind]int{}, ByMethod: map[string]int{},
		Sessions: map[string]int{}, DuplicateIDs: []string{},
		FirstSpan: -1, LastSpan: -1, FirstCall: -1, LastCall: -1,
		Latencies: NewLatencies(), Handoff: NewHistogram(), Queue: NewHistogram(), Serve: NewHistogram(), Stalled: NewHistogram(),
		secLat: map[int][]time.Duration{},
	}
}

// clone returns a deep copy of t.
func (t *Totals) clone() *Totals {
	c := *t
	c.ErrorTexts, c.ErrorKinds, c.ByMethod, c.Sessions = maps.Clone(t.ErrorTexts), maps.Clone(t.ErrorKinds), maps.Clone(t.ByMethod), maps.Clone(t.Sessions)
	c.DuplicateIDs = slices.Clone(t.DuplicateIDs)
	c.Latencies = &Latencies{Calls: t.Latencies.Calls.clone(), ByMethod: map[string]map[string]*Histogram{}}
	for m, hs := range t.Latencies.ByMethod {
		c.Latencies.ByMethod[m] = map[string]*Histogram{}
		for what, h := range hs {
			c.Latencies.ByMethod[m][what] = h.clone()
		}
	}
	c.Handoff, c.Queue, c.Serve, c.Stalled = t.Handoff.clone(), t.Queue.clone(), t.Serve.clone(), t.Stalled.clone()
	c.Seconds = slices.Clone(t.Seconds)
	c.secLat = make(map[int][]time.Duration, len(t.secLat))
	for sec, ds := range t.secLat {
		c.secLat[sec] = slices.Clone(ds)
	}
	return &c
}

// begin counts a span as it begins: what [Summarize] counts of open spans
// too.
func (t *Totals) begin(p *Span) {
	if p.Session != "" {
		t.Sessions[p.Session]++
	}
	switch {
	case p.Direction == Outgoing && p.Kind == KindRound:
		t.Rounds++
		if p.Round == 1 {
			t.CallsWithRounds++
		}
	case p.Direction == Outgoing && p.Kind == KindTool:
		t.ToolCalls++
	case p.Direction == Incoming:
		t.Server++
		t.ByMethod[p.Method]++
		if p.Duplicate {
			t.Duplicates++
			if len(t.DuplicateIDs) < MaxDuplicateIDs && !slices.Contains(t.DuplicateIDs, p.RequestID) {
				t.DuplicateIDs = append(t.DuplicateIDs, p.RequestID)
			}
		}
	}
	if isToolCall(p) {
		t.second(p.Received).Started++
		if p.Intended > 0 && p.Received-p.Intended > LateStart {
			t.LateStarts++
		}
	}
	if p.Open() {
		t.enter(p)
	}
}

// enter counts an open span that has a send or receive time as in flight.
func (t *Totals) enter(p *Span) {
	if p.Received == Unset {
		return
	}
	switch {
	case isToolCall(p):
		t.move(p.Received, 0, 0, 1)
	case p.Direction == Incoming:
		serving := 0
		if p.Serving != Unset {
			serving = 1
		}
		t.move(p.Received, serving, 1, 0)
	}
}

// update is told of a change of an open span; before is its value
// before the change.
func (t *Totals) update(before, p *Span) {
	switch {
	case before.Received == Unset:
		if p.Open() {
			t.enter(p)
		}
	case !p.Open(): // ending: leave the counts it was in
		switch {
		case isToolCall(before):
			t.move(p.Answered, 0, 0, -1)
		case before.Direction == Incoming:
			serving := 0
			if before.Serving != Unset {
				serving = -1
			}
			t.move(p.Answered, serving, -1, 0)
		}
	case p.Direction == Incoming && before.Serving == Unset && p.Serving != Unset:
		t.move(p.Serving, 1, 0, 0)
	}
}

// move changes what is in flight at offset at.
func (t *Totals) move(at time.Duration, serving, pending, calls int) {
	if at > t.lastAt {
		if t.serving >= 1 {
			dt := float64(at - t.lastAt)
			t.BusyNS += dt
			t.WeightedNS += dt * float64(t.serving)
		}
		t.lastAt = at
	}
	sec := t.second(at)
	t.serving += serving
	t.pending += pending
	t.calls += calls
	t.PeakServing = max(t.PeakServing, t.serving)
	t.PeakPending = max(t.PeakPending, t.pending)
	t.PeakCalls = max(t.PeakCalls, t.calls)
	sec.InFlight = max(sec.InFlight, t.calls)
	sec.Queued = max(sec.Queued, t.pending-t.serving)
}

// second returns the series' step holding offset at, adding the steps
// up to it (each starting with what was in flight). Past
// [MaxSeriesPoints] steps the steps are merged in pairs, their width
// doubled, so that the series stays bounded however far at is.
func (t *Totals) second(at time.Duration) *SecondStat {
	sec := max(int(at/time.Second), 0)
	for sec/max(t.width, 1) >= MaxSeriesPoints {
		t.coarsen()
	}
	w := max(t.width, 1)
	for len(t.Seconds) <= sec/w {
		t.Seconds = append(t.Seconds, SecondStat{T: len(t.Seconds) * w, Width: w, InFlight: t.calls, Queued: t.pending - t.serving})
	}
	return &t.Seconds[sec/w]
}

// coarsen doubles the width of the series' steps: the percentiles of
// every step are made final, then the steps merged in pairs.
func (t *Totals) coarsen() {
	t.closeSeconds(len(t.Seconds))
	clear(t.secLat)
	t.Seconds = mergePairs(t.Seconds)
	t.width = 2 * max(t.width, 1)
	t.closed = len(t.Seconds)
}

// finish folds a span that has just ended into the totals.
func (t *Totals) finish(p *Span) {
	if p.Received != Unset {
		end := p.Answered
		t.FirstSpan = minSet(t.FirstSpan, p.Received)
		t.LastSpan = max(t.LastSpan, end)
		if isToolCall(p) {
			t.FirstCall = minSet(t.FirstCall, p.Received)
			t.LastCall = max(t.LastCall, end)
		}
	}
	if p.Stalled > 0 {
		t.StalledSpans++
	}
	t.Latencies.Add(p)
	if p.Direction == Outgoing && p.Kind == KindRound && p.Outcome == OutcomeInputRequired {
		t.InputRounds++
	}
	t.status(p, 1)
	if p.Direction == Incoming && p.Status != StatusAborted && !p.Duplicate &&
		p.Received != Unset && p.Queued != Unset && p.Serving != Unset {
		t.Handoff.Record(p.HandoffTime())
		t.Queue.Record(p.QueueTime())
		t.Serve.Record(p.ServeTime())
		t.Stalled.Record(p.Stalled)
	}
	if isToolCall(p) && p.Answered != Unset {
		sec := t.second(p.Answered)
		sec.Finished++
		if p.Status != StatusOK {
			sec.Errors++
		}
		if i := sec.T / max(t.width, 1); i >= t.closed {
			if d, ok := CallDuration(p); ok {
				t.secLat[i] = append(t.secLat[i], d)
			}
		}
		t.closeSeconds(len(t.Seconds) - 3)
	}
}

// status adds (sign 1) or takes back (-1) what an ended span's status
// counts.
func (t *Totals) status(p *Span, sign int) {
	switch {
	case p.Direction == Outgoing && p.Kind == KindTool:
		switch p.Status {
		case StatusOK:
			t.ToolOK += sign
		case StatusOpen:
		default:
			t.ToolFailed += sign
			msg := errorMessage(p)
			if _, ok := t.ErrorTexts[msg]; !ok && len(t.ErrorTexts) >= maxErrorTexts {
				msg = otherErrors
			}
			t.ErrorTexts[msg] += sign
			k, code := errorKindOf(p)
			t.ErrorKinds[ErrorKind{Kind: k, Code: code}] += sign
		}
	case p.Direction == Incoming:
		switch p.Status {
		case StatusOK:
			t.ServerOK += sign
		case StatusOpen:
		case StatusAborted:
			t.Aborted += sign
		default:
			t.ServerFailed += sign
		}
	}
}

// changed is told of a change of a span after it ended (an answer that
// could not be written turns an ok span into an aborted one): its status
// counts move; its times stay in the histograms as they were.
func (t *Totals) changed(before, p *Span) {
	t.status(before, -1)
	t.status(p, 1)
}

// closeSeconds computes the latency percentiles of the seconds before
// second upTo and lets their latencies go: calls end nearly in time
// order, so a second three behind the latest gets no more.
func (t *Totals) closeSeconds(upTo int) {
	for ; t.closed < upTo; t.closed++ {
		if ds := t.secLat[t.closed]; len(ds) > 0 {
			fillPercentiles(&t.Seconds[t.closed], ds)
			delete(t.secLat, t.closed)
		}
	}
}

// fillPercentiles sets a second's p50 and p99 from its latencies, as
// [Series] does.
func fillPercentiles(st *SecondStat, ds []time.Duration) {
	slices.Sort(ds)
	st.P50MS = roundMicro(ms(nearestRank(ds, 50)))
	st.P99MS = roundMicro(ms(nearestRank(ds, 99)))
}

// series returns the series up to offset now, with the percentiles of
// the steps not yet closed; t is not changed.
func (t *Totals) series(now time.Duration) []SecondStat {
	out := slices.Clone(t.Seconds)
	for i, ds := range t.secLat {
		if i < len(out) {
			fillPercentiles(&out[i], slices.Clone(ds))
		}
	}
	if now <= 0 {
		return out
	}
	last, w := int(now/time.Second), max(t.width, 1)
	for last/w >= MaxSeriesPoints {
		out, w = mergePairs(out), 2*w
	}
	for len(out) <= last/w {
		st := SecondStat{T: len(out) * w, Width: w}
		if time.Duration(st.T)*time.Second < now { // what is open runs until now
			st.InFlight, st.Queued = t.calls, t.pending-t.serving
		}
		out = append(out, st)
	}
	return out
}

func minSet(a, b time.Duration) time.Duration {
	if a < 0 {
		return b
	}
	return min(a, b)
}

// summary is [SummarizeSteps] from the totals of a sampled snapshot.
func (t *Totals) summary(snap *Snapshot) Summary {
	sum := Summary{
		ToolCalls:      CallCounts{Errors: []ErrorCount{}},
		ServerRequests: RequestCounts{ByMethod: maps.Clone(t.ByMethod), DuplicateIDs: slices.Clone(t.DuplicateIDs)},
	}
	sum.ToolCalls.Total, sum.ToolCalls.OK, sum.ToolCalls.Failed = t.ToolCalls, t.ToolOK, t.ToolFailed
	sum.ToolCalls.Requests = t.Rounds + t.ToolCalls - t.CallsWithRounds
	sum.ToolCalls.InputRounds = t.InputRounds
	sum.ServerRequests.Total, sum.ServerRequests.OK = t.Server, t.ServerOK
	sum.ServerRequests.Failed, sum.ServerRequests.Aborted = t.ServerFailed, t.Aborted
	sum.ServerRequests.Duplicates = t.Duplicates
	sum.StalledMessages = t.StalledSpans

	// Open spans of the snapshot run until its Now, as in Summarize.
	firstCall, lastCall, firstSpan, lastSpan := t.FirstCall, t.LastCall, t.FirstSpan, t.LastSpan
	for _, s := range snap.Spans {
		if !s.Open() || s.Received == Unset {
			continue
		}
		end := SpanEnd(snap, s)
		firstSpan, lastSpan = minSet(firstSpan, s.Received), max(lastSpan, end)
		if isToolCall(s) {
			firstCall, lastCall = minSet(firstCall, s.Received), max(lastCall, end)
		}
		if s.Stalled > 0 {
			sum.StalledMessages++
		}
	}
	switch {
	case lastCall >= 0:
		sum.ElapsedMS = ms(lastCall - firstCall)
	case lastSpan >= 0:
		sum.ElapsedMS = ms(lastSpan - firstSpan)
	}
	sum.ToolCalls.Errors = topErrors(t.ErrorTexts)
	sum.Errors = errorKinds(t.ErrorKinds)
	sum.CallMS = t.Latencies.Calls.Percentiles()
	sum.ByMethodMS = t.Latencies.Times()
	n := t.Latencies.Calls.Count()
	if n >= 2 && sum.ElapsedMS > 0 {
		sum.ThroughputPerS = math.Round(float64(n)/(sum.ElapsedMS/1000)*100) / 100
		sum.ToolCalls.ThroughputPerS = math.Round(float64(n)/(sum.ElapsedMS/1000)*10) / 10
	}
	sum.HandoffMS, sum.QueueMS, sum.ServeMS, sum.StalledMS = t.Handoff.legacy(), t.Queue.legacy(), t.Serve.legacy(), t.Stalled.legacy()
	sum.ToolCalls.DurationMS = t.Latencies.Calls.legacy()
	sum.ToolCalls.PeakInFlight = t.PeakCalls
	sessions := maps.Clone(t.Sessions)
	for _, e := range snap.Events {
		if e.Stalled > 0 {
			sum.StalledMessages++
		}
		if e.Session != "" {
			sessions[e.Session]++
		}
		if e.Kind == EventDropped {
			sum.Dropped++
		}
	}
	if sm := snap.Sampled; sm != nil && sm.Events > sm.EventsKept { // events were left out: count them all
		sum.Dropped = sm.EventKinds[EventDropped]
		sum.StalledMessages += sm.EventsStalled - stalledEvents(snap.Events)
	}
	sum.Sessions = len(sessions)
	sum.LateStarts = t.LateStarts
	sum.PeakInFlight, sum.PeakPending = t.PeakServing, t.PeakPending
	if t.BusyNS > 0 {
		sum.AchievedConcurrency = math.Round(t.WeightedNS/t.BusyNS*1000) / 1000
	}
	sum.Verdict, sum.VerdictText, sum.VerdictRounds = verdict(snap, sum)
	return sum
}

// totalsJSON is how [Totals] are saved: the error kinds as a list, the
// series with the percentiles of every second.
type totalsJSON struct {
	*totalsFields
	ErrorKinds []ErrorKind  `json:"error_kinds"`
	Seconds    []SecondStat `json:"seconds"`
	// Open is what was in flight when the totals were saved: tool calls,
	// server requests pending and being served.
	Open [3]int `json:"open"`
}

type totalsFields Totals

// MarshalJSON writes the totals as a recording carries them.
func (t *Totals) MarshalJSON() ([]byte, error) {
	return json.Marshal(totalsJSON{totalsFields: (*totalsFields)(t), ErrorKinds: errorKinds(t.ErrorKinds), Seconds: t.series(0),
		Open: [3]int{t.calls, t.pending, t.serving}})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (t *Totals) UnmarshalJSON(b []byte) error {
	*t = *NewTotals()
	j := totalsJSON{totalsFields: (*totalsFields)(t)}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	for _, k := range j.ErrorKinds {
		t.ErrorKinds[ErrorKind{Kind: k.Kind, Code: k.Code}] += k.Count
	}
	t.Seconds, t.closed = j.Seconds, len(j.Seconds)
	if len(t.Seconds) > 0 {
		// Files older than width_s counted seconds.
		t.width = max(t.Seconds[0].Width, 1)
		for i := range t.Seconds {
			t.Seconds[i].Width = t.width
		}
		for len(t.Seconds) > MaxSeriesPoints {
			t.coarsen()
		}
	}
	t.calls, t.pending, t.serving = j.Open[0], j.Open[1], j.Open[2]
	if t.Latencies == nil || t.Latencies.Calls == nil || t.Handoff == nil || t.Queue == nil || t.Serve == nil || t.Stalled == nil {
		return errors.New("the sampled recording's totals lack a histogram: the file was edited or is damaged")
	}
	for _, m := range []*map[string]int{&t.ErrorTexts, &t.ByMethod, &t.Sessions} {
		if *m == nil {
			*m = map[string]int{}
		}
	}
	if t.Latencies.ByMethod == nil {
		t.Latencies.ByMethod = map[string]map[string]*Histogram{}
	}
	return nil
}
