package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// ElicitationContent builds the content with which the inspector accepts
// an elicitation asking for schema: for each property its default value
// if the schema gives one (SEP-1034), else a value valid for its type,
// enum (plain, titled with oneOf/anyOf, or an array of them), format
// (email, uri, date, date-time) and bounds (minimum/maximum,
// minLength/maxLength, minItems/maxItems), and for a string pattern the
// first of a few common shapes of answer that matches. Every property is
// filled, so every required one is present. An empty schema gives empty
// content.
func ElicitationContent(schema json.RawMessage) (map[string]any, error) {
	content := map[string]any{}
	if len(schema) == 0 || string(schema) == "null" {
		return content, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("elicitation schema is not a JSON Schema object: %v", err)
	}
	if t := typeOf(&s); t != "" && t != "object" {
		return nil, fmt.Errorf("elicitation schema must describe an object, not %q", t)
	}
	names := mapKeys(s.Properties)
	slices.Sort(names)
	for _, name := range names {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		v, err := valueFor(p)
		if err != nil {
			return nil, fmt.Errorf("elicitation field %q: %v", name, err)
		}
		content[name] = v
	}
	for _, name := range s.Required {
		if _, ok := content[name]; !ok {
			// Required without a description: a string is the most a
			// person could have typed.
			content[name] = "example"
		}
	}
	return content, nil
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// typeOf is the schema's single non-null type, or "".
func typeOf(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// valueFor picks one valid value for a property.
func valueFor(p *jsonschema.Schema) (any, error) {
	if len(p.Default) > 0 {
		var v any
		if err := json.Unmarshal(p.Default, &v); err != nil {
			return nil, fmt.Errorf("default %s is not JSON: %v", p.Default, err)
		}
		return v, nil
	}
	if p.Const != nil {
		return *p.Const, nil
	}
	if len(p.Enum) > 0 {
		return p.Enum[0], nil
	}
	if c, ok := firstConst(p.OneOf); ok {
		return c, nil
	}
	if c, ok := firstConst(p.AnyOf); ok {
		return c, nil
	}
	switch typeOf(p) {
	case "array":
		return arrayFor(p)
	case "boolean":
		return true, nil
	case "integer":
		return numberFor(p, true)
	case "number":
		return numberFor(p, false)
	case "object":
		return map[string]any{}, nil
	case "null":
		return nil, nil
	}
	return stringFor(p), nil
}

// firstConst returns the const of the first titled-enum entry.
func firstConst(entries []*jsonschema.Schema) (any, bool) {
	for _, e := range entries {
		if e != nil && e.Const != nil {
			return *e.Const, true
		}
	}
	return nil, false
}

// arrayFor picks the items of a multi-select: as many distinct choices
// as minItems asks for (at least one when there are choices), no more
// than maxItems.
func arrayFor(p *jsonschema.Schema) (any, error) {
	var choices []any
	if it := p.Items; it != nil {
		switch {
		case len(it.Enum) > 0:
			choices = it.Enum
		case len(it.AnyOf) > 0 || len(it.OneOf) > 0:
			for _, e := range append(slices.Clone(it.AnyOf), it.OneOf...) {
				if e != nil && e.Const != nil {
					choices = append(choices, *e.Const)
				}
			}
		}
	}
	want := 1
	if p.MinItems != nil {
		want = *p.MinItems
	}
	if p.MaxItems != nil {
		want = min(want, *p.MaxItems)
	}
	if len(choices) == 0 {
		if want == 0 || p.Items == nil {
			return []any{}, nil
		}
		out := make([]any, 0, want)
		for range want {
			v, err := valueFor(p.Items)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	if want > len(choices) {
		return nil, fmt.Errorf("asks for at least %d choices but offers %d", want, len(choices))
	}
	return slices.Clone(choices[:want]), nil
}

// numberFor picks a number within the bounds: 0 when allowed, otherwise
// the bound nearest to it.
func numberFor(p *jsonschema.Schema, integer bool) (any, error) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if p.Minimum != nil {
		lo = *p.Minimum
	}
	if p.Maximum != nil {
		hi = *p.Maximum
	}
	step := 1e-6
	if integer {
		step = 1
	}
	if p.ExclusiveMinimum != nil {
		lo = max(lo, *p.ExclusiveMinimum+step)
	}
	if p.ExclusiveMaximum != nil {
		hi = min(hi, *p.ExclusiveMaximum-step)
	}
	if integer {
		lo, hi = math.Ceil(lo), math.Floor(hi)
	}
	if lo > hi {
		return nil, fmt.Errorf("no %s lies between its minimum and maximum", typeOf(p))
	}
	v := math.Max(lo, math.Min(0, hi))
	if p.MultipleOf != nil && *p.MultipleOf > 0 {
		m := *p.MultipleOf
		v = math.Ceil(v/m) * m
		if v > hi {
			return nil, fmt.Errorf("no multiple of %g lies between its minimum and maximum", m)
		}
	}
	if integer {
		return int64(v), nil
	}
	return v, nil
}

// stringFor picks a string of the property's format and length.
func stringFor(p *jsonschema.Schema) string {
	var s string
	switch p.Format {
	case "email":
		s = "user@example.com"
	case "uri":
		s = "https://example.com/"
	case "date":
		s = "2025-01-01"
	case "date-time":
		s = "2025-01-01T00:00:00Z"
	default:
		s = "example"
	}
	if p.MinLength != nil && len(s) < *p.MinLength {
		pad := *p.MinLength - len(s)
		switch p.Format {
		case "email":
			s = strings.Repeat("u", pad) + s
		case "uri":
			s += strings.Repeat("x", pad)
		default:
			s += strings.Repeat("x", pad)
		}
	}
	if p.MaxLength != nil && len(s) > *p.MaxLength && p.Format == "" {
		s = s[:*p.MaxLength]
	}
	if p.Pattern != "" {
		if re, err := regexp.Compile(p.Pattern); err == nil && !re.MatchString(s) {
			// Not part of the elicitation schema subset, but some servers
			// ask for it: try a few common shapes of answer.
			for _, c := range patternCandidates {
				if re.MatchString(c) && fitsLength(p, c) {
					return c
				}
			}
		}
	}
	return s
}

// patternCandidates are answers tried, in order, against a pattern.
var patternCandidates = []string{
	"example", "Example", "EXAMPLE", "a", "A", "0", "1", "42", "a1", "A1", "abc123", "ABC-123",
	"user@example.com", "https://example.com/", "2025-01-01", "2025-01-01T00:00:00Z", "12:00",
	"+15555550100", "555-0100", "00000", "12345", "#ffffff", "x",
}

func fitsLength(p *jsonschema.Schema, s string) bool {
	n := utf8.RuneCountInString(s)
	return (p.MinLength == nil || n >= *p.MinLength) && (p.MaxLength == nil || n <= *p.MaxLength)
}
