package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"

	"github.com/fanout-inspector/inspector/engine/proxy"
)

// clientTokenEnv is the environment variable `inspector proxy` takes its
// client token from when --client-token is not given, so that the token
// need not be on a command line other users can read.
const clientTokenEnv = "INSPECTOR_PROXY_TOKEN"

// minClientToken is the shortest client token the proxy takes.
const minClientToken = 16

// proxyGuardFlags are `inspector proxy`'s flags for who may use an HTTP
// proxy: --allow-remote and --client-token. The proxy itself checks every
// request's Host and Origin (engine/proxy's Guard).
type proxyGuardFlags struct {
	allowRemote bool
	clientToken string
}

// addProxyGuardFlags defines the flags on fs.
func addProxyGuardFlags(fs *flag.FlagSet) *proxyGuardFlags {
	g := &proxyGuardFlags{}
	fs.BoolVar(&g.allowRemote, "allow-remote", false, "over HTTP: let --listen take an address other machines can reach (:PORT, 0.0.0.0, ::, a LAN address); refused without it. Give --client-token too")
	fs.StringVar(&g.clientToken, "client-token", "", "over HTTP: every client must send `TOKEN` in the "+proxy.TokenHeader+" header (or ?"+proxy.TokenParam+"=TOKEN); auto makes one and prints it. Default: $"+clientTokenEnv+", or none")
	return g
}

// check validates the flags: they are for the HTTP proxy only.
func (g *proxyGuardFlags) check(overHTTP bool) error {
	if !overHTTP && (g.allowRemote || g.clientToken != "") {
		return fmt.Errorf("--allow-remote and --client-token: only for the HTTP proxy (--listen and --upstream); over stdio the client is the process that started the proxy")
	}
	if !overHTTP {
		return nil
	}
	from := "--client-token"
	if g.clientToken == "" {
		g.clientToken, from = os.Getenv(clientTokenEnv), "$"+clientTokenEnv
	}
	if g.clientToken != "" && g.clientToken != "auto" && len(g.clientToken) < minClientToken {
		return fmt.Errorf("%s: a token of %d characters is too easy to guess: give at least %d, or auto for a random one", from, len(g.clientToken), minClientToken)
	}
	return nil
}

// apply sets p's guard for clients that reach it on l (listened on
// addr, loopback only unless --allow-remote: [proxy.Listen]) and says on
// stderr what a client must send.
func (g *proxyGuardFlags) apply(addr string, l net.Listener, p *proxy.HTTP, stderr io.Writer) {
	if host, _, _ := net.SplitHostPort(addr); host != "" {
		if _, err := netip.ParseAddr(host); err != nil {
			p.Guard().Hosts = append(p.Guard().Hosts, host) // --listen NAME:PORT: clients name it
		}
	}
	if tcp, ok := l.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		if name, err := os.Hostname(); err == nil {
			p.Guard().Hosts = append(p.Guard().Hosts, name)
		}
		fmt.Fprintf(stderr, "inspector proxy: warning: --allow-remote: listening on %s, which other machines can reach: anyone who can connect may use the server behind the proxy, with the upstream's credentials", l.Addr())
		if g.clientToken == "" {
			fmt.Fprint(stderr, "; give --client-token auto to ask clients for a token")
		}
		fmt.Fprintln(stderr)
	}
	switch g.clientToken {
	case "":
	case "auto":
		tok := proxy.NewToken()
		p.SetClientToken(tok)
		fmt.Fprintf(stderr, "inspector proxy: clients must send the header %s: %s (or add ?%s=%s to the URL)\n", proxy.TokenHeader, tok, proxy.TokenParam, tok)
	default:
		p.SetClientToken(g.clientToken)
		fmt.Fprintf(stderr, "inspector proxy: clients must send the client token in the header %s (or ?%s= in the URL)\n", proxy.TokenHeader, proxy.TokenParam)
	}
}
