package engine

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestExchangeLinks records a session with the demo server over
// streamable HTTP on each era (a tool call, a fan-out of sampling
// requests, an unknown tool) and checks that every request that went
// over the wire is linked with the exchange that carried it, as the
// exchange itself shows it (the POST's body, or the event of a stream
// the server wrote it in), and that exchange back with a request of the
// same id: the Network tab and the Gantt select each other by these.
func TestExchangeLinks(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			srv := httptest.NewServer(demo.NewHTTPHandler())
			t.Cleanup(srv.Close)
			s := connectTarget(t, Target{Transport: TransportHTTP, URL: srv.URL + "/mcp", Protocol: protocol}, DefaultAnswerPolicy())
			run(t, s, testCalls{Tool: "echo", Args: []byte(`{"text":"hi"}`)})
			run(t, s, testCalls{Tool: "fanout", Args: fanoutArgs(2, "sampling")})
			run(t, s, testCalls{Tool: "no-such-tool", Args: []byte(`{}`)})
			s.Close()
			snap := s.Recording().Snapshot()
			var links recorder.ExchangeLinks
			links.Update(snap, snap.HTTP)
			byID := map[recorder.ExchangeID]*recorder.Exchange{}
			for _, x := range snap.HTTP.Exchanges {
				byID[x.ID] = x
			}
			wire, incoming := 0, 0
			for _, sp := range snap.Spans {
				if sp.RequestID == "" || sp.InputKey != "" {
					continue // fulfilled inside a round: no message of its own
				}
				wire++
				id := links.Exchange(sp.ID)
				x := byID[id]
				if x == nil {
					t.Errorf("span %d (%s %s #%s) is linked with no exchange", sp.ID, sp.Direction, sp.Method, sp.RequestID)
					continue
				}
				if sp.Direction == recorder.Incoming {
					incoming++
					if !streamed(x, sp) {
						t.Errorf("%s #%s is linked with exchange %d (%s %s), whose events do not hold it", sp.Method, sp.RequestID, x.ID, x.Method, x.RPC)
					}
				} else if got := posted(x); x.Method != "POST" || got != sp.Method+" "+sp.RequestID {
					t.Errorf("%s #%s is linked with exchange %d, a %s of %q", sp.Method, sp.RequestID, x.ID, x.Method, got)
				}
				back := snap.SpanByID(links.Span(id))
				if back == nil || back.RequestID == "" || sp.Direction == recorder.Outgoing && (back.RequestID != sp.RequestID || back.Method != sp.Method) {
					t.Errorf("exchange %d, linked from %s #%s, links back to %+v", id, sp.Method, sp.RequestID, back)
				}
			}
			if wire < 5 {
				t.Errorf("only %d requests went over the wire", wire)
			}
			if protocol == "2025-11-25" && incoming != 2 {
				t.Errorf("%d sampling requests linked with the stream that carried them, want 2", incoming)
			}
		})
	}
}

// posted is the method and id of the request x's body carried, as
// "tools/call 4".
func posted(x *recorder.Exchange) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal([]byte(x.RequestBody), &m) != nil {
		return ""
	}
	return m.Method + " " + string(m.ID)
}

// streamed reports whether an event of x is the server's request sp.
func streamed(x *recorder.Exchange, sp *recorder.Span) bool {
	for _, e := range x.Events {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(e.Data), &m) == nil && m.Method == sp.Method && string(m.ID) == sp.RequestID {
			return true
		}
	}
	return false
}
