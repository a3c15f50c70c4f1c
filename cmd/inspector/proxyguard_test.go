package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/engine/proxy"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestProxyListensOnLoopbackOnly: --listen on every interface, or on an
// address other machines reach, exits 2 with a message that names the
// opt-in, unless --allow-remote is given; the guard's flags are for the
// HTTP proxy only, and a client token too short to be one is refused.
func TestProxyListensOnLoopbackOnly(t *testing.T) {
	up := "http://127.0.0.1:1/mcp"
	for _, args := range [][]string{
		{"proxy", "--listen", ":0", "--upstream", up},
		{"proxy", "--listen", "0.0.0.0:0", "--upstream", up},
		{"proxy", "--listen", "[::]:0", "--upstream", up},
	} {
		r := inspector(t, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--allow-remote") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 naming --allow-remote", args, r.code, r.stderr)
		}
	}
	for _, args := range [][]string{
		{"proxy", "--stdio", "x", "--client-token", "auto"},
		{"proxy", "--stdio", "x", "--allow-remote"},
		{"proxy", "--listen", "127.0.0.1:0", "--upstream", up, "--client-token", "guessable"},
	} {
		if r := inspector(t, args...); r.code != exitUsage || !strings.Contains(r.stderr, "inspector proxy: ") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with a message", args, r.code, r.stderr)
		}
	}
	// With the opt-in it listens, and warns.
	ctx, stop := context.WithCancel(context.Background())
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- proxyMain(ctx, []string{"--listen", ":0", "--allow-remote", "--upstream", up, "--journal", "off"}, nil, io.Discard, &stderr)
	}()
	waitForLine(t, &stderr, regexp.MustCompile(`listening on `))
	stop()
	<-done
	if !strings.Contains(stderr.String(), "warning: --allow-remote") || !strings.Contains(stderr.String(), "--client-token auto") {
		t.Errorf("stderr %q: want a warning that other machines can reach it, suggesting a client token", stderr.String())
	}
}

// waitForLine waits up to 10 s for re to match what w holds, and returns
// the match.
func waitForLine(t *testing.T, w *lockedBuffer, re *regexp.Regexp) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(w.String()); m != nil {
			return m
		}
	}
	t.Fatalf("no %q in:\n%s", re, w.String())
	return nil
}

// TestProxyClientToken: with --client-token (or $INSPECTOR_PROXY_TOKEN,
// or auto, printed), a request without the token gets 401, one with it
// gets its session; the token is in neither the recording nor the
// journal.
func TestProxyClientToken(t *testing.T) {
	up := httptest.NewServer(demo.NewHTTPHandler())
	defer up.Close()
	const given = "given-token-0123456789abcdef"
	for _, c := range []struct {
		name string
		flag string // --client-token
		env  string // $INSPECTOR_PROXY_TOKEN
	}{{"flag", given, ""}, {"env", "", given}, {"auto", "auto", ""}} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(clientTokenEnv, c.env)
			dir := t.TempDir()
			args := []string{"--listen", "127.0.0.1:0", "--upstream", up.URL + "/mcp", "--record", filepath.Join(dir, "r.json"),
				"--journal", filepath.Join(dir, "j.jsonl")}
			if c.flag != "" {
				args = append(args, "--client-token", c.flag)
			}
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			var stderr lockedBuffer
			done := make(chan int, 1)
			go func() { done <- proxyMain(ctx, args, nil, io.Discard, &stderr) }()
			url := waitForLine(t, &stderr, regexp.MustCompile(`listening on (http://\S+)`))[1]
			token := given
			if c.flag == "auto" {
				token = waitForLine(t, &stderr, regexp.MustCompile(proxy.TokenHeader+`: ([0-9a-f]{32})`))[1]
			} else if strings.Contains(stderr.String(), given) {
				t.Errorf("the proxy printed a token it was given:\n%s", stderr.String())
			}
			send := func(tok string) (int, string) {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+token+`","version":"1"}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if tok != "" {
					req.Header.Set(proxy.TokenHeader, tok)
				}
				resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
			}
			if status, _ := send(""); status != http.StatusUnauthorized {
				t.Errorf("without the token: %d, want 401", status)
			}
			wrong := token[:len(token)-1] + "0"
			if wrong == token { // a random token may end in 0 (1 in 16)
				wrong = token[:len(token)-1] + "1"
			}
			if status, _ := send(wrong); status != http.StatusUnauthorized {
				t.Errorf("with a wrong token: %d, want 401", status)
			}
			if status, sid := send(token); status != http.StatusOK || sid == "" {
				t.Errorf("with the token: %d, session %q; want 200 and a session", status, sid)
			}
			stop()
			if code := <-done; code != exitOK {
				t.Fatalf("the proxy exited %d:\n%s", code, stderr.String())
			}
			for _, f := range []string{"r.json", "j.jsonl"} {
				b := readFile(t, filepath.Join(dir, f))
				if !strings.Contains(b, "initialize") {
					t.Errorf("%s holds no initialize: the test does not test it", f)
				}
				if strings.Contains(b, token) {
					t.Errorf("%s holds the client token", f)
				}
			}
		})
	}
}

// TestProxyStoppedBySIGTERM: a call pending when the HTTP proxy is
// stopped by SIGTERM ends, in the recording, because the proxy was
// stopped, not because the client went away.
func TestProxyStoppedBySIGTERM(t *testing.T) {
	arrived, quit := make(chan struct{}, 1), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select { // never answers
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	defer up.Close()
	defer close(quit)
	file := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(inspectorBin, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.URL+"/mcp", "--record", file, "--journal", "off")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url := waitForLine(t, &stderr, regexp.MustCompile(`listening on (http://\S+)`))[1]
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow"}}`))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not reach the server")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the proxy: %v\n%s", err, stderr.String())
	}
	snap, err := recorder.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Spans) != 1 || snap.Spans[0].Status != recorder.StatusAborted || !strings.Contains(snap.Spans[0].Error, "the proxy was stopped") {
		var got []string
		for _, s := range snap.Spans {
			got = append(got, s.Method+" "+s.Status.String()+": "+s.Error)
		}
		t.Errorf("spans %q: want the call aborted because the proxy was stopped", got)
	}
}
