package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveDemoHTTP serves the demo server over streamable HTTP for the
// test, and returns its URL.
func serveDemoHTTP(t *testing.T) string {
	t.Helper()
	hs := httptest.NewServer(demo.NewHTTPHandler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// writeTemp writes a file in the test's folder and returns its path.
func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runJSON runs inspector run with args and --json, and returns the exit
// code, the summary's operations and stderr.
func runJSON(t *testing.T, args ...string) (int, []recorder.OperationStats, recorder.Summary, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runMain(t.Context(), append(args, "--json"), &stdout, &stderr)
	var out struct {
		recorder.Summary
		Operations []recorder.OperationStats `json:"operations"`
	}
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("the JSON summary does not parse: %v\n%s", err, stdout.String())
		}
	}
	return code, out.Operations, out.Summary, stderr.String()
}

const mix7030 = `seed = 3
[load]
calls = 1000
concurrency = 8

[[operations]]
method = "tools/call"
name = "echo"
weight = 70
args = { text = "hello" }

[[operations]]
method = "resources/read"
name = "demo://readme"
weight = 30
`

// TestWorkload7030OverHTTP: a mix of echo (weight 70) and a resource
// read (weight 30) on the demo server over streamable HTTP reports each
// operation with its percentiles, its totals add up to the calls, and
// the shares are 70/30 within the margin of 1,000 draws (σ ≈ 14.5
// calls: ±50 is over 3σ).
func TestWorkload7030OverHTTP(t *testing.T) {
	path := writeTemp(t, "mix.toml", mix7030)
	code, ops, sum, stderr := runJSON(t, "--url", serveDemoHTTP(t), "--workload", path)
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if len(ops) != 2 || ops[0].Method != "tools/call" || ops[0].Name != "echo" || ops[1].Method != "resources/read" || ops[1].Name != "demo://readme" {
		t.Fatalf("operations %+v: want echo then demo://readme, in the file's order", ops)
	}
	total := 0
	for i, op := range ops {
		total += op.Total
		if op.Failed != 0 || op.OK != op.Total {
			t.Errorf("operation %d: %d failed of %d", i, op.Failed, op.Total)
		}
		p := op.CallMS
		if !(p.P50 > 0 && p.P50 <= p.P90 && p.P90 <= p.P95 && p.P95 <= p.P99 && p.P99 <= p.P999 && p.P999 <= p.Max) {
			t.Errorf("operation %d call_ms %+v: want rising percentiles above 0", i, p)
		}
	}
	if total != 1000 {
		t.Errorf("the operations' totals add up to %d, want the 1000 calls", total)
	}
	if math.Abs(float64(ops[0].Total)-700) > 50 {
		t.Errorf("echo made %d of 1000 calls, want 700 ± 50", ops[0].Total)
	}
	// The echo calls are the summary's tool calls, timed alike.
	if sum.ToolCalls.Total != ops[0].Total || sum.CallMS != ops[0].CallMS {
		t.Errorf("summary tool calls %d, call_ms %+v; echo %d, %+v: want the same", sum.ToolCalls.Total, sum.CallMS, ops[0].Total, ops[0].CallMS)
	}
	if got := sum.ByMethodMS["resources/read"].Count; got != int64(ops[1].Total) {
		t.Errorf("by_method_ms resources/read count %d, want %d", got, ops[1].Total)
	}
}

// TestWorkloadThresholdFails: a threshold of the file that does not hold
// exits 3 and says which; the ones that hold say nothing.
func TestWorkloadThresholdFails(t *testing.T) {
	path := writeTemp(t, "mix.toml", strings.Replace(mix7030, "seed = 3",
		`seed = 3
thresholds = ["operations.0.failed==0", "operations.1.call_ms.p50<0.001", "tool_calls.failed==0"]`, 1))
	code, ops, _, stderr := runJSON(t, "--workload", path, "--assert", "operations.0.total>=1")
	if code != exitAssertion {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "assertion failed: operations.1.call_ms.p50<0.001 (operations.1.call_ms.p50 is ") || strings.Count(stderr, "assertion failed") != 1 {
		t.Errorf("stderr %q: want the one failed threshold named, with its value", stderr)
	}
	if len(ops) != 2 {
		t.Errorf("operations %+v: want them in the JSON even when a threshold fails", ops)
	}
}

// TestWorkloadFlagsReplaceShape: a load flag given with the file replaces
// the file's whole shape (here its calls and concurrency by a number of
// calls); the file still says what to call.
func TestWorkloadFlagsReplaceShape(t *testing.T) {
	path := writeTemp(t, "mix.toml", mix7030)
	code, ops, sum, stderr := runJSON(t, "--workload", path, "--calls", "20")
	if code != exitOK || ops[0].Total+ops[1].Total != 20 || sum.ToolCalls.PeakInFlight > 1 {
		t.Fatalf("exit %d, operations %+v, peak %d: want 20 calls one at a time (--concurrency's default, not the file's 8); stderr:\n%s",
			code, ops, sum.ToolCalls.PeakInFlight, stderr)
	}
}

// TestInitRunsAsWritten: inspector init on the demo server, and on a Go
// SDK server whose lists come one entry a page, writes a workload that
// inspector run --workload runs as written, every operation called and
// none failed.
func TestInitRunsAsWritten(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		ops  int
	}{
		{"demo", []string{"--demo"}, 8},
		{"sdk server over HTTP", []string{"--url", serveSDKServer(t)}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "starter.toml")
			var stderr bytes.Buffer
			if code := initMain(t.Context(), append(tc.args, "--out", out), &bytes.Buffer{}, &stderr); code != exitOK {
				t.Fatalf("init: exit %d; stderr:\n%s", code, stderr.String())
			}
			text, _ := os.ReadFile(out)
			code, ops, _, errs := runJSON(t, append(tc.args, "--workload", out)...)
			if code != exitOK || len(ops) != tc.ops {
				t.Fatalf("run as written: exit %d, %d operations (want %d); stderr:\n%s\nfile:\n%s", code, len(ops), tc.ops, errs, text)
			}
			for i, op := range ops {
				if op.Failed != 0 {
					t.Errorf("operation %d (%s %s) failed %d times as written; stderr:\n%s", i, op.Method, op.Name, op.Failed, errs)
				}
			}
		})
	}
}

// serveSDKServer serves, over streamable HTTP, a Go SDK server of two
// tools (one with required arguments of several types, nested), a
// resource, a template and a prompt with a required argument, listing
// one entry a page so that init must follow nextCursor.
func serveSDKServer(t *testing.T) string {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-test", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
	type order struct {
		Item  string `json:"item" jsonschema:"what to order"`
		Count int    `json:"count" jsonschema:"how many"`
		Rush  bool   `json:"rush,omitempty"`
		Ship  struct {
			City string `json:"city"`
		} `json:"ship"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "order", Description: "places an order"}, func(_ context.Context, _ *mcp.CallToolRequest, in order) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Item + " to " + in.Ship.City}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "ping_me"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	text := func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "x"}}}, nil
	}
	srv.AddResource(&mcp.Resource{URI: "file:///notes.txt", Name: "notes"}, text)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///users/{user}/profile{?lang}", Name: "profile"}, text)
	srv.AddPrompt(&mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}, {Name: "tone"}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if r.Params.Arguments["topic"] == "" {
				return nil, errors.New("topic is required")
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "sum up " + r.Params.Arguments["topic"]}}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}
