package recorder

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// loadRun drives recs through the same load test, in time order: n tool
// calls started 1 ms apart (every third open-loop and late), each taking
// 1–60 ms with a tail; every tenth fans out two sampling requests that
// queue and are served; one in twenty fails with a JSON-RPC error, one in
// fifty with a tool error; the last five are still open at the end.
func loadRun(n int, recs ...*Recording) {
	type step struct {
		at  time.Duration
		end bool // ends sort before starts at one instant
		do  func(rec *Recording, ids map[int]SpanID)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var steps []step
	add := func(at time.Duration, end bool, do func(*Recording, map[int]SpanID)) {
		steps = append(steps, step{at, end, do})
	}
	for i := range n {
		start := time.Duration(i) * time.Millisecond
		d := time.Millisecond + time.Duration(rng.ExpFloat64()*float64(8*time.Millisecond))
		if rng.IntN(500) == 0 {
			d = time.Duration(rng.Int64N(int64(time.Second)))
		}
		add(start, false, func(rec *Recording, ids map[int]SpanID) {
			s := NewSpan("s"+string(rune('1'+i%3)), Outgoing, "tools/call")
			s.Name, s.Received, s.Queued, s.Serving = "echo", start, start, start
			if i%3 == 0 {
				s.Intended = start - time.Duration(i%7)*time.Millisecond
			}
			ids[i] = rec.Begin(s)
		})
		if i%10 == 0 {
			for c := range 2 {
				recv := start + d/4
				serve := recv + time.Duration(c)*d/8
				key := n + 2*i + c
				add(recv, false, func(rec *Recording, ids map[int]SpanID) {
					s := NewSpan("s1", Incoming, "sampling/createMessage")
					s.Parent, s.Received = ids[i], recv
					ids[key] = rec.Begin(s)
					rec.Update(ids[key], func(s *Span) { s.Queued = recv })
				})
				add(serve, false, func(rec *Recording, ids map[int]SpanID) {
					rec.Update(ids[key], func(s *Span) { s.Serving = serve })
				})
				add(start+d/2, true, func(rec *Recording, ids map[int]SpanID) {
					rec.End(ids[key], start+d/2, Outcome{Status: StatusOK})
				})
			}
		}
		if i >= n-5 {
			continue // still open
		}
		add(start+d, true, func(rec *Recording, ids map[int]SpanID) {
			o := Outcome{Status: StatusOK}
			switch {
			case i%20 == 7:
				o = Outcome{Status: StatusError, Error: "boom", Code: -32603}
			case i%50 == 11:
				o = Outcome{Status: StatusError, Error: "tool said no", Result: []byte(`{"isError":true}`)}
			}
			rec.End(ids[i], start+d, o)
		})
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		switch {
		case a.end && !b.end:
			return -1
		case b.end && !a.end:
			return 1
		}
		return 0
	})
	for _, rec := range recs {
		ids := map[int]SpanID{}
		for _, s := range steps {
			s.do(rec, ids)
		}
	}
}

// closeTo reports whether a HDR percentile is the exact one to three
// significant digits (and a microsecond).
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= want*0.002+0.002
}

// TestSampledSummaryExact: a recording capped at 1,000 spans keeps about
// that many of its 6,000, and its summary and series are those computed
// from every span: the counts equal, the percentiles within HDR
// precision. A save and load gives the same summary again.
func TestSampledSummaryExact(t *testing.T) {
	const n = 5000
	all, sampled := New(Meta{}), New(Meta{})
	sampled.SetMaxSpans(1000)
	loadRun(n, all, sampled)
	full, snap := all.Snapshot(), sampled.Snapshot()
	full.Now, snap.Now = 10*time.Second, 10*time.Second // one instant for open spans
	if snap.Sampled == nil {
		t.Fatal("the capped recording says it kept every span")
	}
	if len(snap.Spans) > 2*1000 || snap.Sampled.Spans != len(full.Spans) {
		t.Fatalf("kept %d spans of %d (it says %d): want at most 2,000 of %d", len(snap.Spans), len(full.Spans), snap.Sampled.Spans, len(full.Spans))
	}
	for _, s := range snap.Spans {
		if s.Status == StatusError && s.Error == "" {
			t.Fatal("a failed span lost its error")
		}
	}
	var failedKept, failedAll int
	for _, s := range full.Spans {
		if s.Status == StatusError {
			failedAll++
		}
	}
	for _, s := range snap.Spans {
		if s.Status == StatusError {
			failedKept++
		}
	}
	if failedKept != failedAll {
		t.Errorf("kept %d failed spans of %d: every failed span should stay", failedKept, failedAll)
	}
	want, got := Summarize(full), Summarize(snap)
	checkSameSummary(t, got, want)
	// The distributions Summarize takes from raw times come, in a
	// sampled summary, from HDR histograms of every time.
	queue, serve, dur := NewHistogram(), NewHistogram(), NewHistogram()
	for _, s := range full.Spans {
		switch {
		case s.Direction == Incoming && !s.Open():
			queue.Record(s.QueueTime())
			serve.Record(s.ServeTime())
		case isToolCall(s) && !s.Open():
			d, _ := CallDuration(s)
			dur.Record(d)
		}
	}
	if got.QueueMS != queue.legacy() || got.ServeMS != serve.legacy() || got.ToolCalls.DurationMS != dur.legacy() {
		t.Errorf("queue %+v serve %+v duration %+v; want %+v %+v %+v", got.QueueMS, got.ServeMS, got.ToolCalls.DurationMS,
			queue.legacy(), serve.legacy(), dur.legacy())
	}
	if got.Sampled == nil || got.Sampled.Spans != len(full.Spans) || got.Sampled.Kept != len(snap.Spans) ||
		got.Sampled.Note != "kept "+thousands(len(snap.Spans))+" of "+thousands(len(full.Spans))+" spans; statistics are exact" {
		t.Errorf("summary says %+v", got.Sampled)
	}
	wantSeries, gotSeries := Series(full), Series(snap)
	if len(gotSeries) != len(wantSeries) {
		t.Fatalf("series of %d seconds, want %d", len(gotSeries), len(wantSeries))
	}
	for i := range wantSeries {
		if gotSeries[i] != wantSeries[i] {
			t.Errorf("second %d: %+v, want %+v", i, gotSeries[i], wantSeries[i])
		}
	}

	var buf bytes.Buffer
	if err := Save(&buf, snap); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"version":3`)) {
		t.Error("a sampled recording is not saved as version 3, which older readers refuse")
	}
	loaded, err := loadBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if again := Summarize(loaded); !reflect.DeepEqual(again, got) {
		t.Errorf("reopened summary differs:\n got %+v\nwant %+v", again, got)
	}
	if again := Series(loaded); !reflect.DeepEqual(again, gotSeries) {
		t.Errorf("reopened series differs")
	}
}

// checkSameSummary compares a sampled summary with the one from every
// span.
func checkSameSummary(t *testing.T, got, want Summary) {
	t.Helper()
	if !reflect.DeepEqual(got.ToolCalls.Errors, want.ToolCalls.Errors) || !reflect.DeepEqual(got.Errors, want.Errors) {
		t.Errorf("errors %+v %+v, want %+v %+v", got.ToolCalls.Errors, got.Errors, want.ToolCalls.Errors, want.Errors)
	}
	counts := func(s Summary) []any {
		return []any{s.ToolCalls.Total, s.ToolCalls.OK, s.ToolCalls.Failed, s.ToolCalls.Requests, s.ToolCalls.InputRounds,
			s.ToolCalls.PeakInFlight, s.ToolCalls.ThroughputPerS, s.ServerRequests.Total, s.ServerRequests.OK, s.ServerRequests.Failed,
			s.ServerRequests.Aborted, s.ServerRequests.ByMethod, s.PeakInFlight, s.PeakPending, s.ElapsedMS, s.ThroughputPerS,
			s.Sessions, s.Dropped, s.LateStarts, s.StalledMessages, s.AchievedConcurrency, s.Verdict}
	}
	if g, w := counts(got), counts(want); !reflect.DeepEqual(g, w) {
		t.Errorf("counts\n got %v\nwant %v", g, w)
	}
	if got.CallMS != want.CallMS {
		t.Errorf("call_ms %+v, want %+v (both from HDR histograms)", got.CallMS, want.CallMS)
	}
	if !reflect.DeepEqual(got.ByMethodMS, want.ByMethodMS) {
		t.Errorf("by_method_ms %+v, want %+v", got.ByMethodMS, want.ByMethodMS)
	}
	for _, p := range []struct {
		name      string
		got, want Percentiles
	}{{"serve", got.ServeMS, want.ServeMS}, {"duration", got.ToolCalls.DurationMS, want.ToolCalls.DurationMS}} {
		if !closeTo(p.got.P50, p.want.P50) || !closeTo(p.got.P90, p.want.P90) || !closeTo(p.got.P99, p.want.P99) || p.got.Max != p.want.Max {
			t.Errorf("%s_ms %+v, want %+v within HDR precision", p.name, p.got, p.want)
		}
	}
}

// TestSnapshotWhileUpdating: snapshots taken while spans change in place
// never see a span change under them (run with -race), and a span a
// snapshot holds keeps the value it had.
func TestSnapshotWhileUpdating(t *testing.T) {
	for _, capped := range []bool{false, true} {
		rec := New(Meta{})
		if capped {
			rec.SetMaxSpans(50)
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 300 {
					s := NewSpan("s", Incoming, "ping")
					s.Received = time.Duration(i)
					id := rec.Begin(s)
					rec.Update(id, func(s *Span) { s.Queued = time.Duration(i + 1) })
					rec.Update(id, func(s *Span) { s.Serving = time.Duration(i + 2) })
					status := StatusOK
					if (i+w)%37 == 0 {
						status = StatusTimeout
					}
					rec.End(id, time.Duration(i+3), Outcome{Status: status})
				}
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		deadline := time.After(10 * time.Second)
	read:
		for {
			snap := rec.Snapshot()
			before := make([]Span, len(snap.Spans))
			for i, s := range snap.Spans {
				before[i] = *s
			}
			Summarize(snap)
			for i, s := range snap.Spans {
				if !reflect.DeepEqual(*s, before[i]) {
					t.Fatalf("span %d changed inside a snapshot: %+v then %+v", s.ID, before[i], *s)
				}
				if i > 0 && snap.Spans[i-1].ID >= s.ID {
					t.Fatalf("snapshot spans out of ID order at %d", i)
				}
			}
			select {
			case <-done:
				break read
			case <-deadline:
				t.Fatal("the writers did not finish in 10 s")
			default:
			}
		}
		snap := rec.Snapshot()
		if sum := Summarize(snap); sum.ServerRequests.Total != 1200 || sum.ServerRequests.OK+sum.ServerRequests.Failed != 1200 {
			t.Errorf("capped %v: %d server requests (%d ok, %d failed), want 1200 ended", capped, sum.ServerRequests.Total, sum.ServerRequests.OK, sum.ServerRequests.Failed)
		}
		if capped && (snap.Sampled == nil || len(snap.Spans) > 100) {
			t.Errorf("capped at 50: kept %d spans, sampled %v", len(snap.Spans), snap.Sampled != nil)
		}
	}
}

// TestSampledSegments: the one run of a sampled recording is summarized
// from the totals; one run of several, which the totals do not split,
// from its spans kept, and its summary says so.
func TestSampledSegments(t *testing.T) {
	rec := New(Meta{})
	rec.SetMaxSpans(100)
	n := rec.BeginRun("echo", "concurrent")
	loadRun(1000, rec)
	rec.EndRun(n)
	snap := rec.Snapshot()
	if sum := Summarize(snap.Segment(snap.Runs[0])); sum.ToolCalls.Total != 1000 || sum.Sampled == nil || sum.Sampled.Spans == 0 {
		t.Errorf("the only run: %d calls, sampled %+v; want 1000 counted from the totals", sum.ToolCalls.Total, sum.Sampled)
	}
	rec.EndRun(rec.BeginRun("echo", "serial"))
	snap = rec.Snapshot()
	sum := Summarize(snap.Segment(snap.Runs[0]))
	if sum.Sampled == nil || !strings.HasSuffix(sum.Sampled.Note, "spans: statistics of the run from the spans kept") ||
		sum.ToolCalls.Total >= 1000 {
		t.Errorf("one run of two: %d calls, sampled %+v; want the spans kept, and a note that says so", sum.ToolCalls.Total, sum.Sampled)
	}
}

// TestSampledSecrets: a span past a sample's cap, which waits open apart
// from the kept ones, is scrubbed as it enters, and so is its result.
func TestSampledSecrets(t *testing.T) {
	rec := New(Meta{})
	rec.SetMaxSpans(10)
	for range 30 {
		s := NewSpan("s", Outgoing, "tools/call")
		s.Received = 0
		rec.End(rec.Begin(s), 1, Outcome{Status: StatusOK})
	}
	if rec.Snapshot().Sampled == nil {
		t.Fatal("the recording is not sampled yet")
	}
	rec.AddSecrets("hunter2-secret-value")
	s := NewSpan("s", Outgoing, "tools/call")
	s.Received, s.Params = 2, json.RawMessage(`{"token":"hunter2-secret-value"}`)
	id := rec.Begin(s)
	if p := rec.Span(id); p == nil || strings.Contains(string(p.Params), "hunter2") {
		t.Errorf("the open span past the cap holds the secret: %s", p.Params)
	}
	rec.Update(id, func(s *Span) { s.Result = json.RawMessage(`{"echo":"hunter2-secret-value"}`) })
	if p := rec.Span(id); p == nil || string(p.Result) != `{"echo":"REDACTED"}` {
		t.Errorf("the open span past the cap got the result %s, want the secret redacted", p.Result)
	}
}

// TestChangeAfterEnd: a span changed after it ended (an answer that could
// not be written) shows the change in later snapshots and lookups, while
// a snapshot taken before keeps the value it had: in a recording that
// keeps every span and in one past its cap.
func TestChangeAfterEnd(t *testing.T) {
	for _, capped := range []bool{false, true} {
		rec := New(Meta{})
		if capped {
			rec.SetMaxSpans(4)
		}
		var ids []SpanID
		for i := range 20 {
			s := NewSpan("s", Incoming, "ping")
			s.Received = time.Duration(i)
			id := rec.Begin(s)
			rec.End(id, time.Duration(i+1), Outcome{Status: StatusOK})
			ids = append(ids, id)
		}
		before := rec.Snapshot()
		changed := 0
		for _, id := range ids {
			if rec.Span(id) == nil {
				continue // dropped from the sample
			}
			rec.Update(id, func(s *Span) { s.Status, s.Error = StatusAborted, "write failed" })
			changed++
			if got := rec.Span(id); got.Status != StatusAborted {
				t.Errorf("capped %v: span %d is %s after the change", capped, id, got.Status)
			}
		}
		for _, s := range before.Spans {
			if s.Status != StatusOK {
				t.Errorf("capped %v: span %d changed inside an earlier snapshot", capped, s.ID)
			}
		}
		after := rec.Snapshot()
		for _, s := range after.Spans {
			if s.Status != StatusAborted {
				t.Errorf("capped %v: span %d is %s in a later snapshot", capped, s.ID, s.Status)
			}
		}
		// The totals follow the change of every span kept; a span the
		// sample dropped can no longer change.
		if sum := Summarize(after); sum.ServerRequests.Aborted != changed || sum.ServerRequests.OK != 20-changed {
			t.Errorf("capped %v: %d aborted, %d ok; want %d and %d", capped, sum.ServerRequests.Aborted, sum.ServerRequests.OK, changed, 20-changed)
		}
	}
}
