package load

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestOpenLoopRate: an open loop at 200 calls/s for 2 s on echo starts
// 400 calls on schedule, whatever their answers do, and its throughput
// is the rate.
func TestOpenLoopRate(t *testing.T) {
	s := connectDemo(t)
	res := runOn(t, one(s), Workload{Tool: "echo", Args: json.RawMessage(`{"text":"x"}`), Rate: 200, Duration: 2 * time.Second})
	if res.Total != 400 || res.OK != 400 || res.Dropped != 0 {
		t.Fatalf("result %+v, want 400 calls, all ok, none dropped", res)
	}
	snap := s.Recording().Snapshot()
	sum := recorder.Summarize(snap)
	if sum.ToolCalls.Total != 400 {
		t.Errorf("the recording has %d tool calls, want 400", sum.ToolCalls.Total)
	}
	// Never faster than the rate. Slower only when the machine cannot
	// keep up (a loaded 2-core machine made 162/s): the schedule below is
	// what must hold; BenchmarkOpenLoop measures how closely it is kept.
	if got := sum.ToolCalls.ThroughputPerS; got < 100 || got > 210 {
		t.Errorf("throughput %.1f calls/s, want 200 (at most 5%% over, and not half of it)", got)
	}
	// Every call records when it was meant to start: i/200 s after the first.
	calls := toolCalls(snap)
	first := calls[0].Intended
	for _, c := range calls {
		if c.Intended <= 0 {
			t.Fatalf("call %d has no intended start", c.ID)
		}
		if c.Received < c.Intended {
			t.Fatalf("call %d sent at %v, before its intended start %v", c.ID, c.Received, c.Intended)
		}
	}
	if span := calls[len(calls)-1].Intended - first; span < 1990*time.Millisecond || span > 2*time.Second {
		t.Errorf("intended starts span %v, want 399/200 s = 1.995 s", span)
	}
}

// TestOpenLoopMaxInFlight: with one call outstanding at most, the
// arrivals that come while a slow call runs are dropped and counted, in
// the result, in the recording and in the summary, not sent late.
func TestOpenLoopMaxInFlight(t *testing.T) {
	s := connectDemo(t)
	res := runOn(t, one(s), Workload{Tool: "slow", Args: json.RawMessage(`{"ms":100,"steps":1}`), Rate: 50, Duration: time.Second, MaxInFlight: 1})
	if res.Total != 50 || res.OK+res.Dropped != 50 {
		t.Fatalf("result %+v: want 50 arrivals, each sent or dropped", res)
	}
	// 100 ms calls, one at a time, an arrival every 20 ms: about 1 in 5 is sent.
	if res.OK < 5 || res.OK > 15 || res.Dropped < 35 {
		t.Errorf("%d calls sent and %d dropped, want about 10 and 40", res.OK, res.Dropped)
	}
	snap := s.Recording().Snapshot()
	sum := recorder.Summarize(snap)
	if sum.Dropped != res.Dropped || sum.ToolCalls.Total != res.OK {
		t.Errorf("summary: %d dropped, %d calls; the run said %d and %d", sum.Dropped, sum.ToolCalls.Total, res.Dropped, res.OK)
	}
	if sum.ToolCalls.PeakInFlight != 1 {
		t.Errorf("peak in flight %d, want 1", sum.ToolCalls.PeakInFlight)
	}
	var texts int
	for _, e := range snap.Events {
		if e.Kind == recorder.EventDropped && strings.Contains(e.Text, "max in flight 1") {
			texts++
		}
	}
	if texts != res.Dropped {
		t.Errorf("%d dropped events say why, want %d", texts, res.Dropped)
	}
}

// TestOpenLoopLateStarts: a schedule faster than the generator can keep
// is not silently slowed down: calls started late are counted, and their
// time runs from when they were meant to start, so it is longer than the
// time from when they were sent.
func TestOpenLoopLateStarts(t *testing.T) {
	s := connectDemo(t)
	res := runOn(t, one(s), Workload{Tool: "echo", Rate: 20000, Duration: 50 * time.Millisecond})
	snap := s.Recording().Snapshot()
	sum := recorder.Summarize(snap)
	if sum.LateStarts == 0 {
		t.Fatalf("no late starts out of %d calls at 20,000 calls/s", res.OK)
	}
	var fromSent, fromIntended time.Duration
	for _, c := range toolCalls(snap) {
		fromSent = max(fromSent, c.Answered-c.Received)
		fromIntended = max(fromIntended, c.Answered-c.Intended)
	}
	if got := time.Duration(sum.ToolCalls.DurationMS.Max * float64(time.Millisecond)); got < fromIntended-time.Microsecond || got <= fromSent {
		t.Errorf("slowest call %v in the summary; %v from its intended start, %v from being sent", got, fromIntended, fromSent)
	}
}

// TestGroupSpreadsCalls: three sessions to three demo servers share one
// recording; the calls go round robin, and each session answers its own
// server's requests.
func TestGroupSpreadsCalls(t *testing.T) {
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	g := connectGroup(t, engine.Target{}, rec, 3)
	res := runOn(t, g.Sessions(), Workload{Tool: "fanout", Args: fanoutArgs(2, "sampling"), Calls: 9, Concurrency: 3})
	if res.OK != 9 {
		t.Fatalf("result %+v", res)
	}
	snap := rec.Snapshot()
	bySession := map[string]int{}
	spans := map[recorder.SpanID]*recorder.Span{}
	for _, sp := range snap.Spans {
		spans[sp.ID] = sp
	}
	for _, sp := range snap.Spans {
		switch {
		case sp.Kind == recorder.KindTool:
			bySession[sp.Session]++
		case sp.Direction == recorder.Incoming:
			if p := spans[sp.Parent]; p == nil || p.Session != sp.Session {
				t.Errorf("request %d of %s is not linked to a call of its own session", sp.ID, sp.Session)
			}
		}
	}
	if len(bySession) != 3 || bySession["s1"] != 3 || bySession["s2"] != 3 || bySession["s3"] != 3 {
		t.Errorf("calls by session %v, want 3 on each of s1, s2, s3", bySession)
	}
	if sum := recorder.Summarize(snap); sum.Sessions != 3 || sum.ServerRequests.Total != 18 {
		t.Errorf("summary: %d sessions, %d server requests; want 3 and 18", sum.Sessions, sum.ServerRequests.Total)
	}
}

// TestGroupOverHTTP: two HTTP sessions to one streamable HTTP server,
// each answering the sampling requests the server sends it.
func TestGroupOverHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.NewHTTPHandler())
	t.Cleanup(srv.Close) // after the group's sessions close (cleanups run last first)
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	g := connectGroup(t, engine.Target{Transport: engine.TransportHTTP, URL: srv.URL}, rec, 2)
	res := runOn(t, g.Sessions(), Workload{Tool: "fanout", Args: fanoutArgs(3, "sampling"), Rate: 20, Duration: 500 * time.Millisecond})
	if res.OK != 10 || res.Failed != 0 {
		t.Fatalf("result %+v, errors %v", res, res.Errors)
	}
	requests := map[string]int{}
	for _, sp := range rec.Snapshot().Spans {
		if sp.Method == "sampling/createMessage" && sp.Status == recorder.StatusOK {
			requests[sp.Session]++
		}
	}
	if requests["s1"] != 15 || requests["s2"] != 15 {
		t.Errorf("sampling requests answered by session %v, want 15 on s1 and on s2", requests)
	}
}

// TestRampedRate: a rate ramp from 0 to 200 calls/s starts few calls at
// first and more and more: three times as many in its second half.
func TestRampedRate(t *testing.T) {
	s := connectDemo(t)
	res := runOn(t, one(s), Workload{Tool: "echo", Stages: []Stage{{Duration: 1500 * time.Millisecond, Target: 200}}})
	if res.OK < 140 || res.OK > 160 {
		t.Errorf("%d calls, want about 150 (the ramp's area)", res.OK)
	}
	first, second := halves(t, s.Recording().Snapshot(), 1500*time.Millisecond)
	if ratio := float64(second) / float64(max(first, 1)); ratio < 2 || ratio > 4.5 {
		t.Errorf("calls in the ramp's halves %d and %d: want about 3 times as many in the second", first, second)
	}
}

// TestRampedConcurrency: a closed loop's callers ramp from 1 to 8. It
// runs in a synctest bubble: the 40 ms calls take 40 ms of the bubble's
// clock, so the ramp's shape does not depend on how busy the machine is.
func TestRampedConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := connectDemo(t)
		runOn(t, one(s), Workload{Tool: "slow", Args: json.RawMessage(`{"ms":40,"steps":1}`), Concurrency: 1, Ramp: RampConcurrency,
			Stages: []Stage{{Duration: 800 * time.Millisecond, Target: 8}}})
		snap := s.Recording().Snapshot()
		s.Close()
		sum := recorder.Summarize(snap)
		if sum.ToolCalls.PeakInFlight < 7 || sum.ToolCalls.PeakInFlight > 8 {
			t.Errorf("peak in flight %d, want about 8", sum.ToolCalls.PeakInFlight)
		}
		first, second := halves(t, snap, 800*time.Millisecond)
		if float64(second) < 1.5*float64(first) {
			t.Errorf("calls in the ramp's halves %d and %d: want more in the second", first, second)
		}
		t.Logf("peak in flight %d; calls in the ramp's halves %d and %d", sum.ToolCalls.PeakInFlight, first, second)
	})
}

// halves counts the tool calls sent in the first and the second half of
// length from the first call.
func halves(t *testing.T, snap *recorder.Snapshot, length time.Duration) (first, second int) {
	t.Helper()
	calls := toolCalls(snap)
	if len(calls) == 0 {
		t.Fatal("no tool calls")
	}
	t0 := calls[0].Received
	for _, c := range calls {
		if c.Received-t0 < length/2 {
			first++
		} else {
			second++
		}
	}
	return first, second
}

// TestClosedLoopDuration: a closed loop given a duration stops starting
// calls when it has passed, and waits for those in flight.
func TestClosedLoopDuration(t *testing.T) {
	s := connectDemo(t)
	start := time.Now()
	res := runOn(t, one(s), Workload{Tool: "slow", Args: json.RawMessage(`{"ms":50,"steps":1}`), Concurrency: 2, Duration: 500 * time.Millisecond})
	took := time.Since(start)
	if took < 500*time.Millisecond || took > 1500*time.Millisecond {
		t.Errorf("the run took %v, want 500 ms and the last calls' 50 ms", took)
	}
	// 2 callers, 50 ms calls, 500 ms: about 20 calls.
	if res.OK < 10 || res.OK > 22 || res.Total != res.OK {
		t.Errorf("result %+v, want about 20 calls", res)
	}
}

// TestWorkloadValidate: shapes that make no sense are refused, saying why.
func TestWorkloadValidate(t *testing.T) {
	ramp := []Stage{{Duration: time.Second, Target: 5}}
	tests := []struct {
		w    Workload
		want string
	}{
		{Workload{Tool: "echo", Rate: 10}, "needs duration too"},
		{Workload{Tool: "echo", Calls: 5, Duration: time.Second}, "not both"},
		{Workload{Tool: "echo", Rate: 10, Duration: time.Second, Calls: 3}, "leave out calls"},
		{Workload{Tool: "echo", Stages: ramp, Calls: 3}, "leave out calls"},
		{Workload{Tool: "echo", Rate: 10, Duration: time.Second, Concurrency: 3}, "max in flight"},
		{Workload{Tool: "echo", Calls: 3, MaxInFlight: 2}, "bounds an open loop"},
		{Workload{Tool: "echo", Rate: -1, Duration: time.Second}, "rate -1"},
		{Workload{Tool: "echo", Duration: -time.Second}, "must not be negative"},
		{Workload{Tool: "echo", Stages: ramp, Rate: 10}, "leave out rate"},
		{Workload{Tool: "echo", Stages: ramp, Duration: time.Second}, "leave out duration"},
		{Workload{Tool: "echo", Stages: []Stage{{Duration: 0, Target: 5}}}, "stage 1"},
		{Workload{Tool: "echo", Stages: ramp, Ramp: "speed"}, "ramp \"speed\""},
		{Workload{Tool: "echo", Rate: 2e6, Duration: time.Second}, "at most 1000000 calls per second"},
		{Workload{Tool: "echo", Stages: []Stage{{Duration: time.Second, Target: 5e6}}}, "at most 1000000 calls per second"},
	}
	for _, tt := range tests {
		err := tt.w.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want an error saying %q", tt.w, err, tt.want)
		}
	}
	for _, w := range []Workload{
		{Tool: "echo"}, {Tool: "echo", Rate: 10, Duration: time.Second, MaxInFlight: 3},
		{Tool: "echo", Duration: time.Second, Concurrency: 4}, {Tool: "echo", Stages: ramp},
		{Tool: "echo", Stages: ramp, Ramp: RampConcurrency, Concurrency: 2},
	} {
		if err := w.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", w, err)
		}
	}
}

// TestSchedule: arrivals at a constant rate are i/R; along stages, as
// many as the area under the ramp, in increasing order.
func TestSchedule(t *testing.T) {
	count := func(s *schedule) (n int, last time.Duration) {
		prev := time.Duration(-1)
		for i := 0; ; i++ {
			at, ok := s.at(i)
			if !ok {
				return i, prev
			}
			if at < prev {
				t.Fatalf("arrival %d at %v, before the previous at %v", i, at, prev)
			}
			prev = at
		}
	}
	if n, last := count(newSchedule(200, 2*time.Second, nil)); n != 400 || last != 1995*time.Millisecond {
		t.Errorf("200/s for 2 s: %d arrivals, the last at %v; want 400, the last at 1.995 s", n, last)
	}
	stages, err := ParseStages("10s:50, 30s:200,10s:0")
	if err != nil {
		t.Fatal(err)
	}
	// 10 s × 25 + 30 s × 125 + 10 s × 100 = 5000
	if n, last := count(newSchedule(0, 0, stages)); n < 4999 || n > 5001 || last < 49*time.Second || last >= 50*time.Second {
		t.Errorf("ramp: %d arrivals, the last at %v; want 5000 within 50 s", n, last)
	}
	if at, _ := newSchedule(0, 0, stages).at(250); at < 9990*time.Millisecond || at > 10010*time.Millisecond {
		t.Errorf("the 250th arrival of a ramp to 50/s over 10 s is at %v, want 10 s", at)
	}
}

// TestParseStages: the stage syntax and its errors.
func TestParseStages(t *testing.T) {
	got, err := ParseStages("10s:50,1m:0")
	if err != nil || len(got) != 2 || got[0] != (Stage{10 * time.Second, 50}) || got[1] != (Stage{time.Minute, 0}) {
		t.Errorf("ParseStages = %v, %v", got, err)
	}
	for _, bad := range []string{"", "10s", "10:50", "10s:-1", "0s:5", "10s:x", "10s:50,"} {
		if _, err := ParseStages(bad); err == nil {
			t.Errorf("ParseStages(%q) accepted", bad)
		}
	}
}

// TestGroupOverStdio: two sessions are two server processes.
func TestGroupOverStdio(t *testing.T) {
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	g := connectGroup(t, stdioDemo(), rec, 2)
	runOn(t, g.Sessions(), Workload{Tool: "fanout", Args: fanoutArgs(2, "sampling"), Calls: 4, Concurrency: 2})
	answered := map[string]int{}
	for _, sp := range rec.Snapshot().Spans {
		if sp.Method == "sampling/createMessage" && sp.Status == recorder.StatusOK {
			answered[sp.Session]++
		}
	}
	if answered["s1"] != 4 || answered["s2"] != 4 {
		t.Errorf("sampling requests answered by session %v, want 4 on s1 and on s2", answered)
	}
}

// TestGroupSessionEndsAlone: a session of a group that ends aborts its
// own open spans only, not the calls in flight on the others.
func TestGroupSessionEndsAlone(t *testing.T) {
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	g := connectGroup(t, engine.Target{}, rec, 2)
	s1, s2 := g.Sessions()[0], g.Sessions()[1]
	done := make(chan RunResult)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, _ := Run(ctx, one(s1), Workload{Tool: "slow", Args: json.RawMessage(`{"ms":300,"steps":1}`)}, nil)
		done <- res
	}()
	if !waitFor(5*time.Second, func() bool { return len(toolCalls(rec.Snapshot())) == 1 }) {
		t.Fatal("the call did not start")
	}
	s2.Close()
	if res := <-done; res.OK != 1 {
		t.Errorf("s1's call: %+v, want ok although s2 closed meanwhile", res)
	}
	if c := toolCalls(rec.Snapshot())[0]; c.Status != recorder.StatusOK {
		t.Errorf("s1's call ended %s (%s) when s2 closed", c.Status, c.Error)
	}
}

// TestProgressReports: progress is reported after each call, one report
// at a time, with Done counting up to the calls made.
func TestProgressReports(t *testing.T) {
	s := connectDemo(t)
	var progress []Progress
	res, err := Run(context.Background(), one(s), Workload{Tool: "slow", Args: json.RawMessage(`{"ms":200,"steps":4}`), Calls: 2, Concurrency: 2},
		func(p Progress) { progress = append(progress, p) })
	if err != nil || res.OK != 2 {
		t.Fatalf("run %+v, %v", res, err)
	}
	if len(progress) != 2 || progress[0].Done != 1 || progress[1].Done != 2 || progress[1].Total != 2 {
		t.Errorf("progress reports %+v, want Done 1 then 2 of 2", progress)
	}
}

// TestRunWithoutSessions: a run needs a session to call.
func TestRunWithoutSessions(t *testing.T) {
	if _, err := Run(context.Background(), nil, Workload{Tool: "echo"}, nil); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("Run with no sessions: %v, want an error saying there is no session", err)
	}
}

// TestWorkloadErrorNamesFields: Validate's errors name the fields at
// fault, so that a face can word them with its own names for them.
func TestWorkloadErrorNamesFields(t *testing.T) {
	flag := func(field string) string { return "--" + strings.ReplaceAll(field, "_", "-") }
	tests := []struct {
		w      Workload
		fields []string
		flags  string
	}{
		{Workload{Tool: "echo", Rate: 10, Duration: time.Second, Concurrency: 2}, []string{"concurrency", "rate"},
			"--concurrency and --rate: an open loop is not bounded by callers; bound what is outstanding with --max-in-flight"},
		{Workload{Tool: "echo", MaxInFlight: -1}, []string{"max_in_flight"}, "--max-in-flight -1: must not be negative"},
		{Workload{Tool: "echo", Rate: 2e6, Duration: time.Second}, []string{"rate"}, "--rate 2e+06: at most 1000000 calls per second"},
	}
	for _, tt := range tests {
		var we *WorkloadError
		if err := tt.w.Validate(); !errors.As(err, &we) {
			t.Fatalf("Validate(%+v) = %v, want a *WorkloadError", tt.w, err)
		}
		if !slices.Equal(we.Fields, tt.fields) {
			t.Errorf("Validate(%+v) blames %v, want %v", tt.w, we.Fields, tt.fields)
		}
		if got := we.Explain(flag); !strings.HasPrefix(got, tt.flags) {
			t.Errorf("Explain with flag names = %q, want it to start %q", got, tt.flags)
		}
		if strings.ContainsAny(we.Error(), "{}") {
			t.Errorf("Error() = %q: a field left unnamed", we.Error())
		}
	}
}

// TestRunStopsWhenTheConnectionEnds: a session whose connection ends
// mid-run stops the run, which says after how many calls; a run on a
// session already ended is refused before any call.
func TestRunStopsWhenTheConnectionEnds(t *testing.T) {
	s := connectDemo(t)
	rec := s.Recording()
	type outcome struct {
		res RunResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := Run(ctx, one(s), Workload{Tool: "slow", Args: json.RawMessage(`{"ms":2000,"steps":1}`), Calls: 3}, nil)
		done <- outcome{res, err}
	}()
	if !waitFor(5*time.Second, func() bool { return len(toolCalls(rec.Snapshot())) == 1 }) {
		t.Fatal("the first call did not start")
	}
	s.Close()
	var got outcome
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run went on after its session closed")
	}
	// The call in flight ends cancelled by Close, which stops the run:
	// Close may still be under way (slowly, on a loaded machine) when the
	// next call would start.
	if got.err == nil || !strings.Contains(got.err.Error(), "run stopped: the connection was lost after ") || !strings.Contains(got.err.Error(), " of 3 calls") {
		t.Errorf("Run error %v, want it to say the connection was lost after some of 3 calls", got.err)
	}
	if got.res.OK != 0 || got.res.Failed < 1 || got.res.Failed > 2 {
		t.Errorf("result %+v, want one or two calls made, failed, and the run stopped before the third", got.res)
	}
	if _, err := Run(context.Background(), one(s), Workload{Tool: "echo"}, nil); err == nil || !strings.Contains(err.Error(), "run: ") {
		t.Errorf("Run on a closed session: %v, want an error", err)
	}
	if n := len(toolCalls(rec.Snapshot())); n != got.res.Failed {
		t.Errorf("%d calls recorded, want the %d the run made: none after it stopped", n, got.res.Failed)
	}
}
