package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Era is how a session opens, and so which protocol it may end up
// speaking. Every face (the command line's --era, the app's Server panel,
// a client config's "era") names it with the same three words.
type Era string

// The eras.
const (
	// EraLegacy opens with initialize, offering [DefaultProtocol] (or
	// the older version a target pins): the server sends its requests
	// to the client while serving a call. The default.
	EraLegacy Era = "legacy"
	// EraAuto asks server/discover first and speaks [ModernProtocol]
	// when the server does; a server that does not know it gets
	// initialize with [DefaultProtocol] instead.
	EraAuto Era = "auto"
	// EraModern speaks [ModernProtocol] only: a server that does not
	// answer server/discover with it is an [EraError].
	EraModern Era = "modern"
)

// ModernProtocol is the first protocol version of the modern era: no
// initialize (server/discover instead), and a server asks for input
// with input_required rounds instead of requests sent during a call.
const ModernProtocol = "2026-07-28"

// Eras lists the eras, the default first.
func Eras() []Era { return []Era{EraLegacy, EraAuto, EraModern} }

// erasWant is what an era may be, in the words of its errors.
const erasWant = "want legacy (initialize, the default), auto (server/discover, else initialize) or modern (" + ModernProtocol + " only)"

// ParseEra reads "legacy", "auto" or "modern"; "" is [EraLegacy].
func ParseEra(s string) (Era, error) {
	e := Era(strings.ToLower(strings.TrimSpace(s)))
	if e == "" {
		return EraLegacy, nil
	}
	return e, e.Validate()
}

// Validate says what is wrong with e, or nil; "" is [EraLegacy].
func (e Era) Validate() error {
	switch e {
	case "", EraLegacy, EraAuto, EraModern:
		return nil
	}
	return fmt.Errorf("era %q: %s", string(e), erasWant)
}

// EraOf is the era a negotiated protocol version belongs to: [EraModern]
// from [ModernProtocol] on, else [EraLegacy]; "" for no version.
func EraOf(protocol string) Era {
	switch {
	case protocol == "":
		return ""
	case protocol >= ModernProtocol:
		return EraModern
	}
	return EraLegacy
}

// EraBadge says what a session that asked for era asked ended up
// speaking: "modern · 2026-07-28", "legacy · 2025-11-25", and for auto
// which era it fell to, "auto → legacy · 2025-11-25". "" when no
// protocol was negotiated. An asked era of "" (a recording made before
// eras, or by the proxy) gives the negotiated era alone.
func EraBadge(asked Era, protocol string) string {
	got := EraOf(protocol)
	if got == "" {
		return ""
	}
	if asked == EraAuto {
		return fmt.Sprintf("%s → %s · %s", EraAuto, got, protocol)
	}
	return fmt.Sprintf("%s · %s", got, protocol)
}

// ProtocolEra is the era t asks for and the protocol version it pins
// ("" for the era's own), with [Target.Protocol] read together with
// [Target.Era]: the one place the two are checked against each other.
//
// Without an era, the protocol picks it, as before eras were named:
// "latest" is auto, a version from [ModernProtocol] on is modern, any
// other legacy. With one, the protocol must belong to it: legacy takes a
// version older than [ModernProtocol], modern one from it on, and auto
// none but [ModernProtocol] (it falls back to [DefaultProtocol] and
// cannot offer another); "latest" goes with auto and modern.
func (t Target) ProtocolEra() (Era, string, error) {
	if err := t.Era.Validate(); err != nil {
		return "", "", err
	}
	p := strings.TrimSpace(t.Protocol)
	if p != "" && p != "latest" && !slices.Contains(mcp.SupportedProtocolVersions(), p) {
		return "", "", fmt.Errorf("protocol %q is not one this inspector speaks; choose latest or one of %s",
			p, strings.Join(mcp.SupportedProtocolVersions(), ", "))
	}
	era := t.Era
	if era == "" {
		switch {
		case p == "latest":
			return EraAuto, "", nil
		case p == "":
			return EraLegacy, "", nil
		}
		return EraOf(p), p, nil
	}
	if p == "latest" {
		p = ""
		if era == EraLegacy {
			return "", "", fmt.Errorf("era legacy with protocol latest: latest is %s, the modern era; choose era auto or modern for it, or leave the protocol out for %s", ModernProtocol, DefaultProtocol)
		}
	}
	switch {
	case p == "":
		return era, "", nil
	case era == EraLegacy && EraOf(p) == EraModern:
		return "", "", fmt.Errorf("era legacy with protocol %s: %s is a modern-era version, which legacy (initialize) cannot offer; choose era modern (or auto) for it, or a protocol older than %s", p, p, ModernProtocol)
	case era == EraModern && EraOf(p) == EraLegacy:
		return "", "", fmt.Errorf("era modern with protocol %s: %s is a legacy-era version (initialize); choose era legacy for it, or leave the protocol out for %s", p, p, ModernProtocol)
	case era == EraAuto && p != ModernProtocol:
		return "", "", fmt.Errorf("era auto with protocol %s: auto tries %s and falls back to %s, and offers no other version; choose era legacy to offer %s", p, ModernProtocol, DefaultProtocol, p)
	}
	return era, p, nil
}

// offer is the version to put in the SDK's session options for era and
// pinned (as [Target.ProtocolEra] gave them): for auto and modern a
// modern version, which makes the SDK ask server/discover first.
func offer(era Era, pinned string) string {
	switch {
	case pinned != "":
		return pinned
	case era == EraLegacy:
		return DefaultProtocol
	}
	return ModernProtocol
}

// EraError is [Connect]'s error when a target pins the modern era and the
// server does not speak it: its answer to server/discover was an error,
// or named no modern version. The initialize the SDK would fall back to
// is never sent.
type EraError struct {
	// Target is the server.
	Target Target
	// Discover is the server's error to server/discover, when it gave one.
	Discover error
	// Supported are the versions the server named in its answer, when it
	// answered.
	Supported []string
}

func (e *EraError) Error() string {
	return fmt.Sprintf("connecting to %s: %s; connect with era auto to fall back to initialize (%s) on such a server, or era legacy",
		e.Target, e.Why(), DefaultProtocol)
}

// Why says what the server did, without the target or what to do:
// "the server does not speak the modern era (2026-07-28): server/discover
// failed: …".
func (e *EraError) Why() string {
	why := "it did not answer server/discover"
	switch {
	case e.Discover != nil:
		why = "server/discover failed: " + e.Discover.Error()
	case e.Supported != nil:
		why = "its server/discover answer names " + strings.Join(e.Supported, ", ") + " and no modern version"
	}
	return fmt.Sprintf("the server does not speak the modern era (%s): %s", ModernProtocol, why)
}

// Unwrap returns the server's error to server/discover, if any.
func (e *EraError) Unwrap() error { return e.Discover }

// eraGuard keeps a session that pins the modern era from falling back to
// initialize, which the SDK does on any failed server/discover, and
// remembers what server/discover got so that the error can say it.
type eraGuard struct {
	modern bool

	mu        sync.Mutex
	discover  error    // the server's error to server/discover, guarded by mu
	supported []string // the versions its answer named, guarded by mu
	refused   bool     // initialize was refused, guarded by mu
}

// middleware is the guard as the SDK's sending middleware; added after
// the session's own, it runs outermost, so a refused initialize is never
// recorded as sent.
func (g *eraGuard) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			if g.modern {
				g.mu.Lock()
				g.refused = true
				g.mu.Unlock()
				return nil, errModernOnly
			}
		case "server/discover":
			res, err := next(ctx, method, req)
			g.mu.Lock()
			g.discover = err
			if d, ok := res.(*mcp.DiscoverResult); ok && err == nil {
				g.supported = slices.Clone(d.SupportedVersions)
				if g.supported == nil {
					g.supported = []string{}
				}
			}
			g.mu.Unlock()
			return res, err
		}
		return next(ctx, method, req)
	}
}

// errModernOnly is what the guard answers the SDK's fallback initialize
// with; [eraGuard.explain] turns it into an [EraError].
var errModernOnly = errors.New("the modern era is pinned: no initialize")

// explain returns the [EraError] for t when the guard refused an
// initialize, else nil.
func (g *eraGuard) explain(t Target) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.refused {
		return nil
	}
	return &EraError{Target: t, Discover: g.discover, Supported: g.supported}
}
