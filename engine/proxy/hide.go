package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/fanout-inspector/inspector/recorder"
)

// What the upstream URL holds (its user name and password, the values of
// its query: ?token=…) is the proxy's to use, not its callers': the
// proxy adds it to the requests it forwards, and never hands it back.
// A value of the upstream URL that a caller did not send itself is
// replaced by REDACTED wherever a response could carry it to the caller:
// every response header (a Location that echoes the request's URL among
// them), the response body (a server's error page quoting its URL), and
// the proxy's own error text. A Location that names the upstream by an
// absolute URL is made relative, so that the client's next request comes
// through the proxy, without the upstream's credentials.

// upstreamValues are the values of the upstream URL the proxy hides:
// its user name, password and query values, each of at least
// [recorder.MinSecretLen] characters (shorter ones, "1" or "on", are no
// secret and would match ordinary text).
func (p *HTTP) upstreamValues() []string {
	var vs []string
	if u := p.upstream.User; u != nil {
		pass, _ := u.Password()
		vs = append(vs, u.Username(), pass)
	}
	for _, qs := range p.upstream.Query() {
		vs = append(vs, qs...)
	}
	return slices.DeleteFunc(vs, func(v string) bool { return len(v) < recorder.MinSecretLen })
}

// hiddenFrom returns the upstream URL's values that r's caller did not
// bring in its own query, longest first: those never reach it.
func (p *HTTP) hiddenFrom(r *http.Request) []string {
	if len(p.values) == 0 {
		return nil
	}
	vs := slices.Clone(p.values)
	brought := r.URL.Query()
	vs = slices.DeleteFunc(vs, func(v string) bool {
		for _, b := range brought {
			if slices.Contains(b, v) {
				return true
			}
		}
		return false
	})
	slices.SortFunc(vs, func(a, b string) int { return len(b) - len(a) })
	return vs
}

// hideIn replaces each of hidden in s.
func hideIn(s string, hidden []string) string {
	for _, h := range hidden {
		if strings.Contains(s, h) {
			s = strings.ReplaceAll(s, h, recorder.Redacted)
		}
		if e := url.QueryEscape(h); e != h && strings.Contains(s, e) {
			s = strings.ReplaceAll(s, e, recorder.Redacted)
		}
	}
	return s
}

// hide takes the upstream URL's values out of resp on its way to the
// caller: headers, Location, body.
func (p *HTTP) hide(resp *http.Response, hidden []string) {
	if loc := resp.Header.Get("Location"); loc != "" {
		if u, err := resp.Request.URL.Parse(loc); err == nil && u.Host == p.upstream.Host {
			// The upstream's own URL: the client follows it through the
			// proxy, which adds the upstream's values again.
			q := u.Query()
			for k, vs := range q {
				if slices.ContainsFunc(vs, func(v string) bool { return slices.Contains(hidden, v) }) {
					q.Del(k)
				}
			}
			u.RawQuery = q.Encode()
			resp.Header.Set("Location", u.RequestURI())
		}
	}
	if len(hidden) == 0 {
		return
	}
	for k, vs := range resp.Header {
		for i, v := range vs {
			resp.Header[k][i] = hideIn(v, hidden)
		}
	}
	if resp.Body != nil && resp.Body != http.NoBody {
		resp.Body = &hidingReader{rc: resp.Body, hidden: hidden}
		resp.Header.Del("Content-Length") // REDACTED may be longer or shorter
		resp.ContentLength = -1
	}
}

// hidingReader replaces the hidden values in a body as it passes. It
// holds back only the end of a piece that could begin a hidden value, so
// an event stream's events pass at once.
type hidingReader struct {
	rc     io.ReadCloser
	hidden []string
	held   []byte // the end of the last piece: the start of a hidden value, perhaps
	out    []byte
	err    error
	buf    [32 << 10]byte
}

func (h *hidingReader) Read(b []byte) (int, error) {
	for len(h.out) == 0 {
		if h.err != nil {
			return 0, h.err
		}
		n, err := h.rc.Read(h.buf[:])
		data := append(h.held, h.buf[:n]...)
		h.held = nil
		for _, s := range h.hidden {
			data = bytes.ReplaceAll(data, []byte(s), []byte(recorder.Redacted))
		}
		if err == nil {
			keep := h.partial(data)
			h.held = append([]byte(nil), data[len(data)-keep:]...)
			data = data[:len(data)-keep]
		}
		h.out, h.err = data, err
	}
	n := copy(b, h.out)
	h.out = h.out[n:]
	return n, nil
}

// partial is the length of the longest end of data that is the start of
// a hidden value.
func (h *hidingReader) partial(data []byte) int {
	best := 0
	for _, s := range h.hidden {
		for k := min(len(s)-1, len(data)); k > best; k-- {
			if bytes.HasSuffix(data, []byte(s[:k])) {
				best = k
				break
			}
		}
	}
	return best
}

func (h *hidingReader) Close() error { return h.rc.Close() }
