package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/internal/workloadfile"
)

// TestStarterArgsRoundTrip: the arguments init writes read back, through
// the TOML decoder and the JSON the run sends, as the values they were,
// whatever their keys and strings hold.
func TestStarterArgsRoundTrip(t *testing.T) {
	for _, args := range []map[string]any{
		{"text": "hello"},
		{"odd key": "a \"quoted\" \\ value\nwith a newline\tand <html> & é ✓"},
		{"n": float64(5), "ratio": 0.25, "big": 1e20, "neg": float64(-3), "ok": true},
		{"nested": map[string]any{"city": "Paris", "zip": map[string]any{"code": "75001"}}, "list": []any{"a", float64(1), []any{}}},
		{"gone": nil, "kept": "x"},
	} {
		var b strings.Builder
		writeOperation(&b, "test\nwith a newline", "tools/call", "t", args)
		var wf workloadfile.File
		if _, err := toml.Decode(b.String(), &wf); err != nil {
			t.Fatalf("%v: the written TOML does not decode: %v\n%s", args, err, b.String())
		}
		want, _ := json.Marshal(withoutNulls(args))
		got, _ := json.Marshal(wf.Operations[0].Args)
		var w, g any
		json.Unmarshal(want, &w)
		json.Unmarshal(got, &g)
		if !reflect.DeepEqual(w, g) {
			t.Errorf("args %s came back as %s\n%s", want, got, b.String())
		}
	}
}

func withoutNulls(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// TestStarterArguments: a tool's arguments are its defaults and a valid
// value for each required field, nested objects filled; optional fields
// without a default are left out.
func TestStarterArguments(t *testing.T) {
	schema := `{"type":"object","required":["item","count","ship","when"],"properties":{
		"item":{"type":"string"},
		"count":{"type":"integer","minimum":3},
		"color":{"type":"string","enum":["red","blue"],"default":"blue"},
		"note":{"type":"string"},
		"when":{"type":"string","format":"date"},
		"ship":{"type":"object","required":["city"],"properties":{"city":{"type":"string","minLength":10},"floor":{"type":"integer"}}}}}`
	got, err := engine.ArgumentsFor(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"item": "example", "count": int64(3), "color": "blue", "when": "2025-01-01",
		"ship": map[string]any{"city": "examplexxx"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ArgumentsFor = %#v, want %#v", got, want)
	}
}

// TestFillTemplate: simple variables become 1, query and fragment
// expansions are left out.
func TestFillTemplate(t *testing.T) {
	for in, want := range map[string]string{
		"demo://item/{id}":                    "demo://item/1",
		"file:///users/{user}/profile{?lang}": "file:///users/1/profile",
		"https://x/{a}/{b}{#frag}":            "https://x/1/1",
		"plain://no/vars":                     "plain://no/vars",
	} {
		if got := fillTemplate(in); got != want {
			t.Errorf("fillTemplate(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInitRefusesExistingFile: --out on an existing file is refused
// without --force, before connecting, and the file is left as it was.
func TestInitRefusesExistingFile(t *testing.T) {
	path := writeTemp(t, "mine.toml", "keep me\n")
	var stderr strings.Builder
	if code := initMain(t.Context(), []string{"--out", path}, &strings.Builder{}, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "--force") {
		t.Fatalf("exit %d, stderr %q: want 2 and a pointer to --force", code, stderr.String())
	}
	if data, _ := readBounded(path, 100, "too large"); string(data) != "keep me\n" {
		t.Errorf("the file now holds %q", data)
	}
	if code := initMain(t.Context(), []string{"--out", path, "--force"}, &strings.Builder{}, &stderr); code != exitOK {
		t.Fatalf("--force: exit %d, stderr %q", code, stderr.String())
	}
	if data, _ := readBounded(path, 1<<20, "too large"); !strings.Contains(string(data), `name = "echo"`) {
		t.Errorf("--force wrote %q, want the demo's workload", data)
	}
}
