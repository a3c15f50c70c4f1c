package export

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// OperationDurationBounds are the bucket bounds, in seconds, of the
// mcp.client.operation.duration histogram: those the OpenTelemetry MCP
// conventions advise for it.
var OperationDurationBounds = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// WriteOTLPMetrics writes snap's client operations as OTLP/JSON metrics
// (an ExportMetricsServiceRequest) for any OTLP/HTTP JSON receiver:
// the histogram mcp.client.operation.duration of the OpenTelemetry MCP
// conventions, in seconds, with one cumulative data point per
// mcp.method.name, gen_ai.tool.name (tool calls) and error.type (failed
// requests: the status, or the JSON-RPC code). A request's duration is
// the one every statistic uses ([recorder.CallDuration]); a multi-round-
// trip call counts once, its rounds not apart. The points run from the
// first request sent to the last answered, as wall-clock times
// (Meta.Created plus the offsets).
func WriteOTLPMetrics(w io.Writer, snap *recorder.Snapshot) error {
	if snap == nil {
		snap = &recorder.Snapshot{}
	}
	type pointKey struct{ method, tool, errType string }
	type point struct {
		count    uint64
		sum      float64
		min, max float64
		buckets  []uint64
	}
	points := map[pointKey]*point{}
	first, last := time.Duration(math.MaxInt64), time.Duration(0)
	for _, s := range snap.Spans {
		if s.Direction != recorder.Outgoing || s.Kind == recorder.KindRound || s.Open() {
			continue
		}
		d, ok := recorder.CallDuration(s)
		if !ok {
			continue
		}
		first, last = min(first, s.Received), max(last, s.Answered)
		k := pointKey{method: s.Method}
		if s.Kind == recorder.KindTool {
			k.tool = s.Name
		}
		if s.Status != recorder.StatusOK {
			k.errType = s.Status.String()
			if s.ErrorCode != 0 {
				k.errType = strconv.FormatInt(s.ErrorCode, 10)
			}
		}
		p := points[k]
		if p == nil {
			p = &point{min: math.Inf(1), buckets: make([]uint64, len(OperationDurationBounds)+1)}
			points[k] = p
		}
		sec := d.Seconds()
		p.count++
		p.sum += sec
		p.min, p.max = math.Min(p.min, sec), math.Max(p.max, sec)
		// a bucket holds the values up to its bound, the last those above
		p.buckets[bucketOf(OperationDurationBounds, sec)]++
	}
	keys := make([]pointKey, 0, len(points))
	for k := range points {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pointKey) int {
		return strings.Compare(a.method+"\x00"+a.tool+"\x00"+a.errType, b.method+"\x00"+b.tool+"\x00"+b.errType)
	})

	resource := otlpResource(snap.Meta)
	nanos := func(b []byte, d time.Duration) []byte {
		b = append(b, '"')
		b = strconv.AppendUint(b, otlpNanos(snap.Meta.Created, d), 10)
		return append(b, '"')
	}
	b := []byte(`{"resourceMetrics":[{"resource":{"attributes":`)
	b = appendOTLPAttrs(b, resource)
	b = append(b, `},"scopeMetrics":[{"scope":{"name":"github.com/fanout-inspector/inspector/recorder"`...)
	if snap.Meta.Inspector != "" {
		b = append(b, `,"version":`...)
		b = appendJSONString(b, snap.Meta.Inspector)
	}
	b = append(b, `},"metrics":[`...)
	if len(keys) > 0 {
		b = append(b, "\n"+`{"name":"mcp.client.operation.duration","unit":"s",`+
			`"description":"The duration of the MCP requests the client sent, from sending to the answer.",`+
			`"histogram":{"aggregationTemporality":2,"dataPoints":[`...)
		for i, k := range keys {
			p := points[k]
			if i > 0 {
				b = append(b, ',')
			}
			attrs := []otlpAttr{otlpString("mcp.method.name", k.method)}
			if k.tool != "" {
				attrs = append(attrs, otlpString("gen_ai.tool.name", k.tool))
			}
			if k.errType != "" {
				attrs = append(attrs, otlpString("error.type", k.errType))
			}
			b = append(b, "\n"+`{"attributes":`...)
			b = appendOTLPAttrs(b, attrs)
			b = append(b, `,"startTimeUnixNano":`...)
			b = nanos(b, first)
			b = append(b, `,"timeUnixNano":`...)
			b = nanos(b, last)
			b = append(b, `,"count":"`...)
			b = strconv.AppendUint(b, p.count, 10)
			b = append(b, `","sum":`...)
			b = appendJSONFloat(b, p.sum)
			b = append(b, `,"bucketCounts":[`...)
			for j, n := range p.buckets {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, '"')
				b = strconv.AppendUint(b, n, 10)
				b = append(b, '"')
			}
			b = append(b, `],"explicitBounds":[`...)
			for j, v := range OperationDurationBounds {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendJSONFloat(b, v)
			}
			b = append(b, `],"min":`...)
			b = appendJSONFloat(b, p.min)
			b = append(b, `,"max":`...)
			b = appendJSONFloat(b, p.max)
			b = append(b, '}')
		}
		b = append(b, "]}}"...)
	}
	b = append(b, "\n]}]}]}\n"...)
	bw := bufio.NewWriter(w)
	bw.Write(b)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write otlp metrics: %w", err)
	}
	return nil
}

// bucketOf is the index of the first bound at or above v, len(bounds) when
// v is above them all.
func bucketOf(bounds []float64, v float64) int {
	i, _ := slices.BinarySearch(bounds, v)
	return i
}
