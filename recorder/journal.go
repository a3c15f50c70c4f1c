package recorder

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// JournalFlushInterval is the longest a finished span or an event waits in
// memory before a [Journal] writes it to its file: a killed process loses
// at most this much of its recording.
const JournalFlushInterval = 200 * time.Millisecond

// Journal appends a live recording to a file as it happens, one JSON
// object a line, so that a run killed with SIGKILL, or a crash, still
// leaves its recording behind. [LoadFile] opens a journal like a saved
// recording.
//
// The first line is a header with the recording's metadata; then one line
// per finished span ({"span":…}), per event ({"event":…}), per change of
// metadata ({"meta":…}), per HTTP exchange as the recording stores it
// ({"exchange":…}, when it is added and when it ends; the last line of an
// exchange wins), and {"end":…} when the journal is closed. A span
// still open is written in its latest state at each flush in which it
// changed, so a killed run's journal shows what was in flight; the last
// line of a span wins.
//
// A Journal is an [Observer] (and [ChangeObserver]) of its recording:
// OpenJournal registers it. A span that changes after it ended is written
// again; the last line of a span wins.
type Journal struct {
	path string
	rec  *Recording
	file *os.File

	mu      sync.Mutex
	pending []journalLine
	// open holds the latest version of each open span that changed since
	// the last flush: written once per flush however often it changed.
	open   map[SpanID]*Span
	closed bool
	err    error
	meta   []byte // the last metadata written, to notice changes

	// What was written of the HTTP exchanges: only flush touches these.
	xwritten map[ExchangeID]journalExchange
	xversion uint64
	xdue     bool // an open stream's new events wait for their turn

	stop chan struct{}
	done chan struct{}
}

// OpenJournal creates the journal file at path (or, if path is "", a new
// file named after the current time in [DefaultJournalDir]), writes the
// header and everything rec already holds, and follows rec until
// [Journal.Close]. Finished spans and events reach the file within
// [JournalFlushInterval].
func OpenJournal(path string, rec *Recording) (*Journal, error) {
	if rec == nil {
		return nil, errors.New("open journal: no recording")
	}
	if path == "" {
		dir := DefaultJournalDir()
		if err := MakeJournalDir(dir); err != nil {
			return nil, fmt.Errorf("open journal: %w (set a journal path explicitly)", err)
		}
		path = filepath.Join(dir, time.Now().UTC().Format("20060102-150405.000000000")+".jsonl")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, PrivateFileMode)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("open journal: %s already exists (a journal is never overwritten): choose another name, or remove it", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	j := &Journal{
		path: path, rec: rec, file: f, open: map[SpanID]*Span{},
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	snap := rec.observeFrom(j)
	meta := snap.Meta
	head, err := json.Marshal(fileHeader{Format: JournalFormat, Version: JournalVersion, Meta: &meta})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open journal: %w", err)
	}
	j.meta, _ = json.Marshal(meta)
	if _, err := f.Write(append(head, '\n')); err != nil {
		f.Close()
		return nil, fmt.Errorf("open journal: %w", err)
	}
	j.mu.Lock()
	for _, s := range snap.Spans {
		if s.Open() {
			j.open[s.ID] = s
		} else {
			j.pending = append(j.pending, journalLine{Span: s})
		}
	}
	for i := range snap.Events {
		j.pending = append(j.pending, journalLine{Event: &snap.Events[i]})
	}
	j.mu.Unlock()
	go j.loop()
	return j, nil
}

// observeFrom registers o and returns a snapshot taken at the same moment,
// under the recording's lock: every change before it is in the snapshot,
// every change after it reaches o.
func (r *Recording) observeFrom(o Observer) *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addObserverLocked(o)
	return r.snapshotLocked()
}

// Path returns the journal's file name.
func (j *Journal) Path() string { return j.path }

// SpanFinished implements [Observer]: it queues the span for writing.
func (j *Journal) SpanFinished(s *Span) {
	j.mu.Lock()
	if !j.closed {
		delete(j.open, s.ID)
		j.pending = append(j.pending, journalLine{Span: s})
	}
	j.mu.Unlock()
}

// SpanChanged implements [ChangeObserver]. An open span is written at the
// next flush in its latest state (so that a killed run still shows what
// was in flight); a span that changes after it ended is written again.
// The last line of a span wins when the journal is read.
func (j *Journal) SpanChanged(s *Span) {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.closed:
	case !s.Open():
		j.pending = append(j.pending, journalLine{Span: s})
	case j.rec.isOpen(s.ID):
		// A notice of an open span that arrives after the span ended
		// (observers are called outside the recording's lock) is stale.
		// Asking the recording, under j.mu, rather than remembering every
		// span that ended keeps a long run's journal small.
		if cur, ok := j.open[s.ID]; !ok || phasesReached(s) >= phasesReached(cur) {
			j.open[s.ID] = s
		}
	}
}

// phasesReached counts the phases of s that have a time: a later version
// of an open span never has fewer.
func phasesReached(s *Span) int {
	n := 0
	for _, d := range []time.Duration{s.Received, s.Queued, s.Serving, s.Answered} {
		if d != Unset {
			n++
		}
	}
	return n
}

// EventAdded implements [Observer]: it queues the event for writing.
func (j *Journal) EventAdded(e Event) {
	j.mu.Lock()
	if !j.closed {
		j.pending = append(j.pending, journalLine{Event: &e})
	}
	j.mu.Unlock()
}

func (j *Journal) loop() {
	defer close(j.done)
	t := time.NewTicker(JournalFlushInterval / 2)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
			j.flush(nil)
		}
	}
}

// flush writes the pending lines (and end, if not nil) to the file.
func (j *Journal) flush(end *time.Duration) error {
	j.mu.Lock()
	// Open spans first: a span that ended since is in pending, after them.
	lines := make([]journalLine, 0, len(j.open)+len(j.pending))
	for _, s := range j.open {
		lines = append(lines, journalLine{Span: s})
	}
	slices.SortFunc(lines, func(a, b journalLine) int { return cmp.Compare(a.Span.ID, b.Span.ID) })
	lines = append(lines, j.pending...)
	j.pending = nil
	clear(j.open)
	j.mu.Unlock()
	if meta := j.rec.metaJSON(); meta != nil && string(meta) != string(j.meta) {
		j.meta = meta
		var m Meta
		if json.Unmarshal(meta, &m) == nil {
			lines = append([]journalLine{{Meta: &m}}, lines...)
		}
	}
	lines = append(lines, j.exchangeLines(end != nil)...)
	if end != nil {
		lines = append(lines, journalLine{End: end})
	}
	if len(lines) == 0 {
		return nil
	}
	w := bufio.NewWriterSize(j.file, 64<<10)
	enc := newLineEncoder(w)
	var err error
	for _, l := range lines {
		if err = enc.encode(l); err != nil {
			break
		}
		w.WriteByte('\n')
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		j.mu.Lock()
		if j.err == nil {
			j.err = fmt.Errorf("journal %s: %w", j.path, err)
		}
		j.mu.Unlock()
	}
	return err
}

// Err returns the first error writing the journal, if any.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Close writes what is left, with an end mark, syncs and closes the file.
// The recording keeps calling the journal, which then ignores it. Close
// returns the first error the journal met.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return j.err
	}
	j.closed = true
	j.mu.Unlock()
	close(j.stop)
	<-j.done
	end := j.rec.Now()
	j.flush(&end)
	err := j.Err()
	if serr := j.file.Sync(); err == nil && serr != nil {
		err = serr
	}
	if cerr := j.file.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// metaJSON returns the recording's metadata as JSON.
func (r *Recording) metaJSON() []byte {
	r.mu.Lock()
	m := r.meta
	r.mu.Unlock()
	b, _ := json.Marshal(m)
	return b
}

// MakeJournalDir creates dir, and the folders above it, with
// [PrivateDirMode]. The [DefaultJournalDir] is the inspector's own: if it
// exists with wider permissions (made by an older version), they are
// narrowed to PrivateDirMode.
func MakeJournalDir(dir string) error {
	if err := os.MkdirAll(dir, PrivateDirMode); err != nil {
		return err
	}
	if filepath.Clean(dir) != DefaultJournalDir() {
		return nil
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm() != PrivateDirMode {
		return os.Chmod(dir, PrivateDirMode)
	}
	return nil
}

// DefaultJournalDir returns the folder journals go to when no path is
// given: fanout-inspector/journal in the user's cache folder
// (~/.cache on Linux, ~/Library/Caches on macOS, %LocalAppData% on
// Windows), or in the temporary folder when there is no cache folder.
func DefaultJournalDir() string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, "fanout-inspector", "journal")
}
