package app

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestNetworkTimelineLink connects the window to the demo server over
// streamable HTTP on each era, calls echo and fans out two sampling
// requests, and clicks as a person would: the exchange of a tool call
// clicked in the Network tab selects that call's request in the Gantt;
// a request selected in the Gantt selects, in the Network tab, the
// exchange that carried it (on 2025-11-25 a sampling request the
// server sent on an event stream, too).
func TestNetworkTimelineLink(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			srv := httptest.NewServer(demo.NewHTTPHandler())
			t.Cleanup(srv.Close)
			loop := newMainLoop(t)
			m := openMainWindow(t, loop, Options{})
			m.window.Resize(fyne.NewSize(1400, 900))
			m.connect(engine.Target{Transport: engine.TransportHTTP, URL: srv.URL + "/mcp", Protocol: protocol})
			loop.waitFor(t, "the session", 15*time.Second, func() bool { return m.bridge.session() != nil })
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for _, w := range []load.Workload{{Tool: "echo", Args: []byte(`{"text":"hi"}`)}, {Tool: "fanout", Args: []byte(`{"n":2,"kind":"sampling"}`)}} {
				if _, err := load.Run(ctx, []*engine.Session{m.bridge.session()}, w, nil); err != nil {
					t.Fatalf("%s: %v", w.Tool, err)
				}
			}
			selectTabNamed(t, m, "Network")
			var echo, fanout *recorder.Span // the calls, as the timeline shows them
			loop.waitFor(t, "both calls ended in the timeline and their POSTs in the Network tab", 15*time.Second, func() bool {
				m.network.refresh()
				echo, fanout = endedCall(m.timeline.snapshot(), "echo"), endedCall(m.timeline.snapshot(), "fanout")
				return echo != nil && fanout != nil && rowPosting(m.network, "fanout") >= 0
			})

			// An exchange clicked selects its request in the Gantt.
			row := rowPosting(m.network, "echo")
			if row < 0 {
				t.Fatal("no POST of the echo call in the Network tab")
			}
			m.network.list.Select(row)
			id := postedID(t, m.network.rows[row])
			sel := m.timeline.gantt.Selected()
			if sel == nil || sel.Method != "tools/call" || sel.Name != "echo" || sel.RequestID != id {
				for _, s := range m.timeline.snapshot().Spans {
					t.Logf("span %d %s %s id=%q name=%s kind=%v", s.ID, s.Direction, s.Method, s.RequestID, s.Name, s.Kind)
				}
				t.Fatalf("clicking the POST of echo (id %s) selected %+v in the Gantt; body %s", id, sel, m.network.rows[row].RequestBody)
			}
			if !strings.Contains(m.timeline.details.factsText(), "echo") {
				t.Errorf("the details under the Gantt do not show the echo call:\n%s", m.timeline.details.factsText())
			}

			// A request selected in the Gantt selects its exchange.
			m.timeline.gantt.Select(fanout.ID)
			want := m.network.rows[rowPosting(m.network, "fanout")]
			if m.network.selected != want.ID || m.network.shown != want || !strings.Contains(m.network.detailText(), `"name": "fanout"`) {
				t.Errorf("selecting the fanout call in the Gantt selected exchange %d, want %d (the POST of fanout); detail:\n%s", m.network.selected, want.ID, m.network.detailText())
			}
			if sel := m.timeline.gantt.Selected(); sel == nil || sel.ID != fanout.ID {
				t.Errorf("the Gantt's selection moved to %+v", sel)
			}

			// The Network tab hidden, the Gantt leaves its selection be.
			selectTabNamed(t, m, "Protocol")
			m.timeline.gantt.Select(echo.ID)
			if m.network.selected != want.ID {
				t.Errorf("with the Network tab hidden, selecting echo in the Gantt moved its selection to exchange %d", m.network.selected)
			}
			selectTabNamed(t, m, "Network")

			if protocol != "2025-11-25" {
				return // on 2026-07-28 sampling is an input request of a round: no message of its own
			}
			var sampling *recorder.Span
			for _, s := range m.timeline.snapshot().Spans {
				if s.Method == "sampling/createMessage" && s.RequestID != "" {
					sampling = s
				}
			}
			if sampling == nil {
				t.Fatal("no sampling request in the timeline")
			}
			m.timeline.gantt.Select(sampling.ID)
			x := m.network.shown
			if x == nil || m.network.selected != x.ID || !carriesRequest(x, sampling) {
				t.Fatalf("selecting sampling request #%s in the Gantt selected %+v, want the stream that carried it", sampling.RequestID, x)
			}
		})
	}
}

// endedCall returns the ended tools/call of tool in snap: the call
// itself, not one of its rounds.
func endedCall(snap *recorder.Snapshot, tool string) *recorder.Span {
	if snap == nil {
		return nil
	}
	for _, s := range snap.Spans {
		if s.Kind == recorder.KindTool && s.Name == tool && !s.Open() {
			return s
		}
	}
	return nil
}

// rowPosting is the row of the first POST calling tool, or -1.
func rowPosting(v *networkView, tool string) int {
	return rowWhere(v, func(x *recorder.Exchange) bool {
		return x.Method == "POST" && x.RPC == "tools/call" && strings.Contains(x.RequestBody, `"name":"`+tool+`"`)
	})
}

// rowOf is the row of exchange id, or -1.
func rowOf(v *networkView, id recorder.ExchangeID) int {
	return rowWhere(v, func(x *recorder.Exchange) bool { return x.ID == id })
}

// postedID is the JSON-RPC id of the request x posted, as a span keeps it.
func postedID(t *testing.T, x *recorder.Exchange) string {
	t.Helper()
	var body struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(x.RequestBody), &body); err != nil {
		t.Fatalf("the POST's body %q: %v", x.RequestBody, err)
	}
	return string(body.ID)
}

// carriesRequest reports whether an event of x is the request s, as the
// server wrote it.
func carriesRequest(x *recorder.Exchange, s *recorder.Span) bool {
	for _, e := range x.Events {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(e.Data), &msg) == nil && msg.Method == s.Method && string(msg.ID) == s.RequestID {
			return true
		}
	}
	return false
}
