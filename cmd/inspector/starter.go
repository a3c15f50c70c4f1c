package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
)

// writeStarter writes a starter workload file for what a server offers:
// one operation per tool, resource, template and prompt, each of weight
// 1, its arguments filled so that it runs as written, and comments that
// say what to edit.
func writeStarter(w io.Writer, server string, cat catalog) error {
	fmt.Fprintf(w, `# A workload for inspector run --workload FILE, written by inspector init
# from what %s offers. Each call picks one [[operations]] entry,
# with a probability of its weight over the sum of the weights: edit the
# weights to give each its share (weight = 0 is refused; delete the entry
# instead). docs/load.md describes every key.

# seed = 1                           # the same seed picks the same operations
# thresholds = ["call_ms.p95<=200", "operations.0.call_ms.p95<=100", "operations.0.failed==0"]

[load]                               # the shape of the load, as the load flags say it
calls = 50
concurrency = 5
# duration = "30s"                   # instead of calls: go on this long
# rate = 200                         # open loop: calls per second, with duration
# max_in_flight = 100                # open loop: drop an arrival over this many outstanding
# stages = "10s:50,30s:200,10s:0"    # ramp the rate (or, with concurrency, the callers)
# sessions = 1                       # connections the calls are spread over
# call_timeout = "10s"               # give up on a call after this long
`, tomlComment(server))
	for _, t := range cat.tools {
		args, err := engine.ArgumentsFor(t.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %s: cannot fill its arguments: %v", t.Name, err)
		}
		writeOperation(w, "tool "+t.Name+describe(t.Title, t.Description), "tools/call", t.Name, args)
	}
	for _, r := range cat.resources {
		writeOperation(w, "resource "+r.URI+describe(r.Title, r.Description), "resources/read", r.URI, nil)
	}
	for _, t := range cat.templates {
		uri := fillTemplate(t.URITemplate)
		writeOperation(w, "template "+t.URITemplate+describe(t.Title, t.Description)+"; its variables set to 1: edit the URI", "resources/read", uri, nil)
	}
	for _, p := range cat.prompts {
		args := map[string]any{}
		for _, a := range p.Arguments {
			if a.Required {
				args[a.Name] = "example"
			}
		}
		writeOperation(w, "prompt "+p.Name+describe(p.Title, p.Description), "prompts/get", p.Name, args)
	}
	return nil
}

// writeOperation writes one [[operations]] table.
func writeOperation(w io.Writer, comment, method, name string, args map[string]any) {
	fmt.Fprintf(w, "\n# %s\n[[operations]]\nmethod = %s\nname = %s\nweight = 1\n", tomlComment(comment), tomlString(method), tomlString(name))
	if len(args) > 0 {
		fmt.Fprintf(w, "args = %s\n", tomlValue(args))
	}
}

// describe is ": title or the first line of the description", or "".
func describe(title, desc string) string {
	if title == "" {
		title, _, _ = strings.Cut(desc, "\n")
	}
	if title = strings.TrimSpace(title); title == "" {
		return ""
	}
	if len(title) > 100 {
		title = title[:100] + "…"
	}
	return ": " + title
}

// tomlComment keeps a comment on its line.
func tomlComment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// templateVar is one expression of an RFC 6570 URI template.
var templateVar = regexp.MustCompile(`\{[^{}]*\}`)

// fillTemplate sets each simple variable of a URI template to 1 and
// leaves out query and fragment expansions ({?x}, {&x}, {#x}).
func fillTemplate(t string) string {
	return templateVar.ReplaceAllStringFunc(t, func(expr string) string {
		if len(expr) > 2 && strings.ContainsRune("?&#", rune(expr[1])) {
			return ""
		}
		return "1"
	})
}

// tomlString is s as a TOML basic string: JSON's escapes (\" \\ \n \t
// \uXXXX ...) are all TOML's too.
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
}

// bareKey matches a key TOML takes unquoted.
var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlValue writes a JSON value as TOML, inline: objects as inline
// tables with their keys sorted, arrays as arrays. TOML has no null: a
// null member is left out (in an array, where it cannot be, it is "").
func tomlValue(v any) string {
	switch x := v.(type) {
	case nil:
		return `""`
	case string:
		return tomlString(x)
	case bool:
		return fmt.Sprint(x)
	case json.Number:
		return x.String()
	case float64:
		if x == float64(int64(x)) && x < 1e15 && x > -1e15 {
			return fmt.Sprint(int64(x))
		}
		return fmt.Sprint(x)
	case int64, int:
		return fmt.Sprint(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k, e := range x {
			if e != nil {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			key := k
			if !bareKey.MatchString(k) {
				key = tomlString(k)
			}
			parts[i] = key + " = " + tomlValue(x[k])
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	b, _ := json.Marshal(v)
	return tomlString(string(b))
}
