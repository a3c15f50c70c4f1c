package proxy

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// readBuffer is how much one read of a stream takes at most. Bytes are
// passed on as they are read, so it bounds nothing but a syscall.
const readBuffer = 64 << 10

// pump copies src to dst unchanged, a read at a time, and hands each
// read to k, timed when the read returned, before passing it on. It
// returns the error that ended it: nil when src ended, a *writeError
// when dst refused a write.
//
// Handing a read over is all the pump does on the message's way: the
// parsing and the bookkeeping happen on k's goroutine while the message
// travels, so the proxy adds a copy and a channel send to a round trip,
// not the reading of two messages. Handed over before it is passed on,
// a request is in k's queue before its server can have read it, and so
// before the answer, which the other pump reads later and queues behind
// it: k books every answer after the request it answers.
func pump(src io.Reader, dst io.Writer, side Side, k *bookkeeper, rec *recorder.Recording) error {
	buf := make([]byte, readBuffer)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			k.hand(side, buf[:n], rec.Now())
			if _, werr := dst.Write(buf[:n]); werr != nil {
				k.ended(side, rec.Now())
				return &writeError{side: side, err: werr}
			}
		}
		if err != nil {
			k.ended(side, rec.Now())
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// keeperDepth is how many reads the pumps may hand over ahead of the
// bookkeeper's recording them: at most keeperDepth × readBuffer bytes
// (16 MiB) wait in memory. A pump that finds the queue full waits for
// the bookkeeper, which waits on nothing but the book, so the proxy
// slows down rather than grows and never deadlocks on it.
const keeperDepth = 256

// bookkeeper records, on a goroutine of its own, the reads both pumps of
// a stdio proxy hand it, in the order they were handed over: it cuts
// each side's stream into messages (a framer per side) and gives them to
// the book.
type bookkeeper struct {
	reads   chan handed
	framers [2]framer     // by Side
	stopped chan struct{} // closed when both streams have ended and are recorded
}

// handed is a read of one side's stream, a stream's end, or a request
// to say when everything handed over before it is recorded.
type handed struct {
	side    Side
	p       []byte        // a copy of the read
	at      time.Duration // when the read returned
	eof     bool          // the side's stream ended (or could not be passed on) at at
	flushed chan struct{} // closed once the reads before it are recorded
}

// newBookkeeper starts the bookkeeper of book. Its goroutine ends once
// both sides' streams have ended; a side that never ends (a client
// whose stdin stays open after its server exited) leaves it parked, as
// it leaves that side's pump blocked in its read.
func newBookkeeper(book *Book, limit int64) *bookkeeper {
	k := &bookkeeper{reads: make(chan handed, keeperDepth), stopped: make(chan struct{})}
	for s := range k.framers {
		k.framers[s] = framer{side: Side(s), book: book, limit: limit}
	}
	go k.run()
	return k
}

// hand queues a copy of p, read from side's stream at at.
func (k *bookkeeper) hand(side Side, p []byte, at time.Duration) {
	k.reads <- handed{side: side, p: bytes.Clone(p), at: at}
}

// ended queues the end of side's stream at at.
func (k *bookkeeper) ended(side Side, at time.Duration) {
	k.reads <- handed{side: side, at: at, eof: true}
}

// flush returns once everything handed over before the call is in the
// book.
func (k *bookkeeper) flush() {
	done := make(chan struct{})
	select {
	case k.reads <- handed{flushed: done}:
	case <-k.stopped:
		return
	}
	select {
	case <-done:
	case <-k.stopped:
	}
}

func (k *bookkeeper) run() {
	defer close(k.stopped)
	var ended [2]bool
	for h := range k.reads {
		if h.flushed != nil {
			close(h.flushed)
			continue
		}
		f := &k.framers[h.side]
		f.feed(h.p, h.at)
		if h.eof && !ended[h.side] {
			ended[h.side] = true
			f.end(h.at)
			if ended[FromClient] && ended[FromServer] {
				return
			}
		}
	}
}

// writeError is a peer that stopped reading: the proxy could not pass a
// message on to it.
type writeError struct {
	side Side // who wrote the message that could not be passed on
	err  error
}

func (e *writeError) Error() string {
	to := "server"
	if e.side == FromServer {
		to = "client"
	}
	return fmt.Sprintf("the %s stopped reading (%v)", to, e.err)
}

func (e *writeError) Unwrap() error { return e.err }

// framer cuts a stream into its newline-delimited messages for the
// book. A message longer than the limit is passed on (the proxy never
// changes a byte) but not recorded: the framer keeps at most limit bytes
// of one message in memory.
type framer struct {
	side    Side
	book    *Book
	limit   int64
	partial []byte
	over    int64 // bytes of the current message past the limit, while skipping it
}

func (f *framer) feed(p []byte, at time.Duration) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		switch {
		case f.over > 0:
			f.over += int64(len(chunk))
		case int64(len(f.partial)+len(chunk)) > f.limit:
			f.over = int64(len(f.partial) + len(chunk))
			f.partial = f.partial[:0]
		case i >= 0 && len(f.partial) == 0:
			f.book.Message(f.side, chunk, at, Stream{}) // whole in this read: no copy
		default:
			f.partial = append(f.partial, chunk...)
		}
		if i < 0 {
			return
		}
		f.complete(at)
		p = p[i+1:]
	}
}

// complete ends the current message at a newline.
func (f *framer) complete(at time.Duration) {
	if f.over > 0 {
		f.book.protocolEvent(at, fmt.Sprintf("the %s wrote a message of at least %s, over --max-message-size %s: passed on unchanged, not recorded",
			f.side, engine.FormatSize(f.over), engine.FormatSize(f.limit)))
		f.over = 0
		return
	}
	if len(f.partial) > 0 {
		f.book.Message(f.side, f.partial, at, Stream{})
		f.partial = f.partial[:0]
	}
}

// end records a last message without its newline, if the stream ended
// inside one.
func (f *framer) end(at time.Duration) {
	if f.over > 0 || len(f.partial) > 0 {
		f.complete(at)
	}
}
