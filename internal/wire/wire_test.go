package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

func TestKey(t *testing.T) {
	for raw, want := range map[string]string{`7`: "7", `-3`: "-3", `1.5`: "1.5", `"a"`: `"a"`, `"a\"b"`: `"a\"b"`,
		`"\u0041"`: `"A"`, `null`: "", ``: "", ` 12 `: "12"} {
		if got := Key(json.RawMessage(raw)); got != want {
			t.Errorf("Key(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestLink: a request is linked by its token, then by its trace, then by
// the stream it came on, then as the only call in flight; otherwise it
// says why not.
func TestLink(t *testing.T) {
	r := NewCalls()
	a := &Call{Span: 1, Token: "ta", Trace: [16]byte{1}, HasTrace: true}
	b := &Call{Span: 2, Token: "tb", Trace: [16]byte{2}, HasTrace: true}
	r.Add(a)
	if got, why := r.Link(Clue{}); got != 1 || why != "" {
		t.Errorf("the only call: %d %q", got, why)
	}
	r.Add(b)
	cases := []struct {
		q    Clue
		want recorder.SpanID
		why  string
	}{
		{Clue{Token: "tb"}, 2, ""},
		{Clue{Trace: [16]byte{1}, HasTrace: true}, 1, ""},
		{Clue{Stream: 2}, 2, ""},
		{Clue{}, 0, "2 tool calls were in flight and the request carried no progress token"},
		{Clue{Token: "zz", Standalone: true}, 0, `progress token "zz" names none of them; it arrived on the session's standalone event stream`},
	}
	for _, c := range cases {
		got, why := r.Link(c.q)
		if got != c.want || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("Link(%+v) = %d %q, want %d %q", c.q, got, why, c.want, c.why)
		}
	}
	r.Remove(a)
	r.Remove(b)
	if got, why := r.Link(Clue{Token: "ta"}); got != 0 || !strings.Contains(why, "none was") {
		t.Errorf("no call in flight: %d %q", got, why)
	}
}

// TestPendingDuplicates: a duplicate's refusal is told from the first
// request's answer, and a second answer from an unknown id.
func TestPendingDuplicates(t *testing.T) {
	p := NewPending[int]()
	p.Open(`"d"`, 1)
	if first, dup := p.Open(`"d"`, 2); !dup || first != 1 {
		t.Fatalf("second open: %d %v", first, dup)
	}
	if _, how := p.Answer(`"d"`, true); how != RefusesDuplicate {
		t.Errorf("the refusal paired as %v", how)
	}
	if v, how := p.Answer(`"d"`, false); how != Answers || v != 1 {
		t.Errorf("the answer paired as %v with %d", how, v)
	}
	if _, how := p.Answer(`"d"`, false); how != AnswersAgain {
		t.Errorf("a second answer paired as %v", how)
	}
	if _, how := p.Answer(`"x"`, false); how != AnswersNothing {
		t.Errorf("an unknown id paired as %v", how)
	}
}

func TestReadShape(t *testing.T) {
	s := ReadShape(json.RawMessage(`{"resultType":"input_required","requestState":"s1","inputRequests":{"b":{"method":"elicitation/create"},"a":{"method":"sampling/createMessage"}}}`))
	if !s.InputRequired() || s.RequestState != "s1" || strings.Join(s.Keys, ",") != "b,a" || strings.Join(s.Methods, ",") != "elicitation/create,sampling/createMessage" {
		t.Errorf("shape %+v", s)
	}
	e := ReadShape(json.RawMessage(`{"isError":true,"content":[{"type":"text","text":"boom"}]}`))
	if !e.IsError || e.ErrorText() != "boom" {
		t.Errorf("error shape %+v", e)
	}
}

func TestToken(t *testing.T) {
	tests := []struct{ params, want string }{
		{`{"_meta":{"progressToken":"abc"}}`, "abc"},
		{`{"_meta":{"progressToken":12}}`, "12"},
		{`{"progressToken":"top","progress":1}`, "top"},
		{`{"x":1}`, ""},
		{`{"_meta":{"progressToken":`, ""},
	}
	for _, tt := range tests {
		if got := Token(json.RawMessage(tt.params)); got != tt.want {
			t.Errorf("Token(%s) = %q, want %q", tt.params, got, tt.want)
		}
	}
}

// TestReadShapeKeepsOrder: the keys of inputRequests come out in the
// order the server wrote them, escaped or not.
func TestReadShapeKeepsOrder(t *testing.T) {
	raw := json.RawMessage(`{"resultType":"input\u005frequired","requestState":"x","inputRequests":{"zeta":{"method":"roots/list"},"alpha":{"method":"elicitation/create","params":{"message":"{\"k\":1}"}},"mid":{}}}`)
	shape := ReadShape(raw)
	if !shape.InputRequired() || strings.Join(shape.Keys, ",") != "zeta,alpha,mid" {
		t.Errorf("shape %+v, want input_required with keys zeta, alpha, mid", shape)
	}
}
