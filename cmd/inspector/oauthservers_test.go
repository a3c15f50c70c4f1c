package main

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/oauth/oauthtest"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestOAuthRunConfidentialClient: run --oauth with a client registered
// beforehand whose secret is in an environment variable, authenticating
// with client_secret_basic as --oauth-token-auth says; the secret reaches
// no output, file or export.
func TestOAuthRunConfidentialClient(t *testing.T) {
	withoutBrowser(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	const id, secret = "inspector-ci", "s3cret-of-the-ci-client"
	t.Setenv("INSPECTOR_CLIENT_SECRET", secret)
	srv := oauthtest.New(oauthtest.Options{NoRegistration: true, Confidential: map[string]string{id: secret},
		TokenAuthMethods: []string{"client_secret_post", "client_secret_basic"}})
	t.Cleanup(srv.Close)
	out := t.TempDir()
	var stdout strings.Builder
	stderr := &browsingStderr{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--url", srv.MCPURL(), "--oauth", "--oauth-client-id", id, "--oauth-client-secret", "env:INSPECTOR_CLIENT_SECRET",
		"--oauth-token-auth", "client_secret_basic", "--oauth-wait", "20s", "--tool", "whoami"}, outputFlags(out)...)
	if code := runMain(ctx, args, &stdout, stderr); code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	if used := srv.AuthMethodsUsed(); !slices.Equal(used, []string{"client_secret_basic"}) {
		t.Errorf("the token endpoint saw %q, want client_secret_basic", used)
	}
	if !slices.Contains(srv.Issued(), secret) {
		t.Fatal("the test server did not note the secret it was given")
	}
	assertNoSecrets(t, srv.Issued(), map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}, out, cache)
}

// TestOAuthRunStepUp: a run whose tool needs a scope the first sign-in
// did not get signs in again when the server says so (403
// insufficient_scope), and every call succeeds: the run does not end
// with "Forbidden".
func TestOAuthRunStepUp(t *testing.T) {
	withoutBrowser(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := oauthtest.New(oauthtest.Options{StepUpScope: "admin"})
	t.Cleanup(srv.Close)
	out := t.TempDir()
	var stdout strings.Builder
	stderr := &browsingStderr{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"--url", srv.MCPURL(), "--oauth", "--oauth-wait", "20s", "--tool", "admin", "--calls", "3", "--record", filepath.Join(out, "run.json")}
	if code := runMain(ctx, args, &stdout, stderr); code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "3 total, 3 ok, 0 failed") {
		t.Errorf("stdout:\n%s\nwant 3 calls, 3 ok", stdout.String())
	}
	if want := `asks for the scope "admin" for this request (403 insufficient_scope: the tool admin needs the scope admin): signing in again for "admin mcp offline_access"`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant %q", stderr.String(), want)
	}
	snap, err := recorder.LoadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, s := range snap.Spans {
		if s.Method == "tools/call" && strings.Contains(string(s.Result), "administering") {
			ok++
		}
	}
	if ok != 3 || srv.SteppedUp() != 1 {
		t.Errorf("%d calls recorded as answered, %d refused by the server; want 3 and 1", ok, srv.SteppedUp())
	}
}

// TestOAuthRunClientFlagErrors: the confidential-client and client
// metadata flags refuse what cannot work, saying what to give instead,
// and never repeat a secret given by mistake.
func TestOAuthRunClientFlagErrors(t *testing.T) {
	withoutBrowser(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("INSPECTOR_EMPTY_SECRET", "")
	srv := oauthtest.New(oauthtest.Options{NoRegistration: true, ClientDocuments: true})
	t.Cleanup(srv.Close)
	doc := srv.PublishClientDocument("/inspector/client.json", map[string]any{"client_id": srv.DocumentsURL() + "/inspector/client.json",
		"redirect_uris": []string{"http://127.0.0.1/callback"}})
	u := srv.MCPURL()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"secret without --oauth", []string{"--url", u, "--oauth-client-secret", "env:X"}, exitUsage, "--oauth-client-secret is a setting of --oauth: add --oauth"},
		{"secret without a client id", []string{"--url", u, "--oauth", "--oauth-client-secret", "env:X"}, exitUsage,
			"--oauth-client-secret: a secret belongs to a client registered beforehand: give its client id too"},
		{"the secret itself", []string{"--url", u, "--oauth", "--oauth-client-id", "ci", "--oauth-client-secret", "hunter2-as-a-flag"}, exitUsage,
			"--oauth-client-secret: want env:NAME (an environment variable that holds the client secret) or keyring"},
		{"an empty variable", []string{"--url", u, "--oauth", "--oauth-client-id", "ci", "--oauth-client-secret", "env:INSPECTOR_EMPTY_SECRET"}, exitUsage,
			"the environment variable INSPECTOR_EMPTY_SECRET, which should hold the client secret, is not set or empty"},
		{"an unknown method", []string{"--url", u, "--oauth", "--oauth-client-id", "ci", "--oauth-client-secret", "env:HOME", "--oauth-token-auth", "private_key_jwt"}, exitUsage,
			`--oauth-token-auth: "private_key_jwt": want client_secret_basic or client_secret_post`},
		{"a method without a secret", []string{"--url", u, "--oauth", "--oauth-token-auth", "client_secret_post"}, exitUsage,
			"--oauth-token-auth: it is how a confidential client sends its secret: give the client secret's source too"},
		{"a metadata URL over http", []string{"--url", u, "--oauth", "--oauth-client-metadata-url", "http://example.com/client.json"}, exitUsage,
			"--oauth-client-metadata-url: \"http://example.com/client.json\": a client metadata document's URL is https with a path"},
		// The document is served over HTTPS with the test's own certificate,
		// which the inspector does not trust: it says so before any browser.
		{"a document the inspector cannot read", []string{"--url", u, "--oauth", "--oauth-client-metadata-url", doc, "--tool", "whoami"}, exitFailure,
			"OAuth: the client's metadata document " + doc + " cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			stderr := &browsingStderr{}
			code := runMain(ctx, tt.args, io.Discard, stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to say %q", code, tt.code, stderr.String(), tt.want)
			}
			if strings.Contains(stderr.String(), "hunter2") {
				t.Error("the error repeats the secret given as a flag")
			}
		})
	}
}
