package app

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/clientconfig"
)

// fixtures are engine/clientconfig's files, one of each client's format
// and a malformed one.
var fixtures = []string{
	"claude_desktop_config.json",
	"claude-code/.mcp.json",
	"claude-user/.claude.json",
	"cursor/.cursor/mcp.json",
	"vscode/.vscode/mcp.json",
	"bad/syntax/claude_desktop_config.json",
}

func fixtureFound(t *testing.T) clientconfig.Found {
	t.Helper()
	var found clientconfig.Found
	for _, f := range fixtures {
		found.Files = append(found.Files, clientconfig.Load(filepath.Join("..", "..", "..", "engine", "clientconfig", "testdata", f)))
	}
	return found
}

// pickServer taps the button of the server name from file (a suffix of
// its path).
func pickServer(t *testing.T, l *serverList, name, file string) {
	t.Helper()
	for i, s := range l.servers {
		if s.Name == name && strings.HasSuffix(s.File, file) {
			test.Tap(l.buttons[i])
			return
		}
	}
	t.Fatalf("no button for %s of %s; rows:\n%s", name, file, strings.Join(l.Rows(), "\n"))
}

// TestServerListShowsEveryFormat: the Server panel lists the servers of
// Claude Desktop, Claude Code (project and user files), Cursor and VS
// Code configs, each under the file it came from, and a malformed file
// with its error without hiding the others; picking one fills the
// connection.
func TestServerListShowsEveryFormat(t *testing.T) {
	test.NewTempApp(t)
	t.Setenv("HOME", t.TempDir()) // the panel's own discovery finds nothing of this machine's
	p := newConnectionPanel(engine.Target{}, nil)
	w := test.NewWindow(p)
	defer w.Close()
	p.servers.setFound(fixtureFound(t))

	rows := strings.Join(p.servers.Rows(), "\n")
	for _, want := range []string{
		"Claude Desktop — ../../../engine/clientconfig/testdata/claude_desktop_config.json",
		"filesystem  stdio · npx -y @modelcontextprotocol/server-filesystem /home/me/Desktop",
		"Claude Code — ../../../engine/clientconfig/testdata/claude-code/.mcp.json",
		"github  http · https://api.example.test/mcp/",
		"Claude Code (user) — ../../../engine/clientconfig/testdata/claude-user/.claude.json",
		"sentry  sse · https://mcp.example.test/sse",
		"Cursor — ../../../engine/clientconfig/testdata/cursor/.cursor/mcp.json",
		"browser  stdio · npx -y browser-mcp",
		"VS Code — ../../../engine/clientconfig/testdata/vscode/.vscode/mcp.json",
		"perplexity  stdio · npx -y server-perplexity-ask --region '${input:region}' · asks for 2 input(s)",
		"bad/syntax/claude_desktop_config.json:4:5: invalid character",
	} {
		if !strings.Contains(rows, want) {
			t.Errorf("the list does not show %q:\n%s", want, rows)
		}
	}
	if got := p.servers.title.Text; got != "13 server(s) in 6 file(s); press one to fill the connection." {
		t.Errorf("title %q", got)
	}
	if got := p.servers.accordion.Items[0].Title; got != "Servers in your client configs (13)" {
		t.Errorf("accordion title %q", got)
	}
	if !strings.Contains(rows, "weather  stdio · uvx weather-mcp --units metric\n") || !strings.Contains(rows, "weather  stdio · weather-mcp (the name is also in ../../../engine/clientconfig/testdata/claude_desktop_config.json, which --server takes)") {
		t.Errorf("the two weather servers are not both listed, the hidden one saying so:\n%s", rows)
	}

	pickServer(t, p.servers, "weather", "testdata/claude_desktop_config.json")
	got, err := p.target()
	if err != nil || got.Command != "uvx weather-mcp --units metric" || !slices.Equal(got.Env, []string{"WEATHER_API_KEY=wk-desktop-0001"}) {
		t.Errorf("after picking Claude Desktop's weather: %+v, %v", got, err)
	}
	if p.transport.Selected != "Command (stdio)" || p.command.Text != "uvx weather-mcp --units metric" {
		t.Errorf("the panel shows %q %q", p.transport.Selected, p.command.Text)
	}

	t.Setenv("SEARCH_KEY", "sk-from-env-99")
	pickServer(t, p.servers, "search", "cursor/.cursor/mcp.json")
	got, _ = p.target()
	if got.URL != "http://127.0.0.1:8931/mcp" || got.Headers["X-Api-Key"] != "sk-from-env-99" || !slices.Contains(got.Secrets(), "sk-from-env-99") {
		t.Errorf("after picking Cursor's search: %+v", got)
	}
	if p.headers.Text != "X-Api-Key: ${env:SEARCH_KEY}" {
		t.Errorf("the headers shown are %q, want the entry as written", p.headers.Text)
	}
}

// TestServerListAsksForInputs: a VS Code server with inputs asks for
// them, a password input in a password entry, a default filled in; the
// panel then shows the entry as written (no typed secret on screen) and
// connects with the values typed, marked secret.
func TestServerListAsksForInputs(t *testing.T) {
	test.NewTempApp(t)
	t.Setenv("HOME", t.TempDir())
	p := newConnectionPanel(engine.Target{}, nil)
	w := test.NewWindow(p)
	defer w.Close()
	p.servers.setFound(fixtureFound(t))
	before := p.command.Text

	pickServer(t, p.servers, "perplexity", "vscode/.vscode/mcp.json")
	if len(p.servers.inputs) != 2 || p.servers.useInputs == nil {
		t.Fatalf("%d input entries shown, want 2 and a Use button", len(p.servers.inputs))
	}
	if p.command.Text != before {
		t.Errorf("the panel was filled before the inputs were given: %q", p.command.Text)
	}
	key, region := p.servers.inputs[0], p.servers.inputs[1]
	if !key.Password || region.Password || region.Text != "eu-west-1" {
		t.Errorf("key password %v, region password %v text %q; want a password entry and the default region", key.Password, region.Password, region.Text)
	}
	test.Type(key, "pplx-typed-s3cret")
	test.Tap(p.servers.useInputs)

	if p.command.Text != "npx -y server-perplexity-ask --region '${input:region}'" {
		t.Errorf("command shown %q, want the entry as written", p.command.Text)
	}
	if strings.Contains(p.env.Text, "pplx-typed-s3cret") || !strings.Contains(p.env.Text, "PERPLEXITY_API_KEY=${input:perplexity-key}") ||
		!strings.Contains(p.env.Text, "DEBUG=(from .env)") {
		t.Errorf("environment shown:\n%s\nwant the entry as written, the envFile's names only", p.env.Text)
	}
	got, err := p.target()
	vsDir, _ := filepath.Abs(filepath.Join("..", "..", "..", "engine", "clientconfig", "testdata", "vscode"))
	if err != nil || got.Command != "npx -y server-perplexity-ask --region eu-west-1" ||
		!slices.Contains(got.Env, "PERPLEXITY_API_KEY=pplx-typed-s3cret") || !slices.Contains(got.Env, "DEBUG=mcp:*") ||
		got.Dir != filepath.Join(vsDir, "tools") || !slices.Contains(got.Secrets(), "pplx-typed-s3cret") {
		t.Errorf("target to connect to: %+v, %v", got, err)
	}
	if len(p.servers.inputs) != 0 {
		t.Error("the input entries stay shown after Use")
	}

	// Edited by the person, the command is theirs.
	p.command.SetText("npx -y server-perplexity-ask --region us-east-1")
	if got, _ := p.target(); got.Command != "npx -y server-perplexity-ask --region us-east-1" {
		t.Errorf("an edited command became %q", got.Command)
	}
}
