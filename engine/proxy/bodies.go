package proxy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// The HTTP proxy reads each POST body whole before it passes it on (to
// record it), up to --max-message-size. What it holds at once is
// bounded: a POST first takes its size (its Content-Length, or the
// limit when it has none) from a budget shared by all requests, and
// gives it back once the upstream has read the body. A POST that finds
// the budget spent waits, up to BodyWait, then gets 503 with a JSON-RPC
// error that says so.
const (
	// BodyBudget is the most bytes of POST bodies the proxy holds at once
	// (or twice the message limit plus one, when that is more).
	BodyBudget = 64 << 20
	// BodyWait is how long a POST waits for room in the budget.
	BodyWait = 30 * time.Second
)

// bodyBudget is the proxy's budget of POST body bytes.
type bodyBudget struct {
	once sync.Once
	size int64
	sem  *semaphore.Weighted
}

// take reserves room for r's body, up to limit+1 bytes, and returns how
// much (the most the caller may read) and the function that gives it
// back (safe to call more than once). ok is false when r was answered:
// no room in time (503), or the client went away.
func (b *bodyBudget) take(p *HTTP, w http.ResponseWriter, r *http.Request) (want int64, give func(int64), ok bool) {
	b.once.Do(func() {
		b.size = max(BodyBudget, 2*(p.limit+1))
		b.sem = semaphore.NewWeighted(b.size)
	})
	want = p.limit + 1
	if r.ContentLength >= 0 && r.ContentLength < want {
		want = r.ContentLength + 1 // +1: the read that sees the end
	}
	if !b.sem.TryAcquire(want) && !b.wait(p, w, r, want) {
		return 0, nil, false
	}
	var mu sync.Mutex
	held := want
	give = func(n int64) { // gives back n bytes (-1: all still held)
		mu.Lock()
		defer mu.Unlock()
		if n < 0 || n > held {
			n = held
		}
		if n > 0 {
			held -= n
			b.sem.Release(n)
		}
	}
	return want, give, true
}

// wait waits up to BodyWait for room for want bytes, and reports whether
// it got it; when not, r was answered (503), or the client went away.
func (b *bodyBudget) wait(p *HTTP, w http.ResponseWriter, r *http.Request, want int64) bool {
	ctx, cancel := context.WithTimeout(r.Context(), BodyWait)
	defer cancel()
	if err := b.sem.Acquire(ctx, want); err != nil {
		if r.Context().Err() != nil {
			return false // nobody to answer
		}
		p.book.protocolEvent(p.rec.Now(), fmt.Sprintf("a POST of %d bytes waited %v for room among the bodies in flight (%d MiB at most) and was refused with 503",
			r.ContentLength, BodyWait, b.size>>20))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"inspector proxy: too many large requests at once: the proxy holds at most %d MiB of request bodies and waited %v for room; retry later"}}`+"\n",
			b.size>>20, BodyWait)
		return false
	}
	return true
}

// heldBody is a POST body the proxy read, on its way upstream: once the
// upstream has read it all (or it is closed), it lets go of the bytes
// and gives their room back.
type heldBody struct {
	mu   sync.Mutex
	data []byte
	give func(int64)
}

func (h *heldBody) Read(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.data) == 0 {
		h.drop()
		return 0, io.EOF
	}
	n := copy(b, h.data)
	h.data = h.data[n:]
	return n, nil
}

func (h *heldBody) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop()
	return nil
}

func (h *heldBody) drop() {
	h.data = nil
	h.give(-1)
}

// readHeld reads up to want bytes of body, in a buffer of that size
// when want comes from the body's known length (exact), and gives back
// the room it did not use.
func readHeld(body io.Reader, want int64, exact bool, give func(int64)) ([]byte, error) {
	var buf []byte
	var err error
	if exact {
		buf = make([]byte, want)
		var n int
		n, err = io.ReadFull(body, buf)
		buf = buf[:n]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = nil
		}
	} else {
		buf, err = io.ReadAll(io.LimitReader(body, want))
	}
	give(want - int64(len(buf)))
	return buf, err
}
