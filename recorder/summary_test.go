package recorder

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// shape builds a snapshot of incoming sampling requests from
// [received, serving, answered] triples in milliseconds.
func shape(phases ...[3]float64) *Snapshot {
	snap := &Snapshot{Meta: Meta{Created: fixedCreated}}
	for i, p := range phases {
		snap.Spans = append(snap.Spans, &Span{ID: SpanID(i + 1), Session: "s", Direction: Incoming,
			Method: "sampling/createMessage", Kind: KindSampling,
			Received: msd(p[0]), Queued: msd(p[0]), Serving: msd(p[1]), Answered: msd(p[2]), Status: StatusOK})
		snap.Now = max(snap.Now, msd(p[2]))
	}
	return snap
}

func TestSummarizeVerdicts(t *testing.T) {
	cases := []struct {
		name             string
		snap             *Snapshot
		verdict          string
		inFlight, pend   int
		achieved         float64
		textHas          []string
		queueMax, serveP float64
	}{
		{
			name: "serialized",
			snap: shape([3]float64{0, 0, 500}, [3]float64{1, 500, 1000}, [3]float64{2, 1000, 1500},
				[3]float64{3, 1500, 2000}, [3]float64{4, 2000, 2500}),
			verdict: VerdictSerialized, inFlight: 1, pend: 5, achieved: 1,
			textHas:  []string{"5 requests arrived together", "one at a time", "2.50 s", "5.0×", "0.50 s"},
			queueMax: 1996, serveP: 500,
		},
		{
			name:    "concurrent",
			snap:    shape([3]float64{0, 0, 500}, [3]float64{1, 1, 501}, [3]float64{2, 2, 502}, [3]float64{3, 3, 503}, [3]float64{4, 4, 504}),
			verdict: VerdictConcurrent, inFlight: 5, pend: 5, achieved: 4.96,
			textHas:  []string{"all 5 were served at once", "1.0×"},
			queueMax: 0, serveP: 500,
		},
		{
			name: "bounded",
			snap: shape([3]float64{0, 0, 500}, [3]float64{0, 0, 500}, [3]float64{0, 500, 1000},
				[3]float64{0, 500, 1000}, [3]float64{0, 1000, 1500}, [3]float64{0, 1000, 1500}),
			verdict: VerdictBounded, inFlight: 2, pend: 6, achieved: 2,
			textHas:  []string{"at most 2 were served at once", "up to 4 waited", "3.0×"},
			queueMax: 1000, serveP: 500,
		},
		{
			name: "partial",
			snap: shape([3]float64{0, 0, 100}, [3]float64{0, 0, 200}, [3]float64{0, 0, 300},
				[3]float64{0, 300, 400}, [3]float64{0, 300, 400}),
			verdict: VerdictPartial, inFlight: 3, pend: 5,
			textHas:  []string{"up to 3 were served at once", "67% of the waiting happened while fewer were running"},
			queueMax: 300, serveP: 100,
		},
		{
			// The fifth request arrives 10 µs before the first ends and
			// gets its slot 40 µs later: still concurrent.
			name: "concurrent with jitter",
			snap: shape([3]float64{0, 0, 500}, [3]float64{1, 1, 501}, [3]float64{2, 2, 502}, [3]float64{3, 3, 503},
				[3]float64{499.99, 500.03, 1000}),
			verdict: VerdictConcurrent, inFlight: 4, pend: 5,
			textHas:  []string{"up to 4 were served at once", "no noticeable wait"},
			queueMax: 0.04, serveP: 500,
		},
		{
			// Fan-outs that overlap one another (a load test) make one
			// long busy period: no "arrived together" there.
			name: "busy period",
			snap: shape([3]float64{0, 0, 100}, [3]float64{0, 0, 100}, [3]float64{60, 60, 160},
				[3]float64{60, 60, 160}, [3]float64{120, 120, 220}, [3]float64{120, 120, 220}),
			verdict: VerdictConcurrent, inFlight: 4, pend: 4,
			textHas:  []string{"up to 4 requests were pending at once (6 in a busy period of 0.22 s)", "0.0% of the requests' time went to waiting"},
			queueMax: 0, serveP: 100,
		},
		{
			name:    "barely overlapping",
			snap:    shape([3]float64{0, 0, 500}, [3]float64{499.9, 500, 1000}),
			verdict: VerdictNoFanout, inFlight: 1, pend: 2,
			textHas:  []string{"overlapped only briefly"},
			queueMax: 0.1, serveP: 500,
		},
		{
			name:    "one request",
			snap:    shape([3]float64{0, 0, 500}),
			verdict: VerdictNoFanout, inFlight: 1, pend: 1, achieved: 1,
			textHas:  []string{"only 1 request"},
			queueMax: 0, serveP: 500,
		},
		{
			name:    "never together",
			snap:    shape([3]float64{0, 0, 100}, [3]float64{100, 100, 200}, [3]float64{300, 300, 400}),
			verdict: VerdictNoFanout, inFlight: 1, pend: 1, achieved: 1,
			textHas:  []string{"never two pending at once"},
			queueMax: 0, serveP: 100,
		},
		{
			name:    "empty",
			snap:    emptySnapshot(),
			verdict: VerdictNoFanout,
			textHas: []string{"no requests"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Summarize(c.snap)
			if s.Verdict != c.verdict {
				t.Errorf("verdict %q (%s), want %q", s.Verdict, s.VerdictText, c.verdict)
			}
			if s.PeakInFlight != c.inFlight || s.PeakPending != c.pend {
				t.Errorf("peaks %d in flight, %d pending; want %d, %d", s.PeakInFlight, s.PeakPending, c.inFlight, c.pend)
			}
			if c.achieved > 0 && math.Abs(s.AchievedConcurrency-c.achieved) > 0.01 {
				t.Errorf("achieved concurrency %.3f, want %.2f", s.AchievedConcurrency, c.achieved)
			}
			for _, want := range c.textHas {
				if !strings.Contains(s.VerdictText, want) {
					t.Errorf("verdict text %q does not say %q", s.VerdictText, want)
				}
			}
			if s.QueueMS.Max != c.queueMax {
				t.Errorf("queue max %v ms, want %v", s.QueueMS.Max, c.queueMax)
			}
			if s.ServeMS.P50 != c.serveP {
				t.Errorf("serve p50 %v ms, want %v", s.ServeMS.P50, c.serveP)
			}
			if s.ServerRequests.Total != len(c.snap.Spans) || s.ServerRequests.ByMethod["sampling/createMessage"] != len(c.snap.Spans) {
				t.Errorf("server requests %+v, want %d sampling", s.ServerRequests, len(c.snap.Spans))
			}
		})
	}
}

func TestSummarizeCountsAndElapsed(t *testing.T) {
	snap := fixedSnapshot()
	s := Summarize(snap)
	if s.ToolCalls.Total != 2 || s.ToolCalls.OK != 1 || s.ToolCalls.Failed != 0 || len(s.ToolCalls.Errors) != 0 {
		t.Errorf("tool calls %+v", s.ToolCalls)
	}
	if s.ServerRequests.OK != 5 || s.ServerRequests.Failed != 1 {
		t.Errorf("server requests %+v", s.ServerRequests)
	}
	// The second tool call is still open: elapsed runs to the snapshot.
	if s.ElapsedMS != 3000 {
		t.Errorf("elapsed %v ms, want 3000", s.ElapsedMS)
	}
	snap.Spans = snap.Spans[:7]
	if s := Summarize(snap); s.ElapsedMS != 2520 {
		t.Errorf("elapsed %v ms, want 2520: first call sent to last result", s.ElapsedMS)
	}
	// Without tool calls: first to last span.
	if s := Summarize(shape([3]float64{100, 100, 200}, [3]float64{150, 150, 400})); s.ElapsedMS != 300 {
		t.Errorf("elapsed %v ms without tool calls, want 300", s.ElapsedMS)
	}
}

func TestSummaryGet(t *testing.T) {
	s := Summarize(fixedSnapshot())
	cases := []struct {
		key  string
		want float64
		ok   bool
	}{
		{"peak_in_flight", 1, true},
		{"peak_pending", 5, true},
		{"tool_calls.failed", 0, true},
		{"tool_calls.total", 2, true},
		{"server_requests.failed", 1, true},
		{"serve_ms.max", 500, true},
		{"queue_ms.p99", s.QueueMS.P99, true},
		{"elapsed_ms", 3000, true},
		{"server_requests.by_method.sampling/createMessage", 4, true},
		{"server_requests.by_method.ping", 0, true},
		{"verdict", 0, false},
		{"queue_ms", 0, false},
		{"nonsense", 0, false},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			got, ok := s.Get(c.key)
			if ok != c.ok || got != c.want {
				t.Errorf("Get(%q) = %v, %v; want %v, %v", c.key, got, ok, c.want, c.ok)
			}
		})
	}
	keys := strings.Join(s.Keys(), " ")
	for _, k := range []string{"peak_in_flight", "queue_ms.p99", "server_requests.by_method.roots/list"} {
		if !strings.Contains(keys, k) {
			t.Errorf("Keys() lacks %q: %s", k, keys)
		}
	}
}

func TestCompare(t *testing.T) {
	serial := Summarize(shape([3]float64{0, 0, 500}, [3]float64{0, 500, 1000}))
	conc := Summarize(shape([3]float64{0, 0, 500}, [3]float64{0, 0, 500}))
	d := Compare(serial, conc)
	if len(d) == 0 || d[0].Key != "verdict" || d[0].Text != "verdict: serialized → concurrent" {
		t.Fatalf("first difference %+v, want the verdict", d)
	}
	var elapsed *Difference
	for i := range d {
		if d[i].Key == "elapsed_ms" {
			elapsed = &d[i]
		}
	}
	if elapsed == nil || elapsed.A != 1000 || elapsed.B != 500 || elapsed.Ratio != 0.5 || elapsed.Delta != -500 {
		t.Errorf("elapsed difference %+v", elapsed)
	} else if !strings.Contains(elapsed.Text, "1000 → 500 (-50.0%, 0.50×)") {
		t.Errorf("elapsed text %q", elapsed.Text)
	}
	if len(Compare(serial, serial)) != 0 {
		t.Error("a summary differs from itself")
	}
	// the per-method times repeat the others: left out of a comparison
	var keys []string
	for _, x := range d {
		keys = append(keys, x.Key)
		if strings.HasPrefix(x.Key, "by_method_ms.") {
			t.Errorf("the comparison lists %s", x.Key)
		}
	}
	if !slices.Contains(keys, "queue_ms.max") {
		t.Errorf("the comparison %q lacks queue_ms.max", keys)
	}
}

// gated builds a snapshot of incoming sampling requests from
// [received, queued, serving, answered] phases in milliseconds, all with
// the given status.
func gated(status Status, phases ...[4]float64) *Snapshot {
	snap := &Snapshot{Meta: Meta{Created: fixedCreated}}
	for i, p := range phases {
		snap.Spans = append(snap.Spans, &Span{ID: SpanID(i + 1), Session: "s", Direction: Incoming,
			Method: "sampling/createMessage", Kind: KindSampling, RequestID: fmt.Sprint(i + 1),
			Received: msd(p[0]), Queued: msd(p[1]), Serving: msd(p[2]), Answered: msd(p[3]), Status: status})
		snap.Now = max(snap.Now, msd(p[3]))
	}
	return snap
}

// TestVerdictFromTheGate pins the verdict to the dispatch gate's own
// queue: the time between reading a request and its handler reaching the
// gate is the SDK's hand-off, not waiting for a slot, and serve times
// under the floor are too fast to judge.
func TestVerdictFromTheGate(t *testing.T) {
	cases := []struct {
		name    string
		snap    *Snapshot
		verdict string
		textHas []string
		handoff Percentiles // p50 and max
		queue   Percentiles // p50 and max
	}{
		{
			// Latency 0, concurrent dispatch: three requests read at once,
			// handed to their handlers 0.5 ms apart, each served in 10 µs.
			// Counting from the wire, two waited while one ran: that was
			// called "serialized … 100× the concurrent time".
			name:    "zero latency is too fast to tell",
			snap:    gated(StatusOK, [4]float64{0, 0.5, 0.5, 0.51}, [4]float64{0, 1, 1, 1.01}, [4]float64{0, 1.5, 1.5, 1.51}),
			verdict: VerdictTooFast,
			textHas: []string{"too fast to tell: serve times under 1ms (median 0.010 ms)", "inject latency"},
			handoff: Percentiles{P50: 1, Max: 1.5},
		},
		{
			name:    "serial dispatch too fast to tell",
			snap:    gated(StatusOK, [4]float64{0, 0, 0, 0.02}, [4]float64{0, 0, 0.02, 0.04}, [4]float64{0, 0, 0.04, 0.06}),
			verdict: VerdictTooFast,
			textHas: []string{"too fast to tell"},
			queue:   Percentiles{P50: 0.02, Max: 0.04},
		},
		{
			// Served in 2 ms, but handed over 5 ms apart: no request ever
			// waited for a slot, so this is not serialization.
			name:    "a slow hand-off is not serialization",
			snap:    gated(StatusOK, [4]float64{0, 0, 0, 2}, [4]float64{0, 5, 5, 7}, [4]float64{0, 10, 10, 12}),
			verdict: VerdictNoFanout,
			textHas: []string{"overlapped only briefly (0.0% of their time waiting)"},
			handoff: Percentiles{P50: 5, Max: 10},
		},
		{
			// bounded:2, six requests read at once; the last two reach the
			// gate late (hand-off) when slots are free and never wait. From
			// the wire they seemed to wait while no slot was taken, which
			// was called "partial".
			name: "bounded with a slow hand-off",
			snap: gated(StatusOK, [4]float64{0, 0, 0, 100}, [4]float64{0, 0, 0, 100}, [4]float64{0, 50, 100, 200},
				[4]float64{0, 90, 100, 200}, [4]float64{0, 250, 250, 350}, [4]float64{0, 260, 260, 360}),
			verdict: VerdictBounded,
			textHas: []string{"at most 2 were served at once while up to 2 waited"},
			handoff: Percentiles{P50: 70, Max: 260},
			queue:   Percentiles{P50: 0, Max: 50},
		},
		{
			// All five served for 0.2 s when the server crashed: none was
			// answered. That was called "concurrent … all 5 were served at
			// once — 0.20 s".
			name:    "crashed fan-out",
			snap:    gated(StatusAborted, [4]float64{0, 0, 0, 200}, [4]float64{0, 0, 0, 200}, [4]float64{0, 0, 0, 200}, [4]float64{0, 0, 0, 200}, [4]float64{0, 0, 0, 200}),
			verdict: VerdictNoFanout,
			textHas: []string{"no fan-out to judge: the run was cut short — of the 5 requests the server sent, 5 never answered (aborted)"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Summarize(c.snap)
			if s.Verdict != c.verdict {
				t.Errorf("verdict %q (%s), want %q", s.Verdict, s.VerdictText, c.verdict)
			}
			for _, want := range c.textHas {
				if !strings.Contains(s.VerdictText, want) {
					t.Errorf("verdict text %q does not say %q", s.VerdictText, want)
				}
			}
			if s.HandoffMS.P50 != c.handoff.P50 || s.HandoffMS.Max != c.handoff.Max {
				t.Errorf("handoff_ms %+v, want %+v", s.HandoffMS, c.handoff)
			}
			if s.QueueMS.P50 != c.queue.P50 || s.QueueMS.Max != c.queue.Max {
				t.Errorf("queue_ms %+v, want %+v", s.QueueMS, c.queue)
			}
		})
	}
}

// TestAbortedLeftOut checks that requests the connection ended before they
// were answered are counted apart and left out of the percentiles and the
// served-concurrency judgement, and that the verdict says the run was cut
// short.
func TestAbortedLeftOut(t *testing.T) {
	snap := gated(StatusOK, [4]float64{0, 0, 0, 100}, [4]float64{0, 0, 0, 100}, [4]float64{0, 0, 100, 200}, [4]float64{0, 0, 100, 200})
	// Three more read with them, served from the start, lost with the
	// connection at 5 s: counted, they would make it 7 at once.
	for i := range 3 {
		snap.Spans = append(snap.Spans, &Span{ID: SpanID(10 + i), Session: "s", Direction: Incoming, Method: "sampling/createMessage",
			Kind: KindSampling, Received: 0, Queued: 0, Serving: 0, Answered: msd(5000), Status: StatusAborted, Error: "session closed"})
	}
	snap.Now = msd(5000)
	s := Summarize(snap)
	if s.ServerRequests.Total != 7 || s.ServerRequests.OK != 4 || s.ServerRequests.Failed != 0 || s.ServerRequests.Aborted != 3 {
		t.Errorf("server requests %+v, want 7 total, 4 ok, 0 failed, 3 aborted", s.ServerRequests)
	}
	if s.ServeMS.Max != 100 || s.QueueMS.Max != 100 {
		t.Errorf("serve_ms %+v queue_ms %+v, want the answered requests' only (max 100 ms each)", s.ServeMS, s.QueueMS)
	}
	if s.Verdict != VerdictBounded {
		t.Errorf("verdict %q (%s), want bounded: of the answered, 2 at once while 2 waited", s.Verdict, s.VerdictText)
	}
	for _, want := range []string{"at most 2 were served at once while up to 2 waited", "the run was cut short: 3 requests were never answered, left out"} {
		if !strings.Contains(s.VerdictText, want) {
			t.Errorf("verdict text %q does not say %q", s.VerdictText, want)
		}
	}
	if v, ok := s.Get("server_requests.aborted"); !ok || v != 3 {
		t.Errorf(`Get("server_requests.aborted") = %v, %v; want 3`, v, ok)
	}
}

// TestSummaryNamesDuplicatesAndErrors checks the summary counts requests
// that reused a pending request's id and names the ids, and lists why tool
// calls failed, most frequent first, capped.
func TestSummaryNamesDuplicatesAndErrors(t *testing.T) {
	snap := gated(StatusOK, [4]float64{0, 0, 0, 100}, [4]float64{0, 0, 0, 100}, [4]float64{0, 0, 0, 100}, [4]float64{0, 0, 0, 100})
	for i, sp := range snap.Spans {
		sp.RequestID = `"dup"`
		sp.Duplicate = i > 0 // the first was the original
	}
	for i := range 14 {
		snap.Spans = append(snap.Spans, &Span{ID: SpanID(20 + i), Session: "s", Direction: Incoming, Method: "ping", Kind: KindPing,
			RequestID: fmt.Sprint(100 + i), Duplicate: true, Received: 0, Queued: 0, Serving: 0, Answered: msd(1), Status: StatusOK})
	}
	call := func(status Status, text string) {
		snap.Spans = append(snap.Spans, &Span{ID: SpanID(100 + len(snap.Spans)), Session: "s", Direction: Outgoing, Method: "tools/call",
			Kind: KindTool, Name: "fanout", Received: 0, Queued: 0, Serving: 0, Answered: msd(50), Status: status, Error: text})
	}
	for i := range 3 {
		call(StatusError, fmt.Sprintf("Number must be less than or equal to 1000\n(call %d, after %d ms)", i, 10*i))
	}
	call(StatusOK, "")
	call(StatusTimeout, "context deadline exceeded")
	for i := range 12 {
		call(StatusError, fmt.Sprintf("rare error %02d", i))
	}
	s := Summarize(snap)
	if s.ServerRequests.Duplicates != 17 {
		t.Errorf("duplicates %d, want 17", s.ServerRequests.Duplicates)
	}
	ids := s.ServerRequests.DuplicateIDs
	if len(ids) != MaxDuplicateIDs || ids[0] != `"dup"` || ids[1] != "100" {
		t.Errorf("duplicate ids %q, want %d, \"dup\" first once, then 100…", ids, MaxDuplicateIDs)
	}
	errs := s.ToolCalls.Errors
	if s.ToolCalls.Failed != 16 || len(errs) != MaxErrorKinds {
		t.Fatalf("tool calls %+v, want 16 failed and %d reasons listed", s.ToolCalls, MaxErrorKinds)
	}
	if errs[0] != (ErrorCount{"Number must be less than or equal to 1000", 3}) || errs[1] != (ErrorCount{"context deadline exceeded", 1}) || errs[2].Message != "rare error 00" {
		t.Errorf("errors %+v, want the server's message (3) first, then the rest by count and text", errs)
	}
	if v, ok := s.Get("server_requests.duplicates"); !ok || v != 17 {
		t.Errorf(`Get("server_requests.duplicates") = %v, %v; want 17`, v, ok)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"errors":[{"message":"Number must be less than or equal to 1000","count":3}`, `"duplicate_ids":["\"dup\"","100"`, `"aborted":0`, `"handoff_ms":{`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("summary JSON lacks %s:\n%s", want, b)
		}
	}
	// An empty run still has the lists, empty, for JSON readers.
	if b, _ := json.Marshal(Summarize(emptySnapshot())); !strings.Contains(string(b), `"errors":[]`) || !strings.Contains(string(b), `"duplicate_ids":[]`) {
		t.Errorf("empty summary lacks empty lists: %s", b)
	}
}

// TestSummaryCountsRounds pins how a multi-round-trip call is counted:
// one logical call, one wire request per round, the input_required
// rounds, and input requests as server requests; round spans are not
// incoming requests and add nothing to the concurrency.
func TestSummaryCountsRounds(t *testing.T) {
	sum := Summarize(roundsSnapshot())
	for key, want := range map[string]float64{
		"tool_calls.total":                                 1,
		"tool_calls.ok":                                    1,
		"tool_calls.requests":                              3,
		"tool_calls.input_rounds":                          2,
		"server_requests.total":                            5,
		"server_requests.by_method.sampling/createMessage": 5,
		"peak_in_flight":                                   2,
		"peak_pending":                                     3,
		"elapsed_ms":                                       1230,
		"stalled_messages":                                 2,
		"stalled_ms.max":                                   120,
		"stalled_ms.p50":                                   0,
	} {
		if got, ok := sum.Get(key); !ok || got != want {
			t.Errorf("%s = %v (known %v), want %v", key, got, ok, want)
		}
	}
	// A 2025-era recording has no rounds: one request per call.
	old := Summarize(fixedSnapshot())
	if old.ToolCalls.Total != 2 || old.ToolCalls.Requests != 2 || old.ToolCalls.InputRounds != 0 {
		t.Errorf("2025-era calls: total %d, requests %d, input rounds %d; want 2, 2, 0",
			old.ToolCalls.Total, old.ToolCalls.Requests, old.ToolCalls.InputRounds)
	}
	if old.StalledMessages != 0 || old.StalledMS.Max != 0 || strings.Contains(old.VerdictText, "withheld") {
		t.Errorf("nothing was withheld, yet the summary says %d messages, max %v ms: %s", old.StalledMessages, old.StalledMS.Max, old.VerdictText)
	}
}

// TestVerdictPerRound pins that the verdict judges each round's input
// requests as a burst of its own and names the stalling.
func TestVerdictPerRound(t *testing.T) {
	sum := Summarize(roundsSnapshot())
	for _, want := range []string{
		"round 1: 3 input requests served one at a time — 0.90 s, 3.0× the concurrent time (0.30 s)",
		"round 2: 2 input requests served at once — 0.30 s, 1.0× the concurrent time (0.30 s)",
		"while one request was served the client read nothing else: 2 messages withheld, up to 120.0 ms",
	} {
		if !strings.Contains(sum.VerdictText, want) {
			t.Errorf("verdict lacks %q:\n%s", want, sum.VerdictText)
		}
	}
	if strings.Contains(sum.VerdictText, "round 3") {
		t.Errorf("round 3 asked for nothing, yet the verdict names it: %s", sum.VerdictText)
	}
	// Five requests served one at a time in two rounds: serialized, each
	// round its own burst.
	snap := roundsSnapshot()
	snap.Spans[6].Serving, snap.Spans[6].Answered = msd(915), msd(1215)
	snap.Spans[7].Serving, snap.Spans[7].Answered = msd(1215), msd(1515)
	snap.Spans[8].Received, snap.Spans[8].Answered = msd(1520), msd(1530)
	snap.Spans[0].Answered = msd(1530)
	sum = Summarize(snap)
	if sum.Verdict != VerdictSerialized || !strings.Contains(sum.VerdictText, "round 2: 2 input requests served one at a time — 0.60 s, 2.0×") {
		t.Errorf("verdict %s: %s", sum.Verdict, sum.VerdictText)
	}
}

// TestRoundsNeitherListedNorAssertedTwice pins that a round is not listed
// among the slowest requests beside its call, and that the new figures
// are keys --assert knows.
func TestRoundsNeitherListedNorAssertedTwice(t *testing.T) {
	snap := roundsSnapshot()
	slow := Slowest(snap, 20)
	for _, s := range slow {
		if s.Kind == KindRound {
			t.Errorf("round span %d listed among the slowest requests", s.ID)
		}
	}
	if len(slow) != 6 || slow[0].ID != 1 {
		t.Errorf("slowest: %d spans, first %d; want the call first and its 5 input requests", len(slow), slow[0].ID)
	}
	keys := strings.Join(Summarize(snap).Keys(), " ")
	for _, k := range []string{"tool_calls.requests", "tool_calls.input_rounds", "stalled_ms.p99", "stalled_messages"} {
		if !strings.Contains(keys, k) {
			t.Errorf("Keys() lacks %q: %s", k, keys)
		}
	}
}
