package oauthtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Issuer is the authorization server's issuer: the server's URL and
// [Options.IssuerPath].
func (s *Server) Issuer() string { return s.URL + s.opts.IssuerPath }

// MetadataPath is where the authorization server's metadata is served
// ("" for [MetadataNone]).
func (s *Server) MetadataPath() string {
	p := s.opts.IssuerPath
	switch s.opts.Metadata {
	case MetadataOpenIDInserted:
		return "/.well-known/openid-configuration" + p
	case MetadataOpenIDAppended:
		return p + "/.well-known/openid-configuration"
	case MetadataNone:
		return ""
	}
	return "/.well-known/oauth-authorization-server" + p
}

// WellKnownAsked is every path under a .well-known folder the servers
// were asked for, in order (those they do not serve too).
func (s *Server) WellKnownAsked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.wellKnown)
}

// ScopesAsked is the scope parameter of each authorization request, in
// order.
func (s *Server) ScopesAsked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.authorized)
}

// AuthMethodsUsed is how the client authenticated at each token request,
// in order: client_secret_basic, client_secret_post or none.
func (s *Server) AuthMethodsUsed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.methods)
}

func (s *Server) routeAuthServer(mux *http.ServeMux) {
	base := s.opts.IssuerPath
	if path := s.MetadataPath(); path != "" {
		mux.HandleFunc("GET "+path, s.metadata)
	}
	mux.HandleFunc(base+"/register", s.register)
	mux.HandleFunc(base+"/authorize", s.authorize)
	mux.HandleFunc(base+"/token", s.token)
	// Every other address is noted (discovery tries several) and not found.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.noteWellKnown(r)
		http.NotFound(w, r)
	})
}

func (s *Server) noteWellKnown(r *http.Request) {
	if strings.Contains(r.URL.Path, "/.well-known/") {
		s.mu.Lock()
		s.wellKnown = append(s.wellKnown, r.URL.Path)
		s.mu.Unlock()
	}
}

func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	s.noteWellKnown(r)
	if s.opts.HangMetadata {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	issuer := s.Issuer()
	m := &oauthex.AuthServerMeta{
		Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize", TokenEndpoint: issuer + "/token",
		ResponseTypesSupported: []string{"code"}, GrantTypesSupported: []string{"authorization_code", "refresh_token"},
		CodeChallengeMethodsSupported: []string{"S256"}, ScopesSupported: []string{"mcp", "offline_access"},
		TokenEndpointAuthMethodsSupported: s.opts.TokenAuthMethods,
		ClientIDMetadataDocumentSupported: s.opts.ClientDocuments,
	}
	if s.opts.StepUpScope != "" {
		m.ScopesSupported = append(m.ScopesSupported, s.opts.StepUpScope)
	}
	if s.opts.NoPKCE {
		m.CodeChallengeMethodsSupported = nil
	}
	if s.opts.WrongIssuer != "" {
		m.Issuer = s.opts.WrongIssuer
	}
	if !s.opts.NoRegistration {
		m.RegistrationEndpoint = issuer + "/register"
	}
	if s.opts.Metadata != MetadataOAuth {
		m.JWKSURI = issuer + "/jwks"
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
	method := "client_secret_post"
	if !slices.Contains(s.opts.TokenAuthMethods, method) {
		method = s.opts.TokenAuthMethods[0]
	}
	s.mu.Lock()
	id := "client-" + rand8()
	secret := s.secret("client-secret")
	s.clients[id] = secret
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "client_secret": secret, "redirect_uris": meta.RedirectURIs,
		"token_endpoint_auth_method": method, "grant_types": meta.GrantTypes,
	})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("client_id")
	s.mu.Lock()
	s.authorized = append(s.authorized, q.Get("scope"))
	_, known := s.clients[id]
	s.mu.Unlock()
	if !known && s.opts.ClientDocuments && strings.HasPrefix(id, "https://") {
		if err := s.checkClientDocument(r.Context(), id, q.Get("redirect_uri")); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		known = true
		s.mu.Lock()
		s.clients[id] = ""
		s.mu.Unlock()
	}
	if !known {
		http.Error(w, "unknown client "+id, http.StatusBadRequest)
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
		var scopes []string
		for _, sc := range strings.Fields(q.Get("scope")) {
			if sc != s.opts.Withhold {
				scopes = append(scopes, sc)
			}
		}
		if len(scopes) == 0 {
			scopes = []string{"mcp"}
		}
		s.mu.Lock()
		code := s.secret("code")
		s.codes[code] = grant{client: id, challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), scopes: scopes}
		s.mu.Unlock()
		back.Set("code", code)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// clientAuth is how a token request authenticates its client: the id, the
// secret, and the method (client_secret_basic, client_secret_post or none).
func clientAuth(r *http.Request) (id, secret, method string) {
	if user, pass, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(user)
		secret, _ = url.QueryUnescape(pass)
		return id, secret, "client_secret_basic"
	}
	if r.PostForm.Has("client_secret") {
		return r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"), "client_secret_post"
	}
	return r.PostForm.Get("client_id"), "", "none"
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
	id, given, method := clientAuth(r)
	s.methods = append(s.methods, method)
	if given != "" && !slices.Contains(s.issued, given) {
		s.issued = append(s.issued, given) // a secret registered beforehand
	}
	if !slices.Contains(s.opts.TokenAuthMethods, method) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client",
			"error_description": "client authentication " + method + " is not taken here (" + strings.Join(s.opts.TokenAuthMethods, ", ") + " are)"})
		return
	}
	if secret, ok := s.clients[id]; !ok || secret != given {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "unknown client or wrong secret"})
		return
	}
	var scopes []string
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
		scopes = g.scopes
	case "refresh_token":
		g, ok := s.refresh[r.PostForm.Get("refresh_token")]
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token"})
			return
		}
		delete(s.refresh, r.PostForm.Get("refresh_token")) // rotated: each is used once
		scopes = g.scopes
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := s.secret("access"), s.secret("refresh")
	s.access[access] = accessGrant{expiry: time.Now().Add(s.opts.TokenLifetime), scopes: scopes}
	s.refresh[refresh] = grant{client: id, scopes: scopes}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "refresh_token": refresh, "token_type": "Bearer",
		"expires_in": int(s.opts.TokenLifetime / time.Second), "scope": strings.Join(scopes, " "),
	})
}
