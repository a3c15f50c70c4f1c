package wire

import (
	"strconv"

	sjson "github.com/segmentio/encoding/json"
)

// Members calls f with the name (unescaped) and the text of each member
// of obj, a JSON object, in order, and with where the value begins in
// obj; it stops when f returns false. It reports whether obj is a valid
// JSON object (checked first, so f never sees a part of an invalid one).
// The engine and the proxy read every message they see with it:
// segmentio's validator and tokenizer allocate nothing for names and
// values without escapes, where decoding into a struct allocated for
// every member.
func Members(obj []byte, f func(name, value []byte, at int) bool) bool {
	if !sjson.Valid(obj) {
		return false
	}
	var t sjson.Tokenizer
	var name []byte
	start := 0 // where the composite value being read began
	t.Reset(obj)
	if !t.Next() || t.Delim != '{' {
		return false
	}
	for t.Next() {
		// Depth 1 holds the object's names and values, and the brackets
		// that open and close a value; deeper tokens are inside a value.
		if t.Depth != 1 || t.Delim == ':' || t.Delim == ',' {
			continue
		}
		end := len(obj) - t.Remaining() // just past the token
		switch {
		case t.IsKey:
			name = t.String()
			continue
		case t.Delim == '{' || t.Delim == '[':
			start = end - 1
			continue
		}
		at := end - len(t.Value)
		if t.Delim != 0 { // a closing bracket: the composite value ends
			at = start
		}
		if !f(name, obj[at:end], at) {
			break
		}
	}
	return t.Err == nil
}

// scalar is the string or number value is (a number as a float64, as a
// decoder into any gives it), nil for anything else.
func scalar(value []byte) any {
	switch {
	case len(value) == 0:
		return nil
	case value[0] == '"':
		s, _ := String(value)
		return s
	case value[0] == '-' || '0' <= value[0] && value[0] <= '9':
		f, err := strconv.ParseFloat(string(value), 64)
		if err != nil {
			return nil
		}
		return f
	}
	return nil
}

// String is the JSON string value (a member's text, as [Members] gives
// it) unquoted and unescaped; ok is false when value is not a string.
func String(value []byte) (s string, ok bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	var t sjson.Tokenizer
	t.Reset(value)
	if !t.Next() || t.Err != nil {
		return "", false
	}
	return string(t.String()), true
}
