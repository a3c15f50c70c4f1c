package recorder

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unsafe"
)

// Redacted replaces a credential wherever the inspector would otherwise
// write or print it: the value of a credential-like URL query parameter,
// a URL's user name and password, and every registered secret
// ([Recording.AddSecrets]).
const Redacted = "REDACTED"

// MinSecretLen is the shortest secret [Recording.AddSecrets] scrubs by
// value: shorter values ("1", "dev", "on") would match ordinary text all
// over a recording, and are too short to protect anything anyway. A URL's
// credentials are redacted by [RedactURL] whatever their length.
const MinSecretLen = 4

// RedactURL returns u with its credentials replaced by [Redacted]: the
// user name and password, and the values of query (and fragment)
// parameters whose names look like credentials (token, access_token,
// api_key, key, secret, client_secret, password, pass, pwd, auth,
// authorization, sig, signature, session, jwt, code, credential and
// names containing them). The scheme, host, port, path and the parameter
// names are kept, so the URL still says where the inspector connected.
// It works on text that is not a valid URL too.
func RedactURL(u string) string {
	rest, frag, hasFrag := strings.Cut(u, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	if scheme, after, ok := strings.Cut(rest, "://"); ok {
		authority, path := after, ""
		if i := strings.IndexByte(after, '/'); i >= 0 {
			authority, path = after[:i], after[i:]
		}
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			user := Redacted
			if strings.Contains(authority[:at], ":") {
				user += ":" + Redacted
			}
			authority = user + authority[at:]
		}
		rest = scheme + "://" + authority + path
	}
	if hasQuery {
		rest += "?" + redactParams(query)
	}
	if hasFrag {
		rest += "#" + redactParams(frag)
	}
	return rest
}

// redactParams redacts the credential values of a name=value&… list.
func redactParams(q string) string {
	if !strings.Contains(q, "=") {
		return q
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		name, value, ok := strings.Cut(p, "=")
		if ok && value != "" && IsCredentialName(name) {
			parts[i] = name + "=" + Redacted
		}
	}
	return strings.Join(parts, "&")
}

// credentialNames are parameter names that are credentials on their own;
// credentialParts are words that make any name containing them one.
// Names are compared lower-cased with '-', '_' and '.' removed.
var (
	credentialNames = []string{"key", "code", "sig", "auth", "pass", "pwd", "jwt", "session", "sid", "bearer"}
	credentialParts = []string{"token", "secret", "password", "passwd", "apikey", "credential", "signature",
		"authorization", "authcode", "authkey", "sessionid", "sessionkey", "accesskey", "privatekey"}
)

// IsCredentialName reports whether a URL parameter (or header) named name
// usually carries a credential, so that its value must not be shown.
func IsCredentialName(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	n := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.', ' ':
			return -1
		}
		return r
	}, strings.ToLower(name))
	if slices.Contains(credentialNames, n) {
		return true
	}
	for _, part := range credentialParts {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// URLSecrets returns the credentials RedactURL hides in u, decoded: the
// user name, the password and the credential-like parameter values.
func URLSecrets(u string) []string {
	var out []string
	rest, frag, _ := strings.Cut(u, "#")
	rest, query, _ := strings.Cut(rest, "?")
	if _, after, ok := strings.Cut(rest, "://"); ok {
		authority, _, _ := strings.Cut(after, "/")
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			user, pass, _ := strings.Cut(authority[:at], ":")
			out = append(out, unescape(user), unescape(pass))
		}
	}
	for _, q := range []string{query, frag} {
		for p := range strings.SplitSeq(q, "&") {
			if name, value, ok := strings.Cut(p, "="); ok && IsCredentialName(name) {
				out = append(out, unescape(value))
			}
		}
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// RedactURLsIn returns text with every http(s) URL in it passed through
// [RedactURL], and the value of every credential-like "?name=value" or
// "&name=value" left (a URL cut short by a space): for error messages
// that quote a URL, such as net/http's
// `Post "http://host/mcp?token=…": connection refused`.
func RedactURLsIn(text string) string {
	text = redactURLs(text)
	if !strings.Contains(text, "=") {
		return text
	}
	return looseParam.ReplaceAllStringFunc(text, func(m string) string {
		name, _, _ := strings.Cut(m[1:], "=")
		if !IsCredentialName(name) {
			return m
		}
		return m[:1] + name + "=" + Redacted
	})
}

// looseParam is a "?name=value" or "&name=value" in running text.
var looseParam = regexp.MustCompile(`[?&#;][A-Za-z0-9_.\-]+=[^&\s"'#;<>` + "`" + `]+`)

func redactURLs(text string) string {
	lower := strings.ToLower(text)
	if !strings.Contains(lower, "http://") && !strings.Contains(lower, "https://") {
		return text
	}
	var b strings.Builder
	for {
		i := indexURL(lower)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + strings.IndexFunc(text[i:]+" ", func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '"' || r == '\'' || r == '<' || r == '>' || r == '`'
		})
		b.WriteString(text[:i])
		b.WriteString(RedactURL(text[i:end]))
		text, lower = text[end:], lower[end:]
	}
}

// indexURL is the index of the first "http://" or "https://" in lower, or -1.
func indexURL(lower string) int {
	a, b := strings.Index(lower, "http://"), strings.Index(lower, "https://")
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return min(a, b)
}

// scrubber replaces registered secrets, in every form they take in text
// and in JSON (as they are, JSON-escaped with or without \u003c for <,
// URL-escaped), by [Redacted]. Text may quote JSON and JSON holds text,
// so both get every form.
type scrubber struct {
	secrets []string
	forms   *strings.Replacer
}

// newScrubber builds a scrubber for secrets (already filtered by length).
func newScrubber(secrets []string) *scrubber {
	var forms []string
	for _, s := range secrets {
		forms = append(forms, s, jsonEscape(s, true), jsonEscape(s, false), url.QueryEscape(s), url.PathEscape(s))
	}
	return &scrubber{secrets: secrets, forms: replacerOf(forms)}
}

// replacerOf replaces each form by [Redacted], the longest forms first so
// that a secret containing another is replaced whole.
func replacerOf(forms []string) *strings.Replacer {
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	var args []string
	for _, f := range forms {
		if f != "" {
			args = append(args, f, Redacted)
		}
	}
	return strings.NewReplacer(args...)
}

// jsonEscape is s as it appears inside a JSON string, with or without
// encoding/json's escaping of <, > and &.
func jsonEscape(s string, html bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(out, `"`), `"`)
}

// scrubText returns s without the secrets.
func (sc *scrubber) scrubText(s string) string {
	if s == "" {
		return s
	}
	return sc.forms.Replace(s)
}

// scrubJSON returns b without the secrets. If replacing a secret broke
// the JSON (a secret that is also a bare number, say), the scrubbed text
// is kept as one JSON string instead, so that every reader can still
// parse the recording.
func (sc *scrubber) scrubJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return b
	}
	in := unsafe.String(unsafe.SliceData(b), len(b))
	out := sc.forms.Replace(in)
	if out == in {
		return b
	}
	if !json.Valid([]byte(out)) {
		quoted, _ := json.Marshal(sc.scrubText(out))
		return quoted
	}
	return json.RawMessage(out)
}

// span scrubs the fields of s that differ from old (nil: all of them).
func (sc *scrubber) span(s, old *Span) {
	if old == nil || s.Error != old.Error {
		s.Error = sc.scrubText(s.Error)
	}
	if old == nil || !sameBytes(s.Params, old.Params) {
		s.Params = sc.scrubJSON(s.Params)
	}
	if old == nil || !sameBytes(s.Result, old.Result) {
		s.Result = sc.scrubJSON(s.Result)
	}
	if old == nil || s.Name != old.Name {
		s.Name = sc.scrubText(s.Name)
	}
	if old == nil || s.RequestID != old.RequestID {
		s.RequestID = sc.scrubText(s.RequestID)
	}
}

// event scrubs e's text and data.
func (sc *scrubber) event(e *Event) {
	e.Text = sc.scrubText(e.Text)
	e.Method = sc.scrubText(e.Method)
	e.Data = sc.scrubJSON(e.Data)
}

// meta scrubs every field of m that can hold text from outside.
func (sc *scrubber) meta(m *Meta) {
	m.Title = sc.scrubText(m.Title)
	m.Target = sc.scrubText(m.Target)
	m.Protocol = sc.scrubText(m.Protocol)
	m.Server = sc.scrubText(m.Server)
	m.Config = sc.scrubJSON(m.Config)
}

// sameBytes reports whether a and b are the same slice (not merely equal).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.SliceData(a) == unsafe.SliceData(b))
}

// AddSecrets registers values that must never be stored: the recording
// replaces every occurrence of each (as it is, JSON-escaped, or
// URL-escaped) in span params, results, errors and tool names, in event
// text and data and in the metadata by [Redacted], before the value is
// stored, so the live view, the journal and every export are clean. Values
// shorter than [MinSecretLen] bytes are ignored. What is already stored
// is scrubbed too; register secrets before the session starts, so that
// nothing reaches a journal first.
//
// A recording with no secrets registered pays nothing for this.
func (r *Recording) AddSecrets(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []string
	if sc := r.scrub.Load(); sc != nil {
		all = slices.Clone(sc.secrets)
	}
	n := len(all)
	for _, s := range secrets {
		if len(s) >= MinSecretLen && !slices.Contains(all, s) {
			all = append(all, s)
		}
	}
	if len(all) == n {
		return
	}
	sc := newScrubber(all)
	r.scrub.Store(sc)
	sc.meta(&r.meta)
	for i := range r.kept() {
		p := new(Span)
		*p = *r.keptAt(i)
		sc.span(p, nil)
		r.setKept(i, p)
	}
	for id, s := range r.pending { // open spans past a sample's cap
		p := new(Span)
		*p = *s
		sc.span(p, nil)
		r.pending[id] = p
	}
	// Events are shared with earlier snapshots: copy before changing.
	events := make([]Event, len(r.events), cap(r.events))
	copy(events, r.events)
	for i := range events {
		sc.event(&events[i])
	}
	r.events = events
	r.version++
}

// Scrub returns text with the recording's secrets ([Recording.AddSecrets])
// replaced by [Redacted], and every URL in it passed through
// [RedactURL]: for messages about the recording's session that are
// printed rather than stored, such as errors.
func (r *Recording) Scrub(text string) string {
	if sc := r.scrub.Load(); sc != nil {
		text = sc.scrubText(text)
	}
	return RedactURLsIn(text)
}

// ScrubEvent returns e as the recording would store it: without the
// recording's secrets. For copies of an event handed elsewhere (a log
// view) before or besides [Recording.AddEvent].
func (r *Recording) ScrubEvent(e Event) Event {
	if sc := r.scrub.Load(); sc != nil {
		sc.event(&e)
	}
	return e
}
