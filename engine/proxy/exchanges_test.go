package proxy

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPRecordsExchanges: the proxy records its requests to the
// upstream as HTTP exchanges, as a session does: a client's tool call
// through it shows as a POST with its body (read once, as the client sent
// it) and the call's event stream, its session id, and the client's
// bearer token and cookie masked, in no saved byte.
func TestHTTPRecordsExchanges(t *testing.T) {
	up, _ := upstreamDemo(t)
	rec := recorder.New(recorder.Meta{})
	p, front := proxyTo(t, up.URL+"/mcp", rec)
	cs := httpClient(t, front.URL+p.Path(), "2025-11-25", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "through the proxy"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()

	log, _ := rec.HTTP()
	if log == nil {
		t.Fatal("the proxy recorded no exchange")
	}
	var call *recorder.Exchange
	for _, x := range log.Exchanges {
		if x.Method == "POST" && x.RPC == "tools/call" {
			call = x
		}
	}
	if call == nil {
		t.Fatalf("no POST of the tool call among %d exchanges", len(log.Exchanges))
	}
	if call.Status != 200 || !strings.Contains(call.RequestBody, `"through the proxy"`) || call.RequestBytes != int64(len(call.RequestBody)) {
		t.Errorf("the call: status %d, body %q (%d bytes)", call.Status, call.RequestBody, call.RequestBytes)
	}
	if recorder.HeaderValue(call.RequestHeaders, "Mcp-Session-Id") == "" {
		t.Errorf("the call's headers lack the session id: %+v", call.RequestHeaders)
	}
	for name, want := range map[string]string{"Authorization": "Bearer " + recorder.Redacted, "Cookie": recorder.Redacted} {
		if got := recorder.HeaderValue(call.RequestHeaders, name); got != want {
			t.Errorf("%s shows as %q, want %q", name, got, want)
		}
	}
	if len(call.Events) == 0 || !strings.Contains(call.Events[len(call.Events)-1].Data, "through the proxy") {
		t.Errorf("the call's event stream: %+v", call.Events)
	}
	var saved bytes.Buffer
	if err := recorder.Save(&saved, rec.Snapshot()); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{testBearer, testCookie} {
		if bytes.Contains(saved.Bytes(), []byte(secret)) {
			t.Errorf("the saved recording holds %q", secret)
		}
	}
}
