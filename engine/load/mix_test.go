package load

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// demoMix is echo, the readme, an item and the greet prompt, weighted
// 4:3:2:1.
func demoMix() []Operation {
	return []Operation{
		{Method: "tools/call", Name: "echo", Args: json.RawMessage(`{"text":"hi"}`), Weight: 4},
		{Method: "resources/read", Name: "demo://readme", Weight: 3},
		{Method: "resources/read", Name: "demo://item/7", Weight: 2},
		{Method: "prompts/get", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`), Weight: 1},
	}
}

// TestMixRunsEachOperation: a mix of the four kinds of operation on the
// demo server makes every call one of them, all succeed, the counts add
// up to the calls, each operation's times are measured, and the
// recording's spans match the counts per method.
func TestMixRunsEachOperation(t *testing.T) {
	s := connectDemo(t)
	res := runOn(t, one(s), Workload{Operations: demoMix(), Seed: 7, Calls: 400, Concurrency: 8})
	if res.Total != 400 || res.OK != 400 || len(res.Operations) != 4 {
		t.Fatalf("result %+v, want 400 calls all ok over 4 operations", res)
	}
	sum := 0
	for i, op := range res.Operations {
		sum += op.Total
		if op.Failed != 0 || op.OK != op.Total || op.Total == 0 {
			t.Errorf("operation %d %+v: want some calls, all ok", i, op)
		}
		if op.CallMS.Max <= 0 || op.CallMS.P50 > op.CallMS.P99 {
			t.Errorf("operation %d times %+v: want measured percentiles", i, op.CallMS)
		}
	}
	if sum != 400 {
		t.Errorf("the operations' totals add up to %d, want 400", sum)
	}
	got := recorder.Summarize(s.Recording().Snapshot())
	if reads := got.ByMethodMS["resources/read"].Count; reads != int64(res.Operations[1].Total+res.Operations[2].Total) {
		t.Errorf("the recording has %d resources/read, the mix counted %d", reads, res.Operations[1].Total+res.Operations[2].Total)
	}
	if gets := got.ByMethodMS["prompts/get"].Count; gets != int64(res.Operations[3].Total) {
		t.Errorf("the recording has %d prompts/get, the mix counted %d", gets, res.Operations[3].Total)
	}
	if got.ToolCalls.Total != res.Operations[0].Total {
		t.Errorf("the recording has %d tool calls, the mix counted %d", got.ToolCalls.Total, res.Operations[0].Total)
	}
}

// TestMixSeed: the same seed picks the same operations.
func TestMixSeed(t *testing.T) {
	counts := func(seed int64) []int {
		res := runOn(t, one(connectDemo(t)), Workload{Operations: demoMix(), Seed: seed, Calls: 200})
		var c []int
		for _, op := range res.Operations {
			c = append(c, op.Total)
		}
		return c
	}
	a, b := counts(42), counts(42)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 42 picked %v, then %v", a, b)
		}
	}
}

// TestMixFailuresCounted: an operation the server refuses (an unknown
// resource, a prompt without its required argument) fails on its own
// line, and its error names it.
func TestMixFailuresCounted(t *testing.T) {
	s := connectDemo(t)
	res := runOn(t, one(s), Workload{Calls: 50, Operations: []Operation{
		{Method: "resources/read", Name: "demo://nothing", Weight: 1},
		{Method: "prompts/get", Name: "greet", Weight: 1},
		{Method: "tools/call", Name: "echo", Weight: 1},
	}})
	ops := res.Operations
	if ops[0].Failed != ops[0].Total || ops[1].Failed != ops[1].Total || ops[2].Failed != 0 || res.Failed != ops[0].Total+ops[1].Total {
		t.Fatalf("operations %+v (failed %d): want the read and the prompt to fail, echo not", ops, res.Failed)
	}
	for _, e := range res.Errors {
		if !strings.HasPrefix(e, "resources/read demo://nothing: ") && !strings.HasPrefix(e, "prompts/get greet: ") {
			t.Errorf("error %q: want it to name its operation", e)
		}
	}
	if len(res.Errors) != 2 {
		t.Errorf("errors %q: want the read's and the prompt's", res.Errors)
	}
}

// TestMixValidate: what is wrong with an operation is said by field.
func TestMixValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		op    Operation
		field string
	}{
		{"no method", Operation{Name: "echo", Weight: 1}, "method"},
		{"bad method", Operation{Method: "tools/list", Name: "echo", Weight: 1}, "method"},
		{"no name", Operation{Method: "tools/call", Weight: 1}, "name"},
		{"zero weight", Operation{Method: "tools/call", Name: "echo"}, "weight"},
		{"negative weight", Operation{Method: "tools/call", Name: "echo", Weight: -1}, "weight"},
		{"read with args", Operation{Method: "resources/read", Name: "demo://readme", Weight: 1, Args: json.RawMessage(`{"a":1}`)}, "args"},
		{"prompt number arg", Operation{Method: "prompts/get", Name: "greet", Weight: 1, Args: json.RawMessage(`{"name":1}`)}, "args"},
		{"tool args not object", Operation{Method: "tools/call", Name: "echo", Weight: 1, Args: json.RawMessage(`[1]`)}, "args"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Workload{Calls: 1, Operations: []Operation{{Method: "tools/call", Name: "echo", Weight: 1}, tc.op}}.Validate()
			var oe *OperationError
			if !errors.As(err, &oe) || oe.Index != 1 || oe.Field != tc.field {
				t.Fatalf("Validate: %v, want an OperationError on operation 1's %s", err, tc.field)
			}
		})
	}
	if err := (Workload{Tool: "echo", Operations: demoMix()}).Validate(); err == nil {
		t.Error("a tool and operations validated; want an error")
	}
}

// TestMixOpenLoop: a mix in an open loop starts its calls on schedule,
// whatever their kind: every resource read and prompt get records its
// intended start, and each operation's times are counted.
func TestMixOpenLoop(t *testing.T) {
	s := connectDemo(t)
	res := runOn(t, one(s), Workload{Operations: demoMix(), Seed: 1, Rate: 200, Duration: time.Second})
	if res.Total != 200 || res.OK != 200 {
		t.Fatalf("result %+v, want 200 calls, all ok", res)
	}
	n := 0
	for _, op := range res.Operations {
		n += op.Total
	}
	if n != 200 {
		t.Errorf("the operations' totals add up to %d, want 200", n)
	}
	others := 0
	for _, sp := range s.Recording().Snapshot().Spans {
		if sp.Method == "resources/read" || sp.Method == "prompts/get" {
			others++
			if sp.Intended <= 0 || sp.Name == "" {
				t.Fatalf("span %d (%s) has intended %v, name %q: want its intended start and what it read or got", sp.ID, sp.Method, sp.Intended, sp.Name)
			}
		}
	}
	if others != res.Operations[1].Total+res.Operations[2].Total+res.Operations[3].Total {
		t.Errorf("%d resource and prompt spans, the mix counted %d", others, 200-res.Operations[0].Total)
	}
}
