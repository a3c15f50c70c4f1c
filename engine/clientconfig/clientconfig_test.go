package clientconfig

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/google/shlex"
)

// env is a fixed environment for placeholders.
func env(kv ...string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == name {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

// TestLoadFormats reads one fixture of each format and checks each entry's
// format, transport, what it runs or reaches, and the target it gives.
func TestLoadFormats(t *testing.T) {
	vsDir, _ := filepath.Abs("testdata/vscode")
	vals := Values{
		Inputs:    map[string]string{"perplexity-key": "pplx-typed-secret"},
		LookupEnv: env("GITHUB_TOKEN", "ghp_fromenv123", "SEARCH_KEY", "sk-search-77", "REMOTE_TOKEN", "rt-remote-88"),
		Home:      "/home/me",
	}
	type want struct {
		name, summary string
		target        engine.Target
	}
	tests := []struct {
		file   string
		format Format
		want   []want
	}{
		{"testdata/claude_desktop_config.json", ClaudeDesktop, []want{
			{"filesystem", "npx -y @modelcontextprotocol/server-filesystem /home/me/Desktop",
				engine.Target{Transport: engine.TransportStdio, Command: "npx -y @modelcontextprotocol/server-filesystem /home/me/Desktop"}},
			{"weather", "uvx weather-mcp --units metric",
				engine.Target{Transport: engine.TransportStdio, Command: "uvx weather-mcp --units metric", Env: []string{"WEATHER_API_KEY=wk-desktop-0001"}}},
		}},
		{"testdata/claude-code/.mcp.json", ClaudeCode, []want{
			{"github", "https://api.example.test/mcp/",
				engine.Target{Transport: engine.TransportHTTP, URL: "https://api.example.test/mcp/", Headers: map[string]string{"Authorization": "Bearer ghp_fromenv123"}, SecretValues: []string{"ghp_fromenv123"}}},
			{"notes", "node notes-server.js --root '${NOTES_ROOT:-/srv/notes}'",
				engine.Target{Transport: engine.TransportStdio, Command: "node notes-server.js --root /srv/notes"}},
			{"docs", "http://127.0.0.1:3001/mcp", engine.Target{Transport: engine.TransportHTTP, URL: "http://127.0.0.1:3001/mcp"}},
			{"weather", "weather-mcp", engine.Target{Transport: engine.TransportStdio, Command: "weather-mcp", Env: []string{"WEATHER_API_KEY=wk-project-0002"}}},
		}},
		{"testdata/claude-user/.claude.json", ClaudeCodeUser, []want{
			{"db", "db-mcp --readonly", engine.Target{Transport: engine.TransportStdio, Command: "db-mcp --readonly", Env: []string{"DB_PASSWORD=s3cret-db-pass"}}},
			{"sentry", "https://mcp.example.test/sse", engine.Target{Transport: engine.TransportSSE, URL: "https://mcp.example.test/sse"}},
		}},
		{"testdata/cursor/.cursor/mcp.json", Cursor, []want{
			{"browser", "npx -y browser-mcp --profile '${userHome}/.browser profile'",
				engine.Target{Transport: engine.TransportStdio, Command: "npx -y browser-mcp --profile '/home/me/.browser profile'"}},
			{"search", "http://127.0.0.1:8931/mcp",
				engine.Target{Transport: engine.TransportHTTP, URL: "http://127.0.0.1:8931/mcp", Headers: map[string]string{"X-Api-Key": "sk-search-77"}, SecretValues: []string{"sk-search-77"}}},
		}},
		{"testdata/vscode/.vscode/mcp.json", VSCode, []want{
			{"perplexity", "npx -y server-perplexity-ask --region '${input:region}'",
				engine.Target{Transport: engine.TransportStdio, Command: "npx -y server-perplexity-ask --region eu-west-1",
					Env: []string{"CACHE_DIR=/tmp/perplexity", "DEBUG=mcp:*", "LOG_DIR=" + vsDir + "/logs", "PERPLEXITY_API_KEY=pplx-typed-secret"},
					Dir: filepath.Join(vsDir, "tools"), SecretValues: []string{"eu-west-1", "pplx-typed-secret"}}},
			{"remote", "http://127.0.0.1:9000/sse",
				engine.Target{Transport: engine.TransportSSE, URL: "http://127.0.0.1:9000/sse", Headers: map[string]string{"Authorization": "Bearer rt-remote-88"}, SecretValues: []string{"rt-remote-88"}}},
			{"fetch", "http://127.0.0.1:9001/mcp", engine.Target{Transport: engine.TransportHTTP, URL: "http://127.0.0.1:9001/mcp"}},
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			f := Load(tt.file)
			if f.Err != nil {
				t.Fatalf("Load: %v", f.Err)
			}
			if f.Format != tt.format {
				t.Errorf("format %q, want %q", f.Format, tt.format)
			}
			if len(f.Servers) != len(tt.want) {
				t.Fatalf("%d servers (%v), want %d", len(f.Servers), names(f.Servers), len(tt.want))
			}
			for i, w := range tt.want {
				s := f.Servers[i]
				if s.Name != w.name || s.Summary() != w.summary || s.Err != nil {
					t.Errorf("server %d: %q %q (err %v), want %q %q", i, s.Name, s.Summary(), s.Err, w.name, w.summary)
				}
				got, err := s.Target(vals)
				if err != nil {
					t.Errorf("%s: Target: %v", s.Name, err)
					continue
				}
				if got.String() != w.target.String() || !slices.Equal(got.Env, w.target.Env) || got.Dir != w.target.Dir ||
					!equalMaps(got.Headers, w.target.Headers) || !slices.Equal(got.SecretValues, w.target.SecretValues) {
					t.Errorf("%s: target\n%+v\nwant\n%+v", s.Name, got, w.target)
				}
				words, err := shlex.Split(got.Command)
				if got.Transport == engine.TransportStdio && (err != nil || words[0] != filepath.Base(strings.Fields(w.summary)[0])) {
					t.Errorf("%s: command %q splits into %q, %v", s.Name, got.Command, words, err)
				}
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSecretsOfTarget: what the placeholders were filled with and the
// entry's credential-named environment are among the target's secrets,
// which the engine scrubs from recordings; ordinary values of the .env
// file (DEBUG=mcp:*, a folder) are not, so they do not blank the same
// words all over a recording.
func TestSecretsOfTarget(t *testing.T) {
	f := Load("testdata/vscode/.vscode/mcp.json")
	tg, err := f.Servers[0].Target(Values{Inputs: map[string]string{"perplexity-key": "pplx-typed-secret"}, LookupEnv: env()})
	if err != nil {
		t.Fatal(err)
	}
	secrets := tg.Secrets()
	for _, s := range []string{"pplx-typed-secret"} {
		if !slices.Contains(secrets, s) {
			t.Errorf("secret %q missing from %q", s, secrets)
		}
	}
	for _, s := range []string{"mcp:*", "/tmp/perplexity"} {
		if slices.Contains(secrets, s) {
			t.Errorf("the ordinary value %q is among the secrets %q", s, secrets)
		}
	}
}

// TestMissingInput: a password input nobody gave is reported by id and
// description, and can be given through its environment variable.
func TestMissingInput(t *testing.T) {
	f := Load("testdata/vscode/.vscode/mcp.json")
	s := f.Servers[0]
	ins := s.Inputs()
	if len(ins) != 2 || ins[0].ID != "perplexity-key" || !ins[0].Password || ins[1].ID != "region" || ins[1].Password {
		t.Fatalf("inputs %+v, want perplexity-key (password) and region", ins)
	}
	_, err := s.Target(Values{LookupEnv: env()})
	var miss *MissingInputsError
	if !errors.As(err, &miss) || len(miss.Inputs) != 1 || miss.Inputs[0].ID != "perplexity-key" {
		t.Fatalf("error %v, want the perplexity-key input missing", err)
	}
	for _, part := range []string{`"perplexity"`, "testdata/vscode/.vscode/mcp.json", `"perplexity-key" (Perplexity API key)`, "VS Code"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %s", err, part)
		}
	}
	if InputEnvVar("perplexity-key") != "INSPECTOR_INPUT_PERPLEXITY_KEY" {
		t.Errorf("InputEnvVar = %q", InputEnvVar("perplexity-key"))
	}
	tg, err := s.Target(Values{LookupEnv: env("INSPECTOR_INPUT_PERPLEXITY_KEY", "from-env-var")})
	if err != nil || !slices.Contains(tg.Env, "PERPLEXITY_API_KEY=from-env-var") {
		t.Errorf("with the env var: %v, env %q", err, tg.Env)
	}
}

// TestClaudeCodeMissingVariable: Claude Code refuses ${VAR} unset without
// a default, and so do we, naming the variable.
func TestClaudeCodeMissingVariable(t *testing.T) {
	f := Load("testdata/claude-code/.mcp.json")
	_, err := f.Servers[0].Target(Values{LookupEnv: env()})
	if err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN is not set") || !strings.Contains(err.Error(), `"github"`) {
		t.Errorf("error %v, want it to name GITHUB_TOKEN and the server", err)
	}
}

// TestMalformed: each malformed file's error names the file, where, the
// key and what is wrong; a bad entry leaves the file's other entries.
func TestMalformed(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"testdata/bad/syntax/claude_desktop_config.json", []string{"testdata/bad/syntax/claude_desktop_config.json:", "claude_desktop_config.json:4:5: invalid character", "not valid JSON"}},
		{"testdata/bad/type/.mcp.json", []string{"testdata/bad/type/.mcp.json:2:17: mcpServers: want an object of servers by name", "not an array"}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(filepath.Dir(tt.file)), func(t *testing.T) {
			f := Load(tt.file)
			if f.Err == nil {
				t.Fatalf("no error; servers %v", names(f.Servers))
			}
			for _, w := range tt.want {
				if !strings.Contains(f.Err.Error(), w) {
					t.Errorf("error %q does not say %q", f.Err, w)
				}
			}
		})
	}
	t.Run("entries", func(t *testing.T) {
		f := Load("testdata/bad/entry/.cursor/mcp.json")
		if f.Err != nil {
			t.Fatal(f.Err)
		}
		want := map[string]string{
			"good":        "",
			"args-string": "mcp.json:4:48: mcpServers.args-string.args: want an array of strings",
			"both":        "mcp.json:5:13: mcpServers.both: has both \"command\" and \"url\"",
			"neither":     "mcpServers.neither: neither \"command\"",
			"bad-type":    "mcpServers.bad-type.type: \"websocket\" is not a transport",
		}
		if len(f.Servers) != len(want) {
			t.Fatalf("servers %v", names(f.Servers))
		}
		for _, s := range f.Servers {
			w := want[s.Name]
			switch {
			case w == "" && s.Err != nil:
				t.Errorf("%s: %v", s.Name, s.Err)
			case w != "" && (s.Err == nil || !strings.Contains(s.Err.Error(), w)):
				t.Errorf("%s: error %v, want %q", s.Name, s.Err, w)
			}
		}
		if _, err := f.Servers[1].Target(Values{}); err == nil {
			t.Error("a bad entry gave a target")
		}
	})
	t.Run("missing", func(t *testing.T) {
		f := Load("testdata/nothing-here.json")
		if f.Err == nil || !strings.Contains(f.Err.Error(), "nothing-here.json") {
			t.Errorf("error %v", f.Err)
		}
	})
}

// TestQuoteWords: a command line made of a config's words splits back into
// the same words.
func TestQuoteWords(t *testing.T) {
	for _, words := range [][]string{
		{"node", "server.mjs"},
		{"npx", "-y", "a b", "it's", `back\slash`, "$HOME", "", "--x=\"q\""},
	} {
		got, err := shlex.Split(quoteWords(words))
		if err != nil || !slices.Equal(got, words) {
			t.Errorf("%q → %q → %q, %v", words, quoteWords(words), got, err)
		}
	}
}

// TestDiscover lays out a home and a project with one file of each kind
// and checks the order (precedence), the scopes of ~/.claude.json, that a
// bad file is listed with its error without hiding the others, and Pick.
func TestDiscover(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	repo := filepath.Join(root, "repo")
	cwd := filepath.Join(repo, "sub")
	copyFile(t, "testdata/claude-code/.mcp.json", filepath.Join(repo, ".mcp.json"))
	copyFile(t, "testdata/vscode/.vscode/mcp.json", filepath.Join(cwd, ".vscode", "mcp.json"))
	copyFile(t, "testdata/bad/syntax/claude_desktop_config.json", filepath.Join(repo, ".cursor", "mcp.json"))
	copyFile(t, "testdata/cursor/.cursor/mcp.json", filepath.Join(home, ".cursor", "mcp.json"))
	copyFile(t, "testdata/claude_desktop_config.json", filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"))
	user, _ := os.ReadFile("testdata/claude-user/.claude.json")
	write(t, filepath.Join(home, ".claude.json"), strings.ReplaceAll(string(user), "/home/me/work/app", repo))
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"outside": {"command": "x"}}}`) // above the repo: not read

	found := Discover(Places{Cwd: cwd, Home: home, ClaudeDesktop: ClaudeDesktopDir("linux", home, "", "")})
	var got []string
	for _, f := range found.Files {
		line := strings.TrimSpace(strings.TrimPrefix(f.Path, root+"/")+" "+f.Scope) + ": " + strings.Join(names(f.Servers), ",")
		if f.Err != nil {
			line += " ERR"
		}
		got = append(got, line)
	}
	want := []string{
		"home/.claude.json local: db",
		"repo/sub/.vscode/mcp.json: perplexity,remote,fetch",
		"repo/.mcp.json: github,notes,docs,weather",
		"repo/.cursor/mcp.json:  ERR",
		"home/.claude.json user: sentry",
		"home/.cursor/mcp.json: browser,search",
		"home/.config/Claude/claude_desktop_config.json: filesystem,weather",
	}
	if !slices.Equal(got, want) {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	s, others, err := found.Pick("weather")
	if err != nil || s.File != filepath.Join(repo, ".mcp.json") || len(others) != 1 || others[0].Format != ClaudeDesktop {
		t.Errorf("Pick weather: %s, others %v, %v; want the project's, hiding Claude Desktop's", s.Label(), others, err)
	}
	if sh, ok := found.Shadowed(others[0]); !ok || sh.File != s.File {
		t.Errorf("Shadowed: %v %v", sh.Label(), ok)
	}
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	s, _, err = found.Pick(desktop + ":weather")
	if err != nil || s.Format != ClaudeDesktop {
		t.Errorf("Pick FILE:weather: %s, %v", s.Label(), err)
	}
	_, _, err = found.Pick("nope")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "perplexity, remote") || !strings.Contains(err.Error(), "repo/.cursor/mcp.json:4:5") {
		t.Errorf("Pick nope: %v; want the names found and the unreadable file", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(data))
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestClaudeDesktopDir: the per-OS folder.
func TestClaudeDesktopDir(t *testing.T) {
	for _, tt := range []struct{ goos, appData, xdg, want string }{
		{"darwin", "", "", "/h/Library/Application Support/Claude"},
		{"windows", `C:\Users\me\AppData\Roaming`, "", filepath.Join(`C:\Users\me\AppData\Roaming`, "Claude")},
		{"linux", "", "", "/h/.config/Claude"},
		{"linux", "", "/x", "/x/Claude"},
	} {
		if got := ClaudeDesktopDir(tt.goos, "/h", tt.appData, tt.xdg); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.goos, got, tt.want)
		}
	}
}

// TestNestedTooDeep: a file nested three million levels deep (6 MB) is
// refused before it is parsed, naming the file, line and column, in
// bounded time and memory (parsing it recursively overflowed the stack).
// Brackets inside strings and comments do not count.
func TestNestedTooDeep(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, ".vscode", "mcp.json")
	os.MkdirAll(filepath.Dir(deep), 0o755)
	const n = 3_000_000
	data := "{\"servers\": {\"x\": {\"args\": " + strings.Repeat("[", n) + strings.Repeat("]", n) + "}}}"
	if err := os.WriteFile(deep, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f := Load(deep)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if f.Err == nil || !strings.Contains(f.Err.Error(), deep+":1:125: objects and arrays nested more than 100 deep") {
		t.Errorf("error %v", f.Err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("loading allocated %d MB, want under 64 MB", alloc>>20)
	}
	if took > 5*time.Second {
		t.Errorf("took %v", took)
	}

	// Deep brackets in a string and a comment are text, not nesting.
	ok := filepath.Join(dir, ".mcp.json")
	text := strings.Repeat("[{", 200)
	os.WriteFile(ok, []byte("// "+text+"\n/* "+text+" */\n{\"mcpServers\": {\"s\": {\"command\": \"echo\", \"args\": [\""+text+"\\\"]\"]}}}"), 0o644)
	if f := Load(ok); f.Err != nil || len(f.Servers) != 1 || f.Servers[0].Err != nil {
		t.Errorf("a file with brackets in text: %v %v", f.Err, f.Servers)
	}
}
