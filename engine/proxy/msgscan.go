package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	sjson "github.com/segmentio/encoding/json"
)

// parseMessage reads raw, one JSON-RPC message, into m as json.Unmarshal
// would, error and all. json.Unmarshal into a struct was the largest cost
// of recording a message, so the usual shapes are read with a tokenizer
// that allocates nothing, after a validity check (both from
// segmentio/encoding, which the SDK decodes with): a JSON object whose
// member names are plain ASCII, each of the fields at most once, its
// method a plain string. Anything else (an error member, an escaped or
// non-ASCII name or method, a name that matches a field only ignoring
// case, a repeated field, invalid JSON) is left to json.Unmarshal.
func parseMessage(raw []byte, m *message) error {
	if scanMessage(raw, m) {
		return nil
	}
	*m = message{}
	return json.Unmarshal(raw, m)
}

// The fields of message, as bits.
const (
	fieldID = 1 << iota
	fieldMethod
	fieldParams
	fieldResult
)

// scanMessage reads raw into m and reports whether it could; when not,
// m holds what it read so far.
func scanMessage(raw []byte, m *message) bool {
	obj := bytes.Trim(raw, " \t\r\n") // JSON's white space only
	if len(obj) == 0 || obj[0] != '{' || !sjson.Valid(obj) {
		return false
	}
	var (
		t     sjson.Tokenizer
		seen  int
		field int // the member whose value comes next (0: not a field)
		start int // where the composite value being read began
	)
	t.Reset(obj)
	for t.Next() {
		// Depth 1 holds the object's names and values, and the brackets
		// that open and close a value; deeper tokens are inside a value.
		if t.Depth != 1 || t.Delim == ':' || t.Delim == ',' {
			continue
		}
		end := len(obj) - t.Remaining() // just past the token
		switch {
		case t.IsKey:
			name := t.Value[1 : len(t.Value)-1]
			switch string(name) {
			case "id":
				field = fieldID
			case "method":
				field = fieldMethod
			case "params":
				field = fieldParams
			case "result":
				field = fieldResult
			default:
				if !plainName(name) {
					return false
				}
				field = 0
			}
			if seen&field != 0 {
				return false
			}
			seen |= field
			continue
		case t.Delim == '{' || t.Delim == '[':
			start = end - 1
			continue
		}
		value := obj[end-len(t.Value) : end]
		if t.Delim != 0 { // a closing bracket: the composite value ends
			value = obj[start:end]
		}
		switch field {
		case fieldID:
			m.ID = bytes.Clone(value)
		case fieldParams:
			m.Params = bytes.Clone(value)
		case fieldResult:
			m.Result = bytes.Clone(value)
		case fieldMethod:
			switch {
			case string(value) == "null":
			case value[0] != '"' || bytes.IndexByte(value, '\\') >= 0 || !utf8.Valid(value):
				return false
			default:
				m.Method = string(value[1 : len(value)-1])
			}
		}
	}
	return t.Err == nil
}

// plainName says whether a member name other than a field's is one
// json.Unmarshal would surely ignore: ASCII, unescaped, and none of the
// fields' names in another case ("ID", "Method"), nor "error".
func plainName(name []byte) bool {
	for _, c := range name {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	for _, f := range []string{"id", "method", "params", "result", "error"} {
		if strings.EqualFold(string(name), f) {
			return false
		}
	}
	return true
}
