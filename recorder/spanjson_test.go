package recorder

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"
)

// TestSpanJSONFields: the format-order copy of Span has every field of
// Span, with the same type and tag, so that a field added to one and not
// the other fails here rather than vanish from recordings.
func TestSpanJSONFields(t *testing.T) {
	type field struct {
		typ reflect.Type
		tag reflect.StructTag
	}
	fields := func(t reflect.Type) map[string]field {
		out := map[string]field{}
		for f := range t.Fields() {
			out[f.Name] = field{f.Type, f.Tag}
		}
		return out
	}
	span, format := fields(reflect.TypeFor[Span]()), fields(reflect.TypeFor[spanJSON]())
	if !reflect.DeepEqual(span, format) {
		t.Errorf("Span and spanJSON differ:\nSpan     %v\nspanJSON %v", span, format)
	}
	if size := unsafe.Sizeof(Span{}); size > 256 {
		t.Errorf("a Span takes %d bytes, want at most 256 (one size class): order its fields by size", size)
	}
}

// TestSpanJSONOrder: a span's JSON has its fields in the format's order,
// byte for byte what the format-order struct gives, whether the encoder
// escapes <, > and & (json.Marshal) or not (recordings, journals).
func TestSpanJSONOrder(t *testing.T) {
	s := Span{ID: 3, Parent: 1, Session: "s<1>", Direction: Outgoing, Method: "tools/call", Kind: KindRound,
		RequestID: "7", Name: "a&b", Round: 2, InputKey: "k", Outcome: OutcomeInputRequired, InputRequests: 4,
		Stalled: 5, Duplicate: true, Unlinked: "why", Intended: 6, Received: 7, Queued: 8, Serving: 9, Answered: 10,
		Status: StatusError, Error: "bad <thing>\u2028", ErrorCode: -32603, InputTokens: 11, OutputTokens: 12,
		Params: json.RawMessage(`{"x":"<y>"}`), Result: json.RawMessage(`[1, 2]`)}
	j := spanJSON{ID: 3, Parent: 1, Session: "s<1>", Direction: Outgoing, Method: "tools/call", Kind: KindRound,
		RequestID: "7", Name: "a&b", Round: 2, InputKey: "k", Outcome: OutcomeInputRequired, InputRequests: 4,
		Stalled: 5, Duplicate: true, Unlinked: "why", Intended: 6, Received: 7, Queued: 8, Serving: 9, Answered: 10,
		Status: StatusError, Error: "bad <thing>\u2028", ErrorCode: -32603, InputTokens: 11, OutputTokens: 12,
		Params: json.RawMessage(`{"x":"<y>"}`), Result: json.RawMessage(`[1, 2]`)}
	for _, html := range []bool{true, false} {
		encode := func(v any) string {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		if got, want := encode(&s), encode(&j); got != want {
			t.Errorf("escape HTML %v:\n got %s\nwant %s", html, got, want)
		}
	}
	s.Params, s.Result = json.RawMessage(`{"x":1}`), json.RawMessage(`[1,2]`) // as compacted
	var back Span
	if err := json.Unmarshal([]byte(must(json.Marshal(s))), &back); err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("round trip: %v\n got %+v\nwant %+v", err, back, s)
	}
}

func must(b []byte, err error) string {
	if err != nil {
		panic(err)
	}
	return string(b)
}
