package otlppush_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
	"github.com/fanout-inspector/inspector/recorder/otlppush"
	"github.com/fanout-inspector/inspector/recorder/otlppush/otlptest"
)

// fanoutRecording plays a fan-out into rec as the engine would: initialize,
// the "connected" event, a tool call whose server sends n sampling
// requests (the last one failing), a progress notification on the call.
// It returns the call's span ID.
func fanoutRecording(rec *recorder.Recording, n int) recorder.SpanID {
	out := func(method, name, id string) recorder.SpanID {
		now := rec.Now()
		return rec.Begin(recorder.Span{Session: "s1", Direction: recorder.Outgoing, Method: method, Kind: recorder.KindOf(method),
			Name: name, RequestID: id, Received: now, Queued: now, Serving: now, Answered: recorder.Unset})
	}
	init := out("initialize", "", "1")
	time.Sleep(time.Millisecond)
	rec.End(init, rec.Now(), recorder.Outcome{Status: recorder.StatusOK})
	rec.SetMeta(func(m *recorder.Meta) {
		m.Target, m.Server, m.Protocol = "demo", "fanout-demo 1.0", "2025-11-25"
	})
	rec.AddEvent(recorder.Event{At: rec.Now(), Session: "s1", Kind: recorder.EventConnection, Text: "connected"})

	call := out("tools/call", "fanout", "2")
	var kids []recorder.SpanID
	for i := range n {
		now := rec.Now()
		kids = append(kids, rec.Begin(recorder.Span{Parent: call, Session: "s1", Direction: recorder.Incoming,
			Method: "sampling/createMessage", Kind: recorder.KindSampling, RequestID: fmt.Sprint(i),
			Received: now, Queued: now, Serving: now, Answered: recorder.Unset}))
	}
	rec.AddEvent(recorder.Event{At: rec.Now(), Session: "s1", Kind: recorder.EventProgress, Method: "notifications/progress", Span: call, Text: "1/5"})
	time.Sleep(2 * time.Millisecond)
	for i, id := range kids {
		o := recorder.Outcome{Status: recorder.StatusOK}
		if i == len(kids)-1 {
			o = recorder.Outcome{Status: recorder.StatusError, Error: "declined", Code: -32600}
		}
		rec.End(id, rec.Now(), o)
	}
	rec.End(call, rec.Now(), recorder.Outcome{Status: recorder.StatusOK})
	return call
}

func startPush(t *testing.T, rec *recorder.Recording, endpoint string, o otlppush.Options) *otlppush.Push {
	t.Helper()
	o.Endpoint = endpoint
	p, err := otlppush.Start(rec, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// hexIDs matches the IDs of OTLP/JSON, which are hex where protobuf's
// JSON mapping of bytes wants base64.
var hexIDs = regexp.MustCompile(`"(traceId|spanId|parentSpanId)":"([0-9a-f]+)"`)

func hexIDsToBase64(b []byte) []byte {
	return hexIDs.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := hexIDs.FindSubmatch(m)
		raw, _ := hex.DecodeString(string(sub[2]))
		return []byte(`"` + string(sub[1]) + `":"` + base64.StdEncoding.EncodeToString(raw) + `"`)
	})
}

// flat renders a span's fields that must match the file export.
func flat(s *tracepb.Span) string {
	var b strings.Builder
	fmt.Fprintf(&b, "trace=%x span=%x parent=%x name=%q kind=%d start=%d end=%d status=%d/%q\n",
		s.TraceId, s.SpanId, s.ParentSpanId, s.Name, s.Kind, s.StartTimeUnixNano, s.EndTimeUnixNano,
		s.GetStatus().GetCode(), s.GetStatus().GetMessage())
	b.WriteString("  attrs " + flatAttrs(s.Attributes) + "\n")
	for _, e := range s.Events {
		fmt.Fprintf(&b, "  event %q at %d %s\n", e.Name, e.TimeUnixNano, flatAttrs(e.Attributes))
	}
	return b.String()
}

func flatAttrs(kvs []*commonpb.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		v := kv.Value
		switch v.Value.(type) {
		case *commonpb.AnyValue_IntValue:
			parts = append(parts, fmt.Sprintf("%s=%d", kv.Key, v.GetIntValue()))
		case *commonpb.AnyValue_DoubleValue:
			parts = append(parts, fmt.Sprintf("%s=%g", kv.Key, v.GetDoubleValue()))
		default:
			parts = append(parts, fmt.Sprintf("%s=%q", kv.Key, v.GetStringValue()))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func sortedFlat(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, flat(s))
	}
	slices.Sort(out)
	return out
}

// TestPushMatchesFileExport: what reaches the collector is span for span
// what `--otlp FILE` writes: the same IDs, parent links, names, times,
// attributes, events and status.
func TestPushMatchesFileExport(t *testing.T) {
	for _, protocol := range []string{otlppush.ProtocolHTTP, otlppush.ProtocolGRPC} {
		t.Run(protocol, func(t *testing.T) {
			var url string
			var received func() ([]*tracepb.Span, []*metricpb.Metric, map[string]string)
			if protocol == otlppush.ProtocolGRPC {
				c := otlptest.NewGRPCCollector(t)
				url, received = c.URL, c.Received
			} else {
				c := otlptest.NewCollector(t)
				url, received = c.URL, c.Received
			}
			rec := recorder.New(recorder.Meta{Title: "fanout on demo", Inspector: "test"})
			p := startPush(t, rec, url, otlppush.Options{Protocol: protocol})
			call := fanoutRecording(rec, 5)
			st := p.Close(context.Background())
			if st.Spans != 7 || st.Pushed != 7 || st.Dropped != 0 || st.Warning() != "" {
				t.Fatalf("stats %+v, warning %q: want 7 spans, all pushed", st, st.Warning())
			}
			got, metrics, res := received()
			checkMatchesFileExport(t, rec, call, got, res)
			if len(metrics) == 0 {
				t.Errorf("no metrics reached the collector")
			}
		})
	}
}

// checkMatchesFileExport compares what the collector got with the OTLP
// file export of rec, span for span, and checks the fan-out's tree.
func checkMatchesFileExport(t *testing.T, rec *recorder.Recording, call recorder.SpanID, got []*tracepb.Span, res map[string]string) {
	t.Helper()
	var file bytes.Buffer
	if err := export.WriteOTLP(&file, rec.Snapshot()); err != nil {
		t.Fatal(err)
	}
	var want tracepb.TracesData
	if err := protojson.Unmarshal(hexIDsToBase64(file.Bytes()), &want); err != nil {
		t.Fatalf("the file export does not parse: %v", err)
	}
	var wantSpans []*tracepb.Span
	wantRes := map[string]string{}
	for _, rs := range want.ResourceSpans {
		for _, kv := range rs.Resource.Attributes {
			wantRes[kv.Key] = kv.Value.GetStringValue()
		}
		for _, ss := range rs.ScopeSpans {
			wantSpans = append(wantSpans, ss.Spans...)
		}
	}
	if g, w := sortedFlat(got), sortedFlat(wantSpans); !slices.Equal(g, w) {
		t.Errorf("pushed spans differ from the file export:\npushed:\n%s\nfile:\n%s", strings.Join(g, ""), strings.Join(w, ""))
	}
	for k, v := range wantRes {
		if res[k] != v {
			t.Errorf("resource %s = %q, want %q (as in the file export)", k, res[k], v)
		}
	}
	if !strings.HasPrefix(res["fanout.server"], "fanout-demo 1.0") {
		t.Errorf("resource fanout.server = %q: the push must wait for the server's name", res["fanout.server"])
	}

	// the tree: the call's children under it, in the call's trace
	snap := rec.Snapshot()
	kids := 0
	for _, s := range snap.Spans {
		if s.Parent == call {
			kids++
		}
	}
	ids := recorder.TraceIDsOf(snap.Meta)
	callSpan, callTrace := ids.SpanHex(call), ids.TraceHex(call)
	children := 0
	for _, s := range got {
		if hex.EncodeToString(s.ParentSpanId) == callSpan {
			children++
			if hex.EncodeToString(s.TraceId) != callTrace {
				t.Errorf("child %s in trace %x, want the call's %s", s.Name, s.TraceId, callTrace)
			}
		}
	}
	if children != kids || kids == 0 {
		t.Errorf("%d spans under the tool call, want %d (and some)", children, kids)
	}
}

// TestPushMetric: the collector gets mcp.client.operation.duration, a
// histogram in seconds with a data point per method (and tool).
func TestPushMetric(t *testing.T) {
	c := otlptest.NewCollector(t)
	rec := recorder.New(recorder.Meta{})
	p := startPush(t, rec, c.URL+"/", otlppush.Options{}) // a trailing slash is fine
	call := fanoutRecording(rec, 3)
	if st := p.Close(context.Background()); st.MetricExportsFailed != 0 {
		t.Fatalf("stats %+v", st)
	}
	_, metrics, _ := c.Received()
	var found bool
	for _, m := range metrics {
		if m.Name != "mcp.client.operation.duration" {
			continue
		}
		found = true
		if m.Unit != "s" || m.GetHistogram() == nil {
			t.Fatalf("unit %q, histogram %v: want a histogram in s", m.Unit, m.GetHistogram() != nil)
		}
		byMethod := map[string]float64{}
		for _, dp := range m.GetHistogram().DataPoints {
			attrs := flatAttrs(dp.Attributes)
			if dp.GetCount() != 1 {
				t.Errorf("%s: count %d, want 1", attrs, dp.GetCount())
			}
			byMethod[attrs] = dp.GetSum()
			if !slices.Equal(dp.ExplicitBounds, export.OperationDurationBounds) {
				t.Errorf("bounds %v, want the conventions' %v", dp.ExplicitBounds, export.OperationDurationBounds)
			}
		}
		cs := rec.Span(call)
		wantCall := (cs.Answered - cs.Received).Seconds()
		key := `gen_ai.tool.name="fanout" mcp.method.name="tools/call"`
		if got, ok := byMethod[key]; !ok || math.Abs(got-wantCall) > 1e-6 {
			t.Errorf("points %v: want %s with sum %g s", byMethod, key, wantCall)
		}
		if _, ok := byMethod[`mcp.method.name="initialize"`]; !ok {
			t.Errorf("points %v: want one for initialize", byMethod)
		}
	}
	if !found {
		t.Fatalf("no mcp.client.operation.duration among %d metrics", len(metrics))
	}
}

// TestPushRemoteParent: a server request whose _meta.traceparent names a
// span of the call's trace (the server's own span) hangs under it; one
// naming another trace keeps its recorded parent.
func TestPushRemoteParent(t *testing.T) {
	c := otlptest.NewCollector(t)
	rec := recorder.New(recorder.Meta{})
	p := startPush(t, rec, c.URL, otlppush.Options{})
	ids := recorder.TraceIDsOf(rec.Snapshot().Meta)
	now := rec.Now()
	call := rec.Begin(recorder.Span{Direction: recorder.Outgoing, Method: "tools/call", Kind: recorder.KindTool, Name: "t",
		Received: now, Queued: now, Serving: now, Answered: recorder.Unset})
	serverSpan := "00f067aa0ba902b7"
	params := func(trace string) []byte {
		return []byte(`{"_meta":{"traceparent":"00-` + trace + `-` + serverSpan + `-01"},"messages":[]}`)
	}
	in := func(params []byte) recorder.SpanID {
		return rec.Begin(recorder.Span{Parent: call, Direction: recorder.Incoming, Method: "sampling/createMessage",
			Kind: recorder.KindSampling, Params: params, Received: now, Queued: now, Serving: now, Answered: recorder.Unset})
	}
	ours := in(params(ids.TraceHex(call)))
	theirs := in(params("4bf92f3577b34da6a3ce929d0e0e4736"))
	for _, id := range []recorder.SpanID{ours, theirs, call} {
		rec.End(id, rec.Now(), recorder.Outcome{Status: recorder.StatusOK})
	}
	p.Close(context.Background())
	got, _, _ := c.Received()
	parents := map[string]string{}
	links := map[string][]string{}
	for _, s := range got {
		parents[hex.EncodeToString(s.SpanId)] = hex.EncodeToString(s.ParentSpanId)
		for _, l := range s.Links {
			links[hex.EncodeToString(s.SpanId)] = append(links[hex.EncodeToString(s.SpanId)], hex.EncodeToString(l.SpanId))
		}
	}
	if g := parents[ids.SpanHex(ours)]; g != serverSpan {
		t.Errorf("request with our trace's traceparent: parent %q, want the server's span %s", g, serverSpan)
	}
	// As the file export does: the call it was recorded under is linked.
	if g := links[ids.SpanHex(ours)]; len(g) != 1 || g[0] != ids.SpanHex(call) {
		t.Errorf("request with our trace's traceparent: links %v, want the call %s", g, ids.SpanHex(call))
	}
	if g := links[ids.SpanHex(theirs)]; len(g) != 0 {
		t.Errorf("request with a foreign traceparent: links %v, want none", g)
	}
	if g := parents[ids.SpanHex(theirs)]; g != ids.SpanHex(call) {
		t.Errorf("request with a foreign traceparent: parent %q, want the call %s", g, ids.SpanHex(call))
	}
}

// TestCollectorDown: with nothing listening, the run's spans are counted
// dropped, Close returns at once, and the warning says so.
func TestCollectorDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // a port nobody listens on
	rec := recorder.New(recorder.Meta{})
	p := startPush(t, rec, "http://"+addr, otlppush.Options{FlushTimeout: 2 * time.Second})
	fanoutRecording(rec, 5)
	start := time.Now()
	st := p.Close(context.Background())
	took := time.Since(start)
	if took > 2*time.Second+time.Second {
		t.Errorf("Close took %v with the collector down, want at most the flush timeout (2s)", took)
	}
	if st.Spans != 7 || st.Pushed != 0 || st.Dropped != 7 {
		t.Errorf("stats %+v: want 7 spans, all dropped", st)
	}
	w := st.Warning()
	for _, want := range []string{"7 of 7 spans were not delivered", addr, "recording itself is complete"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}

// TestSlowCollectorNeverBlocks: a collector that never answers does not
// slow the recording: ending spans never waits, the queue overflows into
// the dropped count, and Close gives up after its flush timeout.
func TestSlowCollectorNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	rec := recorder.New(recorder.Meta{})
	p := startPush(t, rec, slow.URL, otlppush.Options{FlushTimeout: time.Second, QueueSize: 64})
	const n = 20000
	start := time.Now()
	for range n {
		now := rec.Now()
		id := rec.Begin(recorder.Span{Direction: recorder.Outgoing, Method: "ping", Kind: recorder.KindPing,
			Received: now, Queued: now, Serving: now, Answered: recorder.Unset})
		rec.End(id, rec.Now(), recorder.Outcome{Status: recorder.StatusOK})
	}
	recording := time.Since(start)
	closeStart := time.Now()
	st := p.Close(context.Background())
	if took := time.Since(closeStart); took > 3*time.Second {
		t.Errorf("Close took %v against a collector that never answers, want about the 1s flush timeout", took)
	}
	if st.Spans != n || st.Pushed != 0 || st.Dropped != n {
		t.Errorf("stats %+v: want %d spans, all dropped", st, n)
	}
	if got := len(rec.Snapshot().Spans); got != n {
		t.Errorf("the recording has %d spans, want all %d", got, n)
	}
	// 20,000 spans take milliseconds to record; a push that waited for
	// the collector would take the exporter's 10 s timeout at least.
	if recording > 5*time.Second {
		t.Errorf("recording %d spans took %v with a stuck collector", n, recording)
	}
}

// TestHeadersSentNotLeaked: OTEL_EXPORTER_OTLP_HEADERS reach the
// collector, and never the warning, even when the collector echoes them.
func TestHeadersSentNotLeaked(t *testing.T) {
	const token = "Bearer s3cr3t-otlp-token"
	var mu sync.Mutex // the trace and metric exporters call at once
	var got string
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		mu.Lock()
		got = auth
		mu.Unlock()
		http.Error(w, "refused "+auth, http.StatusForbidden)
	}))
	defer echo.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20s3cr3t-otlp-token")
	rec := recorder.New(recorder.Meta{})
	p := startPush(t, rec, echo.URL, otlppush.Options{})
	fanoutRecording(rec, 1)
	st := p.Close(context.Background())
	mu.Lock()
	defer mu.Unlock()
	if got != token {
		t.Errorf("the collector got Authorization %q, want %q", got, token)
	}
	if st.Dropped != 3 || !strings.Contains(st.Warning(), "403") {
		t.Errorf("stats %+v: want 3 dropped and the 403 in the warning", st)
	}
	if strings.Contains(st.Warning(), "s3cr3t") {
		t.Errorf("the warning leaks the header: %s", st.Warning())
	}
}

// TestCheck: bad endpoints and protocols are refused with what to do.
func TestCheck(t *testing.T) {
	for _, tc := range []struct{ endpoint, protocol, env, want string }{
		{"127.0.0.1:4318", "", "", "want http://HOST:PORT"},
		{"ftp://x:1", "", "", "want http://HOST:PORT"},
		{"http://127.0.0.1:4318?x=1", "", "", "no query"},
		{"http://127.0.0.1:4318", "", "http/json", "http/json is not supported"},
		{"http://127.0.0.1:4318", "thrift", "", `protocol "thrift": want http/protobuf`},
		{"http://127.0.0.1:4317", "", "grpc", ""},
		{"http://127.0.0.1:4317", "grpc", "http/json", ""}, // the option wins
		{"http://127.0.0.1:4318", "", "", ""},
	} {
		t.Run(tc.endpoint+tc.protocol+tc.env, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", tc.env)
			err := otlppush.Check(tc.endpoint, tc.protocol)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Check: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Check: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestEndpointPasswordNotLeaked: a password in the endpoint URL is in
// neither the stats nor the warning.
func TestEndpointPasswordNotLeaked(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	rec := recorder.New(recorder.Meta{})
	p := startPush(t, rec, "http://user:pw-s3cr3t-42@"+addr, otlppush.Options{})
	fanoutRecording(rec, 1)
	st := p.Close(context.Background())
	if st.Dropped != 3 || strings.Contains(st.Warning(), "pw-s3cr3t") || strings.Contains(st.Endpoint, "pw-s3cr3t") ||
		!strings.Contains(st.Endpoint, recorder.Redacted) {
		t.Errorf("stats %+v, warning %q: want 3 dropped and the password redacted", st, st.Warning())
	}
}

// TestPushMatchesFileExportEngine: runs made by the engine on the demo
// server — a fan-out of 2025-11-25 and a multi-round-trip fan-out of
// 2026-07-28, whose rounds the push holds back until their call ends —
// reach the collector exactly as the file export writes them.
func TestPushMatchesFileExportEngine(t *testing.T) {
	for _, tc := range []struct{ protocol, args string }{
		{"", `{"n":4}`},
		{"latest", `{"n":3,"rounds":2}`},
	} {
		t.Run("protocol "+tc.protocol, func(t *testing.T) {
			c := otlptest.NewCollector(t)
			rec := recorder.New(recorder.Meta{Title: "engine run"})
			p := startPush(t, rec, c.URL, otlppush.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cb := engine.DefaultAnswerPolicy()
			s, err := engine.Connect(ctx, engine.Target{Protocol: tc.protocol}, cb, rec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "fanout", Args: []byte(tc.args), Calls: 1, Concurrency: 1}, nil); err != nil {
				t.Fatal(err)
			}
			s.Close()
			st := p.Close(context.Background())
			snap := rec.Snapshot()
			if st.Dropped != 0 || st.Pushed != int64(len(snap.Spans)) {
				t.Fatalf("stats %+v for %d spans", st, len(snap.Spans))
			}
			var call recorder.SpanID
			for _, s := range snap.Spans {
				if s.Kind == recorder.KindTool {
					call = s.ID
				}
			}
			got, _, res := c.Received()
			checkMatchesFileExport(t, rec, call, got, res)
		})
	}
}
