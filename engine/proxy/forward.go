package proxy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// forward passes a client's request to the upstream and the upstream's
// response back, as httputil.ReverseProxy does with Rewrite set and
// every write flushed (hop-by-hop headers, the Forwarded and
// X-Forwarded-* headers dropped, 1xx responses and trailers passed on, a
// response that breaks off aborted), minus what that costs each request
// on the way: a goroutine started to flush the response headers on
// their own, a 32 KiB copy buffer allocated, two copies of the request.
// The response headers go out with the first bytes of the body, or on
// their own when the body has not begun within headerDelay. A request
// to switch protocols (WebSocket) goes through the standard library's
// proxy.
func (p *HTTP) forward(w http.ResponseWriter, r *http.Request, ex *exchange) {
	if upgradeType(r.Header) != "" {
		p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
		return
	}
	var (
		mu   sync.Mutex
		done bool // RoundTrip returned: the headers are the response's now
	)
	trace := &httptrace.ClientTrace{
		Got1xxResponse: func(code int, header textproto.MIMEHeader) error {
			mu.Lock()
			defer mu.Unlock()
			if done {
				return nil
			}
			h := w.Header()
			copyHeader(h, http.Header(header))
			w.WriteHeader(code)
			clear(h) // WriteHeader keeps a 1xx's headers
			return nil
		},
	}
	out := p.outbound(r, httptrace.WithClientTrace(r.Context(), trace))
	resp, err := p.transport.RoundTrip(out)
	mu.Lock()
	done = true
	mu.Unlock()
	if err != nil {
		p.failed(w, out, ex, err)
		return
	}
	if resp.StatusCode == http.StatusSwitchingProtocols { // none was asked for
		resp.Body.Close()
		p.failed(w, out, ex, fmt.Errorf("backend tried to switch protocol %q when none was requested", upgradeType(resp.Header)))
		return
	}
	removeHopByHopHeaders(resp.Header)
	p.tap(resp, ex, out.URL)
	h := w.Header()
	for k, vs := range resp.Header {
		if _, ok := h[k]; ok {
			h[k] = append(h[k], vs...)
		} else {
			h[k] = slices.Clip(vs)
		}
	}
	announced := len(resp.Trailer)
	if announced > 0 {
		keys := make([]string, 0, announced)
		for k := range resp.Trailer {
			keys = append(keys, k)
		}
		h.Add("Trailer", strings.Join(keys, ", "))
	}
	w.WriteHeader(resp.StatusCode)
	if resp.Body == http.NoBody {
		return // nothing to wait for: the server sends the headers as the handler returns
	}
	if err := copyBody(w, resp.Body); err != nil {
		defer resp.Body.Close()
		if r.Context().Value(http.ServerContextKey) != nil {
			// What the client got so far is all it gets: the
			// response must not look complete (as ReverseProxy).
			panic(http.ErrAbortHandler)
		}
		return
	}
	resp.Body.Close() // now, not deferred: it fills resp.Trailer
	if len(resp.Trailer) > 0 {
		// Chunked, so that a short body gets no Content-Length.
		_ = http.NewResponseController(w).Flush()
	}
	if len(resp.Trailer) == announced {
		copyHeader(h, resp.Trailer)
		return
	}
	for k, vs := range resp.Trailer {
		for _, v := range vs {
			h.Add(http.TrailerPrefix+k, v)
		}
	}
}

// outbound is the request r becomes on its way to the upstream, with
// context ctx: its headers a copy, with the hop-by-hop and forwarding
// headers dropped, and its URL the upstream's (see rewrite).
func (p *HTTP) outbound(r *http.Request, ctx context.Context) *http.Request {
	out := r.WithContext(ctx) // a shallow copy
	out.Header = r.Header.Clone()
	if out.Header == nil {
		out.Header = http.Header{}
	}
	u := *r.URL
	out.URL = &u
	if r.ContentLength == 0 {
		out.Body = nil // http.Transport retries a request without a body
	} else if _, held := r.Body.(*heldBody); !held && out.Body != nil {
		// The transport closes the body it is given, even before it
		// reads it; the client's must stay open until the handler ends
		// (ReverseProxy does the same).
		out.Body = noClose{r.Body}
	}
	out.Close = false
	removeHopByHopHeaders(out.Header)
	if hasToken(r.Header["Te"], "trailers") {
		out.Header.Set("Te", "trailers")
	}
	for _, k := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		delete(out.Header, k)
	}
	out.URL.RawQuery = cleanQueryParams(out.URL.RawQuery)
	p.rewrite(out)
	return out
}

// headerDelay is how long the proxy holds the headers of a response
// whose body has not begun, to send them with its first bytes in one
// write: an answer's first event seldom takes longer, and no client
// notices a millisecond.
const headerDelay = time.Millisecond

// copyBuffers are the buffers response bodies are copied through.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// copyBody copies body to w, flushing each write, and returns a read or
// write error (not io.EOF).
func copyBody(w http.ResponseWriter, body io.Reader) error {
	rc := http.NewResponseController(w)
	f := &headerFlush{rc: rc}
	f.t = time.AfterFunc(headerDelay, f.fire)
	defer f.stop()
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	buf := *bp
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			f.stop() // the headers go with these bytes
			nw, werr := w.Write(buf[:n])
			if werr == nil && nw != n {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				return werr
			}
			_ = rc.Flush()
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// headerFlush flushes a response's headers when its body is late, unless
// stopped first.
type headerFlush struct {
	mu      sync.Mutex
	rc      *http.ResponseController
	t       *time.Timer
	stopped bool
}

func (f *headerFlush) fire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped {
		f.stopped = true
		_ = f.rc.Flush()
	}
}

// stop keeps fire from touching the response from now on: once it
// returns, a fire under way has ended.
func (f *headerFlush) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped {
		f.stopped = true
		f.t.Stop()
	}
}

// noClose is a request body the transport may not close.
type noClose struct{ io.Reader }

func (noClose) Close() error { return nil }

// What follows is httputil.ReverseProxy's, which it does not export.

// hopHeaders are the hop-by-hop headers, which belong to one connection.
var hopHeaders = []string{
	"Connection",
	"Proxy-Connection",
	"Keep-Alive",
	"Proxy-Authenticate",
	"Proxy-Authorization",
	"Te",
	"Trailer",
	"Transfer-Encoding",
	"Upgrade",
}

// removeHopByHopHeaders drops h's hop-by-hop headers, and those its
// Connection header names.
func removeHopByHopHeaders(h http.Header) {
	for _, f := range h["Connection"] {
		for sf := range strings.SplitSeq(f, ",") {
			if sf = textproto.TrimString(sf); sf != "" {
				h.Del(sf)
			}
		}
	}
	for _, f := range hopHeaders {
		delete(h, f)
	}
}

// hasToken says whether one of a header's values, a comma-separated
// list, holds token (case-insensitively).
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(textproto.TrimString(t), token) {
				return true
			}
		}
	}
	return false
}

func upgradeType(h http.Header) string {
	if !hasToken(h["Connection"], "Upgrade") {
		return ""
	}
	return h.Get("Upgrade")
}

func copyHeader(dst, src http.Header) {
	for k, vv := range src {
		for _, v := range vv {
			dst.Add(k, v)
		}
	}
}

// cleanQueryParams re-encodes a query that does not parse cleanly (a
// semicolon, a bad escape, too many parameters), as ReverseProxy does
// with Rewrite set.
func cleanQueryParams(s string) string {
	reencode := func(s string) string {
		v, _ := url.ParseQuery(s)
		return v.Encode()
	}
	if strings.Count(s, "&")+1 > 10000 {
		return reencode(s)
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case ';':
			return reencode(s)
		case '%':
			if i+2 >= len(s) || !ishex(s[i+1]) || !ishex(s[i+2]) {
				return reencode(s)
			}
			i += 3
		default:
			i++
		}
	}
	return s
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
