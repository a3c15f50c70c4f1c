package interop

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// tsServerDir is the TypeScript SDK server's folder; tsServerV2Dir that of
// the server and reference client built on the TypeScript SDK v2.
var (
	tsServerDir   = testdataDir("tsserver")
	tsServerV2Dir = testdataDir("tsserver-v2")
)

func testdataDir(name string) string {
	d, _ := filepath.Abs(filepath.Join("testdata", name))
	return d
}

// npmInstalls remembers, per folder, whether its npm packages are there.
var npmInstalls sync.Map // folder → *npmInstall

type npmInstall struct {
	once sync.Once
	err  error
}

// needTSServer makes sure node is there and the TypeScript server's
// dependencies are installed, or skips (fails in CI) saying why.
func needTSServer(tb testing.TB) {
	tb.Helper()
	needNodePackages(tb, tsServerDir, filepath.Join("@modelcontextprotocol", "sdk"))
}

// needTSServerV2 does the same for the TypeScript SDK v2 server and client.
func needTSServerV2(tb testing.TB) {
	tb.Helper()
	needNodePackages(tb, tsServerV2Dir, filepath.Join("@modelcontextprotocol", "server"))
}

// needNodePackages skips (fails in CI) when node is missing, and runs
// `npm ci` in dir once when node_modules lacks the package probe.
func needNodePackages(tb testing.TB, dir, probe string) {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		msg := "node is not on PATH: install Node.js 20 or newer to run the TypeScript SDK interop tests"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	v, _ := npmInstalls.LoadOrStore(dir, new(npmInstall))
	in := v.(*npmInstall)
	in.once.Do(func() {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", probe)); err == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			in.err = fmt.Errorf("npm ci in %s (or run scripts/setup.sh): %v\n%s", dir, err, out)
		}
	})
	if in.err != nil {
		tb.Fatal(in.err)
	}
}

// tsStdioCommand is the command line that serves the TypeScript server
// over stdio.
func tsStdioCommand() string {
	return "node " + shellQuote(filepath.Join(tsServerDir, "server.mjs"))
}

// tsV2StdioCommand is the command line that serves the TypeScript SDK v2
// server over stdio.
func tsV2StdioCommand() string {
	return "node " + shellQuote(filepath.Join(tsServerV2Dir, "server.mjs"))
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// startTSHTTP starts the TypeScript server over streamable HTTP on a free
// port and returns its URL; the server stops when the test ends.
func startTSHTTP(tb testing.TB) string {
	tb.Helper()
	return startNodeHTTP(tb, tsServerDir)
}

// startNodeHTTP starts dir's server.mjs over streamable HTTP on a free port
// of 127.0.0.1 and returns the URL it prints; the server stops when the
// test ends.
func startNodeHTTP(tb testing.TB, dir string) string {
	tb.Helper()
	cmd := exec.Command("node", filepath.Join(dir, "server.mjs"), "--http", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			urls <- sc.Text()
		}
		close(urls)
	}()
	select {
	case u, ok := <-urls:
		if !ok || !strings.HasPrefix(u, "http://") {
			tb.Fatalf("the TypeScript server in %s printed %q instead of its URL; stderr:\n%s", dir, u, stderr.String())
		}
		return u
	case <-time.After(60 * time.Second):
		tb.Fatalf("the TypeScript server in %s did not print its URL within a minute; stderr:\n%s", dir, stderr.String())
	}
	return ""
}
