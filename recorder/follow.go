package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

// MaxJournalLine bounds one line a [Tail] reads: a span with its capped
// payloads is far smaller, so a longer line means the file is not a
// journal being written.
const MaxJournalLine = 4 << 20

// Tail follows a journal while another process (a proxy, a run) writes
// it: each [Tail.Poll] reads what was appended since the last, and
// [Tail.Snapshot] gives the recording so far, live: until the journal's
// end line, its Now is the wall-clock time since the recording started,
// so spans still open grow.
//
// A Tail is not safe for concurrent use.
type Tail struct {
	path    string
	f       *os.File
	off     int64
	partial []byte
	header  bool

	meta    Meta
	spans   []*Span
	index   map[SpanID]int
	events  []Event
	http    exchangeSet
	end     *time.Duration
	version uint64
}

// OpenTail opens the journal at path for following. It fails when the
// file cannot be opened; a file with no header yet is followed until
// one appears.
func OpenTail(path string) (*Tail, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &Tail{path: path, f: f, index: map[SpanID]int{}}, nil
}

// Path is the journal's file name.
func (t *Tail) Path() string { return t.path }

// Close closes the file.
func (t *Tail) Close() error { return t.f.Close() }

// Ended reports whether the journal's writer closed it (its end line).
func (t *Tail) Ended() bool { return t.end != nil }

// Poll reads the lines appended since the last call and reports whether
// the recording changed. A line that does not read is an error that
// names it; a file that shrank (truncated, replaced) is an error too.
func (t *Tail) Poll() (bool, error) {
	st, err := t.f.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() < t.off {
		return false, fmt.Errorf("%s shrank from %d to %d bytes while it was followed: it is not the journal it was", t.path, t.off, st.Size())
	}
	if st.Size() == t.off {
		return false, nil
	}
	buf := make([]byte, min(st.Size()-t.off, 1<<20))
	changed := false
	for t.off < st.Size() {
		n, err := t.f.ReadAt(buf, t.off)
		if n == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return changed, err
		}
		t.off += int64(n)
		data := buf[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				t.partial = append(t.partial, data...)
				if len(t.partial) > MaxJournalLine {
					return changed, fmt.Errorf("%s: a line longer than %d MiB: not a journal", t.path, MaxJournalLine>>20)
				}
				break
			}
			line := data[:i]
			if len(t.partial) > 0 {
				line = append(t.partial, line...)
				t.partial = t.partial[:0]
			}
			data = data[i+1:]
			c, err := t.apply(bytes.TrimSpace(line))
			if err != nil {
				return changed, err
			}
			changed = changed || c
		}
	}
	if changed {
		t.version++
	}
	return changed, nil
}

// apply reads one complete line.
func (t *Tail) apply(line []byte) (bool, error) {
	if len(line) == 0 {
		return false, nil
	}
	if !t.header {
		var head fileHeader
		if err := json.Unmarshal(line, &head); err != nil {
			return false, fmt.Errorf("%s is not a journal: %v", t.path, describeJSONError(line, err))
		}
		v := head.Version
		if err := checkHeader("journal", &head.Format, &v, JournalFormat, JournalVersion); err != nil {
			return false, fmt.Errorf("%s: %w", t.path, err)
		}
		if head.Meta == nil {
			return false, fmt.Errorf(`%s: the journal's header has no "meta" field`, t.path)
		}
		t.meta, t.header = *head.Meta, true
		return true, nil
	}
	var l journalLine
	if err := json.Unmarshal(line, &l); err != nil {
		return false, fmt.Errorf("%s is damaged after byte %d: %v", t.path, t.off, err)
	}
	switch {
	case l.Span != nil:
		if err := checkSpans([]*Span{l.Span}); err != nil {
			return false, fmt.Errorf("%s: %w", t.path, err)
		}
		if i, ok := t.index[l.Span.ID]; ok {
			t.spans[i] = l.Span // the last line of a span wins
		} else {
			t.index[l.Span.ID] = len(t.spans)
			t.spans = append(t.spans, l.Span)
		}
	case l.Event != nil:
		if err := checkEvents([]Event{*l.Event}); err != nil {
			return false, fmt.Errorf("%s: %w", t.path, err)
		}
		t.events = append(t.events, *l.Event)
	case l.Meta != nil:
		t.meta = *l.Meta
	case l.Exchange != nil:
		if l.Exchange.ID <= 0 {
			return false, fmt.Errorf("%s is damaged after byte %d: exchange id %d", t.path, t.off, l.Exchange.ID)
		}
		if err := checkHTTP(&HTTPLog{Total: int(l.Exchange.ID), Exchanges: []*Exchange{l.Exchange}}); err != nil {
			return false, fmt.Errorf("%s: an HTTP exchange: %w", t.path, err)
		}
		t.http.add(l.Exchange)
	case l.End != nil:
		t.end = l.End
	default:
		return false, nil
	}
	return true, nil
}

// Snapshot returns the recording read so far (nil before the header).
// Spans are in ID order and events in time order, as in a loaded file.
func (t *Tail) Snapshot() *Snapshot {
	if !t.header {
		return nil
	}
	spans := slices.Clone(t.spans)
	slices.SortFunc(spans, func(a, b *Span) int { return int(a.ID - b.ID) })
	events := slices.Clone(t.events)
	slices.SortStableFunc(events, func(a, b Event) int { return cmpDuration(a.At, b.At) })
	snap := &Snapshot{Meta: t.meta, Spans: spans, Events: events, Version: t.version, HTTP: t.http.log()}
	snap.Now = LastInstant(snap)
	switch {
	case t.end != nil:
		snap.Now = max(snap.Now, *t.end)
	case !t.meta.Created.IsZero():
		snap.Now = max(snap.Now, time.Since(t.meta.Created))
	}
	return snap
}
