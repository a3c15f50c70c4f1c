package engine

import (
	"context"
	"encoding/base64"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestTargetStringAndSecrets(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("bob:hunter22"))
	tests := []struct {
		target  Target
		str     string
		secrets []string
	}{
		{Target{}, "demo", nil},
		{Target{Transport: TransportHTTP, URL: "http://bob:hunter22@h:1/mcp?token=t0k3n&page=2",
			Headers: map[string]string{"Authorization": "Bearer abcd1234"}},
			"http: http://REDACTED:REDACTED@h:1/mcp?token=REDACTED&page=2",
			[]string{"bob", "hunter22", "t0k3n", basic, "Bearer abcd1234", "abcd1234"}},
		{Target{Transport: TransportSSE, URL: "https://h/sse?api_key=k3y"}, "sse: https://h/sse?api_key=REDACTED", []string{"k3y"}},
		{Target{Transport: TransportStdio, Command: "srv --x", Env: []string{"API_TOKEN=envtok", "EMPTY="}},
			"stdio: srv --x", []string{"envtok"}},
		{Target{Transport: TransportStdio, Command: `API_KEY=k1 srv --token t2 --client-secret=s3 --verbose -H "Authorization: Bearer b4" --port 80`},
			`stdio: API_KEY=k1 srv --token t2 --client-secret=s3 --verbose -H "Authorization: Bearer b4" --port 80`, []string{"k1", "t2", "s3", "b4"}},
	}
	for _, tt := range tests {
		if got := tt.target.String(); got != tt.str {
			t.Errorf("String() = %q, want %q", got, tt.str)
		}
		got := tt.target.Secrets()
		slices.Sort(got)
		slices.Sort(tt.secrets)
		if !slices.Equal(got, tt.secrets) {
			t.Errorf("%v: Secrets() = %q, want %q", tt.target, got, tt.secrets)
		}
	}
}

// TestConnectErrorHidesCredentials: net/http quotes the whole URL in its
// errors; the error Connect returns keeps the host but not the
// credentials.
func TestConnectErrorHidesCredentials(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{})
	target := Target{Transport: TransportHTTP, URL: "http://bobby:hunter22@" + addr + "/mcp?token=t0k3n-1"}
	_, err = Connect(ctx, target, DefaultAnswerPolicy(), rec)
	if err == nil {
		t.Fatal("Connect to a closed port succeeded")
	}
	for _, secret := range []string{"bobby", "hunter22", "t0k3n-1"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows %q: %v", secret, err)
		}
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("the error no longer says where: %v", err)
	}
	for _, e := range rec.Snapshot().Events {
		if strings.Contains(e.Text, "t0k3n-1") || strings.Contains(e.Text, "hunter22") {
			t.Errorf("the recorded event shows a secret: %s", e.Text)
		}
	}
}

// TestOnLogHidesSecrets: the copy of an event handed to OnLog (the GUI's
// Log panel) is as clean as the recorded one, though the server echoes a
// secret of the target.
func TestOnLogHidesSecrets(t *testing.T) {
	const secret = "env-s3cret-value"
	srv := mcp.NewServer(&mcp.Implementation{Name: "leaky"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "leak"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "my env has " + secret})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "it is " + secret}}}, nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	target := Target{Transport: TransportStdio, Command: "leaky", Env: []string{"SECRET=" + secret}}
	s, err := connect(ctx, target, DefaultAnswerPolicy(), recorder.New(recorder.Meta{}), ct)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	logs := make(chan recorder.Event, 16)
	s.OnLog(func(e recorder.Event) { logs <- e })
	run(t, s, testCalls{Tool: "leak"})
	select {
	case e := <-logs:
		if strings.Contains(e.Text+string(e.Data), secret) || !strings.Contains(e.Text+string(e.Data), recorder.Redacted) {
			t.Errorf("OnLog got %q %s, want the secret redacted", e.Text, e.Data)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no log message reached OnLog")
	}
	for _, sp := range s.Recording().Snapshot().Spans {
		if strings.Contains(string(sp.Result), secret) {
			t.Errorf("span %s result %s shows the secret", sp.Method, sp.Result)
		}
	}
}
