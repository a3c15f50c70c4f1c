// Package oauthtest is an OAuth-protected MCP server for tests, all in
// one process on 127.0.0.1: a Go SDK streamable HTTP (and SSE) server behind the
// SDK's bearer-token middleware ([auth.RequireBearerToken]) with its
// protected-resource metadata, and an authorization server with
// metadata, dynamic client registration, authorize (with PKCE) and token
// endpoints. [Browse] plays the person's browser.
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
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
	// Deny makes the authorization page decline (access_denied).
	Deny bool
	// HangToken makes the token endpoint never answer.
	HangToken bool
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

	mu      sync.Mutex
	clients map[string]string // id → secret ("" for public)
	codes   map[string]grant
	access  map[string]time.Time // token → expiry
	refresh map[string]bool
	issued  []string // every secret issued: codes, tokens, client secrets
	calls   int      // requests the MCP server let in
}

type grant struct {
	client, challenge, redirect string
}

// New starts the servers; the MCP endpoint is [Server.MCPURL].
func New(opts Options) *Server {
	s := &Server{opts: opts, closing: make(chan struct{}), clients: map[string]string{}, codes: map[string]grant{}, access: map[string]time.Time{}, refresh: map[string]bool{}}
	for _, id := range opts.Clients {
		s.clients[id] = ""
	}
	for id, secret := range opts.Confidential {
		s.clients[id] = secret
	}
	if s.opts.TokenLifetime == 0 {
		s.opts.TokenLifetime = time.Hour
	}
	mux := http.NewServeMux()
	s.Server = httptest.NewServer(mux)

	mcpServer := mcp.NewServer(&mcp.Implementation{Name: "oauth-protected", Version: "1"}, nil)
	mcp.AddTool(mcpServer, &mcp.Tool{Name: "whoami", Description: "says the caller is signed in, echoing its credentials"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			said := "signed in"
			if req.Extra != nil && req.Extra.Header != nil { // not over SSE
				said += " with " + req.Extra.Header.Get("Authorization")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: said}}}, nil, nil
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil)
	prmURL := s.URL + "/.well-known/oauth-protected-resource/mcp"
	protected := auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: []string{"mcp"}})(handler)
	mux.Handle("/mcp", protected)
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil)
	mux.Handle("/sse", auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: s.URL + "/.well-known/oauth-protected-resource/sse", Scopes: []string{"mcp"}})(sse))
	for _, path := range []string{"/mcp", "/sse"} {
		mux.Handle("/.well-known/oauth-protected-resource"+path, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: s.URL + path, AuthorizationServers: []string{s.URL}, ScopesSupported: []string{"mcp"},
		}))
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("/register", s.register)
	mux.HandleFunc("/authorize", s.authorize)
	mux.HandleFunc("/token", s.token)
	return s
}

// Close stops the servers, a hanging token endpoint too.
func (s *Server) Close() {
	close(s.closing)
	s.Server.Close()
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
	exp, ok := s.access[token]
	if !ok || s.opts.RefuseAll {
		return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
	}
	s.calls++
	return &auth.TokenInfo{Scopes: []string{"mcp"}, Expiration: exp}, nil
}

func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	m := &oauthex.AuthServerMeta{
		Issuer: s.URL, AuthorizationEndpoint: s.URL + "/authorize", TokenEndpoint: s.URL + "/token",
		ResponseTypesSupported: []string{"code"}, GrantTypesSupported: []string{"authorization_code", "refresh_token"},
		CodeChallengeMethodsSupported: []string{"S256"}, ScopesSupported: []string{"mcp", "offline_access"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_post", "none"},
	}
	if !s.opts.NoRegistration {
		m.RegistrationEndpoint = s.URL + "/register"
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if s.opts.NoRegistration {
		http.NotFound(w, r)
		return
	}
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	s.mu.Lock()
	id := "client-" + rand.Text()[:8]
	secret := s.secret("client-secret")
	s.clients[id] = secret
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "client_secret": secret, "redirect_uris": meta.RedirectURIs,
		"token_endpoint_auth_method": "client_secret_post", "grant_types": meta.GrantTypes,
	})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	_, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	if !known {
		http.Error(w, "unknown client "+q.Get("client_id"), http.StatusBadRequest)
		return
	}
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Hostname() != "127.0.0.1" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	back := redirect.Query()
	back.Set("state", q.Get("state"))
	if s.opts.Deny {
		back.Set("error", "access_denied")
		back.Set("error_description", "the person declined")
	} else {
		s.mu.Lock()
		code := s.secret("code")
		s.codes[code] = grant{client: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
		s.mu.Unlock()
		back.Set("code", code)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if s.opts.HangToken {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := r.PostForm.Get("client_id")
	if secret, ok := s.clients[id]; !ok || secret != r.PostForm.Get("client_secret") {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "unknown client or wrong secret"})
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.issued = append(s.issued, r.PostForm.Get("code_verifier"))
		g, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || g.client != id || g.redirect != r.PostForm.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "code, verifier or redirect does not match"})
			return
		}
	case "refresh_token":
		if !s.refresh[r.PostForm.Get("refresh_token")] {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token"})
			return
		}
		delete(s.refresh, r.PostForm.Get("refresh_token")) // rotated: each is used once
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := s.secret("access"), s.secret("refresh")
	s.access[access] = time.Now().Add(s.opts.TokenLifetime)
	s.refresh[refresh] = true
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "refresh_token": refresh, "token_type": "Bearer",
		"expires_in": int(s.opts.TokenLifetime / time.Second), "scope": "mcp",
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
