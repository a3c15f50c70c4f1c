package timeline

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/timeline/timelinetest"
)

// TestShareAxisRelease checks that widgets sharing a Gantt's time range
// follow its zoom, and that once released the range forgets them: a
// compared recording removed from a view leaves nothing behind.
func TestShareAxisRelease(t *testing.T) {
	test.NewTempApp(t)
	g, other, c := NewGantt(), NewGantt(), NewConcurrencyChart()
	before := len(g.axis.listeners)
	r1, r2 := other.ShareAxis(g), c.ShareAxis(g)
	g.SetVisibleRange(0, 3*ms)
	if s, e := other.VisibleRange(); s != 0 || e != 3*ms {
		t.Errorf("the sharing Gantt shows %v – %v, want 0 – 3ms", s, e)
	}
	if s, e := c.VisibleRange(); s != 0 || e != 3*ms {
		t.Errorf("the sharing chart shows %v – %v, want 0 – 3ms", s, e)
	}
	r1()
	r2()
	if n := len(g.axis.listeners); n != before {
		t.Errorf("after release the time axis has %d listeners, want the %d it had", n, before)
	}
}

// TestFollowIdleStaysPut checks that following the live end while
// nothing is in flight keeps the bars in view: the wall clock going on
// (the snapshot's Now) does not slide the view past the last request.
func TestFollowIdleStaysPut(t *testing.T) {
	test.NewTempApp(t)
	g := NewGantt()
	test.NewWindow(g).Resize(fyne.NewSize(800, 300))
	snap := timelinetest.Big(50) // every request answered by 0.15 s
	g.SetSnapshot(snap)
	g.SetFollow(true)
	g.SetVisibleRange(0, time.Second)
	for _, now := range []time.Duration{2 * time.Second, 45 * time.Second} {
		idle := *snap
		idle.Now = now
		g.SetSnapshot(&idle)
		if s, e := g.VisibleRange(); s != 0 || e != time.Second {
			t.Errorf("idle at %v: the view slid to %v – %v, want it to stay at 0 – 1s where the bars are", now, s, e)
		}
	}
}

// TestShowRowsIn checks what fitting a run does to the rows: those of the
// requests sent in its time come into view, from the first (its tool
// call) when they do not all fit, moving no more than needed when they
// do; and following the live end leaves them there until new rows come.
func TestShowRowsIn(t *testing.T) {
	test.NewTempApp(t)
	snap := timelinetest.Big(50) // five tool calls 10 ms apart, each over nine requests: 50 rows
	const room = 6
	g, _ := showGantt(t, snap, fyne.NewSize(ganttGutter+600, ganttRulerH+ganttLaneH+room*ganttRowH))
	inView := func() (first, last recorder.SpanID) {
		t.Helper()
		rows := g.RowsInView()
		if len(rows) != room {
			t.Fatalf("%d rows in view, want the %d there is room for", len(rows), room)
		}
		return rows[0].Span.ID, rows[len(rows)-1].Span.ID
	}
	g.SetFollow(true)
	if _, last := inView(); last != 50 {
		t.Errorf("following: the last row in view is #%d, want the newest, #50", last)
	}

	// the third call (sent at 20 ms, #21) and its nine requests: ten
	// rows where six fit, shown from the call
	g.ShowRowsIn(20*ms, 29*ms)
	if first, _ := inView(); first != 21 {
		t.Errorf("the third call's rows start at #%d, want its tool call #21 at the top", first)
	}
	idle := *snap
	idle.Now += time.Second
	g.SetSnapshot(&idle)
	if first, _ := inView(); first != 21 {
		t.Errorf("an idle frame while following moved the rows to #%d, want them left at #21", first)
	}

	// rows already in view: nothing moves
	g.ShowRowsIn(22*ms, 24*ms)
	if first, _ := inView(); first != 21 {
		t.Errorf("showing rows in view moved them to #%d, want #21", first)
	}
	// rows below that fit: scrolled just enough, the last at the bottom
	g.ShowRowsIn(40*ms, 42*ms) // #41 (the call) and its requests #42–#44
	if first, last := inView(); first != 39 || last != 44 {
		t.Errorf("rows #41–#44 shown as #%d–#%d, want #39–#44", first, last)
	}

	// a new row while following: the newest comes into view again
	grown := idle
	grown.Spans = append(slices.Clone(snap.Spans), &recorder.Span{ID: 51, Direction: recorder.Outgoing, Method: "tools/call",
		Kind: recorder.KindTool, Received: 60 * ms, Queued: 60 * ms, Serving: 60 * ms, Answered: recorder.Unset})
	g.SetSnapshot(&grown)
	if _, last := inView(); last != 51 {
		t.Errorf("following, a new row came: the last row in view is #%d, want #51", last)
	}
}
