package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/internal/workloadfile"
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
`, workloadfile.Comment(server))
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

// writeOperation writes one [[operations]] table of weight 1.
func writeOperation(w io.Writer, comment, method, name string, args map[string]any) {
	workloadfile.WriteOperation(w, comment, workloadfile.Operation{Method: method, Name: name, Weight: 1, Args: args})
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
