package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestOTLPServerTraceparent checks how the OTLP export reads the
// traceparent of server requests: one naming a span of the server in the
// trace of our call gets that span as its parent and our call as a link;
// one without a parent of ours still joins the trace it names; one of a
// trace not ours, or malformed, leaves the span as it was. The Chrome
// trace shows the valid ones in the span's args.
func TestOTLPServerTraceparent(t *testing.T) {
	meta := recorder.Meta{Created: fixedCreated}
	ids := recorder.TraceIDsOf(meta)
	const serverSpan = "5c7c466397d422a8"
	ours := ids.TraceHex(1)
	tp := func(trace string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"maxTokens":10,"_meta":{"traceparent":"00-%s-%s-01"}}`, trace, serverSpan))
	}
	sampling := func(id, parent recorder.SpanID, params json.RawMessage) *recorder.Span {
		at := msd(float64(id))
		return &recorder.Span{ID: id, Parent: parent, Session: "s1", Direction: recorder.Incoming, Method: "sampling/createMessage",
			Kind: recorder.KindSampling, Received: at, Queued: at, Serving: at, Answered: at + msd(1), Status: recorder.StatusOK, Params: params}
	}
	snap := &recorder.Snapshot{Meta: meta, Spans: []*recorder.Span{
		{ID: 1, Session: "s1", Direction: recorder.Outgoing, Method: "tools/call", Kind: recorder.KindTool, Name: "t",
			Received: 0, Queued: 0, Serving: 0, Answered: msd(100), Status: recorder.StatusOK},
		sampling(2, 1, tp(ours)),
		sampling(3, 1, tp("0af7651916cd43dd8448eb211c80319c")),
		sampling(4, 1, tp(strings.ToUpper(ours))),
		sampling(5, 0, tp(ours)),
	}}
	var buf bytes.Buffer
	if err := WriteOTLP(&buf, snap); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []struct {
					TraceID      string `json:"traceId"`
					SpanID       string `json:"spanId"`
					ParentSpanID string `json:"parentSpanId"`
					Links        []struct {
						TraceID string `json:"traceId"`
						SpanID  string `json:"spanId"`
					} `json:"links"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.Bytes())
	}
	got := doc.ResourceSpans[0].ScopeSpans[0].Spans
	if len(got) != 5 {
		t.Fatalf("%d spans, want 5", len(got))
	}
	call := ids.SpanHex(1)
	for _, tc := range []struct {
		i             int
		trace, parent string
		link          string
	}{
		{1, ours, serverSpan, call}, // the server's span between our call and its request
		{2, ours, call, ""},         // a trace not ours: ignored
		{3, ours, call, ""},         // malformed (uppercase): ignored
		{4, ours, serverSpan, ""},   // no parent of ours: joins the trace it names
		{0, ours, "", ""},           // the call itself is a root
	} {
		s := got[tc.i]
		link := ""
		if len(s.Links) == 1 && s.Links[0].TraceID == ours {
			link = s.Links[0].SpanID
		}
		if s.TraceID != tc.trace || s.ParentSpanID != tc.parent || link != tc.link || len(s.Links) > 1 {
			t.Errorf("span %d: trace %s parent %q links %+v; want trace %s parent %q link %q", tc.i+1, s.TraceID, s.ParentSpanID, s.Links, tc.trace, tc.parent, tc.link)
		}
	}

	buf.Reset()
	if err := WriteChromeTrace(&buf, snap); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"server_traceparent":"00-`); n != 3 {
		t.Errorf("%d spans show the server's traceparent in the Chrome trace, want the 3 valid ones", n)
	}
}
