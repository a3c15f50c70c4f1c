package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
)

// What a loaded file is checked against, and how a bad one is described:
// its header, its spans' and events' values, and JSON errors turned into
// messages that name the element and field (split from file.go, which
// reads and writes the formats).

// peekHeader reads the top-level "format" and "version" of a JSON object,
// skipping other values, and stops at "spans" (or the end).
func peekHeader(data []byte) (format *string, version *int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the opening brace
		return nil, nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "spans", "events":
			if format != nil && version != nil {
				return format, version, nil
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, err
			}
		case "format":
			var f string
			if err := dec.Decode(&f); err != nil {
				return nil, nil, namedField("format", err)
			}
			format = &f
		case "version":
			var v int
			if err := dec.Decode(&v); err != nil {
				return nil, nil, namedField("version", err)
			}
			version = &v
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, err
			}
		}
	}
	return format, version, nil
}

// namedField puts the top-level field name into a type error decoded on
// its own, which has none.
func namedField(name string, err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field == "" {
		typ.Field = name
	}
	return err
}

// checkHeader says what is wrong with a format name and version.
func checkHeader(noun string, format *string, version *int, want string, newest int) error {
	if format == nil {
		return fmt.Errorf(`not a recording: the JSON has no "format" field (expected %q, as written by Fanout Inspector)`, want)
	}
	if *format != want {
		return fmt.Errorf("not a recording: the format is %q, expected %q (a file written by Fanout Inspector)", *format, want)
	}
	if version == nil {
		return fmt.Errorf(`not a complete %s: the "version" field is missing`, noun)
	}
	if *version > newest {
		return fmt.Errorf("the %s is format version %d, newer than this inspector reads (up to %d): update Fanout Inspector to open it", noun, *version, newest)
	}
	if *version < 1 {
		return fmt.Errorf("the %s has an invalid format version %d (versions start at 1)", noun, *version)
	}
	return nil
}

// maxOffset is the latest time a loaded recording may hold, from its
// start: far beyond any run, far below where nanoseconds since 1970
// overflow an int64 (in 2262). A larger time comes from an edited or
// crafted file, and would wrap around in exports.
const maxOffset = 100 * 365 * 24 * time.Hour

// checkSpans rejects spans that would break readers: IDs must be positive
// and increasing, and phase times between the recording's start and
// [maxOffset] (or unset), in the order of the phases ([checkPhases]).
func checkSpans(spans []*Span) error {
	var last SpanID
	for i, s := range spans {
		if s == nil {
			return fmt.Errorf("span %d of the recording is null", i+1)
		}
		if s.ID <= last {
			return fmt.Errorf("span %d of the recording has id %d, not above the previous id %d: the file was edited or is damaged", i+1, s.ID, last)
		}
		last = s.ID
		if s.Direction != Incoming && s.Direction != Outgoing {
			return fmt.Errorf("span %d has direction %q, expected %q or %q", s.ID, s.Direction, Incoming, Outgoing)
		}
		if s.Round < 0 || s.InputRequests < 0 {
			return fmt.Errorf("span %d has round %d and input_requests %d: neither can be negative (the file was edited or is damaged)", s.ID, s.Round, s.InputRequests)
		}
		if s.Stalled < 0 || s.Stalled > maxOffset {
			return fmt.Errorf("span %d: field \"stalled\" is %d ns, outside 0 .. 100 years: the file was edited or is damaged", s.ID, int64(s.Stalled))
		}
		if err := checkPhases(s); err != nil {
			return err
		}
	}
	return nil
}

// checkPhases rejects a span whose phase times are out of range or out
// of order: the phases reached follow one another (received, queued,
// serving, answered), or every duration drawn from them would be negative.
func checkPhases(s *Span) error {
	prev, prevField := Unset, ""
	for _, p := range []struct {
		field string
		d     time.Duration
	}{{"received", s.Received}, {"queued", s.Queued}, {"serving", s.Serving}, {"answered", s.Answered}} {
		if p.d == Unset {
			continue
		}
		if err := checkOffset(p.field, p.d); err != nil {
			return fmt.Errorf("span %d: %v", s.ID, err)
		}
		if prev != Unset && p.d < prev {
			return fmt.Errorf("span %d: field %q (%v) comes before field %q (%v), but a request's phases follow one another: the file was edited or is damaged",
				s.ID, p.field, p.d, prevField, prev)
		}
		prev, prevField = p.d, p.field
	}
	return nil
}

// checkTotals rejects the totals of a sampled recording that contradict
// themselves: negative counts, more calls ended than begun, a first time
// after a last one, or times out of range.
func checkTotals(t *Totals) error {
	bad := func(what string) error {
		return fmt.Errorf("the sampled recording's totals say %s: the file was edited or is damaged", what)
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"tool_calls", t.ToolCalls}, {"tool_ok", t.ToolOK}, {"tool_failed", t.ToolFailed}, {"rounds", t.Rounds},
		{"calls_with_rounds", t.CallsWithRounds}, {"input_rounds", t.InputRounds}, {"server", t.Server}, {"server_ok", t.ServerOK},
		{"server_failed", t.ServerFailed}, {"aborted", t.Aborted}, {"duplicates", t.Duplicates}, {"stalled_spans", t.StalledSpans},
		{"late_starts", t.LateStarts}, {"peak_serving", t.PeakServing}, {"peak_pending", t.PeakPending}, {"peak_calls", t.PeakCalls}} {
		if c.n < 0 {
			return bad(fmt.Sprintf("%s %d, a negative count", c.name, c.n))
		}
	}
	if t.ToolOK+t.ToolFailed > t.ToolCalls {
		return bad(fmt.Sprintf("%d tool calls, of which %d ok and %d failed", t.ToolCalls, t.ToolOK, t.ToolFailed))
	}
	if t.ServerOK+t.ServerFailed+t.Aborted > t.Server {
		return bad(fmt.Sprintf("%d server requests, of which %d ok, %d failed and %d aborted", t.Server, t.ServerOK, t.ServerFailed, t.Aborted))
	}
	for _, p := range []struct {
		first, last string
		a, b        time.Duration
	}{{"first_span", "last_span", t.FirstSpan, t.LastSpan}, {"first_call", "last_call", t.FirstCall, t.LastCall}} {
		if p.a == Unset && p.b == Unset {
			continue
		}
		if err := checkOffset(p.first, p.a); err != nil {
			return bad(err.Error())
		}
		if err := checkOffset(p.last, p.b); err != nil {
			return bad(err.Error())
		}
		if p.b < p.a {
			return bad(fmt.Sprintf("%s %d ns after %s %d ns", p.first, int64(p.a), p.last, int64(p.b)))
		}
	}
	for i, st := range t.Seconds {
		if st.T < 0 || st.Width < 0 || st.Started < 0 || st.Finished < 0 || st.Errors < 0 || st.InFlight < 0 || st.Queued < 0 ||
			st.Errors > st.Finished || st.P50MS < 0 || st.P99MS < 0 {
			return bad(fmt.Sprintf("in seconds[%d] %+v, a negative count or more errors than calls finished", i, st))
		}
	}
	return nil
}

// checkEvents rejects event times outside the recording, as checkSpans
// does for spans.
func checkEvents(events []Event) error {
	for i, e := range events {
		if err := checkOffset(fmt.Sprintf("events[%d].at", i), e.At); err != nil {
			return err
		}
		if err := checkOffset(fmt.Sprintf("events[%d].stalled", i), e.Stalled); err != nil {
			return err
		}
	}
	return nil
}

// checkOffset says what is wrong with a time offset read from field, or nil.
func checkOffset(field string, d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("field %q is %d, a negative time (want nanoseconds since the recording started, or -1 for a phase not reached): the file was edited or is damaged", field, int64(d))
	case d > maxOffset:
		return fmt.Errorf("field %q is %d ns, more than 100 years after the recording started: the file was edited or is damaged", field, int64(d))
	}
	return nil
}

// describeJSONError turns a decoding error into a sentence a user can act
// on: truncated, not JSON, or a field of the wrong type.
func describeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &syn) && syn.Offset >= int64(len(data))):
		return fmt.Errorf("the recording is truncated (it ends after %d bytes in the middle of the JSON): the run was probably killed while saving; open its journal instead (in %s)", len(data), DefaultJournalDir())
	case errors.As(err, &syn):
		line := 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("not a recording: invalid JSON at line %d (byte %d): %v", line, syn.Offset, err)
	case errors.As(err, &typ):
		return fmt.Errorf("not a recording: %v", describeTypeError(data, typ))
	}
	if why := describeTimeError(err); why != "" {
		return fmt.Errorf("not a recording: %s", why)
	}
	return fmt.Errorf("not a recording: %w", err)
}

// describeTypeError says which field of the file holds a value of the
// wrong type, by its JSON path (spans[2].answered, meta.title), and what
// it should hold, in the format's words rather than Go's.
func describeTypeError(data []byte, typ *json.UnmarshalTypeError) error {
	path := strings.TrimPrefix(typ.Field, "fileHeader.")
	if list, rest, ok := strings.Cut(path, "."); ok && (list == "spans" || list == "events") {
		if i := elementAt(data, list, typ.Offset); i >= 0 {
			path = fmt.Sprintf("%s[%d].%s", list, i, rest)
		}
	}
	got := typ.Value
	switch {
	case strings.HasPrefix(got, "number "):
		got = strings.TrimPrefix(got, "number ")
	case got == "number", got == "string", got == "object", got == "array":
		got = article(got) + " " + got
	case got == "bool":
		got = "a boolean"
	}
	return fmt.Errorf("field %q: want %s, got %s", path, wantedJSON(typ.Type), got)
}

// wantedJSON says what JSON a Go type of the file format is read from.
func wantedJSON(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return "a whole number of nanoseconds"
	case t == reflect.TypeFor[time.Time]():
		return `a time as text, as in "2026-01-02T03:04:05Z"`
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	}
	return "another kind of value"
}

func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}

// describeTimeError recognizes the errors time.Time gives for a bad
// "created" (the only time of day in the format), which carry no field.
func describeTimeError(err error) string {
	const want = `field "meta.created": want a time as text, as in "2026-01-02T03:04:05Z"`
	var perr *time.ParseError
	if errors.As(err, &perr) {
		return fmt.Sprintf("%s, got %q", want, perr.Value)
	}
	if strings.Contains(err.Error(), "Time.UnmarshalJSON") {
		return want + ", got something else than a string"
	}
	return ""
}

// elementAt returns the index of the element of the top-level list key
// that contains the byte offset, or -1.
func elementAt(data []byte, key string, offset int64) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return -1
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		if tok != key {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return -1
			}
			continue
		}
		if _, err := dec.Token(); err != nil { // [
			return -1
		}
		for i := 0; dec.More(); i++ {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return -1
			}
			if dec.InputOffset() >= offset {
				return i
			}
		}
		return -1
	}
	return -1
}
