package interop

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestEverythingHTTPExchanges records a session with the TypeScript
// reference server over streamable HTTP, with a bearer token: the HTTP
// exchanges hold the initialize POST and the session id the server
// gave, the GET of the standalone event stream, the tool call's POST
// answered as an event stream whose event carries the result and an
// event id (the server keeps events to resume from), and the DELETE that
// ends the session; the token is masked and reaches no saved byte.
func TestEverythingHTTPExchanges(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	needEverything(t)
	const token = "everything-token-5d2b8e0c71"
	target := engine.Target{Transport: engine.TransportHTTP, URL: startEverythingHTTP(t),
		Headers: map[string]string{"Authorization": "Bearer " + token}}
	rec := recorder.New(recorder.Meta{Title: t.Name()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := engine.Connect(ctx, target, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatalf("connect to %s: %v", target, err)
	}
	res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "echo", Args: []byte(`{"message":"over the network"}`)}, nil)
	if err != nil || res.OK != 1 {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	s.Close()
	// The last bodies end as the SDK lets go of them: poll, with a deadline.
	var log *recorder.HTTPLog
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for log, _ = rec.HTTP(); log == nil || netExchange(log, "DELETE", "") == nil || netAnyOpen(log); log, _ = rec.HTTP() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("no DELETE, or exchanges still open, 10 s after the session closed:\n%s", netList(log))
		}
	}

	init := netExchange(log, "POST", "initialize")
	if init == nil || init.Status != 200 {
		t.Fatalf("the initialize exchange: %+v\n%s", init, netList(log))
	}
	session := recorder.HeaderValue(init.ResponseHeaders, "Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize's response headers lack Mcp-Session-Id: %+v", init.ResponseHeaders)
	}
	call := netExchange(log, "POST", "tools/call")
	if call == nil || call.Status != 200 {
		t.Fatalf("the tools/call exchange: %+v\n%s", call, netList(log))
	}
	if got := recorder.HeaderValue(call.RequestHeaders, "Mcp-Session-Id"); got != session {
		t.Errorf("the call went with session %q, want %q", got, session)
	}
	if got := recorder.HeaderValue(call.RequestHeaders, "Authorization"); got != "Bearer "+recorder.Redacted {
		t.Errorf("the call's Authorization shows as %q", got)
	}
	if !strings.HasPrefix(recorder.HeaderValue(call.ResponseHeaders, "Content-Type"), "text/event-stream") ||
		len(call.Events) == 0 || !strings.Contains(call.Events[len(call.Events)-1].Data, "Echo: over the network") ||
		call.Events[len(call.Events)-1].ID == "" {
		t.Errorf("the call's event stream: %+v, want its last event the echo's result, with an id", call.Events)
	}
	if get := netExchange(log, "GET", ""); get == nil || get.Status != 200 {
		t.Errorf("the standalone stream's GET: %+v", get)
	}
	var saved bytes.Buffer
	if err := recorder.Save(&saved, rec.Snapshot()); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(saved.Bytes(), []byte(token)) {
		t.Error("the saved recording holds the bearer token")
	}
}

func netExchange(log *recorder.HTTPLog, method, rpc string) *recorder.Exchange {
	for _, x := range log.Exchanges {
		if x.Method == method && x.RPC == rpc {
			return x
		}
	}
	return nil
}

func netAnyOpen(log *recorder.HTTPLog) bool {
	for _, x := range log.Exchanges {
		if x.Open() {
			return true
		}
	}
	return false
}

func netList(log *recorder.HTTPLog) string {
	if log == nil {
		return "(none)"
	}
	var b strings.Builder
	for _, x := range log.Exchanges {
		b.WriteString(x.Method + " " + x.RPC + " " + x.URL + " " + x.Error + "\n")
	}
	return b.String()
}
