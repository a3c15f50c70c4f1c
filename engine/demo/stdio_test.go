package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary double as `inspector demo-server` over
// stdio: with DEMO_TEST_STDIO set it serves instead of testing.
func TestMain(m *testing.M) {
	if os.Getenv("DEMO_TEST_STDIO") != "" {
		if err := ServeStdio(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// TestServeStdioAnswersAfterInputCloses starts the stdio demo server as a
// subprocess, calls the slow tool and closes the server's stdin at once,
// as a client that writes its requests and hangs up does: the answer must
// still arrive on stdout, and the server must exit once it has.
func TestServeStdioAnswersAfterInputCloses(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DEMO_TEST_STDIO=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()

	lines := make(chan map[string]json.RawMessage)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	answer := func(id string) map[string]json.RawMessage {
		for m := range lines {
			if string(m["id"]) == id {
				return m
			}
		}
		return nil
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if answer("1") == nil {
		t.Fatal("no answer to initialize")
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"ms":400,"steps":2}}}`+"\n")
	start := time.Now()
	stdin.Close()

	got := answer("2")
	if got == nil {
		t.Fatalf("the server's output ended without answering the slow call (after %v)", time.Since(start).Round(time.Millisecond))
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal(got["result"], &res)
	if res.IsError || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].Text, "slept") {
		t.Errorf("slow call answered %s, want it to have slept its 400 ms", got["result"])
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server exited with %v after its input closed, want 0", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the server took %v to exit after a 400 ms call, want it to exit once answered", d)
	}
}
