package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/internal/workloadfile"
)

// TestWorkloadFileErrors: a bad workload file exits 2 with a message
// that names the file, the line or field at fault, and what to write,
// before anything is connected to.
func TestWorkloadFileErrors(t *testing.T) {
	const op = "[[operations]]\nmethod = \"tools/call\"\nname = \"echo\"\nweight = 1\n"
	for _, tc := range []struct {
		name, file string
		extra      []string
		want       []string // in the message
	}{
		{"unknown key", op + "wieght = 3\n", nil, []string{":5:", `unknown key "operations.wieght"`, "weight"}},
		{"unknown table key", "[load]\ncallz = 5\n" + op, nil, []string{":2:", `unknown key "load.callz"`, "calls"}},
		{"weight zero", op + "[[operations]]\nmethod = \"resources/read\"\nname = \"demo://readme\"\nweight = 0\n", nil,
			[]string{":8:", "operation 1", "weight", "above 0"}},
		{"no weight", "[[operations]]\nmethod = \"tools/call\"\nname = \"echo\"\n", nil, []string{":1:", "operation 0", "weight = 70"}},
		{"no name", "[[operations]]\nmethod = \"prompts/get\"\nweight = 1\n", nil, []string{":1:", "operation 0", "name", `name = "greet"`}},
		{"bad method", "[[operations]]\nmethod = \"tools/list\"\nname = \"x\"\nweight = 1\n", nil, []string{":2:", "method", "resources/read"}},
		{"read with args", "[[operations]]\nmethod = \"resources/read\"\nname = \"demo://readme\"\nweight = 1\nargs = { a = 1 }\n", nil, []string{":5:", "no arguments"}},
		{"no operations", "[load]\ncalls = 5\n", nil, []string{"no operations", "inspector init"}},
		{"toml syntax", "[load\ncalls = 5\n", nil, []string{":2:", "table name"}},
		{"wrong type", "[load]\ncalls = \"many\"\n" + op, nil, []string{":2:", "load.calls", "string"}},
		{"rate without duration", "[load]\nrate = 100\n" + op, nil, []string{":2:", "load.rate", "load.duration"}},
		{"calls and duration", "[load]\ncalls = 5\nduration = \"2s\"\n" + op, nil, []string{":2:", "load.calls and load.duration"}},
		{"bad stages", "[load]\nstages = \"10s\"\n" + op, nil, []string{":2:", "load.stages", "DURATION:TARGET"}},
		{"sessions", "[load]\nsessions = 0\n" + op, nil, []string{":2:", "load.sessions 0", "1 to 1000"}},
		{"bad threshold", "thresholds = [\"operations.3.call_ms.p95<=1\"]\n" + op, nil, []string{":1:", "N from 0 to 0"}},
		{"flag named in error", "[load]\nrate = 100\nduration = \"1s\"\n" + op, []string{"--calls", "5", "--rate", "10"},
			[]string{"--rate: an open loop needs --duration"}},
		{"tool with workload", op, []string{"--tool", "echo"}, []string{"--tool with --workload", "leave out --tool"}},
		{"too large", op + "# " + strings.Repeat("x", workloadfile.MaxSize) + "\n", nil, []string{"larger than 1024 KiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.toml")
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			code := runMain(t.Context(), append([]string{"--workload", path}, tc.extra...), &bytes.Buffer{}, &stderr)
			msg := stderr.String()
			if tc.name != "too large" && code != exitUsage || tc.name == "too large" && code != exitFailure {
				t.Fatalf("exit %d; stderr: %s", code, msg)
			}
			for _, w := range append(tc.want, path) {
				if tc.name == "flag named in error" && w == path {
					continue
				}
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q: want %q in it", msg, w)
				}
			}
		})
	}
}
