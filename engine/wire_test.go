package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInjectMeta checks that the tap's key lands in _meta without losing
// anything the server sent, whatever shape the params have.
func TestInjectMeta(t *testing.T) {
	tests := []struct {
		name, params string
		keep         map[string]string // top-level field -> JSON it must keep
	}{
		{"absent", ``, nil},
		{"null", `null`, nil},
		{"empty object", `{}`, nil},
		{"spaced empty", ` { } `, nil},
		{"fields", `{"maxTokens":5,"messages":[]}`, map[string]string{"maxTokens": `5`, "messages": `[]`}},
		{"existing meta", `{"_meta":{"progressToken":"t1"},"x":1}`, map[string]string{"x": `1`}},
		{"meta mentioned in a string only", `{"note":"\"_meta\" is reserved"}`, map[string]string{"note": `"\"_meta\" is reserved"`}},
		{"escaped meta key", `{"\u005fmeta":{"progressToken":"t1"}}`, nil},
		{"meta twice", `{"_meta":{"a":1},"y":[{"_meta":{}}],"_meta":{"progressToken":"t1"}}`, map[string]string{"y": `[{"_meta":{}}]`}},
		{"nested meta only", `{"y":{"_meta":{"progressToken":"t2"}}}`, map[string]string{"y": `{"_meta":{"progressToken":"t2"}}`}},
		{"null meta", `{"_meta":null,"x":1}`, map[string]string{"x": `1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := injectMeta(json.RawMessage(tt.params), `7`)
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(out, &obj); err != nil {
				t.Fatalf("injectMeta(%s) = %s, not a JSON object: %v", tt.params, out, err)
			}
			var meta map[string]any
			json.Unmarshal(obj["_meta"], &meta)
			if meta[wireKey] != "7" {
				t.Errorf("injectMeta(%s) = %s, no wire key", tt.params, out)
			}
			if strings.Contains(tt.params, `"progressToken":"t1"`) && meta["progressToken"] != "t1" {
				t.Errorf("lost the server's progress token: %s", out)
			}
			for k, v := range tt.keep {
				if string(obj[k]) != v {
					t.Errorf("field %s = %s, want %s", k, obj[k], v)
				}
			}
		})
	}
	t.Run("not an object", func(t *testing.T) {
		if out := injectMeta(json.RawMessage(`[1,2]`), "7"); string(out) != `[1,2]` {
			t.Errorf("array params changed to %s", out)
		}
	})
}

// FuzzInjectMeta checks that whatever object params a server sends, the
// tap's key is added and every field the server sent is kept as it was.
func FuzzInjectMeta(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a":1}`, ` {"_meta":{"x":[1,2]},"b":"c"} `, `{"_meta":null}`, `{"m":"_meta"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, params string) {
		var in map[string]json.RawMessage
		if json.Unmarshal([]byte(params), &in) != nil || in == nil {
			return
		}
		out := injectMeta(json.RawMessage(params), "42")
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("injectMeta(%s) = %s: %v", params, out, err)
		}
		for k, v := range in {
			if k == "_meta" {
				continue
			}
			if !jsonEqual(v, got[k]) {
				t.Fatalf("field %q changed from %s to %s", k, v, got[k])
			}
		}
		var meta map[string]json.RawMessage
		if json.Unmarshal(got["_meta"], &meta) != nil || string(meta[wireKey]) != `"42"` {
			if string(in["_meta"]) != "null" && len(in["_meta"]) > 0 && in["_meta"][0] != '{' {
				return // a _meta that is not an object is left for the SDK to reject
			}
			t.Fatalf("injectMeta(%s) = %s: no wire key", params, out)
		}
	})
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ab, _ := json.Marshal(x)
	bb, _ := json.Marshal(y)
	return string(ab) == string(bb)
}
