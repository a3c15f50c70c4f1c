package proxy

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// The ways a client presents the proxy's client token (see
// [Guard.Token]). Both are taken off the request before it is passed on:
// the server never sees the token.
const (
	// TokenHeader is the header that carries the client token.
	TokenHeader = "X-Inspector-Token"
	// TokenParam is the query parameter that carries it, for a client
	// that can only be given a URL.
	TokenParam = "inspector_token"
)

// Guard stands in front of the HTTP proxy and turns away requests that
// did not come from a client the person running the proxy meant to
// serve. It applies the Go SDK's own DNS-rebinding rule (a request that
// arrived on a loopback address must name a loopback host) and the same
// rule to a browser's Origin, and, when Token is set, asks for that
// token. A request turned away gets 403 (foreign Host or Origin) or 401
// (no or wrong token) with a body that says why, and never reaches the
// handler behind.
//
// Every [HTTP] proxy goes through its own Guard ([HTTP.Guard]); Wrap puts
// one in front of any other handler.
type Guard struct {
	// Token, when not "", is the client token every request must carry,
	// in the [TokenHeader] header or the [TokenParam] query parameter.
	Token string
	// Hosts are host names, besides loopback names and IP addresses, that
	// a request to a non-loopback address may name: the name in --listen,
	// say. On a loopback address only loopback names are accepted.
	Hosts []string
}

// Wrap returns next behind g.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.Admit(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// Admit checks r and, when it is turned away, answers it and returns
// false. A request admitted has the token taken off.
func (g *Guard) Admit(w http.ResponseWriter, r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	onLoopback := local == nil || isLoopbackAddr(local.String())
	if !g.hostOK(r.Host, onLoopback) {
		refuse(w, http.StatusForbidden, fmt.Sprintf("Forbidden: the Host header %q does not name this proxy's address: "+
			"a request that names another host is refused (DNS rebinding protection); connect to the address the proxy printed", r.Host))
		return false
	}
	if origin, ok := r.Header["Origin"]; ok {
		if len(origin) != 1 || !g.originOK(origin[0], r.Host, onLoopback) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("Forbidden: the Origin %q is not this machine's: a web page from another site may not use the proxy",
				strings.Join(origin, ", ")))
			return false
		}
	}
	if g.Token != "" {
		if !g.tokenOK(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="inspector proxy"`)
			refuse(w, http.StatusUnauthorized, "Unauthorized: this proxy wants its client token, in the "+TokenHeader+
				" header or the ?"+TokenParam+"= query parameter (the proxy printed it as it started)")
			return false
		}
	}
	r.Header.Del(TokenHeader)
	if r.URL.RawQuery != "" && strings.Contains(r.URL.RawQuery, TokenParam) {
		q := r.URL.Query()
		q.Del(TokenParam)
		r.URL.RawQuery = q.Encode()
	}
	return true
}

// refuse answers a request the guard turns away.
func refuse(w http.ResponseWriter, status int, why string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintln(w, "inspector proxy: "+why)
}

// hostOK says whether a request may name host (a Host header's value):
// a loopback name always; on a non-loopback address also an IP address
// (a browser that names an address, not a name, cannot be rebound) and
// g's Hosts.
func (g *Guard) hostOK(host string, onLoopback bool) bool {
	name := hostName(host)
	if name == "" {
		return false
	}
	if isLoopbackAddr(name) {
		return true
	}
	if onLoopback {
		return false
	}
	return isIP(name) || g.named(name)
}

// originOK says whether a browser page at origin may use the proxy: its
// host must be one the Host header could name, and on a non-loopback
// address a loopback origin or the one the request names itself.
func (g *Guard) originOK(origin, host string, onLoopback bool) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null" (a sandboxed or file page) among them
	}
	name := hostName(u.Host)
	if isLoopbackAddr(name) {
		return true
	}
	if onLoopback {
		return false
	}
	return strings.EqualFold(name, hostName(host)) || g.named(name)
}

// named says whether name is one of g's Hosts.
func (g *Guard) named(name string) bool {
	for _, h := range g.Hosts {
		if strings.EqualFold(strings.TrimSuffix(h, "."), name) {
			return true
		}
	}
	return false
}

// tokenOK says whether r carries g's token; the comparison takes the
// same time whatever was sent.
func (g *Guard) tokenOK(r *http.Request) bool {
	got := r.Header.Get(TokenHeader)
	if got == "" {
		got = r.URL.Query().Get(TokenParam)
	}
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(g.Token))
	return got != "" && subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// NewToken returns a fresh random client token: 32 hex digits.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// hostName is the lower-cased host of a host or host:port, without
// brackets or a trailing dot.
func hostName(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
}

func isIP(name string) bool {
	_, err := netip.ParseAddr(name)
	return err == nil
}

// isLoopbackAddr says whether addr (a host or host:port) is localhost or
// a loopback IP address: the Go SDK's rule.
func isLoopbackAddr(addr string) bool {
	name := hostName(addr)
	if name == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.IsLoopback()
}

// RemoteListenError is [Listen]'s error for an address that is not a
// loopback one, when remote clients were not allowed: a usage error.
type RemoteListenError struct {
	Addr string // as given
	Why  string // what it would have exposed
}

func (e *RemoteListenError) Error() string {
	return fmt.Sprintf("%s %s: the proxy listens on loopback only unless --allow-remote says otherwise "+
		"(anyone who can reach it could use the server behind it); use 127.0.0.1:PORT, or add --allow-remote and --client-token auto", e.Addr, e.Why)
}

// Listen listens on addr (host:port) for the proxy's clients. Unless
// remote is true it refuses, with a [*RemoteListenError], any address
// that is not a loopback one: all interfaces (":PORT", "0.0.0.0:PORT",
// "[::]:PORT"), another interface's address, or a name that resolves to
// one.
func Listen(addr string, remote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: want HOST:PORT, as in 127.0.0.1:9000 (%v)", addr, err)
	}
	if !remote {
		switch ip, err := netip.ParseAddr(strings.Trim(host, "[]")); {
		case host == "" || err == nil && ip.IsUnspecified():
			return nil, &RemoteListenError{Addr: addr, Why: "listens on every interface"}
		case err == nil && !ip.IsLoopback():
			return nil, &RemoteListenError{Addr: addr, Why: "is not a loopback address"}
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := l.Addr().(*net.TCPAddr); ok && !remote && !tcp.IP.IsLoopback() {
		l.Close()
		return nil, &RemoteListenError{Addr: addr, Why: "resolves to " + tcp.IP.String() + ", not a loopback address"}
	}
	return l, nil
}

// Guard returns the proxy's guard, to set its token or host names before
// it serves.
func (p *HTTP) Guard() *Guard { return &p.guard }

// SetClientToken makes the proxy ask every client for token (see
// [Guard.Token]) and registers it with the recording as a secret, so that
// a message that quotes it is stored with it redacted.
func (p *HTTP) SetClientToken(token string) {
	p.guard.Token = token
	p.rec.AddSecrets(token)
}

// IsRemoteListen says whether err is Listen's refusal of a remote
// address.
func IsRemoteListen(err error) bool {
	var re *RemoteListenError
	return errors.As(err, &re)
}
