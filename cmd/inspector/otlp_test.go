package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/otlppush/otlptest"
)

// otlpSummary is the "otlp" object of the JSON summary.
type otlpSummary struct {
	OTLP *struct {
		Endpoint string `json:"endpoint"`
		Spans    int64  `json:"spans"`
		Pushed   int64  `json:"pushed_spans"`
		Dropped  int64  `json:"dropped_spans"`
		Metrics  int64  `json:"metric_exports_failed"`
	} `json:"otlp"`
}

func otlpOf(t *testing.T, r result) otlpSummary {
	t.Helper()
	var s otlpSummary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || s.OTLP == nil {
		t.Fatalf("--json output has no otlp object (%v)\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return s
}

// fanoutSpans checks the pushed tree of one fanout call: the call and
// its n sampling requests, each a child of the call in the call's trace,
// with the IDs the recording derives. It returns the call's trace ID.
func checkFanoutTree(t *testing.T, recPath string, n int, parentOf map[string]string, traceOf map[string]string) string {
	t.Helper()
	snap, err := recorder.LoadFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	ids := recorder.TraceIDsOf(snap.Meta)
	var call *recorder.Span
	for _, s := range snap.Spans {
		if s.Kind == recorder.KindTool {
			call = s
		}
	}
	if call == nil {
		t.Fatal("the recording has no tool call")
	}
	callID, trace := ids.SpanHex(call.ID), ids.TraceHex(call.ID)
	if _, ok := traceOf[callID]; !ok {
		t.Fatalf("the collector has no span %s (the tool call)", callID)
	}
	kids := 0
	for _, s := range snap.Spans {
		if s.Parent != call.ID {
			continue
		}
		kids++
		id := ids.SpanHex(s.ID)
		if parentOf[id] != callID || traceOf[id] != trace {
			t.Errorf("%s span %s: parent %q trace %q, want the call's %s in %s", s.Method, id, parentOf[id], traceOf[id], callID, trace)
		}
	}
	if kids != n {
		t.Errorf("the recording has %d requests under the call, want %d", kids, n)
	}
	return trace
}

// TestRunOTLPPush: `inspector run --otlp-endpoint URL` pushes every span
// of the run, the fan-out's tree intact, and the operation-duration
// metric; the summary's otlp object counts them.
func TestRunOTLPPush(t *testing.T) {
	c := otlptest.NewCollector(t)
	rec := filepath.Join(t.TempDir(), "run.json")
	r := inspector(t, "run", "--tool", "fanout", "--args", `{"n":5}`, "--otlp-endpoint", c.URL, "--json", "--record", rec)
	if r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
	}
	sum := otlpOf(t, r)
	snap, err := recorder.LoadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if o := sum.OTLP; o.Spans != int64(len(snap.Spans)) || o.Pushed != o.Spans || o.Dropped != 0 || o.Endpoint != c.URL {
		t.Errorf("otlp %+v: want all %d spans of the recording pushed to %s", *o, len(snap.Spans), c.URL)
	}
	spans, metrics, res := c.Received()
	if len(spans) != len(snap.Spans) {
		t.Errorf("the collector got %d spans, the recording has %d", len(spans), len(snap.Spans))
	}
	parentOf, traceOf := map[string]string{}, map[string]string{}
	for _, s := range spans {
		parentOf[hex.EncodeToString(s.SpanId)] = hex.EncodeToString(s.ParentSpanId)
		traceOf[hex.EncodeToString(s.SpanId)] = hex.EncodeToString(s.TraceId)
	}
	checkFanoutTree(t, rec, 5, parentOf, traceOf)
	if res["service.name"] != "fanout-inspector" || !strings.HasPrefix(res["fanout.server"], "fanout-demo") {
		t.Errorf("resource %v: want service.name fanout-inspector and the demo server's name", res)
	}
	found := false
	for _, m := range metrics {
		found = found || m.Name == "mcp.client.operation.duration"
	}
	if !found {
		t.Errorf("no mcp.client.operation.duration among the %d metrics pushed", len(metrics))
	}
}

// TestRunOTLPCollectorDown: with no collector listening, the run ends as
// fast, its recording is whole, and a warning counts the dropped spans.
func TestRunOTLPCollectorDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	rec := filepath.Join(t.TempDir(), "run.json")
	start := time.Now()
	r := inspector(t, "run", "--tool", "fanout", "--args", `{"n":5}`, "--latency", "300ms", "--otlp-endpoint", down, "--json", "--record", rec)
	took := time.Since(start)
	if r.code != 0 {
		t.Fatalf("exit %d with the collector down, want 0; stderr: %s", r.code, r.stderr)
	}
	sum := otlpOf(t, r)
	snap, err := recorder.LoadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	n := len(snap.Spans)
	if n < 7 || sum.OTLP.Dropped != int64(n) || sum.OTLP.Pushed != 0 {
		t.Errorf("recording has %d spans, otlp %+v: want at least 7, all counted dropped", n, *sum.OTLP)
	}
	want := "warning: OTLP push to " + down + ": " + itoa(n) + " of " + itoa(n) + " spans were not delivered"
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "connection refused") {
		t.Errorf("stderr lacks %q and the cause:\n%s", want, r.stderr)
	}
	// The same run without the push: a push that waited on the dead
	// collector would add the exporter's retries or the 3 s flush limit.
	start = time.Now()
	if r := inspector(t, "run", "--tool", "fanout", "--args", `{"n":5}`, "--latency", "300ms"); r.code != 0 {
		t.Fatalf("exit %d without the push; stderr: %s", r.code, r.stderr)
	}
	base := time.Since(start)
	if took > base+2*time.Second {
		t.Errorf("the run took %v with the collector down, %v without the push", took, base)
	}
}

// TestRunOTLPBadEndpoint: an endpoint that is not a URL is a usage error
// that says what to write.
func TestRunOTLPBadEndpoint(t *testing.T) {
	r := inspector(t, "run", "--otlp-endpoint", "127.0.0.1:4318")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--otlp-endpoint") || !strings.Contains(r.stderr, "want http://HOST:PORT") {
		t.Errorf("exit %d, stderr %q: want a usage error naming the flag and the form", r.code, r.stderr)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestProxyOTLPPush: `inspector proxy --otlp-endpoint URL` pushes what it
// recorded between a client (here inspector run) and a server: the call
// with the server's requests under it.
func TestProxyOTLPPush(t *testing.T) {
	c := otlptest.NewCollector(t)
	proxyCmd := fmt.Sprintf("%s proxy --stdio '%s demo-server' --otlp-endpoint %s", inspectorBin, inspectorBin, c.URL)
	r := inspector(t, "run", "--stdio", proxyCmd, "--tool", "fanout", "--args", `{"n":3}`)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
	}
	spans, _, res := c.Received()
	call, kids := fanoutCall(spans)
	if call == "" || kids != 3 {
		t.Errorf("the collector got %d spans, call %q with %d sampling children: want the call and its 3 requests", len(spans), call, kids)
	}
	if !strings.HasPrefix(res["fanout.title"], "proxy: ") {
		t.Errorf("resource %v: want the proxy's recording", res)
	}
}

// TestRunOTLPFromEnvironment: OTEL_EXPORTER_OTLP_ENDPOINT alone turns the
// push on, as for any OpenTelemetry program; --otlp-endpoint off turns it
// off again.
func TestRunOTLPFromEnvironment(t *testing.T) {
	c := otlptest.NewCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.URL)
	r := inspector(t, "run", "--tool", "fanout", "--args", `{"n":2}`, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
	}
	if o := otlpOf(t, r).OTLP; o.Pushed == 0 || o.Dropped != 0 || o.Endpoint != c.URL {
		t.Errorf("otlp %+v: want the run pushed to %s", *o, c.URL)
	}
	spans, _, _ := c.Received()
	pushed := len(spans)
	if pushed == 0 {
		t.Fatal("the collector got nothing")
	}

	r = inspector(t, "run", "--tool", "fanout", "--args", `{"n":2}`, "--json", "--otlp-endpoint", "off")
	if r.code != 0 || strings.Contains(r.stdout, `"otlp"`) {
		t.Errorf("exit %d, stdout %s: want no push with --otlp-endpoint off", r.code, r.stdout)
	}
	if spans, _, _ := c.Received(); len(spans) != pushed {
		t.Errorf("the collector got %d more spans with --otlp-endpoint off", len(spans)-pushed)
	}
}

// fanoutCall finds the fanout tool call among spans a collector received
// and counts the sampling requests pushed as its children.
func fanoutCall(spans []*tracepb.Span) (call string, kids int) {
	for _, s := range spans {
		if s.Name == "tools/call fanout" {
			call = hex.EncodeToString(s.SpanId)
		}
	}
	for _, s := range spans {
		if s.Name == "sampling/createMessage" && hex.EncodeToString(s.ParentSpanId) == call {
			kids++
		}
	}
	return call, kids
}
