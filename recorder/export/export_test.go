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
		{"rounds.csv", WriteCSV},
		{"rounds.trace.json", WriteChromeTrace},
		{"rounds.otlp.json", WriteOTLP},
	}
	for _, e := range exports {
		t.Run(e.file, func(t *testing.T) {
			var buf bytes.Buffer
			snap := fixedSnapshot
			if strings.HasPrefix(e.file, "rounds.") {
				snap = roundsSnapshot
			}
			if err := e.write(&buf, snap()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, e.file, buf.Bytes())
			// Exporting twice gives the same bytes: IDs and order are
			// deterministic.
			var again bytes.Buffer
			e.write(&again, snap())
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
					// A request's own b carries its span id; its phases
					// (and a call's rounds, on the call's id) nest in it.
					if args, ok := ev["args"].(map[string]any); ok && args["span"] != nil {
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
			if got := strings.Join(rows[0], ","); got != "id,parent,session,direction,method,kind,status,received_ms,queued_ms,serve_start_ms,end_ms,queue_ms,serve_ms,total_ms,error,request_id,call,round,input_key,outcome,stalled_ms,fulfilment_ms,input_tokens,output_tokens" {
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
		if err == nil || !strings.Contains(err.Error(), "concurrency, latency, gantt, throughput or latency-time") {
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

// traceSlice is one async slice of a Chrome trace, rebuilt from its b
// and e events: its name, its key (cat/id), its args and its parent (the
// slice open on the same key when it began).
type traceSlice struct {
	name, key  string
	begin, end float64
	args       map[string]any
	parent     *traceSlice
}

// traceSlices parses a Chrome trace and rebuilds its async slices,
// failing on an e that does not close the innermost open slice of its
// key (what viewers need to nest them).
func traceSlices(t *testing.T, trace []byte) []*traceSlice {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Cat  string         `json:"cat"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			ID   string         `json:"id"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(trace, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var all []*traceSlice
	open := map[string][]*traceSlice{}
	for _, ev := range doc.TraceEvents {
		key := ev.Cat + "/" + ev.ID
		switch ev.Ph {
		case "b":
			s := &traceSlice{name: ev.Name, key: key, begin: ev.Ts, args: ev.Args}
			if st := open[key]; len(st) > 0 {
				s.parent = st[len(st)-1]
			}
			open[key] = append(open[key], s)
			all = append(all, s)
		case "e":
			st := open[key]
			if len(st) == 0 || st[len(st)-1].name != ev.Name {
				t.Fatalf("e %q on %s at %v does not close the innermost open slice", ev.Name, key, ev.Ts)
			}
			st[len(st)-1].end = ev.Ts
			open[key] = st[:len(st)-1]
		}
	}
	return all
}

// TestChromeTraceNestsRounds pins the shape of a multi-round-trip call in
// the Chrome trace: the rounds nest under the call, the client's
// fulfilment between two rounds is a slice of its own, each input request
// names its round and lies within that round's fulfilment, and the time a
// request was withheld from the client is a "stalled" slice.
func TestChromeTraceNestsRounds(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteChromeTrace(&buf, roundsSnapshot()); err != nil {
		t.Fatal(err)
	}
	slices := traceSlices(t, buf.Bytes())
	find := func(name string, cond func(*traceSlice) bool) *traceSlice {
		for _, s := range slices {
			if s.name == name && (cond == nil || cond(s)) {
				return s
			}
		}
		t.Fatalf("no slice %q", name)
		return nil
	}
	call := find("tools/call fanout", nil)
	if call.parent != nil {
		t.Errorf("the call is nested in %q", call.parent.name)
	}
	var under []string // the call's children in order
	for _, s := range slices {
		if s.parent == call {
			under = append(under, s.name)
		}
	}
	want := []string{"round 1", "fulfilment", "round 2", "fulfilment", "round 3"}
	if strings.Join(under, ", ") != strings.Join(want, ", ") {
		t.Errorf("under the call: %v, want %v", under, want)
	}
	fulfil := map[float64]*traceSlice{} // round → its fulfilment
	for _, s := range slices {
		if s.name == "fulfilment" {
			fulfil[s.args["round"].(float64)] = s
		}
	}
	for round, wantMS := range map[float64]float64{1: 905, 2: 305} {
		f := fulfil[round]
		if f == nil {
			t.Fatalf("no fulfilment after round %v", round)
		}
		if got := f.args["fulfilment_ms"]; got != wantMS || f.end-f.begin != wantMS*1000 {
			t.Errorf("round %v: fulfilment_ms %v over %v µs, want %v ms", round, got, f.end-f.begin, wantMS)
		}
	}
	round1 := find("round 1", nil)
	if round1.args["request_id"] != "2" || round1.args["outcome"] != "input_required" || round1.args["input_requests"] != 3.0 {
		t.Errorf("round 1 args %v: want request_id 2, outcome input_required, 3 input requests", round1.args)
	}
	if r2 := find("round 2", nil); r2.args["request_id"] != "3" {
		t.Errorf("round 2 has request_id %v, want its own id 3", r2.args["request_id"])
	}
	inputs := 0
	for _, s := range slices {
		if s.name != "sampling/createMessage" {
			continue
		}
		inputs++
		round := s.args["round"].(float64)
		wantParent := map[float64]float64{1: 2, 2: 6}[round]
		if s.args["parent"] != wantParent || s.args["input_key"] == nil {
			t.Errorf("input request %v: parent %v, input_key %v; want parent %v (its round) and a key", s.args["span"], s.args["parent"], s.args["input_key"], wantParent)
		}
		if f := fulfil[round]; s.begin < f.begin || s.end > f.end {
			t.Errorf("input request %v of round %v runs %v–%v µs, outside its fulfilment %v–%v", s.args["span"], round, s.begin, s.end, f.begin, f.end)
		}
	}
	if inputs != 5 {
		t.Errorf("%d input requests in the trace, want 5", inputs)
	}
	stalled := find("stalled", nil)
	if stalled.parent == nil || stalled.parent.args["span"] != 4.0 || stalled.args["stalled_ms"] != 120.0 || stalled.end-stalled.begin != 120000 {
		t.Errorf("stalled slice %+v: want 120 ms under span 4", stalled)
	}
	queued := find("queued", func(s *traceSlice) bool { return s.parent == stalled.parent })
	if queued.begin != stalled.end {
		t.Errorf("span 4 queued from %v µs, want from the end of its stall (%v)", queued.begin, stalled.end)
	}
}

// TestOTLPNestsRounds pins a multi-round-trip call in OTLP: one trace,
// call → round → input request by parent links; each round carries its
// own jsonrpc.request.id and the logical call none; no mcp.session.id on
// a 2026-07-28 session; the fulfilment time as span events of the call
// and an attribute of the round; the span name {mcp.method.name} {target}.
func TestOTLPNestsRounds(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteOTLP(&buf, roundsSnapshot()); err != nil {
		t.Fatal(err)
	}
	var req collector.ExportTraceServiceRequest
	if err := protojson.Unmarshal(buf.Bytes(), &req); err != nil {
		t.Fatalf("not a valid ExportTraceServiceRequest: %v", err)
	}
	type otlpSpan struct {
		name, parent, trace string
		attrs               map[string]any
		events              map[string][]map[string]any
	}
	byID := map[string]*otlpSpan{}
	bySpan := map[int64]*otlpSpan{} // fanout.span_id → span
	for _, sp := range req.ResourceSpans[0].ScopeSpans[0].Spans {
		s := &otlpSpan{name: sp.Name, parent: string(sp.ParentSpanId), trace: string(sp.TraceId), attrs: map[string]any{}, events: map[string][]map[string]any{}}
		for _, kv := range sp.Attributes {
			switch {
			case kv.Value.GetStringValue() != "":
				s.attrs[kv.Key] = kv.Value.GetStringValue()
			case kv.Value.GetDoubleValue() != 0:
				s.attrs[kv.Key] = kv.Value.GetDoubleValue()
			default:
				s.attrs[kv.Key] = kv.Value.GetIntValue()
			}
		}
		for _, ev := range sp.Events {
			a := map[string]any{}
			for _, kv := range ev.Attributes {
				a[kv.Key] = kv.Value.GetDoubleValue() + float64(kv.Value.GetIntValue())
			}
			s.events[ev.Name] = append(s.events[ev.Name], a)
		}
		byID[string(sp.SpanId)] = s
		bySpan[s.attrs["fanout.span_id"].(int64)] = s
	}
	parentOf := func(id int64) int64 {
		p, ok := byID[bySpan[id].parent]
		if !ok {
			return 0
		}
		return p.attrs["fanout.span_id"].(int64)
	}
	for child, parent := range map[int64]int64{1: 0, 2: 1, 6: 1, 9: 1, 3: 2, 4: 2, 5: 2, 7: 6, 8: 6} {
		if got := parentOf(child); got != parent {
			t.Errorf("span %d has parent %d, want %d", child, got, parent)
		}
		if bySpan[child].trace != bySpan[1].trace {
			t.Errorf("span %d is not in the call's trace", child)
		}
	}
	call := bySpan[1]
	if call.name != "tools/call fanout" || call.attrs["mcp.method.name"] != "tools/call" || call.attrs["mcp.protocol.version"] != "2026-07-28" {
		t.Errorf("call: name %q, attributes %v", call.name, call.attrs)
	}
	if _, ok := call.attrs["jsonrpc.request.id"]; ok {
		t.Errorf("the logical call carries jsonrpc.request.id %v: it is several requests", call.attrs["jsonrpc.request.id"])
	}
	for id, s := range bySpan {
		if _, ok := s.attrs["mcp.session.id"]; ok {
			t.Errorf("span %d carries mcp.session.id on a 2026-07-28 session", id)
		}
	}
	for id, want := range map[int64]string{2: "2", 6: "3", 9: "4"} {
		r := bySpan[id]
		if r.name != "tools/call fanout" || r.attrs["jsonrpc.request.id"] != want || r.attrs["gen_ai.tool.name"] != "fanout" {
			t.Errorf("round span %d: name %q, attributes %v; want its own request id %s", id, r.name, r.attrs, want)
		}
	}
	if bySpan[2].attrs["fanout.fulfilment_ms"] != 905.0 || bySpan[6].attrs["fanout.fulfilment_ms"] != 305.0 || bySpan[2].attrs["fanout.outcome"] != "input_required" {
		t.Errorf("round attributes %v / %v: want fulfilment 905 and 305 ms", bySpan[2].attrs, bySpan[6].attrs)
	}
	if f := call.events["fulfilment"]; len(f) != 2 || f[0]["fanout.fulfilment_ms"] != 905.0 || f[1]["fanout.fulfilment_ms"] != 305.0 {
		t.Errorf("the call's fulfilment events: %v", f)
	}
	if in := bySpan[4]; in.attrs["fanout.input_key"] != "r1-1" || in.attrs["fanout.stalled_ms"] != 120.0 || len(in.events["stalled"]) != 1 {
		t.Errorf("input request 4: attributes %v, events %v", in.attrs, in.events)
	}
}

// TestCSVRounds pins the columns that place a span in its call: every
// span of a multi-round-trip call names the call, its round, and a round
// its fulfilment time.
func TestCSVRounds(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, roundsSnapshot()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	want := map[string][5]string{ // id → request_id, call, round, input_key, fulfilment_ms
		"1": {"2", "1", "", "", ""},
		"2": {"2", "1", "1", "", "905.000"},
		"4": {"", "1", "1", "r1-1", ""},
		"6": {"3", "1", "2", "", "305.000"},
		"8": {"", "1", "2", "r2-1", ""},
		"9": {"4", "1", "3", "", ""},
	}
	for _, r := range rows[1:] {
		w, ok := want[r[col["id"]]]
		if !ok {
			continue
		}
		got := [5]string{r[col["request_id"]], r[col["call"]], r[col["round"]], r[col["input_key"]], r[col["fulfilment_ms"]]}
		if got != w {
			t.Errorf("span %s: request_id, call, round, input_key, fulfilment_ms = %q, want %q", r[col["id"]], got, w)
		}
	}
	if r := rows[4]; r[col["stalled_ms"]] != "120.000" {
		t.Errorf("span 4 stalled_ms %q, want 120.000", r[col["stalled_ms"]])
	}
}
