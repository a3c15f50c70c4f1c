package recorder_test

import (
	"fmt"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// A load test of 30 tool calls, 10 a second for 3 s, taking 50, 100 and
// then 150 ms: its summary's tail percentiles (from an HDR histogram, the
// highest value within 0.1% of the recorded one: 100 ms reads 100.031 ms),
// and the run second by second (a call counts in the second it finished).
func ExampleSeries() {
	rec := recorder.New(recorder.Meta{Title: "load"})
	for i := range 30 {
		s := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
		at := time.Duration(i) * 100 * time.Millisecond
		s.Received, s.Queued, s.Serving = at, at, at
		id := rec.Begin(s)
		rec.End(id, at+time.Duration(i/10+1)*50*time.Millisecond, recorder.Outcome{Status: recorder.StatusOK})
	}
	snap := rec.Snapshot()
	sum := recorder.Summarize(snap)
	fmt.Printf("p50 %v ms, p99.9 %v ms, %v calls/s\n", sum.CallMS.P50, sum.CallMS.P999, sum.ThroughputPerS)
	for _, st := range recorder.Series(snap) {
		fmt.Printf("%d s: %d started, %d finished, p99 %v ms\n", st.T, st.Started, st.Finished, st.P99MS)
	}
	// Output:
	// p50 100.031 ms, p99.9 150 ms, 9.84 calls/s
	// 0 s: 10 started, 10 finished, p99 50 ms
	// 1 s: 10 started, 9 finished, p99 100 ms
	// 2 s: 10 started, 10 finished, p99 150 ms
	// 3 s: 0 started, 1 finished, p99 150 ms
}
