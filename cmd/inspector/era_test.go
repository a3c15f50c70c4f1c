package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// eraOf reads the era fields of run's --json summary.
func eraOf(t *testing.T, r result) (protocol, era, asked string) {
	t.Helper()
	var v struct {
		Protocol string `json:"protocol"`
		Era      string `json:"era"`
		EraAsked string `json:"era_asked"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("--json output is not an object: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return v.Protocol, v.Era, v.EraAsked
}

// TestRunEras runs a call on each era against the demo server, which
// speaks both: in process, as a stdio subprocess and over streamable
// HTTP. The summary says which era the session got, in words and in
// --json; --protocol latest (auto, as before eras had names) gets the
// same as --era auto.
func TestRunEras(t *testing.T) {
	targets := []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"in-process", func(*testing.T) []string { return []string{"--demo"} }},
		{"stdio", func(*testing.T) []string { return []string{"--stdio", inspectorBin + " demo-server"} }},
		{"http", func(t *testing.T) []string { return []string{"--url", startDemoHTTP(t)} }},
	}
	tests := []struct {
		flags                []string
		protocol, era, asked string
		line                 string
	}{
		{nil, "2025-11-25", "legacy", "legacy", "protocol 2025-11-25, era legacy)"},
		{[]string{"--era", "legacy"}, "2025-11-25", "legacy", "legacy", "protocol 2025-11-25, era legacy)"},
		{[]string{"--era", "auto"}, "2026-07-28", "modern", "auto", "protocol 2026-07-28, era auto → modern)"},
		{[]string{"--era", "modern"}, "2026-07-28", "modern", "modern", "protocol 2026-07-28, era modern)"},
		{[]string{"--protocol", "latest"}, "2026-07-28", "modern", "auto", "protocol 2026-07-28, era auto → modern)"},
		{[]string{"--era", "legacy", "--protocol", "2025-06-18"}, "2025-06-18", "legacy", "legacy", "protocol 2025-06-18, era legacy)"},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			target := tg.args(t)
			for _, tt := range tests {
				t.Run(strings.Join(tt.flags, " "), func(t *testing.T) {
					args := append(append([]string{"run"}, target...), tt.flags...)
					args = append(args, "--tool", "fanout", "--args", `{"n":2}`)
					saved := filepath.Join(t.TempDir(), "run.json")
					r := inspector(t, append(args, "--json", "--record", saved)...)
					if r.code != exitOK {
						t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
					}
					if p, e, a := eraOf(t, r); p != tt.protocol || e != tt.era || a != tt.asked {
						t.Errorf("--json: protocol %q era %q era_asked %q; want %q %q %q", p, e, a, tt.protocol, tt.era, tt.asked)
					}
					// report --json on the recording says the same
					if p, e, a := eraOf(t, inspector(t, "report", "--json", saved)); p != tt.protocol || e != tt.era || a != tt.asked {
						t.Errorf("report --json: protocol %q era %q era_asked %q; want %q %q %q", p, e, a, tt.protocol, tt.era, tt.asked)
					}
					// the call worked on the era it got: two sampling
					// requests pushed (legacy) or asked for in a round
					// (modern), both answered
					if s := summaryOf(t, r); s.ToolCalls.OK != 1 || s.ServerRequests.OK != 2 {
						t.Errorf("calls ok %d, server requests ok %d; want 1 and 2", s.ToolCalls.OK, s.ServerRequests.OK)
					}
					if tg.name != "http" { // the words once per era are enough
						text := inspector(t, args...)
						if first, _, _ := strings.Cut(text.stdout, "\n"); text.code != exitOK || !strings.HasSuffix(first, tt.line) {
							t.Errorf("summary's first line %q (exit %d), want it to end %q", first, text.code, tt.line)
						}
					}
				})
			}
		})
	}
}

// TestEraFlags: a bad era, or one the protocol contradicts, is a usage
// error (exit 2) that says what to choose; run, init and gui read the
// same flag.
func TestEraFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--era", "newest"}, `--era "newest": want legacy (initialize, the default), auto (server/discover, else initialize) or modern (2026-07-28 only)`},
		{[]string{"run", "--era", ""}, "--era is empty: leave it out for legacy, or give legacy, auto or modern"},
		{[]string{"run", "--era", "legacy", "--protocol", "2026-07-28"}, "--era/--protocol: era legacy with protocol 2026-07-28: 2026-07-28 is a modern-era version, which legacy (initialize) cannot offer; choose era modern (or auto) for it, or a protocol older than 2026-07-28"},
		{[]string{"run", "--era", "modern", "--protocol", "2025-11-25"}, "--era/--protocol: era modern with protocol 2025-11-25: 2025-11-25 is a legacy-era version (initialize); choose era legacy for it"},
		{[]string{"run", "--era", "auto", "--protocol", "2025-06-18"}, "--era/--protocol: era auto with protocol 2025-06-18: auto tries 2026-07-28 and falls back to 2025-11-25, and offers no other version; choose era legacy to offer 2025-06-18"},
		{[]string{"init", "--era", "sometimes"}, `--era "sometimes": want legacy`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := inspector(t, tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", r.code, r.stderr, exitUsage, tt.want)
			}
		})
	}
}

// everythingServer is the command line of the TypeScript reference
// server over stdio, or a skip (a failure in CI) saying how to install it.
func everythingServer(t *testing.T) string {
	t.Helper()
	entry, _ := filepath.Abs(filepath.Join("..", "..", "engine", "interop", "testdata", "everything", "node_modules",
		"@modelcontextprotocol", "server-everything", "dist", "index.js"))
	msg := ""
	if _, err := exec.LookPath("node"); err != nil {
		msg = "node is not on PATH: install Node.js 20 or newer to run the tests against the TypeScript reference server"
	} else if _, err := os.Stat(entry); err != nil {
		msg = "the TypeScript reference server is not installed at " + entry + ": run scripts/setup.sh"
	}
	if msg != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return fmt.Sprintf("node '%s' stdio", entry)
}

// TestRunErasEverything runs against the TypeScript reference server,
// which speaks 2025-11-25 only: legacy gets it, auto falls back to it,
// modern fails (exit 1) saying the server does not speak 2026-07-28,
// what it answered, and which --era would connect. A client config's
// "era" chooses it as --era does, and --era overrides it.
func TestRunErasEverything(t *testing.T) {
	srv := everythingServer(t)
	for _, tt := range []struct{ era, asked string }{{"legacy", "legacy"}, {"auto", "auto"}} {
		r := inspector(t, "run", "--stdio", srv, "--era", tt.era, "--tool", "echo", "--args", `{"message":"hi"}`, "--json")
		if r.code != exitOK {
			t.Fatalf("--era %s: exit %d\nstderr: %s", tt.era, r.code, r.stderr)
		}
		if p, e, a := eraOf(t, r); p != "2025-11-25" || e != "legacy" || a != tt.asked {
			t.Errorf("--era %s: protocol %q era %q era_asked %q; want 2025-11-25 legacy %s", tt.era, p, e, a, tt.asked)
		}
		if s := summaryOf(t, r); s.ToolCalls.OK != 1 {
			t.Errorf("--era %s: %d calls ok, want the echo to work", tt.era, s.ToolCalls.OK)
		}
	}
	r := inspector(t, "run", "--stdio", srv, "--era", "modern", "--tool", "echo", "--args", `{"message":"hi"}`)
	for _, want := range []string{
		"the server does not speak the modern era (2026-07-28): server/discover failed:",
		"--era auto falls back to initialize (2025-11-25) on such a server, --era legacy asks no server/discover at all",
	} {
		if r.code != exitFailure || !strings.Contains(r.stderr, want) {
			t.Errorf("--era modern: exit %d, stderr %q; want exit %d saying %q", r.code, r.stderr, exitFailure, want)
		}
	}

	cfg := filepath.Join(t.TempDir(), "mcp.json")
	words := strings.Fields(srv) // node 'ENTRY' stdio
	text := fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"], "era": "modern"}}}`, strings.Trim(words[1], "'"))
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r = inspector(t, "run", "--config", cfg, "--server", "everything", "--tool", "echo", "--args", `{"message":"hi"}`)
	if r.code != exitFailure || !strings.Contains(r.stderr, "the server does not speak the modern era") {
		t.Errorf("config era modern: exit %d, stderr %q; want the modern era refused", r.code, r.stderr)
	}
	r = inspector(t, "run", "--config", cfg, "--server", "everything", "--era", "auto", "--tool", "echo", "--args", `{"message":"hi"}`, "--json")
	if p, e, a := eraOf(t, r); r.code != exitOK || p != "2025-11-25" || e != "legacy" || a != "auto" {
		t.Errorf("config era modern, --era auto: exit %d, protocol %q era %q asked %q; want auto → legacy 2025-11-25\nstderr: %s", r.code, p, e, a, r.stderr)
	}
}

// TestServersShowEra: inspector servers lists an entry's era beside what
// it runs, and run takes it from there.
func TestServersShowEra(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	text := fmt.Sprintf(`{"mcpServers": {"demo": {"command": %q, "args": ["demo-server"], "era": "auto"}}}`, inspectorBin)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r := inspector(t, "servers", "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, "demo-server") || !strings.Contains(r.stdout, "era auto") {
		t.Errorf("exit %d, stdout %q; want the entry listed with era auto\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = inspector(t, "run", "--config", cfg, "--tool", "echo", "--args", `{"text":"x"}`, "--json")
	if p, e, a := eraOf(t, r); r.code != exitOK || p != "2026-07-28" || e != "modern" || a != "auto" {
		t.Errorf("run: exit %d, protocol %q era %q asked %q; want auto → modern 2026-07-28\nstderr: %s", r.code, p, e, a, r.stderr)
	}
}
