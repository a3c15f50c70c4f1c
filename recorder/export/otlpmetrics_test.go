package export

import (
	"bytes"
	"testing"

	metrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

func TestOTLPMetrics(t *testing.T) {
	snap := rampSnapshot()
	snap.Spans[9].ErrorCode = -32603 // one failure a JSON-RPC error, the others tool errors
	snap.Meta.Server = "fanout-demo 1.0"
	var buf bytes.Buffer
	if err := WriteOTLPMetrics(&buf, snap); err != nil {
		t.Fatal(err)
	}
	// The real schema: protojson rejects unknown fields and wrong types.
	var req metrics.ExportMetricsServiceRequest
	if err := protojson.Unmarshal(buf.Bytes(), &req); err != nil {
		t.Fatalf("not OTLP/JSON metrics: %v\n%s", err, buf.String())
	}
	// The same resource as the trace export's and the live push's.
	res := map[string]string{}
	for _, a := range req.GetResourceMetrics()[0].GetResource().GetAttributes() {
		res[a.GetKey()] = a.GetValue().GetStringValue()
	}
	if res["service.name"] != "fanout-inspector" || res["fanout.server"] != "fanout-demo 1.0" {
		t.Errorf("resource %v: want service.name and the server's name", res)
	}
	ms := req.GetResourceMetrics()[0].GetScopeMetrics()[0].GetMetrics()
	if len(ms) != 1 || ms[0].GetName() != "mcp.client.operation.duration" || ms[0].GetUnit() != "s" {
		t.Fatalf("metrics %v, want one mcp.client.operation.duration in seconds", ms)
	}
	h := ms[0].GetHistogram()
	if h.GetAggregationTemporality() != 2 {
		t.Errorf("temporality %v, want cumulative", h.GetAggregationTemporality())
	}
	byErr := map[string]uint64{}
	var total uint64
	for _, p := range h.GetDataPoints() {
		attrs := map[string]string{}
		for _, a := range p.GetAttributes() {
			attrs[a.GetKey()] = a.GetValue().GetStringValue()
		}
		if attrs["mcp.method.name"] != "tools/call" || attrs["gen_ai.tool.name"] != "echo" {
			t.Errorf("data point attributes %v, want tools/call of echo", attrs)
		}
		var inBuckets uint64
		for _, n := range p.GetBucketCounts() {
			inBuckets += n
		}
		if inBuckets != p.GetCount() || len(p.GetBucketCounts()) != len(p.GetExplicitBounds())+1 {
			t.Errorf("%d in buckets (%d of them), count %d: want every value in one of len(bounds)+1 buckets", inBuckets, len(p.GetBucketCounts()), p.GetCount())
		}
		// calls take 5–21 ms: the buckets up to 10 ms and up to 20 ms, and a few up to 50 ms
		if p.GetBucketCounts()[0]+p.GetBucketCounts()[1]+p.GetBucketCounts()[2] != p.GetCount() || p.GetMin() < 0.005 || p.GetMax() > 0.0211 {
			t.Errorf("buckets %v, min %v s, max %v s: want all under 50 ms, from 5 ms", p.GetBucketCounts(), p.GetMin(), p.GetMax())
		}
		byErr[attrs["error.type"]] += p.GetCount()
		total += p.GetCount()
	}
	if total != 180 || byErr[""] != 162 || byErr["error"] != 17 || byErr["-32603"] != 1 {
		t.Errorf("counts %v (total %d), want 162 ok, 17 error, 1 with code -32603 of 180", byErr, total)
	}
}
