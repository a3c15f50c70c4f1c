package timeline

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/recorder"
)

// logsSnapshot is a tool call that logged at four levels while it ran,
// a request under it, and a log message that belongs to no request.
func logsSnapshot() *recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "logs"}}
	snap.Spans = []*recorder.Span{
		{ID: 1, Direction: recorder.Outgoing, Method: "tools/call", Name: "fanout", Kind: recorder.KindTool,
			Received: 0, Queued: 0, Serving: 0, Answered: 1000 * ms, Status: recorder.StatusOK},
		{ID: 2, Parent: 1, Direction: recorder.Incoming, Method: "elicitation/create", Kind: recorder.KindElicitation,
			Received: 150 * ms, Queued: 150 * ms, Serving: 150 * ms, Answered: 450 * ms, Status: recorder.StatusOK},
	}
	logAt := func(at int, level, msg string, span recorder.SpanID) recorder.Event {
		data, _ := json.Marshal(map[string]string{"level": level, "logger": "fanout", "data": msg})
		return recorder.Event{At: ms * time.Duration(at), Session: "s1", Kind: recorder.EventLog, Method: "notifications/message",
			Span: span, Level: level, Logger: "fanout", Text: recorder.LogPrefix(level, "fanout") + msg, Data: data}
	}
	snap.Events = []recorder.Event{
		logAt(100, "debug", "sending 2 elicitation requests", 1),
		logAt(300, "info", "2 elicitation requests answered", 1),
		logAt(550, "warning", "2 of 2 elicitation requests were declined or cancelled", 1),
		logAt(800, "error", "the server gave up waiting for a person, who is still thinking about the form it was shown a while ago", 1),
		logAt(900, "info", "on no call", 0),
	}
	snap.Now = 1000 * ms
	return snap
}

// TestGanttLogMarks draws a call's log messages on its row, each in its
// level's colour (golden image), and the tooltip over a mark gives the
// message, its level, logger and time, and the call.
func TestGanttLogMarks(t *testing.T) {
	test.NewTempApp(t)
	g, w := showGantt(t, logsSnapshot(), fyne.NewSize(600, 120))
	assertImage(t, "gantt_logs.png", w.Canvas().Capture())

	start, end := g.VisibleRange()
	xOf := func(at int) float32 {
		return ganttGutter + float32(float64(ms*time.Duration(at)-start)/float64(end-start))*(600-ganttGutter) + 1
	}
	row := float32(ganttRulerH + ganttLaneH + 0.5*ganttRowH) // the call's row
	for _, tt := range []struct {
		at   int
		want []string
	}{
		{550, []string{"log warning · fanout at 0.550 s", "2 of 2 elicitation requests were declined or cancelled", "from #1 tools/call fanout"}},
		{800, []string{"log error · fanout at 0.800 s",
			"the server gave up waiting for a person, who is still thinking about the form it",
			"was shown a while ago", "from #1 tools/call fanout"}},
	} {
		test.MoveMouse(w.Canvas(), fyne.NewPos(xOf(tt.at), row))
		if got := g.tooltip(); !slices.Equal(got, tt.want) {
			t.Errorf("tooltip over the mark at %d ms = %q\nwant %q", tt.at, got, tt.want)
		}
	}
	// between two marks, the row's own tooltip
	test.MoveMouse(w.Canvas(), fyne.NewPos(xOf(420), row))
	if got := g.tooltip(); len(got) == 0 || got[0] != "#1 tools/call fanout (outgoing, ok)" {
		t.Errorf("tooltip between marks = %q, want the call's", got)
	}
}
