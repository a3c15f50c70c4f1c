package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// Timeouts of the HTTP proxy's connections to its upstream. An event
// stream has no overall timeout: it lives as long as the session.
const (
	// DialTimeout bounds connecting to the upstream (and its TLS handshake).
	DialTimeout = 10 * time.Second
	// HeaderTimeout bounds the wait for the upstream's response headers
	// after a request was sent. A streamable server answering a tool call
	// with JSON sends its headers only with the answer, so it is generous.
	HeaderTimeout = 5 * time.Minute
)

// HTTP is a reverse proxy between MCP clients and one MCP server over
// HTTP: streamable HTTP (POST answered with JSON or an event stream, the
// GET stream, DELETE, Mcp-Session-Id, Last-Event-ID, MCP-Protocol-Version)
// and the legacy HTTP+SSE transport. Requests keep their path and query
// and go to the upstream's scheme and host; the upstream URL's own query
// (a token, say) is added to requests for its path, and never handed back
// to a client that did not bring it (hide.go). Every request first passes
// the proxy's [Guard] (its Host and Origin, its client token). Bodies and headers
// pass unchanged, with two exceptions: the client's Accept-Encoding is
// dropped so that the upstream answers uncompressed and the proxy can
// read it, and a legacy SSE server's endpoint event, when it names the
// upstream by an absolute URL, is rewritten to the same path on the
// proxy so that the client posts its messages through it.
//
// Every message crossing goes to a [Book]. Credentials (Authorization,
// Cookie, Set-Cookie, headers and query parameters whose names look like
// credentials) are registered with the recording as secrets before
// anything from their request is recorded, so they are never stored.
//
// HTTP is an [http.Handler]; [HTTP.Close] ends what is still pending.
type HTTP struct {
	upstream *url.URL
	rec      *recorder.Recording
	book     *Book
	limit    int64
	// transport reaches the upstream; rp, the standard library's proxy
	// over it, passes only requests to switch protocols (forward.go).
	transport http.RoundTripper
	exchanges *engine.ExchangeTap // the bottom of transport
	rp        *httputil.ReverseProxy
	values    []string   // the upstream URL's values the proxy hides (hide.go)
	guard     Guard      // set before serving (guard.go)
	bodies    bodyBudget // POST bodies held at once (bodies.go)

	mu      sync.Mutex
	secrets map[string]bool // registered already
}

// NewHTTP returns a proxy to the MCP server at upstream, recording into
// rec. transport is the upstream connection (nil: one with [DialTimeout]
// and [HeaderTimeout]).
func NewHTTP(upstream string, rec *recorder.Recording, limits engine.Limits, transport http.RoundTripper) (*HTTP, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--upstream %q: want the server's http:// or https:// URL, as in http://127.0.0.1:8080/mcp", recorder.RedactURL(upstream))
	}
	if u.Path == "" {
		u.Path = "/"
	}
	rec.AddSecrets(recorder.URLSecrets(upstream)...)
	if transport == nil {
		transport = &http.Transport{
			Proxy:                 nil, // the upstream is reached directly
			DialContext:           (&net.Dialer{Timeout: DialTimeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   DialTimeout,
			ResponseHeaderTimeout: HeaderTimeout,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       90 * time.Second,
			DisableCompression:    true, // bodies pass as the upstream wrote them
		}
	}
	// The upstream's HTTP exchanges are recorded as a session's are
	// (docs/network.md).
	exchanges := engine.RecordExchanges(transport, rec, "")
	p := &HTTP{upstream: u, rec: rec, book: NewBook(rec), limit: limits.MaxMessageSize, transport: exchanges, exchanges: exchanges, secrets: map[string]bool{}}
	if p.limit <= 0 {
		p.limit = engine.DefaultMaxMessageSize
	}
	p.values = p.upstreamValues()
	p.rp = &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { p.rewrite(pr.Out) },
		Transport:     transport,
		FlushInterval: -1, // every write reaches the client at once
		ModifyResponse: func(resp *http.Response) error {
			p.tap(resp, exchangeOf(resp.Request), resp.Request.URL)
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) { p.failed(w, r, exchangeOf(r), err) },
		ErrorLog:     log.New(io.Discard, "", 0), // what goes wrong is recorded
	}
	return p, nil
}

// Path is the path the proxy serves the upstream's endpoint at: the
// upstream's own.
func (p *HTTP) Path() string { return p.upstream.Path }

// Book returns the book the proxy records into.
func (p *HTTP) Book() *Book { return p.book }

// Close ends every request still pending with reason.
func (p *HTTP) Close(reason string) { p.book.Close(p.rec.Now(), reason) }

// EndExchanges ends the upstream exchanges still open (the event streams
// of handlers that are ending), once the server serving the proxy has
// stopped: the recording then holds their end before it is saved.
func (p *HTTP) EndExchanges() { p.exchanges.CloseOpen() }

// exchange is what the proxy knows of one client request while its
// response passes.
type exchange struct {
	call string // the id key of the JSON-RPC request the POST carried, or ""
	// standalone: a GET opening an event stream of the client's own
	// (not resuming one), which belongs to no call.
	standalone bool
	status     string // the upstream's HTTP status
	failed     bool   // the status is not a success
	ctx        context.Context
	hidden     []string // the upstream URL's values the client did not bring (hide.go)
}

// brokeOff says why a response stream ended early: the client went away
// (its request was cancelled) or the upstream's stream broke with err.
func (ex *exchange) brokeOff(p *HTTP, err error) string {
	if ex.ctx != nil && ex.ctx.Err() != nil {
		return "the client went away before the server answered"
	}
	return "the server's response stream broke off: " + p.rec.Scrub(err.Error())
}

// stream is the stream the response's messages come on, for the book.
func (ex *exchange) stream() Stream { return Stream{Request: ex.call, Standalone: ex.standalone} }

// exchangeKey is the context key of the exchange of a request passed
// through p.rp.
type exchangeKey struct{}

// exchangeOf is the exchange of r, passed through p.rp.
func exchangeOf(r *http.Request) *exchange {
	if ex, ok := r.Context().Value(exchangeKey{}).(*exchange); ok {
		return ex
	}
	return &exchange{}
}

func (p *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.guard.Admit(w, r) {
		return
	}
	p.credentials(r.Header, r.URL.RawQuery)
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" {
		p.book.SetProtocol(v)
	}
	ex := &exchange{hidden: p.hiddenFrom(r)}
	switch r.Method {
	case http.MethodPost:
		// A POST body is one message (or batch): read it, up to the limit,
		// to record it as it is passed on; what all POSTs hold at once is
		// bounded (bodies.go).
		want, give, ok := p.bodies.take(p, w, r)
		if !ok {
			return
		}
		defer give(-1)
		head, err := readHeld(r.Body, want, r.ContentLength >= 0, give)
		at := p.rec.Now()
		if err != nil {
			p.book.protocolEvent(at, fmt.Sprintf("reading a POST from the client failed: %v", err))
			http.Error(w, "inspector proxy: reading the request body failed: "+err.Error(), http.StatusBadRequest)
			return
		}
		if int64(len(head)) > p.limit {
			p.book.protocolEvent(at, fmt.Sprintf("the client posted a message over --max-message-size %s: passed on unchanged, not recorded", engine.FormatSize(p.limit)))
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
		} else {
			ex.call = p.book.Message(FromClient, head, at, Stream{})
			r.Body = &heldBody{data: head, give: give}
		}
	case http.MethodDelete:
		p.book.rec.AddEvent(recorder.Event{At: p.rec.Now(), Session: Session, Kind: recorder.EventConnection,
			Text: "the client ended its session (HTTP DELETE)"})
	case http.MethodGet:
		ex.standalone = r.Header.Get("Last-Event-ID") == ""
		if id := r.Header.Get("Last-Event-ID"); id != "" {
			p.book.rec.AddEvent(recorder.Event{At: p.rec.Now(), Session: Session, Kind: recorder.EventConnection,
				Text: "the client resumed an event stream after event " + id})
		}
	}
	p.forward(w, r, ex)
}

// rewrite points the outbound request at the upstream.
func (p *HTTP) rewrite(out *http.Request) {
	out.URL.Scheme, out.URL.Host = p.upstream.Scheme, p.upstream.Host
	out.Host = p.upstream.Host
	if out.URL.Path == p.upstream.Path && p.upstream.RawQuery != "" {
		q := out.URL.Query()
		for k, vs := range p.upstream.Query() {
			if !q.Has(k) {
				q[k] = vs
			}
		}
		out.URL.RawQuery = q.Encode()
	}
	out.Header.Del("Accept-Encoding")
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = nil // keep Go from adding its own
	}
}

// tap taps the upstream's response to the request for ex, sent to the
// upstream URL base, on its way to the client.
func (p *HTTP) tap(resp *http.Response, ex *exchange, base *url.URL) {
	p.credentials(resp.Header, "")
	ex.status, ex.failed, ex.ctx = resp.Status, resp.StatusCode >= 300, resp.Request.Context()
	p.hide(resp, ex.hidden)
	if resp.Body == nil || resp.Body == http.NoBody {
		p.answerless(resp, ex)
		return
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "text/event-stream":
		r := eventReaders.Get().(*bufio.Reader)
		r.Reset(resp.Body)
		resp.Body = &eventTap{p: p, ex: ex, rc: resp.Body, r: r, base: base}
	case "application/json":
		resp.Body = &jsonTap{p: p, ex: ex, rc: resp.Body}
	default:
		p.answerless(resp, ex)
	}
}

// mediaType is the media type of a Content-Type, as mime.ParseMediaType
// gives it, without the map of parameters that it allocates when the
// value is only the type, as it usually is.
func mediaType(contentType string) string {
	switch contentType {
	case "text/event-stream", "application/json":
		return contentType
	}
	media, _, _ := mime.ParseMediaType(contentType)
	return media
}

// answerless records a response to a request that carries no message:
// for a POSTed request, the answer will not come on it.
func (p *HTTP) answerless(resp *http.Response, ex *exchange) {
	if ex.call != "" && resp.StatusCode >= 300 {
		p.book.Abandon(ex.call, p.rec.Now(), fmt.Sprintf("the server answered the POST with HTTP %s", resp.Status))
	}
}

// failed answers the client when the upstream could not be reached
// with r, the request for ex.
func (p *HTTP) failed(w http.ResponseWriter, r *http.Request, ex *exchange, err error) {
	at := p.rec.Now()
	why := p.rec.Scrub(err.Error())
	if errors.Is(r.Context().Err(), context.Canceled) {
		why = "the client went away before the server answered"
	} else {
		why = "the server could not be reached: " + why
	}
	if ex.call != "" {
		p.book.Abandon(ex.call, at, why)
	} else {
		p.book.protocolEvent(at, fmt.Sprintf("%s %s: %s", r.Method, r.URL.Path, why))
	}
	if r.Context().Err() != nil {
		return // nobody to answer
	}
	shown := *p.upstream
	shown.User, shown.RawQuery = nil, "" // nothing of the upstream's credentials for the client (hide.go)
	why = hideIn(why, ex.hidden)
	http.Error(w, "inspector proxy: "+why+" (upstream "+shown.String()+")", http.StatusBadGateway)
}

// credentials registers the credentials in h and query as the
// recording's secrets, once each.
func (p *HTTP) credentials(h http.Header, query string) {
	var found []string
	for name, vs := range h {
		switch {
		case name == "Authorization" || name == "Proxy-Authorization":
			for _, v := range vs {
				found = append(found, v)
				if _, cred, ok := strings.Cut(v, " "); ok {
					found = append(found, strings.TrimSpace(cred))
				}
			}
		case name == "Cookie" || name == "Set-Cookie":
			for _, v := range vs {
				found = append(found, v)
				pairs := strings.Split(v, ";")
				if name == "Set-Cookie" {
					pairs = pairs[:1] // then attributes: Path=/, Max-Age=3600, not secrets
				}
				for _, c := range pairs {
					if _, val, ok := strings.Cut(c, "="); ok {
						found = append(found, strings.Trim(strings.TrimSpace(val), `"`))
					}
				}
			}
		case recorder.IsCredentialHeader(name):
			found = append(found, vs...)
		}
	}
	if query != "" {
		found = append(found, recorder.URLSecrets("?"+query)...)
	}
	if len(found) == 0 {
		return
	}
	p.mu.Lock()
	var fresh []string
	for _, s := range found {
		if !p.secrets[s] {
			p.secrets[s] = true
			fresh = append(fresh, s)
		}
	}
	p.mu.Unlock()
	if len(fresh) > 0 {
		p.rec.AddSecrets(fresh...)
	}
}

// jsonTap passes a JSON response body through and hands the message to
// the book when it ends (up to the limit; a larger one is left out).
type jsonTap struct {
	p    *HTTP
	ex   *exchange
	rc   io.ReadCloser
	buf  []byte
	over bool
	done bool
}

func (t *jsonTap) Read(b []byte) (int, error) {
	n, err := t.rc.Read(b)
	if n > 0 && !t.over {
		if int64(len(t.buf)+n) > t.p.limit {
			t.over, t.buf = true, nil
		} else {
			t.buf = append(t.buf, b[:n]...)
		}
	}
	if err != nil && !t.done {
		t.done = true
		at := t.p.rec.Now()
		switch {
		case err != io.EOF:
			if t.ex.call != "" {
				t.p.book.Abandon(t.ex.call, at, t.ex.brokeOff(t.p, err))
			}
		case t.over:
			t.p.book.protocolEvent(at, fmt.Sprintf("the server answered with a message over --max-message-size %s: passed on unchanged, not recorded", engine.FormatSize(t.p.limit)))
			if t.ex.call != "" {
				t.p.book.Abandon(t.ex.call, at, "its answer was over --max-message-size, not recorded")
			}
		default:
			t.p.book.Message(FromServer, t.buf, at, t.ex.stream())
			t.buf = nil
			if t.ex.call != "" && t.ex.failed {
				t.p.book.Abandon(t.ex.call, at, "the server answered the POST with HTTP "+t.ex.status)
			}
		}
	}
	return n, err
}

func (t *jsonTap) Close() error { return t.rc.Close() }

// eventTap passes a server-sent event stream through an event at a time:
// it holds the lines of an event (up to the limit) until the blank line
// that ends it, hands its data to the book, and passes it on; forward
// flushes each write (forward.go). An event over the limit is passed on
// as it comes and not recorded.
type eventTap struct {
	p    *HTTP
	ex   *exchange
	rc   io.ReadCloser
	r    *bufio.Reader
	base *url.URL // the upstream URL the stream came from

	event []byte // lines of the current event
	over  bool   // the current event is past the limit: lines pass as they come
	mid   bool   // the last piece read ended inside a line
	out   []byte // bytes ready for the client
	err   error
	ended bool
}

func (t *eventTap) Read(b []byte) (int, error) {
	for len(t.out) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		line, err := t.r.ReadSlice('\n')
		if len(line) > 0 {
			t.line(line, err == nil)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			t.end(err)
			t.out = append(t.out, t.event...) // a last event without its blank line
			t.event = nil
			t.err = err
		}
	}
	n := copy(b, t.out)
	t.out = t.out[n:]
	return n, nil
}

// line takes one line (or, when whole is false, a piece of one).
func (t *eventTap) line(line []byte, whole bool) {
	blank := whole && !t.mid && len(bytes.TrimRight(line, "\r\n")) == 0
	t.mid = !whole
	if t.over {
		t.out = append(t.out[:0], line...)
		if blank {
			t.over = false
		}
		return
	}
	t.event = append(t.event, line...)
	if int64(len(t.event)) > t.p.limit {
		t.p.book.protocolEvent(t.p.rec.Now(), fmt.Sprintf("the server sent an event over --max-message-size %s: passed on unchanged, not recorded", engine.FormatSize(t.p.limit)))
		t.out, t.event, t.over = append(t.out[:0], t.event...), t.event[:0], !blank
		return
	}
	if blank {
		t.dispatch()
	}
}

// dispatch records the event held and makes it ready for the client.
func (t *eventTap) dispatch() {
	at := t.p.rec.Now()
	var kind string
	var data [][]byte
	for l := range bytes.SplitSeq(t.event, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		field, value, _ := bytes.Cut(l, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			kind = string(value)
		case "data":
			data = append(data, value)
		}
	}
	var msg []byte
	if len(data) == 1 {
		msg = data[0] // the book copies what it keeps
	} else {
		msg = bytes.Join(data, []byte("\n"))
	}
	switch {
	case kind == "endpoint":
		t.event = t.endpoint(t.event, string(msg))
	case len(data) > 0 && (kind == "" || kind == "message"):
		t.p.book.Message(FromServer, msg, at, t.ex.stream())
	}
	t.out = append(t.out[:0], t.event...)
	t.event = t.event[:0]
}

// endpoint rewrites a legacy SSE endpoint event that names the upstream
// by an absolute URL to the same path and query on the proxy.
func (t *eventTap) endpoint(event []byte, target string) []byte {
	u, err := t.base.Parse(target)
	if err != nil || !u.IsAbs() || !strings.Contains(target, "://") {
		return event // relative: it resolves against the proxy already
	}
	if u.Host != t.p.upstream.Host {
		t.p.book.protocolEvent(t.p.rec.Now(), "the server's endpoint event names another host; passed on unchanged: the client will post past the proxy")
		return event
	}
	return bytes.Replace(event, []byte(target), []byte(u.RequestURI()), 1)
}

// end records how the stream ended: the answer of the POST it carried
// never comes if it broke off first.
func (t *eventTap) end(err error) {
	if t.ended {
		return
	}
	t.ended = true
	if t.ex.call == "" {
		return
	}
	reason := "the server ended the response stream before answering"
	if err != io.EOF {
		reason = t.ex.brokeOff(t.p, err)
	}
	t.p.book.Abandon(t.ex.call, t.p.rec.Now(), reason)
}

func (t *eventTap) Close() error {
	if !t.ended && t.ex.call != "" {
		t.end(errors.New("the client went away"))
	}
	if t.r != nil {
		t.r.Reset(nil)
		eventReaders.Put(t.r)
		t.r = nil
		if t.err == nil {
			t.err = net.ErrClosed
		}
	}
	return t.rc.Close()
}

// eventReaders are the event streams' read buffers, reused: a response
// on the SSE stream of every POST would otherwise allocate and clear one
// (the largest cost the proxy added per call in a CPU profile).
var eventReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBuffer) }}
