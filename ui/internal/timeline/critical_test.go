package timeline

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

// fanoutOf is a tool call (#1) and five sampling requests received at
// once, served from serve[i] and answered 500 ms later.
func fanoutOf(serve ...time.Duration) *recorder.Snapshot {
	snap := &recorder.Snapshot{}
	last := time.Duration(0)
	for i, sv := range serve {
		last = max(last, sv+500*ms)
		snap.Spans = append(snap.Spans, &recorder.Span{ID: recorder.SpanID(i + 2), Parent: 1, Session: "s1", Direction: recorder.Incoming,
			Method: "sampling/createMessage", Kind: recorder.KindSampling, Received: 10 * ms, Queued: 10 * ms, Serving: 10*ms + sv,
			Answered: 10*ms + sv + 500*ms, Status: recorder.StatusOK})
	}
	call := &recorder.Span{ID: 1, Session: "s1", Direction: recorder.Outgoing, Method: "tools/call", Name: "fanout", Kind: recorder.KindTool,
		Received: 0, Queued: 0, Serving: 0, Answered: 20*ms + last, Status: recorder.StatusOK}
	snap.Spans = append([]*recorder.Span{call}, snap.Spans...)
	snap.Now = call.Answered
	return snap
}

func TestCriticalPath(t *testing.T) {
	for _, tt := range []struct {
		name string
		snap *recorder.Snapshot
		want []recorder.SpanID
	}{
		{"served at once: the slowest", fanoutOf(0, 0, 0, 3*ms, 1*ms), []recorder.SpanID{5}},
		{"served one at a time: every request, each waiting on the one before", fanoutOf(0, 500*ms, 1000*ms, 1500*ms, 2000*ms), []recorder.SpanID{6, 5, 4, 3, 2}},
		{"two at a time: the chain of turns", fanoutOf(0, 10*ms, 500*ms, 510*ms, 1000*ms), []recorder.SpanID{6, 4, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := CriticalPath(tt.snap, 1); !slices.Equal(got, tt.want) {
				t.Errorf("critical path %v, want %v", got, tt.want)
			}
		})
	}
	if got := CriticalPath(fanoutOf(0), 99); got != nil {
		t.Errorf("the critical path of no call is %v", got)
	}
}

// TestGanttOutlinesTheCriticalPath: selecting a tool call, or one of its
// requests, outlines the requests that held up its end.
func TestGanttOutlinesTheCriticalPath(t *testing.T) {
	test.NewTempApp(t)
	snap := fanoutOf(0, 500*ms, 1000*ms, 1500*ms, 2000*ms)
	size := fyne.NewSize(ganttGutter+600, 200)
	g, _ := showGantt(t, snap, size)
	g.Select(3)
	if c := g.Critical(); len(c) != 5 || !c[2] || !c[6] {
		t.Errorf("selecting a request of the call: critical %v, want its 5 requests", c)
	}
	img := g.draw(int(size.Width), int(size.Height))
	// row 5 is request #6; its left edge is outlined in the path's colour
	start, end := g.VisibleRange()
	x := int(ganttGutter + float64(snap.Spans[5].Received-start)/float64(end-start)*float64(size.Width-ganttGutter))
	y := int(ganttRulerH + ganttLaneH + 5.5*ganttRowH)
	if got, want := toRGBA(img.At(x, y)), newGanttPalette().now; got != want {
		t.Errorf("the left edge of request #6 is %v, want the critical path's outline %v", got, want)
	}
	g.Select(0)
	if len(g.Critical()) != 0 {
		t.Errorf("nothing selected, and %v outlined", g.Critical())
	}
}
