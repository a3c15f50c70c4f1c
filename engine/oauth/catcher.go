package oauth

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// redirectPath is where the authorization server sends the browser back.
const redirectPath = "/callback"

// catcher is the loopback HTTP server the browser is redirected to: it
// takes the first redirect that carries a code or an error and answers
// the browser with a short page.
type catcher struct {
	ln     net.Listener
	srv    *http.Server
	result chan redirect
}

// redirect is what came back to the catcher.
type redirect struct {
	code, state, iss string
	err              error
}

// listen opens the catcher on the configured port, or on the port of
// the earlier redirect address of a client registered dynamically (whose
// registration names it) when that one is free, or on any.
func (c *Client) listen(registered *oauth2.Config) (*catcher, error) {
	if c.cfg.RedirectPort == 0 && registered != nil {
		if u, err := url.Parse(registered.RedirectURL); err == nil {
			if port, err := strconv.Atoi(u.Port()); err == nil {
				if k, err := listenForRedirect(port); err == nil {
					return k, nil
				}
			}
		}
	}
	return listenForRedirect(c.cfg.RedirectPort)
}

// beforeBrowser checks what can be checked before the person is sent to
// the authorization page at authURL: a client metadata document that
// would be refused there is reported now, with what to fix.
func (c *Client) beforeBrowser(ctx context.Context, authURL, redirect string) error {
	if tried := c.trail.discovery(); len(tried) > 0 && !slices.ContainsFunc(tried, func(e exchange) bool { return e.status == "200 OK" && e.said == "" }) {
		var list []string
		for _, e := range tried {
			list = append(list, e.String())
		}
		c.notify("no usable authorization-server metadata (%s): using the endpoints an MCP client guesses then, under the authorization server's address", strings.Join(list, "; "))
	}
	if c.cfg.ClientMetadataURL == "" {
		return nil
	}
	u, err := url.Parse(authURL)
	if err != nil {
		return nil
	}
	if u.Query().Get("client_id") != c.cfg.ClientMetadataURL {
		how := "registering dynamically"
		if c.cfg.ClientID != "" {
			how = "using the client id " + c.cfg.ClientID
		}
		c.notify("the authorization server does not take client ID metadata documents (its metadata lacks client_id_metadata_document_supported): %s instead", how)
		return nil
	}
	return c.checkClientDocument(ctx, redirect)
}

func listenForRedirect(port int) (*catcher, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("OAuth: redirect port %d: want 0 (any free port) to 65535", port)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("OAuth: cannot listen for the browser's redirect on 127.0.0.1:%d: %v (choose another port, or 0 for any)", port, err)
	}
	c := &catcher{ln: ln, result: make(chan redirect, 1)}
	c.srv = &http.Server{Handler: http.HandlerFunc(c.serve), ReadHeaderTimeout: 10 * time.Second}
	go c.srv.Serve(ln)
	return c, nil
}

func (c *catcher) redirectURL() string {
	return "http://" + c.ln.Addr().String() + redirectPath
}

func (c *catcher) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.srv.Shutdown(ctx)
}

func (c *catcher) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != redirectPath {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	var got redirect
	switch {
	case q.Get("error") != "":
		got.err = &deniedError{code: q.Get("error"), description: q.Get("error_description")}
	case q.Get("code") != "":
		got = redirect{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss")}
	default:
		http.Error(w, "This address is for the authorization server's redirect: it carries a code or an error.", http.StatusBadRequest)
		return
	}
	select {
	case c.result <- got:
	default:
		http.Error(w, "This sign-in is already finished.", http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if got.err != nil {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "<!doctype html><title>Sign-in refused</title><p>Fanout Inspector was not signed in: %s.</p><p>You can close this tab.</p>\n", html.EscapeString(got.err.Error()))
		return
	}
	fmt.Fprint(w, "<!doctype html><title>Signed in</title><p>Fanout Inspector is signed in. You can close this tab.</p>\n")
}

// fetchCode is the SDK's AuthorizationCodeFetcher: it shows the person
// where to go and waits for the redirect.
func (c *Client) fetchCode(k *catcher) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if err := c.beforeBrowser(ctx, args.URL, k.redirectURL()); err != nil {
			return nil, err
		}
		c.notify("Open this address in a browser to sign in to %s (waiting up to %v):\n%s", c.cfg.ServerURL, c.cfg.Wait, args.URL)
		c.mu.Lock()
		open := c.cfg.OpenBrowser
		c.mu.Unlock()
		if open != nil {
			if err := open(args.URL); err != nil {
				c.notify("could not open a browser (%v): open the address above yourself", err)
			}
		}
		t := time.NewTimer(c.cfg.Wait)
		defer t.Stop()
		select {
		case got := <-k.result:
			if got.err != nil {
				return nil, got.err
			}
			c.sink.add(got.code, got.state)
			return &auth.AuthorizationResult{Code: got.code, State: got.state, Iss: got.iss}, nil
		case <-t.C:
			return nil, &waitError{wait: c.cfg.Wait, preregistered: c.cfg.ClientID != ""}
		case <-ctx.Done():
			return nil, &stoppedError{ctx.Err()}
		}
	}
}

// waitError is a sign-in nobody finished in time.
type waitError struct {
	wait          time.Duration
	preregistered bool
}

func (e *waitError) Error() string {
	msg := fmt.Sprintf("OAuth: the browser did not come back from the authorization page within %v: open the address printed above and sign in there (allow longer with --oauth-wait)", e.wait)
	if e.preregistered {
		msg += "; if the page showed an error such as an unknown client or a wrong redirect address, check --oauth-client-id and --oauth-redirect-port"
	}
	return msg
}

// deniedError is the authorization server sending back an error instead
// of a code: the person declined, or the server refused the request.
type deniedError struct{ code, description string }

func (e *deniedError) Error() string {
	msg := "OAuth: the authorization server sent back " + e.code
	if e.description != "" {
		msg += " (" + e.description + ")"
	}
	if e.code == "access_denied" {
		return msg + ": access was not granted in the browser; sign in again and allow it"
	}
	return msg + ": sign-in failed at the authorization server"
}

// stoppedError is a sign-in given up while waiting for the browser (an
// interrupt, Disconnect in the app).
type stoppedError struct{ cause error }

func (e *stoppedError) Error() string {
	return "OAuth: sign-in stopped before the browser came back: " + e.cause.Error()
}

func (e *stoppedError) Unwrap() error { return e.cause }
