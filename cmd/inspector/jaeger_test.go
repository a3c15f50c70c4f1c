package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// jaegerEnv names the Jaeger all-in-one binary the live push is tested
// against; scripts/jaeger.sh builds it (make test-jaeger sets it).
const jaegerEnv = "FANOUT_JAEGER"

// jaegerConfig runs Jaeger with in-memory storage on the loopback ports
// the test chose: OTLP/HTTP and OTLP/gRPC in, the query API out. Metrics are accepted
// (and thrown away: Jaeger stores traces only) so that the push's metric
// exports succeed.
const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
    metrics:
      receivers: [otlp]
      exporters: [nop]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    enable_tracing: false
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
      grpc:
        endpoint: 127.0.0.1:%d
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
  nop:
`

// jaegerHTTP asks Jaeger's query API, each request bounded.
var jaegerHTTP = &http.Client{Timeout: 5 * time.Second}

// freePorts returns n loopback ports free a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// jaegerURLs are where a started Jaeger listens.
type jaegerURLs struct {
	otlpHTTP, otlpGRPC, query string
}

// startJaeger runs the Jaeger binary and waits until its query API
// and its receivers answer.
func startJaeger(t *testing.T, bin string) jaegerURLs {
	t.Helper()
	ports := freePorts(t, 4)
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, jaegerConfig, ports[0], ports[1], ports[2], ports[3]), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config", cfg)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.WaitDelay = 5 * time.Second
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	u := jaegerURLs{
		query:    fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
		otlpHTTP: fmt.Sprintf("http://127.0.0.1:%d", ports[2]),
		otlpGRPC: fmt.Sprintf("http://127.0.0.1:%d", ports[3]),
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("Jaeger exited at start: %v\n%s", err, logs.String())
		default:
		}
		if resp, err := jaegerHTTP.Get(u.query + "/api/services"); err == nil {
			resp.Body.Close()
			if listening(u.otlpHTTP) && listening(u.otlpGRPC) {
				t.Logf("Jaeger ready in %v (query %s, OTLP/HTTP %s, OTLP/gRPC %s)", time.Since(started).Round(time.Millisecond), u.query, u.otlpHTTP, u.otlpGRPC)
				return u
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger did not answer within 60 s\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// jaegerTrace is a trace as Jaeger's query API (/api/traces/ID) gives it.
type jaegerTrace struct {
	TraceID string `json:"traceID"`
	Spans   []struct {
		TraceID       string `json:"traceID"`
		SpanID        string `json:"spanID"`
		OperationName string `json:"operationName"`
		References    []struct {
			RefType string `json:"refType"`
			TraceID string `json:"traceID"`
			SpanID  string `json:"spanID"`
		} `json:"references"`
		Tags []struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		} `json:"tags"`
	} `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

// listening reports whether something accepts connections at url's host.
func listening(url string) bool {
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// TestOTLPPushJaeger: a fan-out run pushed to a real Jaeger, over
// OTLP/HTTP and over OTLP/gRPC, comes back from Jaeger's query API as one
// trace, the tool call with its 5 sampling requests under it, with the
// IDs the recording derives.
func TestOTLPPushJaeger(t *testing.T) {
	bin := os.Getenv(jaegerEnv)
	if bin == "" {
		t.Skipf("%s is not set: build Jaeger with scripts/jaeger.sh (make test-jaeger does both) and set %s to the binary it prints", jaegerEnv, jaegerEnv)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v (scripts/jaeger.sh builds it)", jaegerEnv, bin, err)
	}
	j := startJaeger(t, bin)
	for _, tc := range []struct{ protocol, endpoint string }{
		{"http/protobuf", j.otlpHTTP},
		{"grpc", j.otlpGRPC},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "run.json")
			r := inspector(t, "run", "--tool", "fanout", "--args", `{"n":5}`, "--latency", "100ms",
				"--otlp-endpoint", tc.endpoint, "--otlp-protocol", tc.protocol, "--json", "--record", rec)
			if r.code != 0 || strings.Contains(r.stderr, "warning") {
				t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
			}
			if o := otlpOf(t, r).OTLP; o.Dropped != 0 || o.Metrics != 0 || o.Pushed != o.Spans {
				t.Fatalf("otlp %+v: want every span and metric accepted by Jaeger", *o)
			}
			checkJaegerTrace(t, j.query, rec)
		})
	}
}

// checkJaegerTrace reads the trace of the recording's tool call from
// Jaeger's query API (polling: Jaeger's batch processor stores what it
// got within ~100 ms) and checks its spans and parent links.
func checkJaegerTrace(t *testing.T, query, rec string) {
	t.Helper()
	snap, err := recorder.LoadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	traceID := ""
	for _, s := range snap.Spans {
		if s.Kind == recorder.KindTool {
			traceID = recorder.TraceIDsOf(snap.Meta).TraceHex(s.ID)
		}
	}
	var tr jaegerTrace
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ok bool
		if tr, ok = jaegerGet(query, traceID); ok && len(tr.Spans) >= 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger has no trace %q with the tool call and its 5 requests after 20 s (%d spans)", traceID, len(tr.Spans))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(tr.Spans) != 6 {
		t.Errorf("trace %s has %d spans, want 6 (the tool call and 5 sampling requests)", traceID, len(tr.Spans))
	}
	parentOf, traceOf := map[string]string{}, map[string]string{}
	names := map[string]int{}
	for _, s := range tr.Spans {
		traceOf[s.SpanID] = s.TraceID
		names[s.OperationName]++
		for _, ref := range s.References {
			if ref.RefType == "CHILD_OF" {
				parentOf[s.SpanID] = ref.SpanID
			}
		}
	}
	checkFanoutTree(t, rec, 5, parentOf, traceOf)
	if names["tools/call fanout"] != 1 || names["sampling/createMessage"] != 5 {
		t.Errorf("operations %v: want 1 tools/call fanout and 5 sampling/createMessage", names)
	}
	for _, p := range tr.Processes {
		if p.ServiceName != "fanout-inspector" {
			t.Errorf("service %q, want fanout-inspector", p.ServiceName)
		}
	}
}

// jaegerGet fetches one trace by ID; false while Jaeger does not have it.
func jaegerGet(query, id string) (jaegerTrace, bool) {
	resp, err := jaegerHTTP.Get(query + "/api/traces/" + id)
	if err != nil {
		return jaegerTrace{}, false
	}
	defer resp.Body.Close()
	var one struct {
		Data []jaegerTrace `json:"data"`
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &one) != nil || len(one.Data) != 1 {
		return jaegerTrace{}, false
	}
	return one.Data[0], true
}
