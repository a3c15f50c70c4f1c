package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestReportHTTP records a run against the demo server over streamable
// HTTP with a bearer token and a secret header, then prints its HTTP
// exchanges with `report --http`: each request with its status and what
// it carried, the headers (the session id shown, the credentials
// masked), the bodies and the tool call's event stream, and no
// credential in the recording or the output.
func TestReportHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.NewHTTPHandler())
	t.Cleanup(srv.Close)
	const bearer, apiKey = "rpt-bearer-4c1d9e77aa", "rpt-apikey-0b5e2f6a19"
	file := filepath.Join(t.TempDir(), "run.json")
	var stderr bytes.Buffer
	args := []string{"--url", srv.URL + "/mcp", "--header", "Authorization: Bearer " + bearer, "--header", "X-Api-Key: " + apiKey,
		"--tool", "fanout", "--args", `{"n":2,"kind":"sampling"}`, "--record", file}
	if code := runMain(t.Context(), args, &bytes.Buffer{}, &stderr); code != exitOK {
		t.Fatalf("run exited %d: %s", code, stderr.String())
	}

	var out bytes.Buffer
	if code := reportMain([]string{file, "--http"}, nil, &out, &stderr); code != exitOK {
		t.Fatalf("report --http exited %d: %s", code, stderr.String())
	}
	text := out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^\d+ HTTP exchanges$`),
		regexp.MustCompile(`(?m)^#1 POST /mcp  200 OK  initialize  [\d.]+ ms  at [\d.]+s  \(s\d+\)$`),
		regexp.MustCompile(`(?m)^  > Authorization: Bearer REDACTED$`),
		regexp.MustCompile(`(?m)^  > X-Api-Key: REDACTED$`),
		regexp.MustCompile(`(?m)^  > Mcp-Protocol-Version: 2025-11-25$`),
		regexp.MustCompile(`(?m)^  < Mcp-Session-Id: \S+$`),
		regexp.MustCompile(`(?m)^#\d+ POST /mcp  202 Accepted  notifications/initialized`),
		regexp.MustCompile(`(?m)^#\d+ POST /mcp  200 OK  tools/call .*\n(  .*\n)*  event stream: \d+ events\n    at [\d.]+s event message: \{.*"sampling/createMessage"`),
		regexp.MustCompile(`(?m)^  request body: \{.*"method":"tools/call"`),
		regexp.MustCompile(`(?m)^#\d+ DELETE /mcp  204 No Content`),
	} {
		if !want.MatchString(text) {
			t.Errorf("report --http lacks %s:\n%s", want, text)
		}
	}
	raw, _ := recorder.LoadFile(file)
	saved, _ := json.Marshal(raw)
	for _, secret := range []string{bearer, apiKey} {
		if strings.Contains(text, secret) || bytes.Contains(saved, []byte(secret)) {
			t.Errorf("the secret %q reached the recording or the report", secret)
		}
	}

	out.Reset()
	if code := reportMain([]string{"--http", "--json", file}, nil, &out, &stderr); code != exitOK {
		t.Fatalf("report --http --json exited %d: %s", code, stderr.String())
	}
	var log recorder.HTTPLog
	if err := json.Unmarshal(out.Bytes(), &log); err != nil || log.Total == 0 || len(log.Exchanges) != log.Total || log.Exchanges[0].RPC != "initialize" {
		t.Errorf("report --http --json: %v, %+v", err, log)
	}

	// A recording made in process has none, and says so.
	demoFile := filepath.Join(t.TempDir(), "demo.json")
	if code := runMain(t.Context(), []string{"--demo", "--tool", "echo", "--args", `{"text":"hi"}`, "--record", demoFile}, &bytes.Buffer{}, &stderr); code != exitOK {
		t.Fatalf("run --demo exited %d: %s", code, stderr.String())
	}
	out.Reset()
	if code := reportMain([]string{demoFile, "--http"}, nil, &out, &stderr); code != exitOK || !strings.HasPrefix(out.String(), "No HTTP exchanges: the recording was not made over HTTP") {
		t.Errorf("report --http of a demo run: exit %d, %q", code, out.String())
	}
	if code := reportMain([]string{file, "--http", "--compare", file}, nil, &out, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "--http prints one recording") {
		t.Errorf("--http with --compare: exit %d, %s", code, stderr.String())
	}
}
