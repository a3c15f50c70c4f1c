package interop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// everythingEntry is the TypeScript reference server's entry point, as
// scripts/setup.sh installs it.
var everythingEntry = filepath.Join(testdataDir("everything"), "node_modules",
	"@modelcontextprotocol", "server-everything", "dist", "index.js")

// needEverything skips (fails in CI) when node or the TypeScript
// reference server is missing, saying how to get them.
func needEverything(tb testing.TB) {
	tb.Helper()
	msg := ""
	if _, err := exec.LookPath("node"); err != nil {
		msg = "node is not on PATH: install Node.js 20 or newer to run the tests against the TypeScript reference server"
	} else if _, err := os.Stat(everythingEntry); err != nil {
		msg = "the TypeScript reference server is not installed at " + everythingEntry + ": run scripts/setup.sh"
	}
	if msg == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// startEverythingHTTP starts the TypeScript reference server over
// streamable HTTP on a free port of this machine and returns its URL;
// it stops when the test ends.
func startEverythingHTTP(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // the server cannot say which port it took: give it this one
	cmd := exec.Command("node", everythingEntry, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		var seen []string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- ""
				break
			}
			seen = append(seen, sc.Text())
		}
		ready <- strings.Join(seen, "\n")
		for sc.Scan() { // keep the pipe drained
		}
	}()
	select {
	case out := <-ready:
		if out != "" {
			tb.Fatalf("the reference server did not start on port %d:\n%s", port, out)
		}
	case <-time.After(60 * time.Second):
		tb.Fatalf("the reference server did not say it listens on port %d within a minute", port)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestEverythingEras connects to the TypeScript reference server, which
// speaks 2025-11-25 only, over stdio and streamable HTTP in each era:
// legacy and auto end up on 2025-11-25 (auto after its server/discover
// failed), modern fails with an error that says the server does not
// speak 2026-07-28 and names the eras that would connect.
func TestEverythingEras(t *testing.T) {
	needEverything(t)
	targets := map[string]func(t *testing.T) engine.Target{
		"stdio": func(t *testing.T) engine.Target {
			return engine.Target{Transport: engine.TransportStdio, Command: "node " + shellQuote(everythingEntry) + " stdio"}
		},
		"http": func(t *testing.T) engine.Target {
			return engine.Target{Transport: engine.TransportHTTP, URL: startEverythingHTTP(t)}
		},
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			base := target(t)
			for _, tt := range []struct {
				era   engine.Era
				badge string
			}{
				{engine.EraLegacy, "legacy · 2025-11-25"},
				{engine.EraAuto, "auto → legacy · 2025-11-25"},
			} {
				t.Run(string(tt.era), func(t *testing.T) {
					tg := base
					tg.Era = tt.era
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					rec := recorder.New(recorder.Meta{})
					s, err := engine.Connect(ctx, tg, engine.DefaultAnswerPolicy(), rec)
					if err != nil {
						t.Fatalf("era %s: %v", tt.era, err)
					}
					defer s.Close()
					if got := s.Info().EraBadge(); got != tt.badge {
						t.Errorf("badge %q, want %q", got, tt.badge)
					}
					// the session works on the era it fell to
					tools, err := s.ListTools(ctx)
					if err != nil || len(tools) == 0 {
						t.Errorf("listing tools on %s: %d tools, %v", tt.badge, len(tools), err)
					}
					discovered := 0
					for _, sp := range rec.Snapshot().Spans {
						if sp.Method == "server/discover" {
							discovered++
						}
					}
					if want := map[engine.Era]int{engine.EraLegacy: 0, engine.EraAuto: 1}[tt.era]; discovered != want {
						t.Errorf("%d server/discover requests recorded, want %d", discovered, want)
					}
				})
			}
			t.Run("modern", func(t *testing.T) {
				tg := base
				tg.Era = engine.EraModern
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				rec := recorder.New(recorder.Meta{})
				s, err := engine.Connect(ctx, tg, engine.DefaultAnswerPolicy(), rec)
				if err == nil {
					s.Close()
					t.Fatalf("connected on %s; want the modern era refused", s.Info().EraBadge())
				}
				var eraErr *engine.EraError
				if !errors.As(err, &eraErr) {
					t.Errorf("error %T, want an *engine.EraError", err)
				}
				for _, want := range []string{"the server does not speak the modern era (2026-07-28)", "server/discover failed", "connect with era auto", "or era legacy"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				for _, sp := range rec.Snapshot().Spans {
					if sp.Method == "initialize" {
						t.Errorf("an initialize was sent although the modern era was pinned")
					}
				}
				t.Logf("modern: %v", err)
			})
		})
	}
}
