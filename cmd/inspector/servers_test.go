package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

var updateServers = flag.Bool("update-servers", false, "rewrite testdata/servers.golden from the output of inspector servers")

// serversTree copies testdata/servers (a home and a project with a config
// of each client in them) into a temporary folder, makes the project a
// repository, and returns the environment and working directory that
// make inspector look there.
func serversTree(t *testing.T) (env []string, project string) {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/servers")); err != nil {
		t.Fatal(err)
	}
	project = filepath.Join(root, "project")
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=", "APPDATA="}, project
}

// TestServersCommand: inspector servers lists every file found in
// precedence order with its servers, a malformed entry with its error
// (file, line, column, key) beside the file's good one, the inputs a
// server needs, and the entry another file's of the same name hides.
// The output is pinned in testdata/servers.golden (-update-servers
// rewrites it).
func TestServersCommand(t *testing.T) {
	env, project := serversTree(t)
	r := inspectorIn(t, project, env, "servers")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	got := strings.ReplaceAll(r.stdout, filepath.Dir(project), "ROOT")
	golden := filepath.Join("testdata", "servers.golden")
	if *updateServers {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("inspector servers printed\n%s\nwant (testdata/servers.golden)\n%s", got, want)
	}
	for _, part := range []string{ // what the golden file must keep saying
		".mcp.json (Claude Code)", ".vscode/mcp.json (VS Code)", ".cursor/mcp.json (Cursor)",
		"~/.claude.json (Claude Code, user entries)", "~/.config/Claude/claude_desktop_config.json (Claude Desktop)",
		"broken  error: ROOT/project/.cursor/mcp.json:3:40: mcpServers.broken.args: want an array of strings",
		"needs input api-key (password)",
		"hidden by .mcp.json: --server ~/.config/Claude/claude_desktop_config.json:weather",
	} {
		if !strings.Contains(got, part) {
			t.Errorf("the listing does not say %q", part)
		}
	}
	if strings.Contains(got, "elsewhere") {
		t.Error("a ~/.claude.json entry of another project is listed")
	}
}

// TestServerFlagErrors: what run says when the server cannot be used:
// exit 2 for a bad flag, exit 1 for a config file that cannot be read.
func TestServerFlagErrors(t *testing.T) {
	env, project := serversTree(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"an input nobody gave", []string{"--server", "search"}, []string{
			`--server search: server "search" in ` + filepath.Join(project, ".vscode", "mcp.json") + ` needs the input "api-key" (Search API key)`,
			"--input api-key=VALUE or the environment variable INSPECTOR_INPUT_API_KEY"}},
		{"no such server", []string{"--server", "nope"}, []string{`no server is named "nope"`, "there are weather, docs, broken, fine, search", "'inspector servers' lists"}},
		{"a malformed entry", []string{"--server", "broken"}, []string{"mcp.json:3:40: mcpServers.broken.args: want an array of strings"}},
		{"two ways to name a server", []string{"--server", "docs", "--stdio", "node x.js"}, []string{"--server and --stdio: choose one server"}},
		{"a malformed file", []string{"--config", filepath.Join("..", "..", "..", "..", "engine", "clientconfig", "testdata", "bad", "syntax", "claude_desktop_config.json")}, nil},
		{"a file of several servers, no name", []string{"--config", ".mcp.json"}, []string{".mcp.json names 2 servers (weather, docs): say which: choose one with --server NAME"}},
		{"an input for no config", []string{"--stdio", "node x.js", "--input", "a=b"}, []string{"--input: for a server of a client config"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.name == "a malformed file" { // a path from the repository, not the copy
				wd, _ := os.Getwd()
				args = []string{"--config", filepath.Join(wd, "..", "..", "engine", "clientconfig", "testdata", "bad", "syntax", "claude_desktop_config.json")}
				tc.want = []string{"--config: " + args[1] + ":4:5: invalid character", "not valid JSON"}
			}
			want := exitUsage
			if tc.name == "a malformed file" {
				want = exitFailure // the file, not the flag, is what is wrong
			}
			r := inspectorIn(t, project, env, append([]string{"run"}, args...)...)
			if r.code != want {
				t.Errorf("exit %d, want %d", r.code, want)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// TestServerClash: --server NAME takes the first file in precedence and
// says which others name it; FILE:NAME takes the other.
func TestServerClash(t *testing.T) {
	env, project := serversTree(t)
	desktop := filepath.Join(filepath.Dir(project), "home", ".config", "Claude", "claude_desktop_config.json")
	r := inspectorIn(t, project, env, "run", "--server", "weather", "--list-tools", "--connect-timeout", "1s")
	for _, w := range []string{
		"--server weather: using the one in " + filepath.Join(project, ".mcp.json") + " (Claude Code), the first in precedence; also in " + desktop + " (Claude Desktop)",
		"stdio: node weather.js", // what was started
	} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	r = inspectorIn(t, project, env, "run", "--server", desktop+":weather", "--list-tools", "--connect-timeout", "1s")
	if !strings.Contains(r.stderr, "stdio: uvx weather-mcp") || strings.Contains(r.stderr, "using the one in") {
		t.Errorf("FILE:NAME did not pick Claude Desktop's entry alone:\n%s", r.stderr)
	}
}

// TestRunFromClaudeDesktopConfig is issue 12's first acceptance test: from
// the repository's root, inspector run --config
// cmd/inspector/testdata/claude_desktop_config.json --server fanout-ts
// --dispatch serial --latency 500ms runs the TypeScript SDK's fan-out
// server from a Claude-Desktop-style entry (its args relative to the
// folder it runs in) and the summary shows the fan-out served serially.
func TestRunFromClaudeDesktopConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the TypeScript SDK server with node")
	}
	if _, err := exec.LookPath("node"); err != nil {
		msg := "node is not on PATH: install Node.js 20 or newer to run the TypeScript SDK server"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "engine", "interop", "testdata", "tsserver", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		msg := "the TypeScript server's packages are not installed: run scripts/setup.sh (or npm ci in engine/interop/testdata/tsserver)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	r := inspectorIn(t, repo, nil, "run", "--config", "cmd/inspector/testdata/claude_desktop_config.json", "--server", "fanout-ts", "--dispatch", "serial", "--latency", "500ms")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{
		"stdio: node engine/interop/testdata/tsserver/server.mjs (ts-fanout",
		"sampling/createMessage  5",
		"peak in flight            1\n",
		"verdict                   serialized: 5 requests arrived together and were served one at a time",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the summary does not say %q:\n%s", w, r.stdout)
		}
	}
	var ms float64
	for _, line := range strings.Split(r.stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, "elapsed"); ok {
			fmt.Sscanf(strings.TrimSpace(rest), "%f ms", &ms)
		}
	}
	if ms < 2400 { // five 500 ms answers one after another
		t.Errorf("elapsed %.0f ms, want at least 2400 (serial)", ms)
	}
}

// TestConfigSecretsStayInside: what a config's placeholders are filled
// with (here inputs given through their environment variables, one in
// the server's environment, one on its command line) is
// kept out of the output, the recording, the journal and every export, as
// an --env value is; the server did receive it.
func TestConfigSecretsStayInside(t *testing.T) {
	const secret, argSecret = "input-s3cret-42", "arg-s3cret-43" // in its environment; on its command line
	testBin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, ".vscode", "mcp.json")
	write := fmt.Sprintf(`{
  "inputs": [{"type": "promptString", "id": "secret", "description": "The secret", "password": true},
    {"type": "promptString", "id": "arg", "description": "Another"}],
  "servers": {"echo": {"type": "stdio", "command": %q, "args": ["--name", "${input:arg}"],
    "env": {%q: "1", "ECHO_SECRET": "${input:secret}"}}}
}`, testBin, echoServerEnv)
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(write), 0o600); err != nil {
		t.Fatal(err)
	}
	out, cache := t.TempDir(), t.TempDir()
	r := inspectorEnv(t, []string{"XDG_CACHE_HOME=" + cache, "INSPECTOR_INPUT_SECRET=" + secret, "INSPECTOR_INPUT_ARG=" + argSecret},
		append([]string{"run", "--config", config, "--tool", "leak", "--sampling-reply", "{{.LastUserMessage}}"}, outputFlags(out)...)...)
	if r.code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "env ECHO_SECRET=REDACTED") || !strings.Contains(r.stdout, "--name REDACTED") {
		t.Errorf("the server's echo of the secret is not shown redacted (so it may not have made the round trip):\n%s", r.stdout)
	}
	n := assertNoSecrets(t, []string{secret, argSecret}, map[string]string{"stdout": r.stdout, "stderr": r.stderr}, out, filepath.Join(cache, "fanout-inspector", "journal"))
	if n < 8 {
		t.Errorf("%d files written, want at least 8 (recording, journal, 6 exports)", n)
	}
}

// TestProxyFromConfig: inspector proxy --config FILE --server NAME starts
// the config's server (with its environment, kept out of the recording)
// and records what passes, as --stdio would.
func TestProxyFromConfig(t *testing.T) {
	const secret = "proxy-env-s3cret-7"
	dir := t.TempDir() // the proxy's files
	config := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	text := fmt.Sprintf(`{"mcpServers": {"demo": {"command": %q, "args": ["demo-server"], "env": {"DEMO_TOKEN": %q}}}}`, inspectorBin, secret)
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "proxy.json")
	server := fmt.Sprintf("%s proxy --config %s --server demo --record %s --journal off", inspectorBin, config, file)
	r := inspector(t, "run", "--stdio", server, "--tool", "fanout", "--dispatch", "concurrent", "--latency", "100ms", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	snap, err := recorder.LoadFile(file)
	if err != nil {
		t.Fatalf("the proxy's recording: %v\n%s", err, r.stderr)
	}
	if sum := recorder.Summarize(snap); sum.ServerRequests.Total != 5 || !strings.Contains(snap.Meta.Target, "demo-server") {
		t.Errorf("the proxy recorded %d server requests of %q; want 5 of the config's demo-server", sum.ServerRequests.Total, snap.Meta.Target)
	}
	assertNoSecrets(t, []string{secret}, map[string]string{"stderr": r.stderr}, dir)
	r = inspector(t, "proxy", "--server", "x", "--stdio", "node s.js")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--server and --stdio/--upstream: choose one server") {
		t.Errorf("--server with --stdio: exit %d, %s", r.code, r.stderr)
	}
}

// TestRunWithoutTool: without --tool, run calls a server's tool named
// fanout (the demo server's over stdio here, the TypeScript server's in
// TestRunFromClaudeDesktopConfig), else its only tool; a server of several
// tools, none of them fanout, gets them named.
func TestRunWithoutTool(t *testing.T) {
	r := inspector(t, "run", "--stdio", inspectorBin+" demo-server", "--json")
	var sum struct {
		ServerRequests struct{ Total int } `json:"server_requests"`
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &sum) != nil || sum.ServerRequests.Total != 5 {
		t.Errorf("run without --tool on the demo server over stdio: exit %d, stdout %q, stderr %q; want its fanout tool called (5 server requests)", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		names []string
		want  string
		err   string
	}{
		{[]string{"echo", "fanout", "slow"}, "fanout", ""},
		{[]string{"only"}, "only", ""},
		{[]string{"a", "b"}, "", "--tool: name the tool to call on srv; it offers a, b"},
		{nil, "", "srv offers no tools to call"},
	} {
		got, err := pickTool(tc.names, "srv")
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("pickTool(%v) = %q, %v; want %q, %q", tc.names, got, err, tc.want, tc.err)
		}
	}
}

// TestConfigCwd: an entry's cwd is where its server starts, so a command
// and arguments relative to it work.
func TestConfigCwd(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(inspectorBin, filepath.Join(dir, "srv")); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), ".mcp.json")
	text := fmt.Sprintf(`{"mcpServers": {"demo": {"command": "./srv", "args": ["demo-server"], "cwd": %q}}}`, dir)
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r := inspector(t, "run", "--config", config, "--tool", "echo", "--args", `{"text":"hi"}`)
	if r.code != exitOK || !strings.Contains(r.stdout, "stdio: ./srv demo-server") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// TestUnreadableConfigExits1: a client config nested past the depth
// limit is a file that cannot be read, not a bad flag: run --server and
// --config exit 1 saying what is wrong with it, and inspector servers
// still lists what it found but exits 1 and says a file was skipped.
func TestUnreadableConfigExits1(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "project")
	for _, d := range []string{".git", ".vscode"} {
		if err := os.MkdirAll(filepath.Join(project, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	deep := filepath.Join(project, ".vscode", "mcp.json")
	if err := os.WriteFile(deep, []byte(`{"servers":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := `{"mcpServers": {"demo": {"command": "` + inspectorBin + `", "args": ["demo-server"]}}}`
	if err := os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + filepath.Join(root, "home"), "XDG_CONFIG_HOME=", "APPDATA="}
	const nested = "nested more than 100 deep"
	cases := []struct {
		name string
		args []string
		want []string // on stderr
	}{
		{"run --server", []string{"run", "--server", "missing"}, []string{nested, `no server is named "missing"`, "fix or remove the file"}},
		{"run --config", []string{"run", "--config", deep}, []string{"--config: " + deep, nested}},
		{"proxy --server", []string{"proxy", "--server", "missing"}, []string{nested, "fix or remove the file"}},
		{"servers", []string{"servers"}, []string{"1 of 2 configuration files could not be read", "fix or remove them"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectorIn(t, project, env, tc.args...)
			if r.code != exitFailure {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, exitFailure, r.stdout, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "-h' for the flags") {
				t.Errorf("a file that cannot be read is not a bad flag, but stderr points to the flags:\n%s", r.stderr)
			}
		})
	}
	// The good file is still listed, and its server still usable.
	r := inspectorIn(t, project, env, "servers")
	if !strings.Contains(r.stdout, "demo") || !strings.Contains(r.stdout, nested) {
		t.Errorf("inspector servers did not list the good file's server and the broken file's error:\n%s", r.stdout)
	}
	r = inspectorIn(t, project, env, "run", "--server", "demo", "--json")
	if r.code != exitOK {
		t.Errorf("run --server demo, beside a file that cannot be read: exit %d\nstderr: %s", r.code, r.stderr)
	}
}
