package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// parseMessage reads raw, one JSON-RPC message, into m as json.Unmarshal
// would, error and all. Most messages it reads in one pass of its own
// (json.Unmarshal into a struct was the largest cost of recording a
// message): a JSON object whose member names are plain ASCII, each of
// the fields at most once, its method a plain string. Anything else
// (an error member, an escaped or non-ASCII name or method, a name that
// matches a field only ignoring case, a repeated field, invalid JSON) it
// leaves to json.Unmarshal.
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
	s := jsonScan{b: raw}
	s.space()
	if !s.eat('{') {
		return false
	}
	s.space()
	if s.eat('}') {
		s.space()
		return s.i == len(s.b)
	}
	var seen int
	for {
		s.space()
		k := s.i
		if !s.str() {
			return false
		}
		name := raw[k+1 : s.i-1]
		s.space()
		if !s.eat(':') {
			return false
		}
		s.space()
		v := s.i
		if !s.value(0) {
			return false
		}
		value := raw[v:s.i]
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
			if !plainName(name) {
				return false
			}
		}
		if seen&field != 0 {
			return false
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
				return false
			default:
				m.Method = string(value[1 : len(value)-1])
			}
		}
		s.space()
		if s.eat(',') {
			continue
		}
		if !s.eat('}') {
			return false
		}
		s.space()
		return s.i == len(s.b)
	}
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

// jsonScan checks JSON text as encoding/json's scanner does, one value
// at a time.
type jsonScan struct {
	b []byte
	i int
}

// maxDepth is how deep the scan follows nested values before leaving
// the message to json.Unmarshal (which allows 10,000).
const maxDepth = 1000

func (s *jsonScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScan) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// value moves past one value, and reports whether it is valid JSON.
func (s *jsonScan) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxDepth {
		return false
	}
	switch s.b[s.i] {
	case '{':
		s.i++
		s.space()
		if s.eat('}') {
			return true
		}
		for {
			s.space()
			if !s.str() {
				return false
			}
			s.space()
			if !s.eat(':') {
				return false
			}
			s.space()
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.eat(',') {
				continue
			}
			return s.eat('}')
		}
	case '[':
		s.i++
		s.space()
		if s.eat(']') {
			return true
		}
		for {
			s.space()
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.eat(',') {
				continue
			}
			return s.eat(']')
		}
	case '"':
		return s.str()
	case 't':
		return s.word("true")
	case 'f':
		return s.word("false")
	case 'n':
		return s.word("null")
	default:
		return s.number()
	}
}

func (s *jsonScan) word(w string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		return false
	}
	s.i += len(w)
	return true
}

// str moves past a string. Bytes that are not UTF-8 pass, as they do in
// encoding/json's scanner.
func (s *jsonScan) str() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.i++
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if s.i+4 >= len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !ishex(h) {
						return false
					}
				}
				s.i += 5
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

// number moves past a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScan) number() bool {
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.eat('.') && !s.digits() {
		return false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits moves past one or more digits, and reports whether there were any.
func (s *jsonScan) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
