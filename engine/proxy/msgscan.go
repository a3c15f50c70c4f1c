package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/fanout-inspector/inspector/internal/wire"
)

// parseMessage reads raw, one JSON-RPC message, into m as json.Unmarshal
// would, error and all. json.Unmarshal into a struct was the largest cost
// of recording a message, so the usual shapes are read in one pass
// ([wire.Members]): a JSON object whose member names are ASCII, each of
// the fields at most once, its method a plain string. Anything else (an
// error member, a non-ASCII name, an escaped or non-UTF-8 method, a name
// that matches a field only ignoring case, a repeated field, invalid
// JSON) is left to json.Unmarshal.
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
	var seen int
	taken := true // every member so far is one the scan can read as json.Unmarshal would
	valid := wire.Members(raw, func(name, value []byte, _ int) bool {
		field := 0
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
			taken = plainName(name)
		}
		if seen&field != 0 {
			taken = false
		}
		seen |= field
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
				taken = false
			default:
				m.Method = string(value[1 : len(value)-1])
			}
		}
		return taken
	})
	return valid && taken
}

// plainName says whether a member name other than a field's is one
// json.Unmarshal would surely ignore: ASCII (as unescaped), and none of
// the fields' names in another case ("ID", "Method"), nor "error".
func plainName(name []byte) bool {
	for _, c := range name {
		if c >= utf8.RuneSelf {
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
