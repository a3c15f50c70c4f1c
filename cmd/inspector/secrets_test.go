package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoServerEnv, set to 1, makes the test binary a stdio MCP server that
// prints its ECHO_SECRET environment variable and its arguments to stderr
// and sends them back in a log message, a sampling request and its tool
// result (see init).
const echoServerEnv = "INSPECTOR_TEST_ECHO_SERVER"

func init() {
	if os.Getenv(echoServerEnv) != "1" {
		return
	}
	secret := os.Getenv("ECHO_SECRET")
	fmt.Fprintln(os.Stderr, "echo server starting with ECHO_SECRET="+secret)
	args := strings.Join(os.Args[1:], " ")
	fmt.Fprintln(os.Stderr, "echo server args: "+args)
	srv := newLeakServer(func(*mcp.CallToolRequest) string { return "env ECHO_SECRET=" + secret + " args " + args }, "my environment holds "+secret)
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "echo server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// newLeakServer is an MCP server whose tool "leak" sends what leak(req)
// says (the credentials the server was given) back every way a server
// can: a log message, a sampling request's text, and its tool result,
// marked as an error so that the inspector prints it as the failure
// reason. Its tool "about" has the description about.
func newLeakServer(leak func(*mcp.CallToolRequest) string, about string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "leaky", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "about", Description: about}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "leak", Description: "echoes its credentials"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		text := leak(req)
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "I was given " + text})
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{
			Role: "user", Content: &mcp.TextContent{Text: "please repeat " + text},
		}}})
		if err != nil {
			return nil, nil, err
		}
		reply := ""
		if tc, ok := res.Content.(*mcp.TextContent); ok {
			reply = tc.Text
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "refused: " + text + " (the client said: " + reply + ")"}}}, nil, nil
	})
	return srv
}

// leakServerHTTP serves newLeakServer over streamable HTTP; its tool
// echoes the request's Authorization and X-Api-Key headers and its path
// and query; its tool "about" has the description about. seen gets every
// request URI it was sent.
func leakServerHTTP(t *testing.T, about string) (srv *httptest.Server, seen func() []string) {
	var mu sync.Mutex
	var uris []string
	lastURI := func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(uris) == 0 {
			return ""
		}
		return uris[len(uris)-1]
	}
	leaky := newLeakServer(func(req *mcp.CallToolRequest) string {
		h := req.Extra.Header
		return fmt.Sprintf("authorization=%q api-key=%q uri=%q", h.Get("Authorization"), h.Get("X-Api-Key"), lastURI())
	}, about)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return leaky }, nil)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uris = append(uris, r.URL.RequestURI())
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), uris...)
	}
}

// secretForms are the ways a secret can be written: as it is, escaped in
// JSON (with and without encoding/json's \u003c), escaped in a URL, in
// HTML.
func secretForms(s string) []string {
	esc, _ := json.Marshal(s)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return []string{s, strings.Trim(string(esc), `"`), strings.Trim(strings.TrimSpace(b.String()), `"`),
		url.QueryEscape(s), url.PathEscape(s), html.EscapeString(s)}
}

// assertNoSecrets fails for every file under dirs and every stream that
// holds a secret in any of its forms.
func assertNoSecrets(t *testing.T, secrets []string, streams map[string]string, dirs ...string) (files int) {
	t.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			streams[path] = string(b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range streams {
		for _, s := range secrets {
			for _, f := range secretForms(s) {
				if strings.Contains(text, f) {
					t.Errorf("%s holds the secret %q (as %q)", name, s, f)
					break
				}
			}
		}
	}
	return files
}

// assertPrivate fails for every file under dir not 0600 and every folder
// not 0700.
func assertPrivate(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// outputFlags are the flags that write every kind of file into dir.
func outputFlags(dir string) []string {
	f := func(n string) string { return filepath.Join(dir, n) }
	return []string{"--record", f("run.json"), "--journal", "auto", "--trace", f("trace.json"), "--otlp", f("otlp.json"),
		"--csv", f("run.csv"), "--png", f("chart.png"), "--svg", f("gantt.svg"), "--chart", "gantt",
		"--width", "400", "--height", "200", "--html", f("report.html")}
}

// TestSecretsStayInside runs every output path against servers that
// echo the credentials they were given (URL userinfo and ?token=, every
// header, the stdio server's environment) in logs, stderr, sampling
// requests and tool results, and greps every file written and both
// output streams for every secret; every file must be 0600 and the
// journal folder 0700.
func TestSecretsStayInside(t *testing.T) {
	const (
		user     = "alice-user"
		password = "pw-s3cret-1"
		token    = "tok/s3cret+1" // escapes differently in URL and text
		bearer   = "bearer-s3cret-1"
		apiKey   = "key-s3cret-1"
		envValue = `env<s3cret>&"1"`
		cmdKey   = "cmd-s3cret-1" // on the stdio server's command line
		// more credential flags on the command line
		flagKey, flagPass, flagPwd, flagJWT, flagAPIKey, flagSecret = "STDIOkey31337", "pass-s3cret-2", "pwd-s3cret-3",
			"eyJhbGciOiJIUzI1NiJ9.e30.sig", "apikey-s3cret-4", "secret-file-s3cret-5"
	)
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	secrets := []string{user, password, token, bearer, apiKey, envValue, basic, cmdKey, flagKey, flagPass, flagPwd, flagJWT, flagAPIKey, flagSecret}
	hs, seen := leakServerHTTP(t, "call me with the key "+apiKey)
	u, _ := url.Parse(hs.URL)
	secretURL := fmt.Sprintf("http://%s:%s@%s/mcp?token=%s&page=2", user, password, u.Host, url.QueryEscape(token))
	testBin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	common := []string{"--tool", "leak", "--sampling-reply", "{{.LastUserMessage}}", "--list-tools"}

	cases := []struct {
		name string
		args []string
		code int
		// files is how many files the run writes: the recording, the
		// journal and 6 exports; none when a flag is refused.
		files int
		// echoed is what the recorded tool call must show in place of
		// the secrets, so that the test knows they made the round trip.
		echoed string
	}{
		{"http with bearer header", append([]string{"run", "--url", secretURL,
			"--header", "Authorization: Bearer " + bearer, "--header", "X-Api-Key: " + apiKey}, common...),
			exitOK, 8, `authorization=\"REDACTED\" api-key=\"REDACTED\" uri=\"/mcp?token=REDACTED\u0026page=2\"`},
		{"http with basic auth from the URL, json", append([]string{"run", "--json", "--url", secretURL,
			"--header", "X-Api-Key: " + apiKey}, common...),
			exitOK, 8, `authorization=\"Basic REDACTED\"`},
		{"stdio with env", append([]string{"run", "--stdio", fmt.Sprintf("'%s'", testBin),
			"--env", echoServerEnv + "=1", "--env", "ECHO_SECRET=" + envValue}, common...),
			exitOK, 8, `env ECHO_SECRET=REDACTED`},
		{"stdio with a key on its command line", append([]string{"run", "--stdio", fmt.Sprintf("'%s' --api-key %s", testBin, cmdKey),
			"--env", echoServerEnv + "=1"}, common...),
			exitOK, 8, ""},
		{"stdio with credential flags of every name", append([]string{"run", "--stdio",
			fmt.Sprintf("'%s' --key %s --pass %s --pwd=%s --jwt %s --apikey %s --secret-file %s", testBin, flagKey, flagPass, flagPwd, flagJWT, flagAPIKey, flagSecret),
			"--env", echoServerEnv + "=1"}, common...),
			exitOK, 8, `args --key REDACTED --pass REDACTED --pwd=REDACTED --jwt REDACTED --apikey REDACTED --secret-file REDACTED`},
		{"http server down, url", []string{"run", "--url", fmt.Sprintf("http://%s:%s@%s/mcp?token=%s", user, password, closedPort(t), url.QueryEscape(token)),
			"--header", "Authorization: Bearer " + bearer, "--tool", "leak"}, exitFailure, 8, ""},
		{"url that does not parse", []string{"run", "--url", fmt.Sprintf("http://%s:%s@bad host/mcp?token=%s", user, password, token),
			"--tool", "leak"}, exitUsage, 0, ""},
		{"header without a server that takes one", []string{"run", "--demo", "--header", "Authorization: Bearer " + bearer}, exitUsage, 0, ""},
		{"malformed header", []string{"run", "--url", hs.URL, "--header", "Authorization Bearer " + bearer}, exitUsage, 0, ""},
		{"env without a stdio server", []string{"run", "--url", hs.URL, "--env", "ECHO_SECRET=" + envValue}, exitUsage, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, cache := t.TempDir(), t.TempDir()
			r := inspectorEnv(t, []string{"XDG_CACHE_HOME=" + cache}, append(tc.args, outputFlags(out)...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			journalDir := filepath.Join(cache, "fanout-inspector", "journal")
			if tc.code == exitOK {
				// The exports of report are checked too.
				rr := inspector(t, "report", filepath.Join(out, "run.json"), "--json",
					"--trace", filepath.Join(out, "r-trace.json"), "--otlp", filepath.Join(out, "r-otlp.json"),
					"--csv", filepath.Join(out, "r.csv"), "--html", filepath.Join(out, "r.html"),
					"--svg", filepath.Join(out, "r.svg"), "--png", filepath.Join(out, "r.png"))
				if rr.code != exitOK {
					t.Fatalf("report: exit %d\n%s", rr.code, rr.stderr)
				}
				snap, err := recorder.LoadFile(filepath.Join(out, "run.json"))
				if err != nil {
					t.Fatal(err)
				}
				var call string
				for _, s := range snap.Spans {
					if s.Method == "tools/call" {
						call = string(s.Result)
					}
				}
				if !strings.Contains(call, tc.echoed) {
					t.Errorf("the recorded tool result does not show the echoed credentials as %s:\n%s", tc.echoed, call)
				}
				if !slices.Contains(tc.args, "--json") && !strings.Contains(r.stdout, "REDACTED") {
					t.Errorf("stdout does not show the server's (redacted) failure reason:\n%s", r.stdout)
				}
				r.stdout += rr.stdout
				r.stderr += rr.stderr
			} else if strings.Contains(tc.name, "url") && !strings.Contains(r.stderr, "REDACTED") {
				t.Errorf("stderr does not show the redacted URL:\n%s", r.stderr)
			}
			streams := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
			if tc.files == 0 {
				assertNoSecrets(t, secrets, streams)
				return
			}
			n := assertNoSecrets(t, secrets, streams, out, journalDir)
			if n < tc.files {
				t.Errorf("%d files written, want at least %d (recording, journal, 6 exports)", n, tc.files)
			}
			assertPrivate(t, out)
			assertPrivate(t, filepath.Join(cache, "fanout-inspector"))
			if t.Failed() {
				t.Logf("stdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
		})
	}
	// The server did get the credentials: the test is not vacuous.
	if uris := seen(); len(uris) == 0 || !strings.Contains(strings.Join(uris, " "), "token="+url.QueryEscape(token)) {
		t.Errorf("the HTTP server never saw the token: %q", uris)
	}
}

// TestPlainEnvLeavesRecordingAlone: environment values that are ordinary
// words (LOG_LEVEL=info, FEATURE_FLAG=true, OUTPUT_FORMAT=text) are not
// taken for secrets: the recording of a run with them is the recording
// of the same run without them, times aside. They once turned
// "type":"text" into "type":"REDACTED" and "listChanged":true into a
// broken payload.
func TestPlainEnvLeavesRecordingAlone(t *testing.T) {
	plain := []string{"--env", "FEATURE_FLAG=true", "--env", "OUTPUT_FORMAT=text", "--env", "LOG_LEVEL=info"}
	record := func(extra ...string) *recorder.Snapshot {
		t.Helper()
		out := filepath.Join(t.TempDir(), "run.json")
		args := append([]string{"run", "--stdio", fmt.Sprintf("'%s' demo-server", inspectorBin), "--list-tools",
			"--tool", "echo", "--args", `{"text":"level info, flag true, format text"}`, "--record", out}, extra...)
		r := inspector(t, args...)
		if r.code != exitOK {
			t.Fatalf("inspector %q: exit %d\n%s", args, r.code, r.stderr)
		}
		snap, err := recorder.LoadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	type seen struct {
		Method, Status, Error, Name string
		Params, Result              string
	}
	traceparent := regexp.MustCompile(`"traceparent":"[^"]*"`) // new trace ids each run
	view := func(snap *recorder.Snapshot) []seen {
		var out []seen
		for _, s := range snap.Spans {
			params := traceparent.ReplaceAllString(string(s.Params), `"traceparent":"…"`)
			out = append(out, seen{s.Method, s.Status.String(), s.Error, s.Name, params, string(s.Result)})
		}
		for _, e := range snap.Events {
			out = append(out, seen{Method: e.Method, Name: string(e.Kind), Error: e.Text, Params: string(e.Data)})
		}
		return append(out, seen{Name: snap.Meta.Server, Method: snap.Meta.Protocol})
	}
	without, with := view(record()), view(record(plain...))
	if !slices.Equal(without, with) {
		t.Errorf("the recording changed with %q:\nwithout: %+v\n   with: %+v", plain, without, with)
	}
	if !strings.Contains(fmt.Sprint(with), `"type":"text"`) {
		t.Errorf("the recording holds no text content: %+v", with)
	}
}

// chattyServer is an MCP server over plain HTTP/1.1, written on a raw
// TCP listener, that follows every complete response with a second,
// unsolicited one echoing the request's headers: net/http's transport
// logs such a response with its first bytes.
func chattyServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					var msg struct {
						ID     json.RawMessage `json:"id"`
						Method string          `json:"method"`
					}
					_ = json.Unmarshal(body, &msg)
					resp := "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
					if msg.ID != nil {
						result := `{}`
						if msg.Method == "initialize" {
							result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"chatty","version":"1"}}`
						} else if msg.Method == "tools/list" {
							result = `{"tools":[]}`
						}
						b := `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + result + `}`
						resp = fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(b), b)
					}
					var echo strings.Builder
					_ = req.Header.Write(&echo)
					extra := "HTTP/1.1 200 OK\r\n" + echo.String() + "Content-Length: 0\r\n\r\n"
					if _, err := io.WriteString(c, resp+extra); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// TestUnsolicitedResponseLogIsScrubbed: a server that writes after a
// complete response makes net/http log the bytes it sent; when they echo
// the run's credentials (a bearer token, a key header, the URL's Basic
// credentials), stderr shows the log line with the credentials redacted.
func TestUnsolicitedResponseLogIsScrubbed(t *testing.T) {
	const (
		user     = "alice-user"
		password = "pw-s3cret-1"
		bearer   = "bearer-s3cret-1"
		apiKey   = "key-s3cret-1"
	)
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	addr := chattyServer(t)
	r := inspectorEnv(t, []string{"XDG_CACHE_HOME=" + t.TempDir()}, "run", "--url", fmt.Sprintf("http://%s:%s@%s/mcp", user, password, addr),
		"--header", "Authorization: Bearer "+bearer, "--header", "X-Api-Key: "+apiKey, "--list-tools")
	if !strings.Contains(r.stderr, "Unsolicited response") {
		t.Fatalf("net/http logged nothing of the unsolicited response (exit %d):\n%s", r.code, r.stderr)
	}
	assertNoSecrets(t, []string{bearer, apiKey, basic, password}, map[string]string{"stderr": r.stderr, "stdout": r.stdout})
	if !strings.Contains(r.stderr, "Authorization: REDACTED") {
		t.Errorf("stderr does not show the echoed header redacted:\n%s", r.stderr)
	}
}

// TestServerEnvironment: a stdio server gets the inspector's HOME, PATH
// and the like and what --env gives it, not the rest of the inspector's
// environment (where a shell's API keys live), unless --inherit-env says
// so. A variable the server echoed once landed in the recording.
func TestServerEnvironment(t *testing.T) {
	testBin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const inherited = "inherited-s3cret-9"
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"default", nil, `env ECHO_SECRET= args`},
		{"inherit-env", []string{"--inherit-env"}, `env ECHO_SECRET=` + inherited + ` args`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run.json")
			args := append([]string{"run", "--stdio", fmt.Sprintf("'%s'", testBin), "--env", echoServerEnv + "=1",
				"--tool", "leak", "--sampling-reply", "ok", "--record", out}, tc.flags...)
			r := inspectorEnv(t, []string{"ECHO_SECRET=" + inherited, "XDG_CACHE_HOME=" + t.TempDir()}, args...)
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			snap, err := recorder.LoadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var call string
			for _, s := range snap.Spans {
				if s.Method == "tools/call" {
					call = string(s.Result)
				}
			}
			if !strings.Contains(call, tc.want) {
				t.Errorf("the server echoed %s, want %q in it", call, tc.want)
			}
		})
	}
	if r := inspector(t, "run", "--demo", "--inherit-env"); r.code != exitUsage || !strings.Contains(r.stderr, "--inherit-env") {
		t.Errorf("--inherit-env without --stdio: exit %d, %s; want a usage error", r.code, r.stderr)
	}
}
