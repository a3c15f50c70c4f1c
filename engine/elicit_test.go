package engine

import (
	"encoding/json"
	"net/mail"
	"net/url"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestElicitationContent checks that the auto-accept content validates
// against the requested schema, uses defaults first, fills every
// required field, and picks values of the right format.
func TestElicitationContent(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   map[string]any // fields whose exact value is known
	}{
		{"empty", `{"type":"object"}`, map[string]any{}},
		{"defaults first (SEP-1034)", `{"type":"object","properties":{
			"name":{"type":"string","default":"Ada"},
			"age":{"type":"integer","minimum":18,"default":42},
			"ok":{"type":"boolean","default":false},
			"color":{"type":"string","enum":["red","green"],"default":"green"}}}`,
			map[string]any{"name": "Ada", "age": float64(42), "ok": false, "color": "green"}},
		{"plain enum", `{"type":"object","properties":{"size":{"type":"string","enum":["s","m","l"]}},"required":["size"]}`,
			map[string]any{"size": "s"}},
		{"legacy enumNames", `{"type":"object","properties":{"size":{"type":"string","enum":["s","m"],"enumNames":["Small","Medium"]}}}`,
			map[string]any{"size": "s"}},
		{"titled enum oneOf", `{"type":"object","properties":{"plan":{"type":"string","oneOf":[{"const":"pro","title":"Pro"},{"const":"free","title":"Free"}]}}}`,
			map[string]any{"plan": "pro"}},
		{"multi-select enum", `{"type":"object","properties":{"tags":{"type":"array","minItems":2,"items":{"type":"string","enum":["a","b","c"]}}}}`,
			map[string]any{"tags": []any{"a", "b"}}},
		{"multi-select titled anyOf", `{"type":"object","properties":{"tags":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"},{"const":"y","title":"Y"}]}}}}`,
			map[string]any{"tags": []any{"x"}}},
		{"number bounds", `{"type":"object","properties":{
			"n":{"type":"number","minimum":2.5,"maximum":9},
			"neg":{"type":"integer","maximum":-3},
			"ex":{"type":"integer","exclusiveMinimum":0},
			"free":{"type":"number"}},"required":["n","neg","ex","free"]}`,
			map[string]any{"n": 2.5, "neg": int64(-3), "ex": int64(1), "free": 0.0}},
		{"string lengths", `{"type":"object","properties":{
			"long":{"type":"string","minLength":20},
			"short":{"type":"string","maxLength":3}},"required":["long","short"]}`, nil},
		{"formats", `{"type":"object","properties":{
			"email":{"type":"string","format":"email"},
			"site":{"type":"string","format":"uri"},
			"day":{"type":"string","format":"date"},
			"at":{"type":"string","format":"date-time"}},"required":["email","site","day","at"]}`, nil},
		{"pattern", `{"type":"object","properties":{
			"code":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{3}$"},
			"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["code","zip"]}`,
			map[string]any{"code": "ABC-123", "zip": "00000"}},
		{"boolean", `{"type":"object","properties":{"agree":{"type":"boolean"}},"required":["agree"]}`,
			map[string]any{"agree": true}},
		{"required but undescribed", `{"type":"object","required":["x"]}`, map[string]any{"x": "example"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ElicitationContent(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("ElicitationContent: %v", err)
			}
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
				t.Fatal(err)
			}
			resolved, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			// Validate what the server will receive: the JSON round trip.
			b, _ := json.Marshal(got)
			var onWire map[string]any
			json.Unmarshal(b, &onWire)
			if err := resolved.Validate(onWire); err != nil {
				t.Errorf("content %s does not validate: %v", b, err)
			}
			for _, r := range s.Required {
				if _, ok := got[r]; !ok {
					t.Errorf("required field %q missing from %s", r, b)
				}
			}
			for k, v := range tt.want {
				gb, _ := json.Marshal(got[k])
				wb, _ := json.Marshal(v)
				if string(gb) != string(wb) {
					t.Errorf("field %q = %s, want %s", k, gb, wb)
				}
			}
			for name, p := range s.Properties {
				str, ok := got[name].(string)
				if !ok {
					continue
				}
				var bad bool
				switch p.Format {
				case "email":
					_, err := mail.ParseAddress(str)
					bad = err != nil
				case "uri":
					u, err := url.Parse(str)
					bad = err != nil || u.Scheme == ""
				case "date":
					_, err := time.Parse(time.DateOnly, str)
					bad = err != nil
				case "date-time":
					_, err := time.Parse(time.RFC3339, str)
					bad = err != nil
				}
				if bad {
					t.Errorf("field %q = %q is not a valid %s", name, str, p.Format)
				}
			}
		})
	}
}

// TestElicitationContentErrors checks schemas that cannot be satisfied
// get a clear error.
func TestElicitationContentErrors(t *testing.T) {
	tests := []struct{ name, schema string }{
		{"not JSON", `{"type":`},
		{"not an object", `{"type":"string"}`},
		{"empty range", `{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":4}}}`},
		{"too few choices", `{"type":"object","properties":{"t":{"type":"array","minItems":3,"items":{"type":"string","enum":["a"]}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, err := ElicitationContent(json.RawMessage(tt.schema)); err == nil {
				t.Errorf("ElicitationContent(%s) = %v, want an error", tt.schema, c)
			}
		})
	}
}
