package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
)

// TestTypeScriptTraceContext checks trace context across the wire
// (SEP-414) against the TypeScript SDK's server, over stdio and
// streamable HTTP: the traceparent the server reads from a tools/call's
// _meta is the one the recording's OTLP export gives that call; and when
// the server starts a span of its own under it and sends a sampling
// request carrying that span, the export puts the sampling span in the
// call's trace with the server's span as its parent (and the call as a
// link), so the server's spans and ours form one trace.
func TestTypeScriptTraceContext(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	needTSServer(t)
	targets := tsTargets()
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			target := tg.target(t)
			rec := recorder.New(recorder.Meta{Title: t.Name()})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := engine.Connect(ctx, target, engine.DefaultAnswerPolicy(), rec)
			if err != nil {
				t.Fatalf("connect to %s: %v", target, err)
			}
			defer s.Close()
			for _, tool := range []string{"traceparent", "traced_sampling"} {
				if res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: tool}, nil); err != nil || res.OK != 1 {
					t.Fatalf("run %s: %+v, %v", tool, res, err)
				}
			}
			snap := rec.Snapshot()
			spans := otlpSpans(t, snap)

			// The traceparent tool answers with what its call carried.
			var echoed struct {
				Traceparent string `json:"traceparent"`
			}
			toolStructured(t, snap, "traceparent", &echoed)
			call := spans.named("tools/call traceparent")
			if call == nil {
				t.Fatalf("no OTLP span for the traceparent call in %v", spans.names())
			}
			if want := "00-" + call.TraceID + "-" + call.SpanID + "-01"; echoed.Traceparent != want {
				t.Errorf("the server read traceparent %q from the call's _meta, the export gives the call %q", echoed.Traceparent, want)
			}

			// The server's span sits between our call and our sampling span.
			var traced struct {
				Received     string `json:"received"`
				TraceID      string `json:"trace_id"`
				ServerSpanID string `json:"server_span_id"`
			}
			toolStructured(t, snap, "traced_sampling", &traced)
			call = spans.named("tools/call traced_sampling")
			sampling := spans.named("sampling/createMessage")
			if call == nil || sampling == nil {
				t.Fatalf("want the traced_sampling call and its sampling request in the export, have %v", spans.names())
			}
			if want := "00-" + call.TraceID + "-" + call.SpanID + "-01"; traced.Received != want {
				t.Errorf("traced_sampling received traceparent %q, the export gives the call %q", traced.Received, want)
			}
			if sampling.TraceID != call.TraceID || traced.TraceID != call.TraceID {
				t.Errorf("trace ids: call %s, server span %s, sampling %s; want one trace", call.TraceID, traced.TraceID, sampling.TraceID)
			}
			if sampling.ParentSpanID != traced.ServerSpanID {
				t.Errorf("the sampling span's parent is %q, want the server's span %q", sampling.ParentSpanID, traced.ServerSpanID)
			}
			if len(sampling.Links) != 1 || sampling.Links[0].SpanID != call.SpanID || sampling.Links[0].TraceID != call.TraceID {
				t.Errorf("the sampling span's links %+v, want the call %s", sampling.Links, call.SpanID)
			}
			if call.TraceID == spans.named("tools/call traceparent").TraceID {
				t.Errorf("two tool calls share trace %s: each call is a trace of its own", call.TraceID)
			}
		})
	}
}

// otlpSpan is the part of an exported OTLP span the tests read.
type otlpSpan struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Links        []struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId"`
	} `json:"links"`
}

type otlpSpanList []otlpSpan

// otlpSpans exports snap as OTLP/JSON and reads its spans back.
func otlpSpans(t *testing.T, snap *recorder.Snapshot) otlpSpanList {
	t.Helper()
	var buf bytes.Buffer
	if err := export.WriteOTLP(&buf, snap); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []otlpSpan `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("the OTLP export is not JSON: %v", err)
	}
	var out otlpSpanList
	for _, rs := range doc.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

func (l otlpSpanList) named(name string) *otlpSpan {
	for i := range l {
		if l[i].Name == name {
			return &l[i]
		}
	}
	return nil
}

func (l otlpSpanList) names() []string {
	var out []string
	for _, s := range l {
		out = append(out, s.Name)
	}
	return out
}

// toolStructured decodes the structured content of tool's recorded
// result.
func toolStructured(t *testing.T, snap *recorder.Snapshot, tool string, v any) {
	t.Helper()
	for _, s := range snap.Spans {
		if s.Method == "tools/call" && s.Kind == recorder.KindTool && s.Name == tool {
			if err := structured(s.Result, v); err != nil {
				t.Fatalf("the %s call's result: %v\n%s", tool, err, s.Result)
			}
			return
		}
	}
	t.Fatalf("no %s call recorded", tool)
}
