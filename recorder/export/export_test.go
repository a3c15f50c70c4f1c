package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	collector "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

func TestExportGolden(t *testing.T) {
	exports := []struct {
		file  string
		write func(io.Writer, *recorder.Snapshot) error
	}{
		{"fixture.trace.json", WriteChromeTrace},
		{"fixture.otlp.json", WriteOTLP},
		{"fixture.csv", WriteCSV},
	}
	for _, e := range exports {
		t.Run(e.file, func(t *testing.T) {
			var buf bytes.Buffer
			if err := e.write(&buf, fixedSnapshot()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, e.file, buf.Bytes())
			// Exporting twice gives the same bytes: IDs and order are
			// deterministic.
			var again bytes.Buffer
			e.write(&again, fixedSnapshot())
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("two exports of the same recording differ")
			}
		})
	}
}

// snapshots are the recordings every export must handle.
func snapshots() map[string]*recorder.Snapshot {
	return map[string]*recorder.Snapshot{
		"fixture": fixedSnapshot(),
		"one":     oneRequestSnapshot(),
		"empty":   emptySnapshot(),
		"load":    loadSnapshot(2000, 7),
		"disordered": {Meta: recorder.Meta{Created: fixedCreated}, Version: 1, Events: []recorder.Event{}, Now: msd(10), Spans: []*recorder.Span{
			{ID: 1, Direction: recorder.Incoming, Method: "ping", Kind: recorder.KindPing, Received: msd(5), Queued: msd(4), Serving: msd(2), Answered: msd(3), Status: recorder.StatusOK},
			{ID: 2, Direction: recorder.Incoming, Method: "ping", Kind: recorder.KindPing, Received: msd(1), Queued: recorder.Unset, Serving: recorder.Unset, Answered: recorder.Unset},
		}},
	}
}

func TestChromeTraceValid(t *testing.T) {
	for name, snap := range snapshots() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteChromeTrace(&buf, snap); err != nil {
				t.Fatal(err)
			}
			var trace struct {
				TraceEvents []map[string]any `json:"traceEvents"`
			}
			if err := json.Unmarshal(buf.Bytes(), &trace); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			depth := map[string]int{} // open async events per cat+id
			type slot struct{ pid, tid float64 }
			var complete = map[slot][][2]float64{}
			spans, counters := 0, 0
			peak := map[string]float64{} // counter name → highest value
			names := map[string]bool{}   // process and thread names
			for i, ev := range trace.TraceEvents {
				for _, k := range []string{"ph", "ts", "pid", "tid"} {
					if _, ok := ev[k]; !ok {
						t.Fatalf("event %d has no %q: %v", i, k, ev)
					}
				}
				ph := ev["ph"].(string)
				key := func() string {
					id, ok := ev["id"].(string)
					if !ok || ev["cat"] == nil {
						t.Fatalf("async event %d has no cat or id: %v", i, ev)
					}
					return ev["cat"].(string) + "/" + id
				}
				switch ph {
				case "b":
					if depth[key()] == 0 {
						spans++
					}
					depth[key()]++
				case "e":
					depth[key()]--
					if depth[key()] < 0 {
						t.Fatalf("event %d ends an async event that is not open: %v", i, ev)
					}
				case "X":
					s := slot{ev["pid"].(float64), ev["tid"].(float64)}
					ts, dur := ev["ts"].(float64), ev["dur"].(float64)
					complete[s] = append(complete[s], [2]float64{ts, ts + dur})
				case "C":
					counters++
					v := ev["args"].(map[string]any)["requests"].(float64)
					peak[ev["name"].(string)] = max(peak[ev["name"].(string)], v)
				case "M":
					if n, ok := ev["args"].(map[string]any)["name"].(string); ok {
						names[n] = true
					}
				case "i":
				default:
					t.Errorf("event %d has unexpected ph %q", i, ph)
				}
			}
			for k, d := range depth {
				if d != 0 {
					t.Errorf("async events %s: %d begun and never ended", k, d)
				}
			}
			for s, iv := range complete {
				for a := range iv {
					for b := a + 1; b < len(iv); b++ {
						if iv[a][0] < iv[b][1] && iv[b][0] < iv[a][1] {
							t.Errorf("complete events overlap on pid %v tid %v", s.pid, s.tid)
						}
					}
				}
			}
			if spans != len(snap.Spans) {
				t.Errorf("%d requests in the trace, want %d", spans, len(snap.Spans))
			}
			if len(snap.Spans) > 0 && counters == 0 {
				t.Error("no counter events for in-flight and pending")
			}
			sum := recorder.Summarize(snap)
			if peak["in flight"] != float64(sum.PeakInFlight) || peak["pending"] != float64(sum.PeakPending) {
				t.Errorf("counters peak at %v, want in flight %d and pending %d", peak, sum.PeakInFlight, sum.PeakPending)
			}
			if name == "fixture" {
				for _, n := range []string{"concurrency", "session s1", "incoming sampling", "outgoing tool", "notifications"} {
					if !names[n] {
						t.Errorf("no track named %q (tracks: %v)", n, names)
					}
				}
			}
		})
	}
}

func TestOTLPSchema(t *testing.T) {
	for name, snap := range snapshots() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteOTLP(&buf, snap); err != nil {
				t.Fatal(err)
			}
			// The real schema: protojson rejects unknown fields and wrong types.
			var req collector.ExportTraceServiceRequest
			if err := protojson.Unmarshal(buf.Bytes(), &req); err != nil {
				t.Fatalf("not a valid ExportTraceServiceRequest: %v", err)
			}
			// OTLP/JSON IDs are hex (protojson alone would read them as
			// base64), so check their form on the raw JSON.
			var raw struct {
				ResourceSpans []struct {
					ScopeSpans []struct {
						Spans []struct {
							TraceID, SpanID, ParentSpanID string
							Kind                          int
							Name                          string
							Attributes                    []struct{ Key string }
						}
					}
				}
			}
			if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
				t.Fatal(err)
			}
			ids := map[string]string{} // span id → trace id
			var all []struct {
				TraceID, SpanID, ParentSpanID string
				Kind                          int
				Name                          string
				Attributes                    []struct{ Key string }
			}
			for _, rs := range raw.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					all = append(all, ss.Spans...)
				}
			}
			if len(all) != len(snap.Spans) {
				t.Fatalf("%d spans exported, want %d", len(all), len(snap.Spans))
			}
			for _, s := range all {
				if !isHex(s.TraceID, 32) || !isHex(s.SpanID, 16) {
					t.Fatalf("span %q: trace id %q / span id %q are not 32 / 16 hex digits", s.Name, s.TraceID, s.SpanID)
				}
				if _, dup := ids[s.SpanID]; dup {
					t.Fatalf("span id %s used twice", s.SpanID)
				}
				ids[s.SpanID] = s.TraceID
				if s.Kind != 2 && s.Kind != 3 {
					t.Errorf("span %q has kind %d, want SERVER (2) or CLIENT (3)", s.Name, s.Kind)
				}
				if !hasAttr(s.Attributes, "mcp.method.name") {
					t.Errorf("span %q has no mcp.method.name", s.Name)
				}
			}
			parents := 0
			for _, s := range all {
				if s.ParentSpanID == "" {
					continue
				}
				parents++
				trace, ok := ids[s.ParentSpanID]
				if !ok {
					t.Errorf("span %q: parent %s is not in the export", s.Name, s.ParentSpanID)
				} else if trace != s.TraceID {
					t.Errorf("span %q is in trace %s, its parent in %s", s.Name, s.TraceID, trace)
				}
			}
			if name == "fixture" && parents != 5 {
				t.Errorf("%d spans have a parent, want the 5 requests of the tool call", parents)
			}
			if name != "fixture" {
				return
			}
			// The semantic conventions, read through the real schema.
			byName := map[string]map[string]string{}
			codes := map[string]int32{}
			for _, sp := range req.ResourceSpans[0].ScopeSpans[0].Spans {
				attrs := map[string]string{}
				for _, kv := range sp.Attributes {
					attrs[kv.Key] = kv.Value.GetStringValue()
				}
				byName[sp.Name] = attrs
				codes[sp.Name] = int32(sp.Status.GetCode())
			}
			if a := byName["tools/call fan_out"]; a["gen_ai.tool.name"] != "fan_out" || a["mcp.session.id"] != "s1" || a["jsonrpc.request.id"] != "3" {
				t.Errorf("tool call attributes %v", a)
			}
			if a := byName["elicitation/create"]; a["error.type"] != "error" || codes["elicitation/create"] != 2 {
				t.Errorf("failed request: attributes %v, status code %d; want error.type and ERROR", a, codes["elicitation/create"])
			}
		})
	}
}

func isHex(s string, n int) bool {
	if len(s) != n || strings.Trim(s, "0") == "" {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

func hasAttr(attrs []struct{ Key string }, key string) bool {
	for _, a := range attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

func TestCSV(t *testing.T) {
	for name, snap := range snapshots() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteCSV(&buf, snap); err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rows[0], ","); got != "id,parent,session,direction,method,kind,status,received_ms,queued_ms,serve_start_ms,end_ms,queue_ms,serve_ms,total_ms,error" {
				t.Errorf("header %q", got)
			}
			if len(rows)-1 != len(snap.Spans) {
				t.Errorf("%d rows, want %d", len(rows)-1, len(snap.Spans))
			}
		})
	}
}

func TestCharts(t *testing.T) {
	for name, snap := range snapshots() {
		for _, c := range Charts {
			t.Run(name+"/"+string(c), func(t *testing.T) {
				var svg bytes.Buffer
				if err := WriteChartSVG(&svg, snap, c, 800, 400); err != nil {
					t.Fatal(err)
				}
				dec := xml.NewDecoder(&svg)
				elements := 0
				for {
					tok, err := dec.Token()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("SVG is not XML: %v", err)
					}
					if _, ok := tok.(xml.StartElement); ok {
						elements++
					}
				}
				if elements < 5 {
					t.Errorf("SVG has %d elements: nothing drawn", elements)
				}
				var pngBuf bytes.Buffer
				if err := WriteChartPNG(&pngBuf, snap, c, 640, 360); err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(&pngBuf)
				if err != nil {
					t.Fatalf("PNG does not decode: %v", err)
				}
				if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 360 {
					t.Errorf("PNG is %v, want 640×360", b)
				}
			})
		}
	}
	t.Run("bad size", func(t *testing.T) {
		if err := WriteChartPNG(io.Discard, fixedSnapshot(), ChartGantt, 0, 0); err == nil {
			t.Error("a 0×0 chart drew without error")
		}
	})
	t.Run("unknown chart", func(t *testing.T) {
		err := WriteChartSVG(io.Discard, fixedSnapshot(), Chart("pie"), 400, 300)
		if err == nil || !strings.Contains(err.Error(), "concurrency, latency or gantt") {
			t.Errorf("err = %v, want one that lists the charts", err)
		}
	})
}

// TestOTLPTimesNeverWrap checks that the OTLP export's times stay
// unsigned and in range whatever the snapshot holds: offsets near
// MaxInt64 (which the loader refuses, but a snapshot built in code may
// have) and a zero or far-off created time. They used to wrap to negative
// nanoseconds, which OTLP readers refuse.
func TestOTLPTimesNeverWrap(t *testing.T) {
	huge := time.Duration(math.MaxInt64 - 1000)
	cases := map[string]*recorder.Snapshot{
		"huge offsets": {Meta: recorder.Meta{Created: fixedCreated}, Spans: []*recorder.Span{
			{ID: 1, Direction: recorder.Incoming, Method: "sampling/createMessage", Received: 0, Queued: huge / 2, Serving: huge - 1, Answered: huge, Status: recorder.StatusOK}}},
		"zero created": {Meta: recorder.Meta{}, Spans: []*recorder.Span{
			{ID: 1, Direction: recorder.Outgoing, Method: "tools/call", Received: 0, Queued: 0, Serving: 0, Answered: time.Second, Status: recorder.StatusOK}}},
		"created in year 9999": {Meta: recorder.Meta{Created: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}, Spans: []*recorder.Span{
			{ID: 1, Direction: recorder.Outgoing, Method: "tools/call", Received: 0, Queued: 0, Serving: 0, Answered: time.Second, Status: recorder.StatusOK}}},
	}
	for name, snap := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteOTLP(&buf, snap); err != nil {
				t.Fatal(err)
			}
			var req collector.ExportTraceServiceRequest
			if err := protojson.Unmarshal(buf.Bytes(), &req); err != nil {
				t.Fatalf("not a valid ExportTraceServiceRequest: %v\n%s", err, buf.String())
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, sp := range ss.Spans {
						times := []uint64{sp.StartTimeUnixNano, sp.EndTimeUnixNano}
						for _, e := range sp.Events {
							times = append(times, e.TimeUnixNano)
						}
						for _, ns := range times {
							if ns > math.MaxInt64 {
								t.Errorf("span %s: time %d overflows int64 nanoseconds", sp.Name, ns)
							}
						}
						if sp.EndTimeUnixNano < sp.StartTimeUnixNano {
							t.Errorf("span %s ends (%d) before it starts (%d)", sp.Name, sp.EndTimeUnixNano, sp.StartTimeUnixNano)
						}
					}
				}
			}
			if strings.Contains(buf.String(), `UnixNano":"-`) {
				t.Errorf("negative nanoseconds in the export:\n%s", buf.String())
			}
		})
	}
}
