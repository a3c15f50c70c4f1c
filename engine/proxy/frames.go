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
// newline-delimited message that crossed to the book, timed when the
// read that completed it returned, before passing the read on. It returns the error that ended it:
// nil when src ended, a *writeError when dst refused a write.
func pump(src io.Reader, dst io.Writer, side Side, b *Book, rec *recorder.Recording, limit int64) error {
	buf := make([]byte, readBuffer)
	f := framer{side: side, book: b, rec: rec, limit: limit}
	for {
		n, err := src.Read(buf)
		if n > 0 {
			// Recorded before it is passed on: the other side may answer
			// within microseconds, and its answer, read on the other
			// pump, must find the request in the book.
			f.feed(buf[:n], rec.Now())
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return &writeError{side: side, err: werr}
			}
		}
		if err == io.EOF {
			f.end(rec.Now())
			return nil
		}
		if err != nil {
			f.end(rec.Now())
			return err
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
	rec     *recorder.Recording
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
