package wire

import (
	"encoding/json"
	"testing"
)

// TestReadParams checks what the wire model reads from params of the
// shapes servers and clients send.
func TestReadParams(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	tests := []struct {
		name, params string
		want         Params
	}{
		{"empty", ``, Params{}},
		{"not an object", `[1]`, Params{}},
		{"tool call", `{"name":"echo","arguments":{"name":"inner"},"_meta":{"progressToken":7}}`, Params{Name: "echo", Token: "7"}},
		{"string token", `{"_meta":{"progressToken":"t-1"}}`, Params{Token: "t-1"}},
		{"token at the top", `{"progressToken":"n","progress":1}`, Params{Token: "n"}},
		{"meta token first", `{"progressToken":"top","_meta":{"progressToken":"meta"}}`, Params{Token: "meta"}},
		{"float token", `{"_meta":{"progressToken":1.5e3}}`, Params{Token: "1500"}},
		{"nested meta ignored", `{"messages":[{"_meta":{"progressToken":"inner"}}],"x":{"_meta":{"progressToken":"x"}}}`, Params{}},
		{"trace", `{"_meta":{"traceparent":"` + tp + `"}}`, Params{Trace: [16]byte{0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80, 0x31, 0x9c}, HasTrace: true}},
		{"bad trace", `{"_meta":{"traceparent":"nope"}}`, Params{}},
		{"retry", `{"name":"t","requestState":"s1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, Params{Name: "t", RequestState: "s1", Protocol: "2026-07-28"}},
		{"escaped", `{"name":"\u00e9cho"}`, Params{Name: "écho"}},
		{"last of two", `{"name":"a","name":"b"}`, Params{Name: "b"}},
		{"deep meta object", `{"_meta":{"x":{"progressToken":"deep"},"progressToken":"p"}}`, Params{Token: "p"}},
		{"malformed", `{"name":"echo",`, Params{}}, // not JSON: nothing read, as a decoder reads nothing
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadParams(json.RawMessage(tt.params)); got != tt.want {
				t.Errorf("ReadParams(%s) = %+v, want %+v", tt.params, got, tt.want)
			}
		})
	}
}

// FuzzReadParams checks the one-pass reader against decoding the params
// into a struct with encoding/json, for params that decode.
func FuzzReadParams(f *testing.F) {
	for _, seed := range []string{`{"name":"echo","_meta":{"progressToken":7}}`, `{"progressToken":"a"}`,
		`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},"requestState":"s"}`,
		`{"a":[{"name":"x"}],"_meta":null}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var p struct {
			Name          *string `json:"name"`
			RequestState  *string `json:"requestState"`
			ProgressToken any     `json:"progressToken"`
			Meta          *struct {
				ProgressToken any     `json:"progressToken"`
				Traceparent   any     `json:"traceparent"`
				Protocol      *string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		}
		if json.Unmarshal([]byte(raw), &p) != nil || len(raw) == 0 || raw[0] != '{' || caseFolds(raw) {
			return
		}
		got := ReadParams(json.RawMessage(raw))
		want := ""
		if p.Name != nil {
			want = *p.Name
		}
		if got.Name != want {
			t.Fatalf("ReadParams(%s).Name = %q, want %q", raw, got.Name, want)
		}
		tok := p.ProgressToken
		if p.Meta != nil && p.Meta.ProgressToken != nil {
			tok = p.Meta.ProgressToken
		}
		if got.Token != TokenString(tok) {
			t.Fatalf("ReadParams(%s).Token = %q, want %q", raw, got.Token, TokenString(tok))
		}
	})
}

// caseFolds reports whether raw may name a member in another case than
// ours, which encoding/json would match and the SDK's decoder would not.
func caseFolds(raw string) bool {
	for _, c := range raw {
		if c >= 'A' && c <= 'Z' || c == '\\' || c > 127 {
			return true
		}
	}
	return false
}
