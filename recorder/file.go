package recorder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"
)

// The names and versions of the file formats. A reader refuses a version
// newer than the one it knows.
const (
	// RecordingFormat is the "format" of a saved recording.
	RecordingFormat = "fanout-inspector-recording"
	// RecordingVersion is the version of the recording format this
	// package writes and the newest it reads. Version 2 added the
	// multi-round-trip shape of a tool call (round spans, their outcome
	// and input requests, an input request's key) and the time a message
	// was withheld from the client (stalled); version 1 files, which have
	// none of these, still load. Version 3 is a sampled recording
	// (--max-spans): it carries "sampling", the totals of every span,
	// which an older reader would ignore and so show the figures of the
	// sample alone; recordings that kept every span are still written as
	// version 2.
	RecordingVersion = 3
	// recordingVersionWhole is the version written for a recording that
	// kept every span.
	recordingVersionWhole = 2
	// JournalFormat is the "format" of a journal's header line.
	JournalFormat = "fanout-inspector-journal"
	// JournalVersion is the version of the journal format: 2 for the same
	// span and event fields as [RecordingVersion] 2; version 1 journals
	// still load.
	JournalVersion = 2
)

// fileHeader is what every recording and journal header carries.
type fileHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Meta    *Meta  `json:"meta"`
	// Now is the offset at which the snapshot was taken (nanoseconds).
	Now *time.Duration `json:"now,omitempty"`
}

// recordingFile is the JSON shape of a saved recording.
type recordingFile struct {
	fileHeader
	// Runs are the recording's named segments; files written before
	// runs existed have none and load as one implicit run.
	Runs   []Run   `json:"runs,omitempty"`
	Spans  []*Span `json:"spans"`
	Events []Event `json:"events"`
	// Sampling is set in a recording that kept a sample of its spans.
	Sampling *Sampling `json:"sampling,omitempty"`
}

// Save writes snap as a recording: one JSON object
//
//	{"format":"fanout-inspector-recording","version":2,"meta":{…},"now":…,"spans":[…],"events":[…],"series":[…]}
//
// with one span, event or second of the [Series] a line, so that files diff well. Times are
// nanosecond offsets from meta.created. See docs/recording-format.md.
func Save(w io.Writer, snap *Snapshot) error {
	if snap == nil {
		snap = &Snapshot{}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := newLineEncoder(bw)
	meta := snap.Meta
	now := snap.Now
	version := recordingVersionWhole
	if snap.Sampled != nil && snap.Sampled.Totals != nil {
		version = RecordingVersion
	}
	head, err := json.Marshal(fileHeader{Format: RecordingFormat, Version: version, Meta: &meta, Now: &now})
	if err != nil {
		return fmt.Errorf("save recording: %w", err)
	}
	bw.Write(head[:len(head)-1]) // leave the object open for spans and events
	if len(snap.Runs) > 0 {
		bw.WriteString(",\n\"runs\":[")
		for i, r := range snap.Runs {
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n")
			if err := enc.encode(r); err != nil {
				return fmt.Errorf("save recording: run %d: %w", i+1, err)
			}
		}
		bw.WriteString("\n]")
	}
	bw.WriteString(",\n\"spans\":[")
	for i, s := range snap.Spans {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		if err := enc.encode(s); err != nil {
			return fmt.Errorf("save recording: span %d: %w", s.ID, err)
		}
	}
	bw.WriteString("\n],\n\"events\":[")
	for i, e := range snap.Events {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		if err := enc.encode(e); err != nil {
			return fmt.Errorf("save recording: event %d: %w", i+1, err)
		}
	}
	bw.WriteString("\n]")
	if snap.Sampled != nil && snap.Sampled.Totals != nil {
		sm := *snap.Sampled
		sm.Kept = len(snap.Spans)
		b, err := json.Marshal(sm)
		if err != nil {
			return fmt.Errorf("save recording: sampling: %w", err)
		}
		bw.WriteString(",\n\"sampling\":")
		bw.Write(b)
	}
	// The series is derived from the spans, for tools that read the file
	// without recomputing it; Load ignores it.
	if series := Series(snap); len(series) > 0 {
		bw.WriteString(",\n\"series\":[")
		for i, st := range series {
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n")
			if err := enc.encode(st); err != nil {
				return fmt.Errorf("save recording: series second %d: %w", st.T, err)
			}
		}
		bw.WriteString("\n]")
	}
	bw.WriteString("}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("save recording: %w", err)
	}
	return nil
}

// lineEncoder writes JSON values without a trailing newline and without
// escaping <, > and & (payloads stay as they were on the wire).
type lineEncoder struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	// span and line are scratch space for inFormatOrder.
	span spanJSON
	line journalLineJSON
}

func newLineEncoder(w io.Writer) *lineEncoder {
	e := &lineEncoder{w: w}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

func (e *lineEncoder) encode(v any) error {
	e.buf.Reset()
	if err := e.enc.Encode(e.inFormatOrder(v)); err != nil {
		return err
	}
	_, err := e.w.Write(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")))
	return err
}

// SaveFile writes snap to path atomically: into a temporary file in the
// same folder, synced, then renamed over path, so that a crash never
// leaves a half-written recording under the final name.
func SaveFile(path string, snap *Snapshot) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("save recording: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	if err := Save(tmp, snap); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(FileMode(path)); err != nil {
		tmp.Close()
		return fmt.Errorf("save recording: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save recording: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save recording: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save recording: %w", err)
	}
	return nil
}

// FileMode is the permission a file written through a temporary file and
// a rename should get: that of the file it replaces (a chmod the user made
// stays), or [PrivateFileMode] for a new one.
func FileMode(path string) os.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return PrivateFileMode
}

// PrivateFileMode (0600) is the permission of every new file the inspector
// writes (recordings, journals, exports) and PrivateDirMode (0700) that of
// the folders it creates for them: what a run recorded may be private to
// the person who ran it.
const (
	PrivateFileMode os.FileMode = 0o600
	PrivateDirMode  os.FileMode = 0o700
)

// LoadFile reads a recording saved by [Save], or a journal written by a
// [Journal] (the kind is told from the first line). The error says what
// was wrong with the file and what to do about it.
func LoadFile(path string) (*Snapshot, error) {
	data, err := os.ReadFile(path) // sized from the file: no regrowing
	if err != nil {
		return nil, fmt.Errorf("cannot open recording: %w", err)
	}
	snap, err := loadBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return snap, nil
}

// Load reads a recording saved by [Save] or a journal written by a
// [Journal]. A loaded snapshot has Version 1 and Now as saved (for a
// journal: the end of its last span or event).
func Load(r io.Reader) (*Snapshot, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("cannot read recording: %w", err)
	}
	return loadBytes(data)
}

// loadBytes is [Load] of a whole file's bytes.
func loadBytes(data []byte) (*Snapshot, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("the file is empty: it is not a recording (save one with `inspector run --record FILE` or from the app)")
	}
	if trimmed[0] != '{' {
		if json.Valid(trimmed) {
			return nil, errors.New("not a recording: the file is JSON but not an object (expected a file saved by Fanout Inspector, or a journal)")
		}
		return nil, errors.New("not a recording: the file is not JSON (expected a file saved by Fanout Inspector, or a journal)")
	}
	// The first line of a journal is a complete header object; a saved
	// recording's first line is its header left open.
	first, rest, _ := bytes.Cut(trimmed, []byte("\n"))
	var head fileHeader
	if json.Unmarshal(first, &head) == nil && head.Format == JournalFormat {
		return loadJournal(trimmed)
	}
	if len(rest) == 0 && bytes.HasPrefix(first, []byte(`{"format":"`+JournalFormat+`"`)) {
		return nil, errors.New("the journal's first line is incomplete: the run was killed as it started, before anything was recorded")
	}
	return loadRecording(trimmed)
}

func loadRecording(data []byte) (*Snapshot, error) {
	// Check the header before the body so that a newer version is
	// reported as such, not as whatever field it changed. The header
	// fields come first in files we write: read tokens up to "spans".
	format, version, err := peekHeader(data)
	if err != nil {
		return nil, describeJSONError(data, err)
	}
	if err := checkHeader("recording", format, version, RecordingFormat, RecordingVersion); err != nil {
		return nil, err
	}
	var f recordingFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, describeJSONError(data, err)
	}
	if f.Meta == nil {
		return nil, errors.New(`not a complete recording: the "meta" field is missing (the file was not written by Fanout Inspector, or was edited)`)
	}
	if f.Spans == nil && !bytes.Contains(data, []byte(`"spans"`)) {
		return nil, errors.New(`not a complete recording: the "spans" field is missing (the file was not written by Fanout Inspector, or was edited)`)
	}
	snap := &Snapshot{Meta: *f.Meta, Spans: f.Spans, Events: f.Events, Runs: f.Runs, Version: 1}
	if f.Sampling != nil {
		if f.Sampling.Totals == nil {
			return nil, errors.New(`the sampled recording has no "totals" in its "sampling": the file was edited or is damaged`)
		}
		f.Sampling.Kept = len(f.Spans)
		snap.Sampled = f.Sampling
	}
	if err := checkSpans(snap.Spans); err != nil {
		return nil, err
	}
	if err := checkRuns(snap.Runs); err != nil {
		return nil, err
	}
	if err := checkEvents(snap.Events); err != nil {
		return nil, err
	}
	if f.Now != nil {
		if err := checkOffset("now", *f.Now); err != nil {
			return nil, err
		}
	}
	if snap.Spans == nil {
		snap.Spans = []*Span{}
	}
	if snap.Events == nil {
		snap.Events = []Event{}
	}
	if f.Now != nil {
		snap.Now = *f.Now
	} else {
		snap.Now = LastInstant(snap)
	}
	for i := range snap.Runs {
		if snap.Runs[i].Open() { // saved mid-run: nothing more came after
			snap.Runs[i].End = max(snap.Now, snap.Runs[i].Start)
		}
	}
	return snap, nil
}

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
// [maxOffset] (or unset).
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

// LastInstant is the latest instant a snapshot holds: the end of its last
// span phase or event (not its Now).
func LastInstant(snap *Snapshot) time.Duration {
	var end time.Duration
	for _, s := range snap.Spans {
		end = max(end, s.Received, s.Queued, s.Serving, s.Answered)
	}
	for _, e := range snap.Events {
		end = max(end, e.At)
	}
	return end
}

// journalLine is one line of a journal after the header: exactly one of
// its fields is set.
type journalLine struct {
	Span  *Span  `json:"span,omitempty"`
	Event *Event `json:"event,omitempty"`
	Meta  *Meta  `json:"meta,omitempty"`
	// End is written by [Journal.Close]: the offset at which the
	// recording stopped.
	End *time.Duration `json:"end,omitempty"`
}

// loadJournal rebuilds a snapshot from a journal. A torn last line (the
// process was killed mid-write) is skipped; a damaged line elsewhere is an
// error. Spans still open when the journal stopped are not in it.
func loadJournal(data []byte) (*Snapshot, error) {
	lines := bytes.Split(data, []byte("\n"))
	var head fileHeader
	if err := json.Unmarshal(lines[0], &head); err != nil {
		return nil, describeJSONError(lines[0], err)
	}
	v := head.Version
	if err := checkHeader("journal", &head.Format, &v, JournalFormat, JournalVersion); err != nil {
		return nil, err
	}
	if head.Meta == nil {
		return nil, errors.New(`not a complete journal: the header has no "meta" field`)
	}
	snap := &Snapshot{Meta: *head.Meta, Spans: []*Span{}, Events: []Event{}, Version: 1}
	var end *time.Duration
	seen := map[SpanID]int{} // span ID → index in snap.Spans
	for i := 1; i < len(lines); i++ {
		line := bytes.TrimSpace(lines[i])
		if len(line) == 0 {
			continue
		}
		var l journalLine
		if err := json.Unmarshal(line, &l); err != nil {
			if i == len(lines)-1 {
				break // torn last line: the writer was killed mid-line
			}
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				err = describeTypeError(line, typ)
			} else if why := describeTimeError(err); why != "" {
				err = errors.New(why)
			}
			return nil, fmt.Errorf("the journal is damaged at line %d: %v", i+1, err)
		}
		switch {
		case l.Span != nil:
			if l.Span.ID <= 0 {
				return nil, fmt.Errorf("the journal is damaged at line %d: span id %d", i+1, l.Span.ID)
			}
			if i, ok := seen[l.Span.ID]; ok {
				snap.Spans[i] = l.Span // changed after it ended: the last line wins
			} else {
				seen[l.Span.ID] = len(snap.Spans)
				snap.Spans = append(snap.Spans, l.Span)
			}
		case l.Event != nil:
			snap.Events = append(snap.Events, *l.Event)
		case l.Meta != nil:
			snap.Meta = *l.Meta
		case l.End != nil:
			end = l.End
		}
	}
	slices.SortFunc(snap.Spans, func(a, b *Span) int { return int(a.ID - b.ID) })
	slices.SortStableFunc(snap.Events, func(a, b Event) int {
		if a.At < b.At {
			return -1
		} else if a.At > b.At {
			return 1
		}
		return 0
	})
	if err := checkSpans(snap.Spans); err != nil {
		return nil, err
	}
	if err := checkEvents(snap.Events); err != nil {
		return nil, err
	}
	if end != nil {
		if err := checkOffset("end", *end); err != nil {
			return nil, err
		}
	}
	snap.Now = LastInstant(snap)
	if end != nil {
		snap.Now = max(snap.Now, *end)
	}
	return snap, nil
}
