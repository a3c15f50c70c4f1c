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
	"slices"
	"time"
	"unicode/utf8"

	"github.com/fanout-inspector/inspector/internal/outfile"
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
	// HTTP is set in a recording of a session over HTTP (exchange.go).
	HTTP *HTTPLog `json:"http,omitempty"`
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
	if err := saveHTTP(bw, enc, snap.HTTP); err != nil {
		return err
	}
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

// SaveFile writes snap to path as [outfile.Write] does: a regular file
// atomically, through a temporary file in the same folder renamed over
// it, so that a crash never leaves a half-written recording under the
// final name; a device or named pipe written through in place, a symbolic
// link followed. Nothing else at path is replaced or removed.
//
// When path cannot be written, the recording is not lost: it is saved
// to a new file in [DefaultJournalDir] instead, and the error says where
// (or why that failed too).
func SaveFile(path string, snap *Snapshot) error {
	err := outfile.Write(path, func(w io.Writer) error { return Save(w, snap) })
	if err == nil {
		return nil
	}
	if kept, kerr := keepUnsaved(snap); kerr != nil {
		err = fmt.Errorf("%w; keeping it in %s failed too: %v", err, DefaultJournalDir(), kerr)
	} else {
		err = fmt.Errorf("%w; the recording is kept in %s instead (open it with `inspector report %s`)", err, kept, kept)
	}
	return fmt.Errorf("save recording: %w", err)
}

// keepUnsaved saves snap as a new file in [DefaultJournalDir], where a
// recording that could not be saved where asked is kept, and returns its
// name.
func keepUnsaved(snap *Snapshot) (string, error) {
	dir := DefaultJournalDir()
	if err := MakeJournalDir(dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "unsaved-"+time.Now().UTC().Format("20060102-150405.000000000")+".json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, PrivateFileMode)
	if err != nil {
		return "", err
	}
	err = Save(f, snap)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // the file this call created
		return "", err
	}
	return path, nil
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
// was wrong with the file and what to do about it. A regular file is read
// whole; anything else (a pipe, a device) as [Load] reads a stream, at
// most [MaxStreamBytes].
func LoadFile(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open recording: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot open recording: %w", err)
	}
	var data []byte
	if fi.Mode().IsRegular() {
		data = make([]byte, 0, fi.Size()+1) // sized from the file: no regrowing
		_, err = io.Copy(bytesWriter{&data}, f)
	} else {
		data, err = readStream(f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	snap, err := loadBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return snap, nil
}

// bytesWriter appends to a byte slice.
type bytesWriter struct{ b *[]byte }

func (w bytesWriter) Write(p []byte) (int, error) {
	*w.b = append(*w.b, p...)
	return len(p), nil
}

// MaxStreamBytes is the most [Load] reads from a stream (standard input,
// a pipe, a device): a stream has no size to check first, and one that
// never ends (/dev/zero) must not fill the memory. A larger recording is
// read from its file, whose size is known.
const MaxStreamBytes = 64 << 20

// readStream reads r to its end, refusing more than MaxStreamBytes, and
// anything that cannot be JSON (/dev/zero's NUL bytes) as soon as its
// first bytes show it.
func readStream(r io.Reader) ([]byte, error) {
	// In chunks joined once at the end: a buffer regrown by doubling
	// would hold twice the limit, and copies of it, at its end.
	var chunks [][]byte
	total, checked := 0, false
	for {
		chunk := make([]byte, 1<<20)
		n, err := io.ReadFull(r, chunk)
		chunks, total = append(chunks, chunk[:n]), total+n
		if !checked {
			if trimmed := bytes.TrimLeft(chunk[:n], " \t\r\n"); len(trimmed) > 0 {
				if !bytes.ContainsAny(trimmed[:1], `{["-0123456789tfn`) {
					return nil, fmt.Errorf("not a recording: the file is not JSON (it begins with the byte %#02x; expected a file saved by Fanout Inspector, or a journal)", trimmed[0])
				}
				checked = true
			}
		}
		if total > MaxStreamBytes {
			return nil, fmt.Errorf("more than %d MiB arrived without an end: a stream is read up to %d MiB; save a larger recording to a file and give its path", MaxStreamBytes>>20, MaxStreamBytes>>20)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return bytes.Join(chunks, nil), nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read recording: %w", err)
		}
	}
}

// Load reads a recording saved by [Save] or a journal written by a
// [Journal], at most [MaxStreamBytes] of it. A loaded snapshot has
// Version 1 and Now as saved (for a journal: the end of its last span or
// event).
func Load(r io.Reader) (*Snapshot, error) {
	data, err := readStream(r)
	if err != nil {
		return nil, err
	}
	return loadBytes(data)
}

// loadBytes is [Load] of a whole file's bytes.
func loadBytes(data []byte) (*Snapshot, error) {
	if !utf8.Valid(data) {
		// An edited or foreign file: its payloads (kept as raw JSON) would
		// carry the bytes into every file saved from it. Each invalid
		// sequence becomes U+FFFD, as for what arrives on the wire.
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
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
		if err := checkTotals(f.Sampling.Totals); err != nil {
			return nil, err
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
	if err := checkHTTP(f.HTTP); err != nil {
		return nil, err
	}
	snap.HTTP = f.HTTP
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
	// Exchange is an HTTP exchange as the recording stores it (masked and
	// bounded); the last line of an exchange wins.
	Exchange *Exchange `json:"exchange,omitempty"`
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
	var http exchangeSet
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
		case l.Exchange != nil:
			if l.Exchange.ID <= 0 {
				return nil, fmt.Errorf("the journal is damaged at line %d: exchange id %d", i+1, l.Exchange.ID)
			}
			http.add(l.Exchange)
		case l.End != nil:
			end = l.End
		}
	}
	snap.HTTP = http.log()
	if err := checkHTTP(snap.HTTP); err != nil {
		return nil, fmt.Errorf("the journal's HTTP exchanges: %w", err)
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
