package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/oauth/oauthtest"
	"github.com/fanout-inspector/inspector/recorder"
)

// browsingStderr is run's stderr with a person reading it: when the
// authorization address appears, it follows it as a browser would.
type browsingStderr struct {
	mu      sync.Mutex
	text    strings.Builder
	browsed int // authorization addresses followed (a step-up prints another)
}

func (w *browsingStderr) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text.Write(p)
	seen := 0
	for _, line := range strings.Split(w.text.String(), "\n") {
		if strings.HasPrefix(line, "http") && strings.Contains(line, "/authorize?") {
			if seen++; seen > w.browsed {
				w.browsed = seen
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					oauthtest.Browse(ctx, strings.TrimSpace(line))
				}()
			}
		}
	}
	return len(p), nil
}

func (w *browsingStderr) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// withoutBrowser keeps run from opening a real browser.
func withoutBrowser(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
}

// TestOAuthRunKeepsSecrets signs in with --oauth through the browserless
// form of the flow (the test reads the address from stderr and plays the
// browser), calls a tool that echoes the token it was sent, and greps the
// recording, the journal, every export of run and of report, and both
// output streams for every secret of the sign-in: the access and refresh
// tokens, the code, the PKCE verifier, the client secret.
func TestOAuthRunKeepsSecrets(t *testing.T) {
	withoutBrowser(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	out := t.TempDir()
	var stdout strings.Builder
	stderr := &browsingStderr{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--url", srv.MCPURL(), "--oauth", "--oauth-wait", "20s", "--tool", "whoami"}, outputFlags(out)...)
	if code := runMain(ctx, args, &stdout, stderr); code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "Open this address in a browser to sign in to "+srv.MCPURL()) {
		t.Errorf("stderr does not tell the person where to sign in:\n%s", stderr.String())
	}
	var rstdout, rstderr strings.Builder
	if code := reportMain([]string{filepath.Join(out, "run.json"), "--json",
		"--trace", filepath.Join(out, "r-trace.json"), "--otlp", filepath.Join(out, "r-otlp.json"),
		"--otlp-metrics", filepath.Join(out, "r-metrics.json"), "--series-csv", filepath.Join(out, "r-series.csv"),
		"--csv", filepath.Join(out, "r.csv"), "--html", filepath.Join(out, "r.html"),
		"--svg", filepath.Join(out, "r.svg"), "--png", filepath.Join(out, "r.png")}, strings.NewReader(""), &rstdout, &rstderr); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, rstderr.String())
	}
	snap, err := recorder.LoadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var said string
	for _, s := range snap.Spans {
		if s.Method == "tools/call" {
			said = string(s.Result)
		}
	}
	if !strings.Contains(said, "signed in with Bearer REDACTED") {
		t.Errorf("the recorded tool result is %s; want the echoed token, redacted", said)
	}
	issued := srv.Issued()
	kinds := map[string]bool{}
	for _, v := range issued {
		kind, _, _ := strings.Cut(v, "-")
		kinds[kind] = true
	}
	if len(kinds) < 4 { // client(-secret), code, access, refresh, and the verifier
		t.Fatalf("the servers issued only %q", issued)
	}
	files := assertNoSecrets(t, issued, map[string]string{"stdout": stdout.String(), "stderr": stderr.String(),
		"report stdout": rstdout.String()}, out, cache)
	if files < 16 {
		t.Errorf("%d files checked, want the recording, the journal and 14 exports", files)
	}
}

// TestOAuthRunErrors: the flag mistakes are usage errors, and a server
// that refuses even a fresh token ends the run with a message that says
// so.
func TestOAuthRunErrors(t *testing.T) {
	withoutBrowser(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := oauthtest.New(oauthtest.Options{RefuseAll: true})
	defer srv.Close()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"client id without --oauth", []string{"--url", srv.MCPURL(), "--oauth-client-id", "x"}, exitUsage, "--oauth-client-id is a setting of --oauth: add --oauth"},
		{"oauth over stdio", []string{"--stdio", "true", "--oauth"}, exitUsage, "OAuth is for a --url or --sse server"},
		{"oauth and a token", []string{"--url", srv.MCPURL(), "--oauth", "--header", "Authorization: Bearer abc"}, exitUsage, "choose one"},
		{"bad port", []string{"--url", srv.MCPURL(), "--oauth", "--oauth-redirect-port", "70000"}, exitUsage, "want a port from 1 to 65535"},
		{"server refuses every token", []string{"--url", srv.MCPURL(), "--oauth", "--tool", "whoami"}, exitFailure,
			"refused the token the authorization server just issued (401 Unauthorized; it said: invalid token: unknown token)"},
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
		})
	}
}
