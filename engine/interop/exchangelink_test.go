package interop

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestEverythingExchangeLinks records a session with the TypeScript
// reference server over streamable HTTP (a tool call, and one that has
// the server ask the client for a sampling) and checks that every
// request that went over the wire is linked with the exchange that
// carried it, its POST or the event of the stream the server wrote it
// in, and that exchange back with it: what the Network tab and the
// Gantt select each other by.
func TestEverythingExchangeLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	needEverything(t)
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportHTTP, URL: startEverythingHTTP(t)}, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	for _, w := range []load.Workload{
		{Tool: "echo", Args: []byte(`{"message":"linked"}`)},
		{Tool: "trigger-sampling-request", Args: []byte(`{"prompt":"hi","maxTokens":10}`)},
	} {
		if res, err := load.Run(ctx, []*engine.Session{s}, w, nil); err != nil || res.OK != 1 {
			t.Fatalf("%s: %+v, %v", w.Tool, res, err)
		}
	}
	s.Close()
	snap := rec.Snapshot()
	var links recorder.ExchangeLinks
	links.Update(snap, snap.HTTP)
	byID := map[recorder.ExchangeID]*recorder.Exchange{}
	for _, x := range snap.HTTP.Exchanges {
		byID[x.ID] = x
	}
	seen := map[string]bool{}
	for _, sp := range snap.Spans {
		if sp.RequestID == "" {
			continue
		}
		x := byID[links.Exchange(sp.ID)]
		if x == nil {
			t.Errorf("%s %s #%s is linked with no exchange", sp.Direction, sp.Method, sp.RequestID)
			continue
		}
		if !linkCarries(x, sp) {
			t.Errorf("%s #%s is linked with exchange %d (%s %s), which does not carry it", sp.Method, sp.RequestID, x.ID, x.Method, x.RPC)
		}
		if back := snap.SpanByID(links.Span(x.ID)); sp.Direction == recorder.Outgoing && back != sp {
			t.Errorf("the POST of %s #%s links back to %+v", sp.Method, sp.RequestID, back)
		}
		seen[sp.Method] = true
	}
	for _, m := range []string{"initialize", "tools/call", "sampling/createMessage"} {
		if !seen[m] {
			t.Errorf("no %s linked with its exchange", m)
		}
	}
}

// linkCarries reports whether x carried sp's request: a client's in its
// body, a server's in an event.
func linkCarries(x *recorder.Exchange, sp *recorder.Span) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if sp.Direction == recorder.Outgoing {
		return json.Unmarshal([]byte(x.RequestBody), &m) == nil && m.Method == sp.Method && string(m.ID) == sp.RequestID
	}
	for _, e := range x.Events {
		if json.Unmarshal([]byte(e.Data), &m) == nil && m.Method == sp.Method && string(m.ID) == sp.RequestID {
			return true
		}
	}
	return false
}
