package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// tapRoundTripper taps the messages of the HTTP transports (streamable
// HTTP and legacy SSE) below the SDK: each POST body is a message the
// client writes, and each response body (one JSON message, or a stream of
// server-sent events whose data lines are messages) carries what the
// client reads. Wrapping the transports' connection instead would hide
// the streamable connection's SDK-internal session hook, so that it would
// never open its server-to-client event stream.
//
// It also adds the target's extra headers to every request, and bounds
// what it reads: a JSON body, and each event of an event stream, to limit
// bytes (the stream itself may live as long as the session).
type tapRoundTripper struct {
	base    http.RoundTripper
	headers map[string]string
	obs     wireObserver // nil: headers only
	limit   int64        // the message limit (see Limits.MaxMessageSize)
	// connecting, when set, returns a context that ends when connecting
	// is given up, while the session is connecting, and nil once it is up.
	connecting func() context.Context

	mu sync.Mutex
	// postURL and postHeader are those of the last POST that carried a
	// message: where the tap posts an answer of its own (see
	// [tapRoundTripper.answer]); postURL is "" until then.
	postURL    string
	postHeader http.Header
}

func (h *tapRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	if h.obs == nil {
		return h.base.RoundTrip(r)
	}
	var sent jsonrpc.Message
	if r.Method == http.MethodPost && r.GetBody != nil {
		if body, err := r.GetBody(); err == nil {
			data, _ := io.ReadAll(body)
			body.Close()
			if msg, err := jsonrpc.DecodeMessage(data); err == nil {
				sent = msg
				h.remember(r)
				h.obs.writing(r.Context(), msg)
			}
		}
	}
	resp, err := h.roundTrip(r)
	var status *HTTPStatusError
	if err == nil && resp.StatusCode >= 300 {
		status = &HTTPStatusError{Code: resp.StatusCode, Status: resp.Status}
		if resp.StatusCode >= 400 {
			h.obs.httpFailed(status)
		}
	}
	if sent != nil {
		werr := err
		if status != nil {
			werr = status
		}
		h.obs.written(r.Context(), sent, werr)
	}
	if err != nil && isCall(sent) && r.Context().Err() == nil {
		// The server could not be reached, or went away before it
		// answered: the SDK fails the call and keeps the session.
		h.obs.httpFailed(&streamBrokenError{err})
	}
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "text/event-stream":
		body := &sseTapBody{tap: h, ctx: r.Context(), rc: resp.Body, r: bufio.NewReaderSize(resp.Body, 64<<10), limit: h.limit}
		body.from = h.streamSource(r, sent, body)
		resp.Body = body
	case "application/json":
		data, rerr := readLimited(resp.Body, h.limit, resp.ContentLength)
		resp.Body.Close()
		var tooLarge *MessageTooLargeError
		if errors.As(rerr, &tooLarge) {
			h.obs.readFailed(tooLarge)
			return nil, tooLarge
		}
		if rerr != nil && isCall(sent) && r.Context().Err() == nil {
			h.obs.httpFailed(&streamBrokenError{rerr})
		}
		if msg, derr := jsonrpc.DecodeMessage(data); rerr == nil && derr == nil {
			msg = h.handOn(h.obs.messageRead(msg, h.streamSource(r, sent, nil)))
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				if enc, err := jsonrpc.EncodeMessage(req); err == nil {
					data = enc
				}
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
	}
	return resp, nil
}

// streamSource says where the messages of the response to r come from:
// the response to a POST that carried a client request (sent) belongs to
// that request, whose server requests the server sends on it (the Go
// SDK's and the TypeScript SDK's streamable servers send the requests a
// tool call makes on that call's stream); an event stream the client
// opened with a GET belongs to no request, unless it resumes (with
// Last-Event-ID) a stream whose owner it cannot tell.
//
// The tap can answer a message itself (a duplicate request) once it has
// seen a POST to copy (see [tapRoundTripper.answer]).
func (h *tapRoundTripper) streamSource(r *http.Request, sent jsonrpc.Message, stream any) wireSource {
	h.mu.Lock()
	from := wireSource{stream: stream, canAnswer: h.postURL != ""}
	h.mu.Unlock()
	if req, ok := sent.(*jsonrpc.Request); ok && req.IsCall() {
		from.replyTo = req.ID
	}
	from.standalone = r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == ""
	return from
}

// roundTrip makes the request. While the session is connecting, the
// request ends when connecting is given up (timeout or interrupt): the SDK
// makes its requests with contexts the giving up does not reach, so a
// server that never answers would otherwise keep them open for good.
func (h *tapRoundTripper) roundTrip(r *http.Request) (*http.Response, error) {
	var bound context.Context
	if h.connecting != nil {
		bound = h.connecting()
	}
	if bound == nil {
		return h.base.RoundTrip(r)
	}
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(bound, cancel)
	release := func() {
		stop()
		cancel()
	}
	resp, err := h.base.RoundTrip(r.WithContext(ctx))
	if err != nil || resp.Body == nil {
		release()
		return resp, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// releasingBody calls release when it is closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// isCall reports whether msg is a request that awaits an answer.
func isCall(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && req.IsCall()
}

// sseTapBody passes a server-sent event stream through line by line,
// handing each JSON-RPC message in a data line to the tap as the SDK
// reads it (and rewriting server requests, whose params get the tap's
// _meta key). An event (its lines up to the blank line that ends it)
// longer than limit ends the stream with a [MessageTooLargeError] and
// the session with it. A call's stream that breaks off (a read error
// other than its end) before the call's answer, with no event id to
// resume it from, is reported as a [streamBrokenError]: the SDK would
// take it for a stream the server ended, and keep the session.
type sseTapBody struct {
	tap   *tapRoundTripper
	ctx   context.Context // the request's: ended when the client gives up on it
	rc    io.ReadCloser
	r     *bufio.Reader
	limit int64
	from  wireSource // where its messages come from
	event int64      // bytes of the current event so far
	line  []byte
	out   []byte
	err   error
	// resumable: an event carried an id, from which the SDK resumes the
	// stream if it breaks.
	resumable bool
	closed    atomic.Bool // by the client
}

func (b *sseTapBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		line, err := b.readLine()
		if bytes.HasPrefix(line, []byte("id:")) && len(bytes.TrimSpace(line[len("id:"):])) > 0 {
			b.resumable = true
		}
		if len(line) > 0 {
			b.out = b.tap.sseLine(line, b.from)
		}
		if err != nil {
			b.err = err
			b.failed(err)
		}
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

func (b *sseTapBody) Close() error {
	b.closed.Store(true)
	return b.rc.Close()
}

// failed tells the tap's observer why reading the stream failed, when
// that means more than the stream's end: a message over the limit, or a
// call's stream broken off with nothing to resume it from.
func (b *sseTapBody) failed(err error) {
	if e, ok := err.(*MessageTooLargeError); ok {
		b.tap.obs.readFailed(e)
		return
	}
	if errors.Is(err, io.EOF) || !b.from.replyTo.IsValid() || b.resumable || b.closed.Load() || b.ctx.Err() != nil {
		return
	}
	b.tap.obs.httpFailed(&streamBrokenError{err})
}

// readLine reads one line of the stream, newline included, counting it
// into the current event and failing once the event passes the limit.
func (b *sseTapBody) readLine() ([]byte, error) {
	b.line = b.line[:0]
	for {
		frag, err := b.r.ReadSlice('\n')
		b.event += int64(len(frag))
		if b.event > b.limit {
			return nil, &MessageTooLargeError{What: "server-sent event", Limit: b.limit, Read: b.event, Announced: -1}
		}
		b.line = append(b.line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(bytes.TrimRight(b.line, "\r\n")) == 0 {
			b.event = 0 // a blank line ends the event
		}
		return b.line, err
	}
}

// sseLine taps one line of an event stream and returns it, rewritten if
// it carried a server request. from says which event stream it came on.
func (h *tapRoundTripper) sseLine(line []byte, from wireSource) []byte {
	if !bytes.HasPrefix(line, []byte("data:")) {
		return line
	}
	payload := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
	payload = bytes.TrimRight(payload, "\r\n")
	if len(payload) == 0 || payload[0] != '{' {
		return line
	}
	msg, err := jsonrpc.DecodeMessage(payload)
	if err != nil {
		if h.obs.unreadable(err, payload) {
			// The SDK would end the session on it: pass on an event
			// without data, which the SDK skips.
			return nil
		}
		return line
	}
	msg = h.handOn(h.obs.messageRead(msg, from))
	if msg == nil {
		return nil // skipped: an event without data, which the SDK skips
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return line
	}
	enc, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return line
	}
	out := make([]byte, 0, len(enc)+8)
	out = append(out, "data: "...)
	out = append(out, enc...)
	return append(out, '\n')
}

// handOn returns the message v delivers, which the SDK is handed at once:
// over HTTP nothing is held back (dispatch inline is refused there, see
// [ErrInlineOverHTTP]). An answer of the tap's own is posted aside.
func (h *tapRoundTripper) handOn(v readVerdict) jsonrpc.Message {
	if v.answer != nil {
		go h.answer(v.answer)
	}
	if v.seen != nil {
		v.seen(false)
	}
	return v.deliver
}

// remember keeps where r, a POST carrying a message, went and with which
// headers (the session's id, the protocol version, credentials), for
// [tapRoundTripper.answer].
func (h *tapRoundTripper) remember(r *http.Request) {
	h.mu.Lock()
	if h.postURL == "" || h.postURL != r.URL.String() || r.Header.Get("Mcp-Session-Id") != h.postHeader.Get("Mcp-Session-Id") {
		h.postURL, h.postHeader = r.URL.String(), r.Header.Clone()
	}
	h.mu.Unlock()
}

// answerTimeout bounds posting an answer of the tap's own.
const answerTimeout = 30 * time.Second

// answer posts resp, an answer the tap writes itself (the refusal of a
// duplicate request, which never reaches the SDK), as the client's last
// POST was made, below the tap: the observer does not see it, as it does
// not see the answers the stdio tap writes. A failure to post it shows
// on the next request of the session, if the server is gone.
func (h *tapRoundTripper) answer(resp *jsonrpc.Response) {
	h.mu.Lock()
	url, header := h.postURL, h.postHeader
	h.mu.Unlock()
	body, err := jsonrpc.EncodeMessage(resp)
	if err != nil || url == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header = header.Clone()
	res, err := h.base.RoundTrip(req)
	if err != nil {
		return
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16)) //nolint:errcheck // only drained
	res.Body.Close()
}
