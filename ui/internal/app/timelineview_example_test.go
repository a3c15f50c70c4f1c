package app_test

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/app"
)

// A TimelineView shows a recording: here a tool call whose three sampling
// requests were served one at a time.
func ExampleTimelineView() {
	test.NewApp()
	rec := recorder.New(recorder.Meta{Title: "example"})
	call := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
	call.Name, call.Received = "fanout", 0
	callID := rec.Begin(call)
	for i := range 3 {
		s := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
		s.Parent = callID
		s.Received, s.Queued = time.Millisecond, time.Millisecond
		s.Serving = time.Millisecond + time.Duration(i)*100*time.Millisecond
		s.Answered, s.Status = s.Serving+100*time.Millisecond, recorder.StatusOK
		rec.Begin(s)
	}
	rec.Update(callID, func(s *recorder.Span) { s.Answered, s.Status = 302*time.Millisecond, recorder.StatusOK })

	tv := app.NewTimelineView()
	tv.SetSnapshot(rec.Snapshot())
	for _, row := range tv.Rows() {
		fmt.Println(strings.Repeat("  ", row.Depth) + row.Span.Method)
	}
	sum := tv.Summary()
	fmt.Println("peak in flight", sum.PeakInFlight, "of", sum.PeakPending, "pending:", sum.Verdict)
	// Output:
	// tools/call
	//   sampling/createMessage
	//   sampling/createMessage
	//   sampling/createMessage
	// peak in flight 1 of 3 pending: serialized
}
