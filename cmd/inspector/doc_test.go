package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/shlex"
)

// The documents whose examples TestDocExamples runs.
var docFiles = []string{"../../README.md", "../../docs/cli.md", "../../docs/load.md", "../../docs/logs.md", "../../docs/protocol.md", "../../docs/servers.md"}

// A console block preceded by docTestRun is run by TestDocExamples; one
// preceded by a docTestSkip comment is not, and says why. A console block
// running inspector with neither is an error: every example is either
// checked or says why it is not.
const (
	docTestRun  = "<!-- doc-test -->"
	docTestSkip = "<!-- doc-test: skip"
)

// docExample is one fenced console block of a document.
type docExample struct {
	file  string
	line  int // of the opening fence
	steps []docStep
	run   bool // marked docTestRun
	skip  bool // marked docTestSkip
}

// docStep is one "$ command" of an example and the output shown under it.
type docStep struct {
	command string
	output  []string
}

// parseDocExamples returns the fenced console blocks of a Markdown text
// that run inspector.
func parseDocExamples(file, text string) []docExample {
	var out []docExample
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```console" {
			continue
		}
		ex := docExample{file: file, line: i + 1}
		for j := i - 1; j >= 0; j-- { // the marker: the nearest non-blank line above
			if prev := strings.TrimSpace(lines[j]); prev != "" {
				ex.run = prev == docTestRun
				ex.skip = strings.HasPrefix(prev, docTestSkip)
				break
			}
		}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			if cmd, ok := strings.CutPrefix(lines[i], "$ "); ok {
				ex.steps = append(ex.steps, docStep{command: cmd})
			} else if len(ex.steps) > 0 {
				last := &ex.steps[len(ex.steps)-1]
				last.output = append(last.output, lines[i])
			}
		}
		if slices.ContainsFunc(ex.steps, func(s docStep) bool { return strings.HasPrefix(s.command, "inspector ") }) {
			out = append(out, ex)
		}
	}
	return out
}

// TestDocExamples runs the README's, docs/cli.md's and docs/load.md's example commands
// marked <!-- doc-test --> with the inspector binary (the same binary the
// other tests run), in a fresh folder with the binary and the test servers
// on PATH, and checks that the output has the shape shown: the same lines
// once numbers are masked (a line "…" in the document stands for any
// lines), the same JSON keys, the same exit status after "$ echo $?".
// Every example runs, the longest about 2.5 s (5 × 500 ms served one at a
// time); the examples run in parallel.
func TestDocExamples(t *testing.T) {
	binDir := filepath.Dir(inspectorBin)
	checked := 0
	for _, file := range docFiles {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range parseDocExamples(filepath.Base(file), string(text)) {
			name := fmt.Sprintf("%s:%d", ex.file, ex.line)
			switch {
			case ex.skip:
				continue
			case !ex.run:
				t.Errorf("%s: an example running inspector is marked neither %s nor %s …: say whether the test runs it", name, docTestRun, docTestSkip)
				continue
			}
			checked++
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runDocExample(t, ex, binDir)
			})
		}
	}
	if checked < 10 {
		t.Errorf("only %d examples are checked: the markers or the parser are broken", checked)
	}
}

// runDocExample runs the steps of one example in order, in one folder.
func runDocExample(t *testing.T, ex docExample, binDir string) {
	dir := t.TempDir()
	env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "LANG=en_US.UTF-8")
	lastCode := -1
	for _, step := range ex.steps {
		if step.command == "echo $?" {
			want := strings.TrimSpace(strings.Join(step.output, "\n"))
			if got := strconv.Itoa(lastCode); got != want {
				t.Errorf("exit status %s, the document shows %s", got, want)
			}
			continue
		}
		command, discardStdout := strings.CutSuffix(strings.TrimSpace(step.command), "> /dev/null")
		words, err := shlex.Split(command)
		if err != nil || len(words) == 0 || words[0] != "inspector" {
			t.Fatalf("$ %s: only inspector commands can be checked (mark the example %s …)", step.command, docTestSkip)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, inspectorBin, words[1:]...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		lastCode = 0
		if ee, ok := err.(*exec.ExitError); ok {
			lastCode = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("$ %s: %v", step.command, err)
		}
		if timedOut {
			t.Fatalf("$ %s did not finish within 30 s", step.command)
		}
		got := stderr.String()
		if !discardStdout {
			got = stdout.String() + got
		}
		if msg := compareShape(step.output, got); msg != "" {
			t.Errorf("$ %s\n%s\n--- the document shows:\n%s\n--- the inspector printed:\n%s", step.command, msg, strings.Join(step.output, "\n"), got)
		}
	}
}

// compareShape says how got differs in shape from the documented output
// doc, or "" if it does not: JSON by its keys, text line by line with the
// numbers masked.
func compareShape(doc []string, got string) string {
	docText := strings.TrimSpace(strings.Join(doc, "\n"))
	if strings.HasPrefix(docText, "{") {
		var want, have any
		if err := json.Unmarshal([]byte(docText), &want); err != nil {
			return "the document's JSON does not parse: " + err.Error()
		}
		if err := json.Unmarshal([]byte(got), &have); err != nil {
			return "the output is not JSON: " + err.Error()
		}
		return compareKeys("", want, have)
	}
	var want, have []string
	for _, l := range doc {
		if l = maskLine(l); l != "" {
			want = append(want, l)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if l = maskLine(l); l != "" {
			have = append(have, l)
		}
	}
	if !matchLines(want, have) {
		return "the lines differ (numbers masked as N; … in the document stands for any lines)"
	}
	return ""
}

var number = regexp.MustCompile(`\d+(\.\d+)?`)

// maskLine is a line's shape: numbers as N, runs of blanks as one space.
func maskLine(l string) string {
	return strings.Join(strings.Fields(number.ReplaceAllString(l, "N")), " ")
}

// matchLines matches have against want, where a want line "…" matches any
// number of lines.
func matchLines(want, have []string) bool {
	if len(want) == 0 {
		return len(have) == 0
	}
	if want[0] == "…" {
		for i := 0; i <= len(have); i++ {
			if matchLines(want[1:], have[i:]) {
				return true
			}
		}
		return false
	}
	return len(have) > 0 && want[0] == have[0] && matchLines(want[1:], have[1:])
}

// compareKeys says where two decoded JSON values differ in their object
// keys, or "".
func compareKeys(path string, want, have any) string {
	w, wok := want.(map[string]any)
	h, hok := have.(map[string]any)
	if !wok || !hok {
		if wok != hok {
			return fmt.Sprintf("%s: the document shows %T, the output has %T", path, want, have)
		}
		return ""
	}
	for k := range w {
		if _, ok := h[k]; !ok {
			return fmt.Sprintf("key %s%s is in the document, not in the output", path, k)
		}
	}
	for k := range h {
		if _, ok := w[k]; !ok {
			return fmt.Sprintf("key %s%s is in the output, not in the document", path, k)
		}
	}
	for k := range w {
		if msg := compareKeys(path+k+".", w[k], h[k]); msg != "" {
			return msg
		}
	}
	return ""
}
