package engine

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"

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
// It also adds the target's extra headers to every request.
type tapRoundTripper struct {
	base    http.RoundTripper
	headers map[string]string
	tap     *wireTap // nil: headers only
}

func (h *tapRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	if h.tap == nil {
		return h.base.RoundTrip(r)
	}
	var sent jsonrpc.Message
	if r.Method == http.MethodPost && r.GetBody != nil {
		if body, err := r.GetBody(); err == nil {
			data, _ := io.ReadAll(body)
			body.Close()
			if msg, err := jsonrpc.DecodeMessage(data); err == nil {
				sent = msg
				h.tap.beforeWrite(r.Context(), msg)
			}
		}
	}
	resp, err := h.base.RoundTrip(r)
	if sent != nil {
		werr := err
		if werr == nil && resp.StatusCode >= 300 {
			werr = &httpStatusError{resp.Status}
		}
		h.tap.afterWrite(sent, werr)
	}
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "text/event-stream":
		resp.Body = &sseTapBody{tap: h.tap, rc: resp.Body, r: bufio.NewReaderSize(resp.Body, 64<<10)}
	case "application/json":
		data, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if msg, derr := jsonrpc.DecodeMessage(data); rerr == nil && derr == nil {
			h.tap.read(msg)
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

type httpStatusError struct{ status string }

func (e *httpStatusError) Error() string { return "HTTP " + e.status }

// sseTapBody passes a server-sent event stream through line by line,
// handing each JSON-RPC message in a data line to the tap as the SDK
// reads it (and rewriting server requests, whose params get the tap's
// _meta key).
type sseTapBody struct {
	tap *wireTap
	rc  io.ReadCloser
	r   *bufio.Reader
	out []byte
	err error
}

func (b *sseTapBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		line, err := b.r.ReadBytes('\n')
		if len(line) > 0 {
			b.out = b.tap.sseLine(line, b)
		}
		if err != nil {
			b.err = err
		}
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

func (b *sseTapBody) Close() error { return b.rc.Close() }

// sseLine taps one line of an event stream and returns it, rewritten if
// it carried a server request. stream is the event stream it came on.
func (t *wireTap) sseLine(line []byte, stream any) []byte {
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
		if isIDlessResponse(err) {
			// The SDK would end the session on it: record it and pass on
			// an event without data, which the SDK skips.
			t.protocolError(idlessText, payload)
			return nil
		}
		return line
	}
	t.readFrom(msg, stream)
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
