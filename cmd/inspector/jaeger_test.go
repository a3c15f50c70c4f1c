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
)

// jaegerEnv names the Jaeger all-in-one binary the live push is tested
// against; scripts/jaeger.sh builds it (make test-jaeger sets it).
const jaegerEnv = "FANOUT_JAEGER"

// jaegerConfig runs Jaeger with in-memory storage on the loopback ports
// the test chose: OTLP/HTTP in, the query API out. Metrics are accepted
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

// startJaeger runs the Jaeger binary and waits until its query API
// answers; it returns the OTLP base URL and the query API's URL.
func startJaeger(t *testing.T, bin string) (otlp, query string) {
	t.Helper()
	ports := freePorts(t, 3)
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, jaegerConfig, ports[0], ports[1], ports[2]), 0o600); err != nil {
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
	query = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	otlp = fmt.Sprintf("http://127.0.0.1:%d", ports[2])
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("Jaeger exited at start: %v\n%s", err, logs.String())
		default:
		}
		if resp, err := jaegerHTTP.Get(query + "/api/services"); err == nil {
			resp.Body.Close()
			if c, err := net.DialTimeout("tcp", otlp[len("http://"):], time.Second); err == nil {
				c.Close()
				t.Logf("Jaeger ready in %v (query %s, OTLP %s)", time.Since(started).Round(time.Millisecond), query, otlp)
				return otlp, query
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

// TestOTLPPushJaeger: a fan-out run pushed to a real Jaeger comes back
// from Jaeger's query API as one trace, the tool call with its 5
// sampling requests under it, with the IDs the recording derives.
func TestOTLPPushJaeger(t *testing.T) {
	bin := os.Getenv(jaegerEnv)
	if bin == "" {
		t.Skipf("%s is not set: build Jaeger with scripts/jaeger.sh (make test-jaeger does both) and set %s to the binary it prints", jaegerEnv, jaegerEnv)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v (scripts/jaeger.sh builds it)", jaegerEnv, bin, err)
	}
	otlp, query := startJaeger(t, bin)

	rec := filepath.Join(t.TempDir(), "run.json")
	r := inspector(t, "run", "--tool", "fanout", "--args", `{"n":5}`, "--latency", "100ms", "--otlp-endpoint", otlp, "--json", "--record", rec)
	if r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
	}
	sum := otlpOf(t, r)
	if o := sum.OTLP; o.Dropped != 0 || o.Metrics != 0 || o.Pushed != o.Spans {
		t.Fatalf("otlp %+v: want every span and metric accepted by Jaeger", *o)
	}

	// Jaeger's batch processor stores what it got within ~100 ms: poll.
	var tr jaegerTrace
	traceID := ""
	deadline := time.Now().Add(20 * time.Second)
	for {
		traceID = jaegerFanoutTrace(t, query, rec)
		if traceID != "" {
			tr = jaegerGet(t, query, traceID)
			if len(tr.Spans) >= 6 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger has no trace with the tool call and its 5 requests after 20 s (trace %q, %d spans)", traceID, len(tr.Spans))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(tr.Spans) != 6 {
		t.Errorf("trace %s has %d spans, want 6 (the tool call and 5 sampling requests)", traceID, len(tr.Spans))
	}
	parentOf, traceOf := map[string]string{}, map[string]string{}
	for _, s := range tr.Spans {
		traceOf[s.SpanID] = s.TraceID
		for _, ref := range s.References {
			if ref.RefType == "CHILD_OF" {
				parentOf[s.SpanID] = ref.SpanID
			}
		}
	}
	checkFanoutTree(t, rec, 5, parentOf, traceOf)
	names := map[string]int{}
	for _, s := range tr.Spans {
		names[s.OperationName]++
	}
	if names["tools/call fanout"] != 1 || names["sampling/createMessage"] != 5 {
		t.Errorf("operations %v: want 1 tools/call fanout and 5 sampling/createMessage", names)
	}
	for _, p := range tr.Processes {
		if p.ServiceName != "fanout-inspector" {
			t.Errorf("service %q, want fanout-inspector", p.ServiceName)
		}
	}
}

// jaegerFanoutTrace finds the trace of the recording's tool call among
// those Jaeger lists for the service, or "".
func jaegerFanoutTrace(t *testing.T, query, rec string) string {
	t.Helper()
	resp, err := jaegerHTTP.Get(query + "/api/traces?service=fanout-inspector&limit=50&lookback=1h")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []jaegerTrace `json:"data"`
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err := json.Unmarshal(body, &list); err != nil {
		return "" // the service is not known yet
	}
	for _, tr := range list.Data {
		for _, s := range tr.Spans {
			if s.OperationName == "tools/call fanout" {
				return tr.TraceID
			}
		}
	}
	return ""
}

// jaegerGet fetches one trace by ID.
func jaegerGet(t *testing.T, query, id string) jaegerTrace {
	t.Helper()
	resp, err := jaegerHTTP.Get(query + "/api/traces/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var one struct {
		Data []jaegerTrace `json:"data"`
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err := json.Unmarshal(body, &one); err != nil || len(one.Data) != 1 {
		t.Fatalf("GET /api/traces/%s: %v: %.300s", id, err, body)
	}
	return one.Data[0]
}
