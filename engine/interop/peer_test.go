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

// tsServerDir is the TypeScript SDK server's folder.
var tsServerDir = func() string {
	d, _ := filepath.Abs(filepath.Join("testdata", "tsserver"))
	return d
}()

var (
	npmOnce sync.Once
	npmErr  error
)

// needTSServer makes sure node is there and the TypeScript server's
// dependencies are installed, or skips (fails in CI) saying why.
func needTSServer(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		msg := "node is not on PATH: install Node.js 18 or newer to run the TypeScript SDK interop tests"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	npmOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(tsServerDir, "node_modules", "@modelcontextprotocol", "sdk")); err == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = tsServerDir
		out, err := cmd.CombinedOutput()
		if err != nil {
			npmErr = fmt.Errorf("npm ci in %s: %v\n%s", tsServerDir, err, out)
		}
	})
	if npmErr != nil {
		tb.Fatal(npmErr)
	}
}

// tsStdioCommand is the command line that serves the TypeScript server
// over stdio.
func tsStdioCommand() string {
	return "node " + shellQuote(filepath.Join(tsServerDir, "server.mjs"))
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// startTSHTTP starts the TypeScript server over streamable HTTP on a free
// port and returns its URL; the server stops when the test ends.
func startTSHTTP(tb testing.TB) string {
	tb.Helper()
	cmd := exec.Command("node", filepath.Join(tsServerDir, "server.mjs"), "--http", "0")
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
			tb.Fatalf("the TypeScript server printed %q instead of its URL; stderr:\n%s", u, stderr.String())
		}
		return u
	case <-time.After(60 * time.Second):
		tb.Fatalf("the TypeScript server did not print its URL within a minute; stderr:\n%s", stderr.String())
	}
	return ""
}
