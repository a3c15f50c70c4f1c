// Package oauthtest is an OAuth-protected MCP server for tests, all in
// one process on 127.0.0.1: a Go SDK streamable HTTP (and SSE) server behind the
// SDK's bearer-token middleware ([auth.RequireBearerToken]) with its
// protected-resource metadata, and an authorization server with
// metadata, dynamic client registration, authorize (with PKCE) and token
// endpoints. [Browse] plays the person's browser.
//
// [Options] make the servers behave as real ones do: an issuer with a
// path whose metadata is at one of the discovery addresses, confidential
// clients and the token endpoint authentication methods taken, client
// ID metadata documents (fetched from an HTTPS server of the package,
// see [Server.PublishClientDocument]), and a tool that needs a scope the
// first sign-in did not ask for (step-up).
package oauthtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Where the authorization server serves its metadata, for
// [Options.Metadata].
const (
	// MetadataOAuth is RFC 8414's address: for an issuer with a path,
	// /.well-known/oauth-authorization-server/PATH (path insertion).
	MetadataOAuth = "oauth"
	// MetadataOpenIDInserted is OpenID Connect discovery with path
	// insertion: /.well-known/openid-configuration/PATH.
	MetadataOpenIDInserted = "openid-inserted"
	// MetadataOpenIDAppended is OpenID Connect discovery appended to the
	// issuer: PATH/.well-known/openid-configuration.
	MetadataOpenIDAppended = "openid-appended"
	// MetadataNone serves no metadata at all.
	MetadataNone = "none"
)

// Options change how the servers behave, for the failure cases.
type Options struct {
	// NoRegistration leaves dynamic client registration out.
	NoRegistration bool
	// Clients are client ids registered beforehand (public clients).
	Clients []string
	// Confidential are client ids registered beforehand with a secret,
	// by id: a client that sends none is refused at the token endpoint.
	Confidential map[string]string
	// TokenAuthMethods are the token endpoint authentication methods the
	// metadata advertises and the token endpoint takes (default
	// client_secret_post and none).
	TokenAuthMethods []string
	// IssuerPath is the path of the authorization server's issuer, as
	// "/tenant1"; its endpoints are under it.
	IssuerPath string
	// Metadata is where the metadata is served (default [MetadataOAuth]).
	Metadata string
	// NoPKCE leaves code_challenge_methods_supported out of the
	// metadata.
	NoPKCE bool
	// NoAuthorizationServers makes the protected-resource metadata name
	// no authorization server.
	NoAuthorizationServers bool
	// WrongIssuer, when set, is the issuer the metadata declares instead
	// of its own.
	WrongIssuer string
	// ClientDocuments makes the authorization server take client ID
	// metadata documents: a client id that is an https URL is fetched,
	// and the authorization request's redirect_uri must be among its
	// redirect_uris.
	ClientDocuments bool
	// StepUpScope, when set, adds the tool "admin", which the MCP server
	// lets a token call only if it holds this scope: otherwise it answers
	// 403 with error="insufficient_scope" and scope=StepUpScope.
	StepUpScope string
	// StepUpNever makes the tool "admin" refused with 403
	// insufficient_scope whatever the token holds.
	StepUpNever bool
	// Withhold is a scope the authorization server never grants, even
	// when asked.
	Withhold string
	// Deny makes the authorization page decline (access_denied).
	Deny bool
	// HangToken makes the token endpoint never answer.
	HangToken bool
	// HangMetadata makes the authorization server's metadata never
	// answer.
	HangMetadata bool
	// RefuseAll makes the MCP server refuse every token.
	RefuseAll bool
	// TokenLifetime is how long an access token lasts (default 1h).
	TokenLifetime time.Duration
}

// Server is the MCP server and its authorization server.
type Server struct {
	*httptest.Server
	opts    Options
	closing chan struct{}
	docs    *httptest.Server // client ID metadata documents, over HTTPS

	mu         sync.Mutex
	clients    map[string]string // id → secret ("" for public)
	codes      map[string]grant
	access     map[string]accessGrant
	refresh    map[string]grant
	issued     []string // every secret issued: codes, tokens, client secrets
	calls      int      // requests the MCP server let in
	wellKnown  []string // paths asked for under .well-known, in order
	authorized []string // the scope of each authorization request
	methods    []string // the client authentication of each token request
	fetched    []string // client ID metadata documents fetched
	steppedUp  int      // 403 insufficient_scope answers
	published  map[string][]byte
}

type grant struct {
	client, challenge, redirect string
	scopes                      []string
}

type accessGrant struct {
	expiry time.Time
	scopes []string
}

// New starts the servers; the MCP endpoint is [Server.MCPURL].
func New(opts Options) *Server {
	s := &Server{opts: opts, closing: make(chan struct{}), clients: map[string]string{}, codes: map[string]grant{},
		access: map[string]accessGrant{}, refresh: map[string]grant{}, published: map[string][]byte{}}
	for _, id := range opts.Clients {
		s.clients[id] = ""
	}
	for id, secret := range opts.Confidential {
		s.clients[id] = secret
	}
	if s.opts.TokenLifetime == 0 {
		s.opts.TokenLifetime = time.Hour
	}
	if len(s.opts.TokenAuthMethods) == 0 {
		s.opts.TokenAuthMethods = []string{"client_secret_post", "none"}
	}
	if s.opts.Metadata == "" {
		s.opts.Metadata = MetadataOAuth
	}
	mux := http.NewServeMux()
	s.Server = httptest.NewServer(mux)
	s.docs = httptest.NewTLSServer(http.HandlerFunc(s.serveDocument))

	mcpServer := mcp.NewServer(&mcp.Implementation{Name: "oauth-protected", Version: "1"}, nil)
	mcp.AddTool(mcpServer, &mcp.Tool{Name: "whoami", Description: "says the caller is signed in, echoing its credentials"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			said := "signed in"
			if req.Extra != nil && req.Extra.Header != nil { // not over SSE
				said += " with " + req.Extra.Header.Get("Authorization")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: said}}}, nil, nil
		})
	if opts.StepUpScope != "" {
		mcp.AddTool(mcpServer, &mcp.Tool{Name: "admin", Description: "needs the scope " + opts.StepUpScope},
			func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "administering"}}}, nil, nil
			})
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil)
	prmURL := s.URL + "/.well-known/oauth-protected-resource/mcp"
	protected := auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: []string{"mcp"}})(s.stepUp(prmURL, handler))
	mux.Handle("/mcp", protected)
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil)
	sseMeta := s.URL + "/.well-known/oauth-protected-resource/sse"
	mux.Handle("/sse", auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: sseMeta, Scopes: []string{"mcp"}})(s.stepUp(sseMeta, sse)))
	for _, path := range []string{"/mcp", "/sse"} {
		mux.Handle("/.well-known/oauth-protected-resource"+path, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: s.URL + path, AuthorizationServers: s.authorizationServers(), ScopesSupported: []string{"mcp"},
		}))
	}
	s.routeAuthServer(mux)
	return s
}

func (s *Server) authorizationServers() []string {
	if s.opts.NoAuthorizationServers {
		return nil
	}
	return []string{s.Issuer()}
}

// Close stops the servers, a hanging token endpoint too.
func (s *Server) Close() {
	close(s.closing)
	s.Server.Close()
	s.docs.Close()
}

// MCPURL is the protected streamable HTTP endpoint.
func (s *Server) MCPURL() string { return s.URL + "/mcp" }

// SSEURL is the protected legacy HTTP+SSE endpoint.
func (s *Server) SSEURL() string { return s.URL + "/sse" }

// Issued is every secret the servers handed out or were given: codes,
// PKCE verifiers, access and refresh tokens, client secrets.
func (s *Server) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.issued)
}

// LetIn is how many requests the MCP server let in with a token.
func (s *Server) LetIn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// SteppedUp is how many requests the MCP server refused with 403
// insufficient_scope.
func (s *Server) SteppedUp() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.steppedUp
}

// RevokeAccess makes every access token issued so far invalid, as an
// expiry the client has not seen would.
func (s *Server) RevokeAccess() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
}

func (s *Server) secret(prefix string) string {
	v := prefix + "-" + rand.Text()
	s.issued = append(s.issued, v)
	return v
}

func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.access[token]
	if !ok || s.opts.RefuseAll {
		return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
	}
	s.calls++
	return &auth.TokenInfo{Scopes: slices.Clone(g.scopes), Expiration: g.expiry}, nil
}

// stepUp lets a call of the tool "admin" through only with a token that
// holds [Options.StepUpScope], answering 403 insufficient_scope
// otherwise, as a server asks for more access mid-session.
func (s *Server) stepUp(metadataURL string, next http.Handler) http.Handler {
	if s.opts.StepUpScope == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read the request", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		info := auth.TokenInfoFromContext(r.Context())
		if json.Unmarshal(data, &msg) == nil && msg.Method == "tools/call" && msg.Params.Name == "admin" &&
			(info == nil || !slices.Contains(info.Scopes, s.opts.StepUpScope) || s.opts.StepUpNever) {
			s.mu.Lock()
			s.steppedUp++
			s.mu.Unlock()
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q, error_description="the tool admin needs the scope %s"`,
				s.opts.StepUpScope, metadataURL, s.opts.StepUpScope))
			http.Error(w, "insufficient scope: the tool admin needs "+s.opts.StepUpScope, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// Browse plays the person's browser: it follows the authorization
// address (and its redirect to the inspector's loopback catcher), and
// returns the status and text of the last page.
func Browse(ctx context.Context, authURL string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return resp.StatusCode, b.String(), nil
}
