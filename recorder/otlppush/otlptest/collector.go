// Package otlptest is a local OTLP receiver for tests, over HTTP
// ([NewCollector]) or gRPC ([NewGRPCCollector]): it decodes what
// OpenTelemetry exporters send, as a collector would, and keeps it for
// the test to read.
package otlptest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// store keeps what a receiver got.
type store struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	res     map[string]string // resource attributes of the last traces request
	metrics []*metricpb.Metric
}

func (s *store) addTraces(req *coltracepb.ExportTraceServiceRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		s.res = map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			s.res[kv.Key] = kv.GetValue().GetStringValue()
		}
		for _, ss := range rs.ScopeSpans {
			s.spans = append(s.spans, ss.Spans...)
		}
	}
}

func (s *store) addMetrics(req *colmetricpb.ExportMetricsServiceRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			s.metrics = append(s.metrics, sm.Metrics...)
		}
	}
}

// Received returns what the receiver got so far: the spans, the
// metrics, and the resource attributes of the last traces request.
func (s *store) Received() ([]*tracepb.Span, []*metricpb.Metric, map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*tracepb.Span(nil), s.spans...), append([]*metricpb.Metric(nil), s.metrics...), s.res
}

// Collector is a local OTLP/HTTP receiver on a loopback port; its URL is
// the base URL to push to (/v1/traces and /v1/metrics under it).
type Collector struct {
	*httptest.Server
	store
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
		var resp proto.Message
		switch r.URL.Path {
		case "/v1/traces":
			var req coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			c.addTraces(&req)
			resp = &coltracepb.ExportTraceServiceResponse{}
		case "/v1/metrics":
			var req colmetricpb.ExportMetricsServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			c.addMetrics(&req)
			resp = &colmetricpb.ExportMetricsServiceResponse{}
		default:
			http.NotFound(w, r)
			return
		}
		out, _ := proto.Marshal(resp)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(c.Close)
	return c
}

// GRPCCollector is a local OTLP/gRPC receiver on a loopback port; its
// URL (http://127.0.0.1:PORT, plain text) is the endpoint to push to.
type GRPCCollector struct {
	URL string
	store
}

type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	s *store
}

func (t traceService) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	t.s.addTraces(req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type metricsService struct {
	colmetricpb.UnimplementedMetricsServiceServer
	s *store
}

func (m metricsService) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	m.s.addMetrics(req)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// NewGRPCCollector starts a GRPCCollector, stopped when the test ends.
func NewGRPCCollector(t testing.TB) *GRPCCollector {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &GRPCCollector{URL: "http://" + l.Addr().String()}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, traceService{s: &c.store})
	colmetricpb.RegisterMetricsServiceServer(srv, metricsService{s: &c.store})
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return c
}
