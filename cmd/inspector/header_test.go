package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHeaders checks --header reaches a streamable HTTP server: the demo
// server behind a bearer token accepts a run that sends it and refuses,
// with exit 1 and the reason, one that does not.
func TestHeaders(t *testing.T) {
	srv := demo.NewServer()
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.Header.Get("X-Team") != "fanout" {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	defer hs.Close()
	cases := []struct {
		name    string
		headers []string
		code    int
		message string
	}{
		{"with token", []string{"--header", "Authorization: Bearer s3cret", "--header", "X-Team:fanout"}, exitOK, ""},
		{"without token", nil, exitFailure, "Unauthorized; the server refused the request: check its credentials, as in --header"},
		{"wrong token", []string{"--header", "Authorization: Bearer nope", "--header", "X-Team: fanout"}, exitFailure, "Unauthorized"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--url", hs.URL, "--tool", "echo", "--args", `{"text":"hi"}`}, tc.headers...)
			r := inspector(t, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.message) {
				t.Errorf("stderr does not say %q:\n%s", tc.message, r.stderr)
			}
		})
	}
}

// TestSSE runs the seed scenario against the demo server behind the legacy
// HTTP+SSE transport.
func TestSSE(t *testing.T) {
	srv := demo.NewServer()
	hs := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	r := inspector(t, "run", "--sse", hs.URL, "--tool", "fanout", "--latency", "200ms", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if s := summaryOf(t, r); s.PeakInFlight != 5 || s.ToolCalls.OK != 1 {
		t.Errorf("over SSE: peak_in_flight %d, tool_calls %+v; want 5 and one ok call", s.PeakInFlight, s.ToolCalls)
	}
}
