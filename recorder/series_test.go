package recorder

import (
	"runtime"
	"testing"
	"time"
)

// rampLoad is an open-loop-like load: rates[i] calls started evenly over
// second i, each taking i+1 ms; every tenth call fails.
func rampLoad(rates []int) *Snapshot {
	snap := &Snapshot{Meta: Meta{Title: "ramp"}}
	id := 0
	for sec, r := range rates {
		for k := range r {
			at := time.Duration(sec)*time.Second + time.Duration(k)*time.Second/time.Duration(r)
			d := time.Duration(sec+1) * time.Millisecond
			id++
			s := &Span{ID: SpanID(id), Session: "s1", Direction: Outgoing, Method: "tools/call", Kind: KindTool, Name: "echo",
				Received: at, Queued: at, Serving: at, Answered: at + d, Status: StatusOK}
			if id%10 == 0 {
				s.Status, s.Error = StatusError, "boom"
			}
			snap.Spans = append(snap.Spans, s)
			snap.Now = at + d
		}
	}
	return snap
}

func TestSeriesCountsEverySecond(t *testing.T) {
	rates := []int{10, 10, 10, 10, 10, 20, 30, 40, 50}
	series := Series(rampLoad(rates))
	if len(series) != len(rates) {
		t.Fatalf("%d seconds, want %d: %+v", len(series), len(rates), series)
	}
	errs := 0
	for i, st := range series {
		if st.T != i || st.Started != rates[i] || st.Finished != rates[i] {
			t.Errorf("second %d: t_s %d, started %d, finished %d; want %d, %d, %d", i, st.T, st.Started, st.Finished, i, rates[i], rates[i])
		}
		if want := float64(i + 1); st.P50MS != want || st.P99MS != want {
			t.Errorf("second %d: p50 %v ms, p99 %v ms, want %v", i, st.P50MS, st.P99MS, want)
		}
		if st.InFlight != 1 || st.Queued != 0 {
			t.Errorf("second %d: in flight %d, queued %d; want 1, 0", i, st.InFlight, st.Queued)
		}
		errs += st.Errors
	}
	if want := 190 / 10; errs != want {
		t.Errorf("%d errors over the run, want %d", errs, want)
	}
}

func TestSeriesInFlightCarriesOver(t *testing.T) {
	// three calls from 0.5 s to 3.5 s: in flight in every second they span
	snap := echoLoad(3, 3, 3*time.Second)
	for _, s := range snap.Spans {
		s.Received, s.Queued, s.Serving, s.Answered = 500*time.Millisecond, 500*time.Millisecond, 500*time.Millisecond, 3500*time.Millisecond
	}
	snap.Now = 3500 * time.Millisecond
	series := Series(snap)
	for i, want := range []int{3, 3, 3, 3} {
		if series[i].InFlight != want {
			t.Errorf("second %d: in flight %d, want %d", i, series[i].InFlight, want)
		}
	}
	if series[3].Finished != 3 || series[3].P99MS != 3000 {
		t.Errorf("second 3: %+v, want 3 finished at p99 3000 ms", series[3])
	}
}

// TestSeriesBoundedOverLongRuns: a sampled recording's live series and
// the series of all spans stay within MaxSeriesPoints steps however far
// apart the calls are, in bounded memory, and agree on their counts: a
// call every 3 seconds over 12,000 s (steps of 4 s), then one answered
// 99 years after it was sent.
func TestSeriesBoundedOverLongRuns(t *testing.T) {
	all, sampled := New(Meta{}), New(Meta{})
	sampled.SetMaxSpans(100)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	call := func(at, took time.Duration) {
		for _, rec := range []*Recording{all, sampled} {
			s := NewSpan("s1", Outgoing, "tools/call")
			s.Name, s.Received, s.Queued, s.Serving = "x", at, at, at
			id := rec.Begin(s)
			rec.End(id, at+took, Outcome{Status: StatusOK})
		}
	}
	for i := range 4000 {
		call(time.Duration(i)*3*time.Second, time.Duration(i%5+1)*time.Millisecond)
	}
	check := func(what string, wantWidth int) {
		t.Helper()
		full, snap := all.Snapshot(), sampled.Snapshot()
		snap.Now = full.Now
		want, got := Series(full), Series(snap)
		if len(want) > MaxSeriesPoints || len(got) > MaxSeriesPoints {
			t.Fatalf("%s: series of %d and %d steps, want at most %d", what, len(want), len(got), MaxSeriesPoints)
		}
		if len(got) != len(want) || want[0].Width != wantWidth || got[0].Width != wantWidth {
			t.Fatalf("%s: %d steps of %d s from the totals, %d of %d s from the spans; want steps of %d s", what,
				len(got), got[0].Width, len(want), want[0].Width, wantWidth)
		}
		for i := range want {
			w, g := want[i], got[i]
			if g.T != w.T || g.Width != w.Width || g.Started != w.Started || g.Finished != w.Finished || g.InFlight != w.InFlight {
				t.Fatalf("%s: step %d: %+v from the totals, %+v from the spans", what, i, g, w)
			}
		}
	}
	check("12,000 s", 4)
	call(12_000*time.Second, 99*365*24*time.Hour)
	check("99 years", 1<<20)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
		t.Errorf("allocated %d MB, want under 200 MB", alloc>>20)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}
