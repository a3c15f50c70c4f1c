package recorder

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// ExchangeID numbers the HTTP exchanges of a recording from 1.
type ExchangeID int64

// Exchange is one HTTP request the inspector made to an HTTP server (a
// POST carrying a message, the GET of an event stream, the DELETE that
// ends a session) and what came back: the Network view of a session over
// streamable HTTP or legacy SSE. Its secrets are masked as it enters the
// recording (see [Recording.AddExchange]); its bodies are bounded.
//
// An exchange is added when its response's headers arrive (or the
// request failed) and ended when its body has been read or closed; an
// event stream gains its events in between.
type Exchange struct {
	ID      ExchangeID `json:"id"`
	Session string     `json:"session,omitempty"`
	// Method and URL are the request's (the URL with its credentials
	// redacted, see [RedactURL]).
	Method string `json:"method"`
	URL    string `json:"url"`
	// RPC names what the request carried: the JSON-RPC method of the
	// message it posted, "response" for a posted answer, "" for a GET or
	// DELETE.
	RPC string `json:"rpc,omitempty"`
	// Sent, Responded and Ended are offsets from the recording's start:
	// when the request was sent, when the response's headers arrived
	// ([Unset] if they never did) and when its body was read to its end
	// or closed ([Unset] while it is open).
	Sent      time.Duration `json:"sent"`
	Responded time.Duration `json:"responded"`
	Ended     time.Duration `json:"ended"`
	// Status is the HTTP status code, 0 when no response came.
	Status int `json:"status,omitempty"`
	// Error says why the request failed or its body broke off.
	Error string `json:"error,omitempty"`
	// RequestHeaders and ResponseHeaders are in the order sent, names
	// canonical; a secret's value is masked (Masked set).
	RequestHeaders  []Header `json:"request_headers,omitempty"`
	ResponseHeaders []Header `json:"response_headers,omitempty"`
	// RequestBody and ResponseBody are the bodies' first
	// [MaxExchangeBody] bytes as text; RequestBytes and ResponseBytes
	// their whole sizes. An event stream's body is kept as its Events.
	RequestBody   string `json:"request_body,omitempty"`
	RequestBytes  int64  `json:"request_bytes,omitempty"`
	ResponseBody  string `json:"response_body,omitempty"`
	ResponseBytes int64  `json:"response_bytes,omitempty"`
	// Events are the first events of an event stream, as long as they
	// fit [MaxExchangeEventBytes] and [MaxExchangeEvents]; EventCount
	// counts all of them.
	Events     []StreamEvent `json:"events,omitempty"`
	EventCount int           `json:"event_count,omitempty"`
}

// Header is one HTTP header line.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Masked: the value was a secret and shows as [Redacted].
	Masked bool `json:"masked,omitempty"`
}

// StreamEvent is one server-sent event of an event stream.
type StreamEvent struct {
	At    time.Duration `json:"at"`
	ID    string        `json:"id,omitempty"`
	Event string        `json:"event,omitempty"`
	Data  string        `json:"data,omitempty"`
}

// Open reports whether the exchange's body is still being read.
func (x *Exchange) Open() bool { return x.Ended == Unset }

// Duration is how long the exchange took, from sent to ended (or to
// now while it is open).
func (x *Exchange) Duration(now time.Duration) time.Duration {
	if x.Open() {
		return max(now-x.Sent, 0)
	}
	return max(x.Ended-x.Sent, 0)
}

// HeaderValue returns the value of the header named name (any case)
// among hs, or "".
func HeaderValue(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// The bounds of what a recording keeps of its HTTP exchanges.
const (
	// MaxExchanges is how many exchanges a recording keeps: the first
	// half as they come, then the latest (see [HTTPLog]).
	MaxExchanges = 1000
	// MaxExchangeBody is how much of a body is kept.
	MaxExchangeBody = 8 << 10
	// MaxExchangeEventBytes is how much event data an event stream keeps;
	// the events past it are counted only.
	MaxExchangeEventBytes = 16 << 10
	// MaxExchangeEvents is how many events an event stream keeps at
	// most, however little data they carry.
	MaxExchangeEvents = 256
	// maxEventName bounds an event's id and type.
	maxEventName = 256
	// maxHeaders and maxHeaderValue bound the headers kept.
	maxHeaders     = 64
	maxHeaderValue = 1 << 10
)

// HTTPLog is a recording's HTTP exchanges: the first half of
// [MaxExchanges] as they came, then the latest, in ID order. Total
// counts every exchange made, kept or not. Nothing in it may be modified.
type HTTPLog struct {
	Total     int         `json:"total"`
	Exchanges []*Exchange `json:"exchanges"`
}

// Dropped is how many exchanges were made but not kept.
func (l *HTTPLog) Dropped() int {
	if l == nil {
		return 0
	}
	return l.Total - len(l.Exchanges)
}

// exchangeLog is the store of a recording's exchanges, with its own lock
// (never held while taking the recording's). Kept exchanges are immutable:
// a change replaces one with a changed copy, so a snapshot shares them.
type exchangeLog struct {
	mu      sync.Mutex
	kept    []*Exchange // guarded by mu; ID order
	total   int         // guarded by mu
	version uint64      // guarded by mu: changes with every change
}

// AddExchange records x and returns its ID. Its URL is redacted, its
// secret headers masked ([SecretHeader]), the recording's secrets
// ([Recording.AddSecrets]) scrubbed from every text in it, and its
// bodies and headers cut to their bounds. Session labels it.
func (r *Recording) AddExchange(x Exchange) ExchangeID {
	r.cleanExchange(&x)
	l := &r.exchanges
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	x.ID = ExchangeID(l.total)
	if len(l.kept) >= MaxExchanges {
		// Drop the older half of those past the first half, in a new
		// slice: snapshots share the old one.
		head := MaxExchanges / 2
		tail := l.kept[head+(len(l.kept)-head)/2:]
		kept := make([]*Exchange, 0, MaxExchanges)
		kept = append(kept, l.kept[:head]...)
		l.kept = append(kept, tail...)
	}
	l.kept = append(l.kept, &x)
	l.version++
	return x.ID
}

// AddExchangeEvent adds e to the events of exchange id, an event stream,
// while they fit [MaxExchangeEventBytes] and [MaxExchangeEvents]; it is
// counted either way. An exchange no longer kept is ignored.
func (r *Recording) AddExchangeEvent(id ExchangeID, e StreamEvent) {
	e.ID, e.Event = r.Scrub(cutText(e.ID, maxEventName)), r.Scrub(cutText(e.Event, maxEventName))
	e.Data = r.Scrub(e.Data)
	r.exchanges.update(id, func(x *Exchange) {
		x.EventCount++
		used := 0
		for _, old := range x.Events {
			used += len(old.Data) + len(old.ID) + len(old.Event)
		}
		if len(x.Events) < MaxExchangeEvents && used+len(e.Data)+len(e.ID)+len(e.Event) <= MaxExchangeEventBytes {
			x.Events = append(x.Events[:len(x.Events):len(x.Events)], e)
		}
	})
}

// ExchangeEnd is how an exchange's body ended: at offset At, with Body
// the first [MaxExchangeBody] bytes read of it (empty for an event
// stream), Bytes how many were read in all, Error why it broke off.
type ExchangeEnd struct {
	At    time.Duration
	Body  string
	Bytes int64
	Error string
}

// EndExchange ends exchange id, unless it ended already.
func (r *Recording) EndExchange(id ExchangeID, end ExchangeEnd) {
	body, errText := r.Scrub(cutText(end.Body, MaxExchangeBody)), r.Scrub(end.Error)
	r.exchanges.update(id, func(x *Exchange) {
		if !x.Open() {
			return
		}
		x.Ended = max(end.At, x.Sent)
		x.ResponseBody, x.ResponseBytes = body, end.Bytes
		if x.Error == "" {
			x.Error = errText
		}
	})
}

// update replaces exchange id by a copy changed by f.
func (l *exchangeLog) update(id ExchangeID, f func(*Exchange)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := slices.BinarySearchFunc(l.kept, id, func(x *Exchange, id ExchangeID) int { return cmp.Compare(x.ID, id) })
	if !ok {
		return
	}
	c := *l.kept[i]
	f(&c)
	l.kept[i] = &c
	l.version++
}

// HTTP returns the recording's HTTP exchanges as they are now, or nil
// when it has none, and a number that changes whenever they do.
func (r *Recording) HTTP() (*HTTPLog, uint64) {
	l := &r.exchanges
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.logLocked(), l.version
}

// log is what a snapshot holds of the exchanges.
func (l *exchangeLog) log() *HTTPLog {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.logLocked()
}

func (l *exchangeLog) logLocked() *HTTPLog {
	if l.total == 0 {
		return nil
	}
	// A copy of the pointers: update replaces them in place.
	return &HTTPLog{Total: l.total, Exchanges: slices.Clone(l.kept)}
}

// cleanExchange masks, scrubs and bounds x as it enters the recording.
func (r *Recording) cleanExchange(x *Exchange) {
	x.URL = r.Scrub(x.URL)
	x.RPC = r.Scrub(x.RPC)
	x.Error = r.Scrub(x.Error)
	x.RequestHeaders = r.cleanHeaders(x.RequestHeaders)
	x.ResponseHeaders = r.cleanHeaders(x.ResponseHeaders)
	x.RequestBody = r.Scrub(cutText(x.RequestBody, MaxExchangeBody))
	x.ResponseBody = r.Scrub(cutText(x.ResponseBody, MaxExchangeBody))
	x.Events = nil
	x.EventCount = 0
}

// cleanHeaders returns a bounded copy of hs with the secrets masked.
func (r *Recording) cleanHeaders(hs []Header) []Header {
	if len(hs) == 0 {
		return nil
	}
	out := make([]Header, 0, min(len(hs), maxHeaders))
	for _, h := range hs[:min(len(hs), maxHeaders)] {
		h.Name = cutText(h.Name, 128)
		if secretHeaderName(h.Name) {
			h.Value, h.Masked = MaskCredential(h.Value), true
		} else if clean := r.scrubValue(h.Value); clean != h.Value {
			h.Value, h.Masked = clean, true
		}
		h.Value = cutText(h.Value, maxHeaderValue)
		out = append(out, h)
	}
	return out
}

// scrubValue is [Recording.Scrub] for a short value, which skips
// looking for URLs and parameters in one that has none.
func (r *Recording) scrubValue(v string) string {
	if strings.ContainsAny(v, ":=") {
		return r.Scrub(v)
	}
	if sc := r.scrub.Load(); sc != nil {
		return sc.scrubText(v)
	}
	return v
}

// secretHeaders remembers [SecretHeader] and credentialHeaders
// [IsCredentialName] for header names: the same few come with every
// request, and each answer lower-cases the name and searches it.
var (
	secretHeaders     = nameMemo{of: SecretHeader, most: 512}
	credentialHeaders = nameMemo{of: IsCredentialName, most: 4096}
)

// secretHeaderName is [SecretHeader], remembered.
func secretHeaderName(name string) bool { return secretHeaders.is(name) }

// IsCredentialHeader is [IsCredentialName] for an HTTP header's name,
// remembered for the first 4,096 names (the HTTP proxy asks it of every
// header of every request and response).
func IsCredentialHeader(name string) bool { return credentialHeaders.is(name) }

// nameMemo remembers what of says of up to most names of at most 64
// bytes; it answers others without remembering.
type nameMemo struct {
	of    func(string) bool
	most  int64
	names sync.Map // name → bool
	count atomic.Int64
}

func (m *nameMemo) is(name string) bool {
	if v, ok := m.names.Load(name); ok {
		return v.(bool)
	}
	answer := m.of(name)
	if len(name) <= 64 && m.count.Add(1) <= m.most {
		m.names.Store(name, answer)
	}
	return answer
}

// SecretHeader reports whether an HTTP header named name carries a
// credential, so that its value is never recorded: Authorization,
// Proxy-Authorization, Cookie, Set-Cookie, and any header named like a
// credential ([IsCredentialName]: X-Api-Key, X-Auth-Token…). The MCP
// headers (Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method…) are the
// protocol's own and are shown.
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "mcp-"):
		return false
	case n == "cookie" || n == "set-cookie" || n == "authorization" || n == "proxy-authorization":
		return true
	}
	return IsCredentialName(name)
}

// MaskCredential returns a credential's value masked: "Bearer REDACTED"
// for a scheme and its token, [Redacted] otherwise.
func MaskCredential(value string) string {
	scheme, _, ok := strings.Cut(strings.TrimSpace(value), " ")
	if ok && scheme != "" && len(scheme) <= 16 && !strings.ContainsAny(scheme, "=;,") {
		return scheme + " " + Redacted
	}
	return Redacted
}

// cutText returns s cut to at most n bytes on a rune boundary, with
// invalid UTF-8 replaced.
func cutText(s string, n int) string {
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
