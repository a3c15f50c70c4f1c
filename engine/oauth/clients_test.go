package oauth_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/oauth"
	"github.com/fanout-inspector/inspector/engine/oauth/oauthtest"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestConfidentialClient: a client registered beforehand with a secret
// (read from an environment variable, as the command line does) signs in
// and renews its token authenticating the way the authorization server's
// metadata offers, or the way it is told; the secret is registered for
// scrubbing and reaches neither the recording nor the notices.
func TestConfidentialClient(t *testing.T) {
	const id, secret = "inspector-ci", "s3cret-of-the-confidential-client"
	tests := []struct {
		name    string
		offered []string
		method  string // Config.TokenAuthMethod
		want    string
	}{
		{"basic, the only one offered", []string{"client_secret_basic"}, "", "client_secret_basic"},
		{"post, the only one offered", []string{"client_secret_post"}, "", "client_secret_post"},
		{"both offered: post, as OAuth 2.1 prefers", []string{"client_secret_basic", "client_secret_post"}, "", "client_secret_post"},
		{"both offered, basic chosen", []string{"client_secret_post", "client_secret_basic"}, oauth.ClientSecretBasic, "client_secret_basic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := oauthtest.New(oauthtest.Options{NoRegistration: true, Confidential: map[string]string{id: secret}, TokenAuthMethods: tt.offered})
			t.Cleanup(srv.Close)
			t.Setenv("INSPECTOR_TEST_CLIENT_SECRET", secret)
			got, err := oauth.ReadClientSecret("env:INSPECTOR_TEST_CLIENT_SECRET", id, nil)
			if err != nil {
				t.Fatal(err)
			}
			var n notes
			c, sec, _, err := signIn(t, srv, oauth.Config{ClientID: id, ClientSecret: got, TokenAuthMethod: tt.method, Notify: n.add})
			if err != nil {
				t.Fatalf("sign-in: %v", err)
			}
			callWhoami(t, srv, c, sec, 1)
			srv.RevokeAccess() // the next call renews the token, authenticating again
			rec, said := callWhoami(t, srv, c, sec, 1)
			if !strings.Contains(said, "signed in with Bearer REDACTED") {
				t.Errorf("the tool said %s", said)
			}
			if used := srv.AuthMethodsUsed(); len(used) != 2 || used[0] != tt.want || used[1] != tt.want {
				t.Errorf("the token endpoint saw %q, want %s for the exchange and the renewal", used, tt.want)
			}
			if !sec.has(secret) {
				t.Error("the client secret was not registered for scrubbing")
			}
			var data strings.Builder
			if err := recorder.Save(&data, rec.Snapshot()); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(data.String(), secret) || strings.Contains(n.String(), secret) {
				t.Error("the client secret is in the recording or the notices")
			}
		})
	}
}

// TestConfidentialClientRefused: a wrong secret, and a method the
// authorization server does not take, each say what the token endpoint
// said, where, and how the client authenticated.
func TestConfidentialClientRefused(t *testing.T) {
	const id = "inspector-ci"
	tests := []struct {
		name   string
		secret string
		method string
		want   []string
		note   string
	}{
		{"wrong secret", "not-the-secret", "", []string{"/token refused to issue a token: invalid_client: unknown client or wrong secret",
			"the client authenticated with client_secret_basic: check --oauth-client-id and its secret"}, ""},
		{"a method not taken", "the-secret", oauth.ClientSecretPost, []string{
			"invalid_client: client authentication client_secret_post is not taken here (client_secret_basic are)",
			"whether the client is registered for client_secret_post; --oauth-token-auth picks the other"},
			"the authorization server lists client_secret_basic as its token endpoint's methods, not client_secret_post: sending the secret with client_secret_post as told"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := oauthtest.New(oauthtest.Options{NoRegistration: true, Confidential: map[string]string{id: "the-secret"}, TokenAuthMethods: []string{"client_secret_basic"}})
			t.Cleanup(srv.Close)
			var n notes
			_, sec, _, err := signIn(t, srv, oauth.Config{ClientID: id, ClientSecret: tt.secret, TokenAuthMethod: tt.method, Notify: n.add})
			if err == nil {
				t.Fatal("signed in")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to say %q", err, w)
				}
			}
			if !strings.Contains(n.String(), tt.note) {
				t.Errorf("notices:\n%s\nwant %q", n.String(), tt.note)
			}
			if strings.Contains(err.Error(), tt.secret) || !sec.has(tt.secret) {
				t.Errorf("the secret is in the error, or was not registered for scrubbing")
			}
		})
	}
}

// TestReadClientSecret: the secret comes from an environment variable or
// the keyring; anything else is refused without repeating it.
func TestReadClientSecret(t *testing.T) {
	t.Setenv("INSPECTOR_SECRET_SET", "from-the-environment")
	t.Setenv("INSPECTOR_SECRET_EMPTY", "")
	kr := &memKeyring{}
	kr.Set(oauth.ClientSecretService, "ci", "from-the-keyring")
	tests := []struct {
		source, id string
		kr         oauth.Keyring
		want       string
		wantErr    string
	}{
		{"env:INSPECTOR_SECRET_SET", "ci", nil, "from-the-environment", ""},
		{"env:INSPECTOR_SECRET_EMPTY", "ci", nil, "", "the environment variable INSPECTOR_SECRET_EMPTY, which should hold the client secret, is not set or empty"},
		{"env:", "ci", nil, "", "want the name of an environment variable"},
		{"keyring", "ci", kr, "from-the-keyring", ""},
		{"keyring", "other", kr, "", "the OS keyring holds no secret for the client other (service fanout-inspector-oauth-client, account other): store it there first"},
		{"keyring", "ci", &memKeyring{fail: errors.New("no secret service")}, "", "the OS keyring is not available (no secret service): keep the client secret in an environment variable instead"},
		{"hunter2-the-secret-itself", "ci", nil, "", "want env:NAME (an environment variable that holds the client secret) or keyring"},
		{"env:INSPECTOR_SECRET_SET", "", nil, "", "give its client id too"},
	}
	for _, tt := range tests {
		got, err := oauth.ReadClientSecret(tt.source, tt.id, tt.kr)
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("%s for %q: %q, %v; want %q", tt.source, tt.id, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s for %q: error %v, want it to say %q", tt.source, tt.id, err, tt.wantErr)
		case err != nil && strings.Contains(err.Error(), "hunter2"):
			t.Errorf("the error repeats the value given: %v", err)
		}
	}
}

// TestClientMetadataDocument: where the authorization server takes
// client ID metadata documents, the document's URL is the client id; the
// authorization server fetches it and checks the redirect address
// against it. A document it would refuse is reported before the browser
// opens; a server that does not take documents is told of, and dynamic
// registration is used instead.
func TestClientMetadataDocument(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{NoRegistration: true, ClientDocuments: true})
	t.Cleanup(srv.Close)
	doc := func(path string, redirects ...string) string {
		u := srv.PublishClientDocument(path, nil)
		return srv.PublishClientDocument(path, map[string]any{"client_id": u, "client_name": "Fanout Inspector",
			"redirect_uris": redirects, "grant_types": []string{"authorization_code", "refresh_token"},
			"response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
	}
	good := doc("/inspector/client.json", "http://127.0.0.1/callback")
	c, sec, b, err := signIn(t, srv, oauth.Config{ClientMetadataURL: good, HTTPClient: srv.DocumentsClient()})
	if err != nil {
		t.Fatalf("sign-in: %v", err)
	}
	if _, said := callWhoami(t, srv, c, sec, 1); !strings.Contains(said, "signed in") {
		t.Errorf("the tool said %s", said)
	}
	if fetched := srv.DocumentsFetched(); !slices.Equal(fetched, []string{good}) {
		t.Errorf("the authorization server fetched %q, want the document once", fetched)
	}
	if opened, status, page := b.last(); opened != 1 || status != 200 {
		t.Errorf("browser: opened %d, landed on %d %q", opened, status, page)
	}

	wrongID := srv.PublishClientDocument("/inspector/wrong-id.json", map[string]any{"client_id": "https://elsewhere.example/client.json",
		"redirect_uris": []string{"http://127.0.0.1/callback"}})
	missing := srv.PublishClientDocument("/inspector/missing.json", nil) // published as null, then replaced
	srv.PublishClientDocument("/inspector/missing.json", "not an object")
	failures := []struct {
		name, url string
		want      []string
	}{
		{"redirect not listed", doc("/inspector/other-redirect.json", "http://127.0.0.1/elsewhere"),
			[]string{"the client's metadata document " + srv.DocumentsURL() + "/inspector/other-redirect.json does not list the redirect address http://127.0.0.1:",
				"/callback among its redirect_uris (http://127.0.0.1/elsewhere): add http://127.0.0.1/callback"}},
		{"names another client", wrongID, []string{`names the client "https://elsewhere.example/client.json": its client_id must be its own URL`}},
		{"not a document", missing, []string{"is not a JSON client metadata document"}},
		{"not published", srv.DocumentsURL() + "/inspector/nothing.json", []string{"answered 404 Not Found: publish the document at that address"}},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			_, _, b, err := signIn(t, srv, oauth.Config{ClientMetadataURL: tt.url, HTTPClient: srv.DocumentsClient()})
			if err == nil {
				t.Fatal("signed in")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to say %q", err, w)
				}
			}
			if opened, _, _ := b.last(); opened != 0 {
				t.Errorf("the browser was opened for a document the authorization server would refuse")
			}
		})
	}

	t.Run("server without documents", func(t *testing.T) {
		plain := oauthtest.New(oauthtest.Options{})
		t.Cleanup(plain.Close)
		var n notes
		c, sec, _, err := signIn(t, plain, oauth.Config{ClientMetadataURL: good, Notify: n.add})
		if err != nil {
			t.Fatal(err)
		}
		if want := "the authorization server does not take client ID metadata documents (its metadata lacks client_id_metadata_document_supported): registering dynamically instead"; !strings.Contains(n.String(), want) {
			t.Errorf("notices:\n%s\nwant %q", n.String(), want)
		}
		callWhoami(t, plain, c, sec, 1)
	})
}

// TestIssuerWithPath: an authorization server whose issuer has a path
// (…/tenant1) is found wherever it serves its metadata, trying the
// addresses in the MCP specification's order — RFC 8414 with path
// insertion, OpenID Connect with path insertion, OpenID Connect appended
// to the path — and never the host's root metadata.
func TestIssuerWithPath(t *testing.T) {
	const insert, oidcInsert, oidcAppend = "/.well-known/oauth-authorization-server/tenant1",
		"/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"
	tests := []struct {
		metadata string
		tried    []string
	}{
		{oauthtest.MetadataOAuth, []string{insert}},
		{oauthtest.MetadataOpenIDInserted, []string{insert, oidcInsert}},
		{oauthtest.MetadataOpenIDAppended, []string{insert, oidcInsert, oidcAppend}},
	}
	for _, tt := range tests {
		t.Run(tt.metadata, func(t *testing.T) {
			srv := oauthtest.New(oauthtest.Options{IssuerPath: "/tenant1", Metadata: tt.metadata})
			t.Cleanup(srv.Close)
			c, sec, _, err := signIn(t, srv, oauth.Config{})
			if err != nil {
				t.Fatalf("sign-in: %v", err)
			}
			callWhoami(t, srv, c, sec, 1)
			var tried []string
			for _, p := range srv.WellKnownAsked() {
				if !strings.Contains(p, "oauth-protected-resource") {
					tried = append(tried, p)
				}
			}
			if !slices.Equal(tried, tt.tried) {
				t.Errorf("the authorization server's metadata was asked for at %q, want %q", tried, tt.tried)
			}
		})
	}
}

// TestDiscoveryFailuresNamed: metadata that cannot be used says which
// addresses were tried, what they answered, what is wrong and what to
// do.
func TestDiscoveryFailuresNamed(t *testing.T) {
	t.Run("issuer that does not match", func(t *testing.T) {
		// Not used: the next addresses are tried, then the endpoints a
		// client guesses under the issuer's address, which this server has.
		srv := oauthtest.New(oauthtest.Options{IssuerPath: "/tenant1", WrongIssuer: "http://as.example"})
		t.Cleanup(srv.Close)
		var n notes
		c, sec, _, err := signIn(t, srv, oauth.Config{Notify: n.add})
		if err != nil {
			t.Fatalf("sign-in: %v", err)
		}
		callWhoami(t, srv, c, sec, 1)
		for _, w := range []string{"the authorization-server metadata at " + srv.URL + "/.well-known/oauth-authorization-server/tenant1 declares the issuer \"http://as.example\", not \"" + srv.Issuer() + "\", as RFC 8414 asks: not used, trying the next address",
			"no usable authorization-server metadata (GET " + srv.URL + "/.well-known/oauth-authorization-server/tenant1 answered 200 OK: declares the issuer",
			"using the endpoints an MCP client guesses then"} {
			if !strings.Contains(n.String(), w) {
				t.Errorf("notices:\n%s\nwant %q", n.String(), w)
			}
		}
	})
	t.Run("issuer that does not match, and no registration", func(t *testing.T) {
		srv := oauthtest.New(oauthtest.Options{IssuerPath: "/tenant1", WrongIssuer: "http://as.example", NoRegistration: true})
		t.Cleanup(srv.Close)
		_, _, b, err := signIn(t, srv, oauth.Config{})
		want := []string{"OAuth: registering the inspector with the authorization server failed (POST " + srv.Issuer() + "/register answered 404 Not Found",
			"no authorization-server metadata was found (tried " + srv.URL + "/.well-known/oauth-authorization-server/tenant1 (200 OK, declares the issuer \"http://as.example\", not \"" + srv.Issuer() + "\": not used), "}
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("error %v\nwant it to say %q", err, w)
			}
		}
		if opened, _, _ := b.last(); opened != 0 {
			t.Error("the browser was opened")
		}
	})
	t.Run("metadata that never answers", func(t *testing.T) {
		srv := oauthtest.New(oauthtest.Options{HangMetadata: true})
		t.Cleanup(srv.Close)
		start := time.Now()
		_, _, _, err := signIn(t, srv, oauth.Config{HTTPTimeout: 500 * time.Millisecond})
		want := []string{"OAuth: discovery: the authorization server's metadata could not be used (",
			"tried " + srv.URL + "/.well-known/oauth-authorization-server (no answer within 500ms)): check that the authorization server is up"}
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("error %v\nwant it to say %q", err, w)
			}
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("took %v to fail", took)
		}
	})
	t.Run("no PKCE", func(t *testing.T) {
		srv := oauthtest.New(oauthtest.Options{NoPKCE: true})
		t.Cleanup(srv.Close)
		_, _, _, err := signIn(t, srv, oauth.Config{})
		want := "its metadata lists no code_challenge_methods_supported, and MCP clients sign in only with PKCE: enable PKCE (S256) on the authorization server"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "tried "+srv.URL+"/.well-known/oauth-authorization-server (200 OK)") {
			t.Errorf("error %v\nwant it to say %q and the address", err, want)
		}
	})
	t.Run("no authorization server named", func(t *testing.T) {
		srv := oauthtest.New(oauthtest.Options{NoAuthorizationServers: true})
		t.Cleanup(srv.Close)
		_, _, _, err := signIn(t, srv, oauth.Config{})
		want := "OAuth: discovery: the protected-resource metadata of " + srv.MCPURL() + " (" + srv.URL + "/.well-known/oauth-protected-resource/mcp) names no authorization server"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant it to say %q", err, want)
		}
	})
	t.Run("no metadata and no registration", func(t *testing.T) {
		srv := oauthtest.New(oauthtest.Options{IssuerPath: "/tenant1", Metadata: oauthtest.MetadataNone, NoRegistration: true})
		t.Cleanup(srv.Close)
		_, _, _, err := signIn(t, srv, oauth.Config{})
		want := []string{"OAuth: registering the inspector with the authorization server failed (POST " + srv.Issuer() + "/register answered 404 Not Found",
			"no authorization-server metadata was found (tried " + srv.URL + "/.well-known/oauth-authorization-server/tenant1 (404 Not Found), " +
				srv.URL + "/.well-known/openid-configuration/tenant1 (404 Not Found), " + srv.URL + "/tenant1/.well-known/openid-configuration (404 Not Found)), so the registration address was guessed",
			"give its client id with --oauth-client-id"}
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("error %v\nwant it to say %q", err, w)
			}
		}
	})
}
