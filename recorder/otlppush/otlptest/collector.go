// Package otlptest is a local OTLP/HTTP receiver for tests: an httptest
// server that decodes what OpenTelemetry exporters send to /v1/traces and
// /v1/metrics, as a collector would, and keeps it for the test to read.
package otlptest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Collector is a local OTLP/HTTP receiver on a loopback port; its URL is
// the base URL to push to.
type Collector struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	res     map[string]string // resource attributes of the last traces request
	metrics []*metricpb.Metric
}

// NewCollector starts a Collector, closed when the test ends.
func NewCollector(t testing.TB) *Collector {
	c := &Collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want protobuf", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		switch r.URL.Path {
		case "/v1/traces":
			var req coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			for _, rs := range req.ResourceSpans {
				c.res = map[string]string{}
				for _, kv := range rs.GetResource().GetAttributes() {
					c.res[kv.Key] = kv.GetValue().GetStringValue()
				}
				for _, ss := range rs.ScopeSpans {
					c.spans = append(c.spans, ss.Spans...)
				}
			}
			out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(out)
		case "/v1/metrics":
			var req colmetricpb.ExportMetricsServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					c.metrics = append(c.metrics, sm.Metrics...)
				}
			}
			out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(out)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(c.Close)
	return c
}

// Received returns what the collector got so far: the spans, the
// metrics, and the resource attributes of the last traces request.
func (c *Collector) Received() ([]*tracepb.Span, []*metricpb.Metric, map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*tracepb.Span(nil), c.spans...), append([]*metricpb.Metric(nil), c.metrics...), c.res
}
