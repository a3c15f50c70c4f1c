package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
)

// An ExchangeTap records every HTTP request of a session and what came
// back as a [recorder.Exchange]: method, URL, status, headers, the bodies
// (bounded) and an event stream's events as they arrive. It sits at the
// bottom of the session's HTTP client, below the credentials
// ([Target.HTTPAuth]), so that it sees each request as it is sent; the
// recording masks the secrets in what it is given
// ([recorder.Recording.AddExchange]). It only reports what it saw: the
// requests and bodies it passes on are those it was handed. Whoever ends
// the traffic calls [ExchangeTap.CloseOpen] as it ends.
type ExchangeTap struct {
	base    http.RoundTripper
	rec     *recorder.Recording
	session string

	mu   sync.Mutex
	open map[*exchangeBody]struct{} // response bodies not ended yet
}

// RecordExchanges returns a tap that sends each request through base and
// records it, and what came back, into rec as a [recorder.Exchange]
// labelled session: the one tap through which every face that talks HTTP
// to an MCP server (a session, the proxy) shows its traffic. rec masks
// the credentials in what it is given.
func RecordExchanges(base http.RoundTripper, rec *recorder.Recording, session string) *ExchangeTap {
	return &ExchangeTap{base: base, rec: rec, session: session}
}

func (t *ExchangeTap) RoundTrip(r *http.Request) (*http.Response, error) {
	x := recorder.Exchange{
		Session: t.session, Method: r.Method, URL: r.URL.String(),
		Sent: t.rec.Now(), Responded: recorder.Unset, Ended: recorder.Unset,
		RequestHeaders: headerList(r.Header),
	}
	var sent *requestBody
	switch {
	case r.Body == nil || r.Body == http.NoBody:
	case r.GetBody != nil:
		if body, err := r.GetBody(); err == nil {
			data, _ := io.ReadAll(io.LimitReader(body, recorder.MaxExchangeBody+1))
			body.Close()
			x.RequestBody, x.RequestBytes = string(data), int64(len(data))
			if r.ContentLength > 0 {
				x.RequestBytes = r.ContentLength
			}
		}
	default:
		// A body that can be read once (a proxied client's): keep its
		// first bytes as the transport sends it.
		sent = &requestBody{ReadCloser: r.Body}
		r = r.WithContext(r.Context()) // a shallow copy: RoundTrip leaves r as it was
		r.Body = sent
	}
	resp, err := t.base.RoundTrip(r)
	if sent != nil {
		// Sent by now, but for a body still streaming: what went so far.
		x.RequestBody, x.RequestBytes = sent.kept()
	}
	x.RPC = rpcOf([]byte(x.RequestBody))
	if err != nil {
		x.Error, x.Ended = err.Error(), t.rec.Now()
		t.rec.AddExchange(x)
		return resp, err
	}
	x.Status, x.Responded, x.ResponseHeaders = resp.StatusCode, t.rec.Now(), headerList(resp.Header)
	id := t.rec.AddExchange(x)
	if resp.Body == nil {
		t.rec.EndExchange(id, recorder.ExchangeEnd{At: t.rec.Now()})
		return resp, nil
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	body := &exchangeBody{ReadCloser: resp.Body, tap: t, id: id, stream: media == "text/event-stream"}
	t.mu.Lock()
	if t.open == nil {
		t.open = map[*exchangeBody]struct{}{}
	}
	t.open[body] = struct{}{}
	t.mu.Unlock()
	resp.Body = body
	return resp, nil
}

// CloseOpen closes the response bodies not ended yet, ending their
// exchanges now. A session calls it as it closes, the proxy as it stops:
// the SDK cancels its event streams as it closes, and the HTTP server its
// handlers as it stops, but the bodies are closed in goroutines that may
// run after the session or proxy said it had ended, and after the journal
// was closed and the recording saved, which would then disagree about
// the streams' ends.
func (t *ExchangeTap) CloseOpen() {
	t.mu.Lock()
	open := make([]*exchangeBody, 0, len(t.open))
	for b := range t.open {
		open = append(open, b)
	}
	t.mu.Unlock()
	for _, b := range open {
		b.Close()
	}
}

// requestBody keeps the first bytes of a request body as it is read.
type requestBody struct {
	io.ReadCloser
	mu    sync.Mutex
	head  []byte
	bytes int64
}

func (b *requestBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	b.bytes += int64(n)
	if room := recorder.MaxExchangeBody - len(b.head); room > 0 {
		b.head = append(b.head, p[:min(n, room)]...)
	}
	b.mu.Unlock()
	return n, err
}

// kept returns the body's first bytes and how many were read.
func (b *requestBody) kept() (string, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.head), b.bytes
}

// headerList is h as a list, sorted by name (net/http keeps headers in a
// map), a value a line.
func headerList(h http.Header) []recorder.Header {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []recorder.Header
	for _, name := range names {
		for _, v := range h[name] {
			out = append(out, recorder.Header{Name: name, Value: v})
		}
	}
	return out
}

// rpcOf names what a posted body carried: the JSON-RPC method of a
// request or notification, "response" for an answer, "batch" for a
// batch, "" for anything else. Every body the HTTP proxy and client pass
// is named this way, so its members are read in one pass
// ([wire.Members]).
func rpcOf(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		return "batch"
	}
	var method string
	var answered bool
	valid := wire.Members(body, func(name, value []byte, _ int) bool {
		switch string(name) {
		case "method":
			method, _ = wire.String(value)
		case "result", "error":
			answered = true // null included, as a decoder keeps it
		}
		return true
	})
	switch {
	case !valid:
		return ""
	case method != "":
		return method
	case answered:
		return "response"
	}
	return ""
}

// exchangeBody passes a response body through, keeping its first bytes
// (or, for an event stream, its events) for the exchange, which it ends
// when the body reaches its end, breaks off, or is closed.
type exchangeBody struct {
	io.ReadCloser
	tap    *ExchangeTap
	id     recorder.ExchangeID
	stream bool

	mu    sync.Mutex // Read and Close may come from two goroutines
	kept  []byte     // a JSON body's first bytes
	bytes int64
	line  []byte // an event stream's line so far
	event sseEvent
	ended bool
}

// maxEventLine bounds a line of an event stream kept while it is parsed;
// the rest of a longer line is counted, not kept.
const maxEventLine = recorder.MaxExchangeEventBytes + 1

// sseEvent is an event of a stream being parsed.
type sseEvent struct {
	id, name string
	data     []string
	size     int // of data
	any      bool
}

func (b *exchangeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return n, err
	}
	b.bytes += int64(n)
	if b.stream {
		b.scan(p[:n])
	} else if room := recorder.MaxExchangeBody - len(b.kept); room > 0 {
		b.kept = append(b.kept, p[:min(n, room)]...)
	}
	if err != nil {
		why := ""
		if err != io.EOF && !errors.Is(err, context.Canceled) { // the client's own giving up is no failure
			why = err.Error()
		}
		b.endLocked(why)
	}
	return n, err
}

func (b *exchangeBody) Close() error {
	err := b.ReadCloser.Close()
	b.mu.Lock()
	b.endLocked("")
	b.mu.Unlock()
	return err
}

// endLocked ends the exchange, once.
func (b *exchangeBody) endLocked(why string) {
	if b.ended {
		return
	}
	b.ended = true
	if b.stream {
		b.dispatch() // an event the stream ended without its blank line
	}
	rec := b.tap.rec
	rec.EndExchange(b.id, recorder.ExchangeEnd{At: rec.Now(), Body: string(b.kept), Bytes: b.bytes, Error: why})
	b.tap.mu.Lock()
	delete(b.tap.open, b)
	b.tap.mu.Unlock()
}

// scan parses event stream bytes line by line.
func (b *exchangeBody) scan(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.line = appendBounded(b.line, p)
			return
		}
		b.line = appendBounded(b.line, p[:i])
		p = p[i+1:]
		b.field(strings.TrimSuffix(string(b.line), "\r"))
		b.line = b.line[:0]
	}
}

func appendBounded(line, p []byte) []byte {
	return append(line, p[:min(len(p), max(maxEventLine-len(line), 0))]...)
}

// field takes one line of an event stream: a field of the event, or the
// blank line that ends it.
func (b *exchangeBody) field(line string) {
	if line == "" {
		b.dispatch()
		return
	}
	if strings.HasPrefix(line, ":") {
		return // a comment
	}
	name, value, _ := strings.Cut(line, ":")
	value = strings.TrimPrefix(value, " ")
	b.event.any = true
	switch name {
	case "id":
		b.event.id = value
	case "event":
		b.event.name = value
	case "data":
		if b.event.size <= recorder.MaxExchangeEventBytes {
			b.event.data = append(b.event.data, value)
			b.event.size += len(value) + 1
		}
	}
}

// dispatch adds the event parsed so far to the exchange.
func (b *exchangeBody) dispatch() {
	if !b.event.any {
		return
	}
	data := strings.Join(b.event.data, "\n")
	b.tap.rec.AddExchangeEvent(b.id, recorder.StreamEvent{At: b.tap.rec.Now(), ID: b.event.id, Event: b.event.name, Data: data})
	b.event = sseEvent{}
}
