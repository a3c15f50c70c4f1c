package engine

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fanout-inspector/inspector/recorder"
)

// stderrLines turns what a stdio server writes to stderr into one event
// per line, within bounds whatever the server writes: a line longer than
// [MaxStderrLineLength] is cut there and marked, and of
// [Limits.MaxStderrLines] lines the first half are recorded as they come
// and a ring keeps the most recent half, recorded (with the times they
// were written) when the session ends, with one event counting the
// lines in between. Lines go on being counted past the bound; memory
// stays at most the ring's lines of at most MaxStderrLineLength bytes.
type stderrLines struct {
	rec  *recorder.Recording
	name string
	// emit is told of each event after it is recorded, or nil.
	emit func(recorder.Event)

	mu       sync.Mutex
	max      int   // lines kept in all
	lines    int64 // lines seen (a line cut at the length limit counts once)
	bytes    int64 // bytes seen
	live     int   // lines recorded as they came
	ring     []recorder.Event
	next     int  // where the ring's next line goes
	flushed  bool // the session ended: the ring and the count are recorded
	partial  []byte
	cut      bool // the current line was cut: drop the rest of it
	lastLine string
}

func newStderrLines(s *Session, max int) *stderrLines {
	return &stderrLines{rec: s.rec, name: s.name, emit: s.emitLog, max: max}
}

// StderrLog records what a process writes to stderr into rec as
// [recorder.EventStderr] events of session name, one per line, within
// the same bounds as a session's server (see [Limits.MaxStderrLines]):
// it is what the stdio proxy uses for its server. Write never fails;
// call Flush when the process has exited.
type StderrLog struct{ w *stderrLines }

// NewStderrLog returns a StderrLog keeping at most max lines (0: the
// default); emit, when not nil, is told of each event recorded.
func NewStderrLog(rec *recorder.Recording, name string, max int, emit func(recorder.Event)) *StderrLog {
	return &StderrLog{&stderrLines{rec: rec, name: name, emit: emit, max: Limits{MaxStderrLines: max}.maxStderrLines()}}
}

// Write records p's lines.
func (l *StderrLog) Write(p []byte) (int, error) { return l.w.Write(p) }

// Flush records the kept tail and the count of lines left out.
func (l *StderrLog) Flush() { l.w.flush() }

// Last is the last line written, for error messages.
func (l *StderrLog) Last() string { return l.w.last() }

func (w *stderrLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.bytes += int64(len(p))
	var emit []recorder.Event
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		chunk := rest
		if i >= 0 {
			chunk = rest[:i]
		}
		if !w.cut {
			room := MaxStderrLineLength - len(w.partial)
			if len(chunk) > room {
				// Too long: keep the start, mark it, drop the rest of the
				// line as it comes.
				for room > 0 && room < len(chunk) && !utf8.RuneStart(chunk[room]) {
					room-- // cut between characters, not inside one
				}
				w.partial = append(w.partial, chunk[:room]...)
				text := string(w.partial) + fmt.Sprintf(" … [line cut at %s]", FormatSize(MaxStderrLineLength))
				emit = w.take(text, emit)
				w.partial = w.partial[:0]
				w.cut = true
			} else {
				w.partial = append(w.partial, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !w.cut {
			emit = w.take(strings.TrimRight(string(w.partial), "\r"), emit)
		}
		w.partial = w.partial[:0]
		w.cut = false
		rest = rest[i+1:]
	}
	w.mu.Unlock()
	w.record(emit)
	return len(p), nil
}

// take counts a whole line and returns emit with its event added when it
// is recorded at once; otherwise the ring keeps it. Call with w.mu held.
func (w *stderrLines) take(line string, emit []recorder.Event) []recorder.Event {
	w.lines++
	w.lastLine = line
	ev := recorder.Event{At: w.rec.Now(), Session: w.name, Kind: recorder.EventStderr, Text: line}
	switch {
	case w.live < w.max-w.max/2:
		w.live++
		return append(emit, ev)
	case w.flushed || w.max/2 == 0:
		return emit // after the session ended, only counted
	}
	if len(w.ring) < w.max/2 {
		w.ring = append(w.ring, ev)
	} else {
		w.ring[w.next] = ev
	}
	w.next = (w.next + 1) % (w.max / 2)
	return emit
}

// flush records what the ring kept and, when lines were dropped, one
// event counting them. The session calls it when it ends; lines written
// after that are only counted.
func (w *stderrLines) flush() {
	if w == nil {
		return
	}
	w.mu.Lock()
	if w.flushed {
		w.mu.Unlock()
		return
	}
	var emit []recorder.Event
	if len(w.partial) > 0 && !w.cut { // a last line without a newline
		emit = w.take(string(w.partial), emit)
	}
	w.partial = nil
	w.flushed = true
	var ring []recorder.Event
	for i := range w.ring { // oldest first
		ring = append(ring, w.ring[(w.next+i)%len(w.ring)])
	}
	if len(w.ring) < w.max/2 {
		ring = w.ring // not yet wrapped: in order already
	}
	if dropped := w.lines - int64(w.live) - int64(len(ring)); dropped > 0 {
		at := w.rec.Now()
		if len(ring) > 0 {
			at = ring[0].At // where the lines not recorded were
		}
		emit = append(emit, recorder.Event{At: at, Session: w.name, Kind: recorder.EventStderr,
			Text: fmt.Sprintf("stderr: %s lines (%s), first %s and last %s kept (--max-stderr-lines %s); the %s in between were counted, not recorded",
				groupDigits(w.lines), FormatSize(w.bytes), groupDigits(int64(w.live)), groupDigits(int64(len(ring))),
				groupDigits(int64(w.max)), groupDigits(dropped))})
	}
	emit = append(emit, ring...)
	w.ring = nil
	w.mu.Unlock()
	w.record(emit)
}

func (w *stderrLines) record(evs []recorder.Event) {
	for _, ev := range evs {
		w.rec.AddEvent(ev)
		if w.emit != nil {
			w.emit(ev)
		}
	}
}

// last is the last line the server wrote to stderr, for error messages.
func (w *stderrLines) last() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		return string(w.partial)
	}
	return w.lastLine
}
