package recorder

import (
	"encoding/json"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unsafe"
)

// Redacted replaces a credential wherever the inspector would otherwise
// write or print it: the value of a credential-like URL query parameter,
// a URL's user name and password, and every registered secret
// ([Recording.AddSecrets]).
const Redacted = "REDACTED"

// MinSecretLen is the shortest secret [Recording.AddSecrets] scrubs by
// value: shorter values ("on", "true", "text", "info", a client's
// "Bearer string") would match ordinary words all over a recording, and
// are too short to protect anything anyway. A URL's credentials are
// redacted by [RedactURL] whatever their length.
const MinSecretLen = 8

// LooksSecret reports whether value, found in a place whose name does
// not say it holds a credential (an environment variable named
// LOG_LEVEL, a header named X-Tenant), looks like a credential all the
// same: one word, mixing letters and digits, at least 16 bytes long (or
// at least [MinSecretLen] with upper case, lower case and digits), with
// at least 3 bits of entropy a byte. Words, levels, booleans, numbers,
// paths and host names ("true", "text", "info", "production",
// "localhost:8080") do not, so registering them as secrets would not
// blank ordinary text all over a recording. A URL does not either: its
// credentials are [URLSecrets].
func LooksSecret(value string) bool {
	if len(value) < MinSecretLen || strings.ContainsFunc(value, unicode.IsSpace) || strings.Contains(value, "://") {
		return false
	}
	var lower, upper, digit bool
	var counts [256]int
	for i := 0; i < len(value); i++ {
		c := value[i]
		counts[c]++
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	if !digit || !(lower || upper) || (len(value) < 16 && !(lower && upper)) {
		return false
	}
	bits := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(value))
			bits -= p * math.Log2(p)
		}
	}
	return bits >= 3
}

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
	if !strings.Contains(text, "://") { // most text: no lower-cased copy
		return text
	}
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
// so both get every form. In JSON it changes string values only, never
// an object's keys, numbers, booleans or the structure.
//
// Adding a secret costs the forms of that secret, whatever is stored:
// forms are indexed by their first [MinSecretLen] bytes (every form is at
// least that long), and a scan looks each position of the text up there,
// behind a bitmap of the first two bytes that lets most positions pass
// at the cost of a bit test.
type scrubber struct {
	mu      sync.RWMutex
	secrets map[string]bool      // registered
	heads   [1 << 16 / 64]uint64 // bit set: a form starts with these two bytes
	forms   map[string][]string  // by their first bytes, longest first
}

func newScrubber() *scrubber {
	return &scrubber{secrets: map[string]bool{}, forms: map[string][]string{}}
}

// add registers secrets (already checked for length) and reports whether
// any was new.
func (sc *scrubber) add(secrets []string) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	added := false
	for _, s := range secrets {
		if sc.secrets[s] {
			continue
		}
		sc.secrets[s] = true
		added = true
		for _, f := range []string{s, jsonEscape(s, true), jsonEscape(s, false), url.QueryEscape(s), url.PathEscape(s)} {
			sc.index(f)
		}
	}
	return added
}

// index adds form f (at least MinSecretLen bytes long).
func (sc *scrubber) index(f string) {
	key := f[:MinSecretLen]
	list := sc.forms[key]
	if slices.Contains(list, f) {
		return
	}
	i, _ := slices.BinarySearchFunc(list, f, func(a, b string) int { return len(b) - len(a) })
	sc.forms[key] = slices.Insert(list, i, f)
	h := uint16(f[0])<<8 | uint16(f[1])
	sc.heads[h/64] |= 1 << (h % 64)
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
	if len(s) < MinSecretLen {
		return s
	}
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	out, changed := sc.replace(nil, s)
	if !changed {
		return s
	}
	return string(out)
}

// replace appends s to out with every form of a secret in it replaced,
// and reports whether there was one. The caller holds sc.mu.
func (sc *scrubber) replace(out []byte, s string) ([]byte, bool) {
	last, changed := 0, false
	for i := 0; i+MinSecretLen <= len(s); i++ {
		h := uint16(s[i])<<8 | uint16(s[i+1])
		if sc.heads[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, f := range sc.forms[s[i:i+MinSecretLen]] {
			if strings.HasPrefix(s[i:], f) {
				out = append(out, s[last:i]...)
				out = append(out, Redacted...)
				i += len(f) - 1
				last, changed = i+1, true
				break
			}
		}
	}
	if !changed {
		return out, false
	}
	return append(out, s[last:]...), true
}

// scrubJSON returns b with the secrets replaced in its string values.
// Object keys, numbers, literals and the structure are never changed, so
// the result is as valid as b was. A string with escapes is decoded
// first, so that a secret is found however the sender escaped it.
func (sc *scrubber) scrubJSON(b json.RawMessage) json.RawMessage {
	if len(b) < MinSecretLen {
		return b
	}
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	var (
		out       []byte // nil until something changes
		last      int    // b[:last] is in out
		objects   []bool // the open containers: true for an object
		expectKey bool   // the next string is an object's key
	)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			objects = append(objects, true)
			expectKey = true
		case '[':
			objects = append(objects, false)
			expectKey = false
		case '}', ']':
			if len(objects) > 0 {
				objects = objects[:len(objects)-1]
			}
			expectKey = false
		case ':':
			expectKey = false
		case ',':
			expectKey = len(objects) > 0 && objects[len(objects)-1]
		case '"':
			end, escaped := stringEnd(b, i+1)
			isKey := expectKey
			if !isKey && end-i-1 >= MinSecretLen {
				if clean, ok := sc.scrubString(b[i:min(end+1, len(b))], escaped); ok {
					out = append(out, b[last:i]...)
					out = append(out, clean...)
					last = min(end+1, len(b))
				}
			}
			i = end
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// stringEnd returns the index of the quote that ends the JSON string
// whose content starts at b[i] (len(b) when it never ends), and whether
// the string holds escapes.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i, escaped
		}
	}
	return len(b), escaped
}

// scrubString returns the JSON string lit (quotes included) with the
// secrets in its value replaced, and whether there were any.
func (sc *scrubber) scrubString(lit []byte, escaped bool) ([]byte, bool) {
	if !escaped {
		content := lit[1:]
		if len(lit) >= 2 && lit[len(lit)-1] == '"' {
			content = lit[1 : len(lit)-1]
		}
		out, ok := sc.replace([]byte{'"'}, unsafe.String(unsafe.SliceData(content), len(content)))
		if !ok {
			return nil, false
		}
		return append(out, lit[1+len(content):]...), true
	}
	var v string
	if json.Unmarshal(lit, &v) != nil {
		return nil, false
	}
	out, ok := sc.replace(nil, v)
	if !ok {
		return nil, false
	}
	quoted, _ := json.Marshal(string(out))
	return quoted, true
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
	e.Logger = sc.scrubText(e.Logger)
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

// AddSecrets registers values that must never be stored: from now on the
// recording replaces every occurrence of each (as it is, JSON-escaped, or
// URL-escaped) by [Redacted] in what enters it — inside the string
// values of span params and results (never in keys, numbers or
// booleans), in errors and tool names, in event text and data and in the
// metadata — before it is stored, so the live view, the journal and
// every export are clean. What is stored already is left as it is, so
// that a secret costs the same whatever the recording holds: register
// secrets before the session starts, and a client's credentials before
// its request is recorded. Values shorter than [MinSecretLen] bytes are
// ignored. For a value whose place does not say it is a credential (an
// environment variable named LOG_LEVEL), ask [LooksSecret] first.
//
// A recording with no secrets registered pays nothing for this.
func (r *Recording) AddSecrets(secrets ...string) {
	secrets = slices.DeleteFunc(slices.Clone(secrets), func(s string) bool { return len(s) < MinSecretLen })
	if len(secrets) == 0 {
		return
	}
	sc := r.scrub.Load()
	if sc == nil {
		r.scrub.CompareAndSwap(nil, newScrubber())
		sc = r.scrub.Load()
	}
	if sc.add(secrets) {
		r.mu.Lock()
		sc.meta(&r.meta) // small, and set before the session starts
		r.version++
		r.mu.Unlock()
	}
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

// Scrubber returns a function that does what [Recording.Scrub] does, with
// the secrets registered now and later, and that keeps only the secrets
// alive, not the recording: for text printed after the recording is
// gone (a connection's late log lines).
func (r *Recording) Scrubber() func(string) string {
	sc := r.scrub.Load()
	if sc == nil {
		r.scrub.CompareAndSwap(nil, newScrubber())
		sc = r.scrub.Load()
	}
	return func(text string) string { return RedactURLsIn(sc.scrubText(text)) }
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
