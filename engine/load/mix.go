package load

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// Operation is one operation of a load mix: a request a call may be,
// picked with a probability proportional to Weight among the
// workload's operations.
type Operation struct {
	// Method is tools/call, resources/read or prompts/get.
	Method string `json:"method"`
	// Name is the tool's name, the resource's URI or the prompt's name.
	Name string `json:"name"`
	// Args is a tool's arguments (a JSON object) or a prompt's (a JSON
	// object of strings); nil means none. A resource read takes none.
	Args json.RawMessage `json:"args,omitempty"`
	// Weight is the operation's share of the calls, relative to the
	// others' weights: above 0.
	Weight float64 `json:"weight"`
}

// maxOperations bounds a mix's operations.
const maxOperations = 1000

// OperationError is what is wrong with one operation of a mix: its
// index (from 0), the field at fault (method, name, weight, args) and
// why, worded with the field's name so that a face can place it (a
// file's line).
type OperationError struct {
	Index  int
	Field  string
	Reason string
}

func (e *OperationError) Error() string {
	return fmt.Sprintf("run: operation %d: %s: %s", e.Index, e.Field, e.Reason)
}

// validateMix says what is wrong with a mix's operations, or nil.
func validateMix(ops []Operation) error {
	if len(ops) > maxOperations {
		return &WorkloadError{Fields: []string{"operations"}, Value: fmt.Sprint(len(ops)), Reason: fmt.Sprintf("at most %d operations", maxOperations)}
	}
	for i, op := range ops {
		bad := func(field, format string, a ...any) error {
			return &OperationError{Index: i, Field: field, Reason: fmt.Sprintf(format, a...)}
		}
		switch op.Method {
		case engine.MethodCallTool, engine.MethodReadResource, engine.MethodGetPrompt:
		case "":
			return bad("method", "none given: write %q, %q or %q", engine.MethodCallTool, engine.MethodReadResource, engine.MethodGetPrompt)
		default:
			return bad("method", "%q: want %q, %q or %q", op.Method, engine.MethodCallTool, engine.MethodReadResource, engine.MethodGetPrompt)
		}
		if strings.TrimSpace(op.Name) == "" {
			return bad("name", "none given: write the %s", map[string]string{engine.MethodCallTool: "tool's name, as in name = \"echo\"",
				engine.MethodReadResource: "resource's URI, as in name = \"demo://readme\"", engine.MethodGetPrompt: "prompt's name, as in name = \"greet\""}[op.Method])
		}
		if !(op.Weight > 0) || math.IsInf(op.Weight, 0) { // NaN too
			return bad("weight", "%v: want a number above 0, as in weight = 70 (its share is its weight over the sum of the weights)", op.Weight)
		}
		if len(op.Args) == 0 {
			continue
		}
		switch op.Method {
		case engine.MethodReadResource:
			return bad("args", "a resource read takes no arguments: the URI in name says what to read")
		case engine.MethodGetPrompt:
			var obj map[string]string
			if err := json.Unmarshal(op.Args, &obj); err != nil || obj == nil {
				return bad("args", "a prompt's arguments are strings: write them as args = { name = \"Ada\" }")
			}
		default:
			var obj map[string]any
			if err := json.Unmarshal(op.Args, &obj); err != nil || obj == nil {
				return bad("args", "the arguments of %s must be an object, as in args = { n = 5 }: %s", op.Name, describeJSONError(op.Args, err))
			}
		}
	}
	return nil
}

// what names what the workload calls, for messages: its tool, or "the
// mix".
func (w Workload) what() string {
	if len(w.Operations) > 0 {
		return fmt.Sprintf("the mix of %d operations", len(w.Operations))
	}
	return w.Tool
}

// mix picks each call's operation by weight and counts each operation's
// outcomes and times. A nil *mix is a workload of one tool.
type mix struct {
	ops []Operation
	cum []float64 // cumulative weights

	pickMu sync.Mutex
	rng    *rand.Rand

	tallies []tally
}

// tally is one operation's outcomes and times.
type tally struct {
	mu         sync.Mutex
	ok, failed int
	times      *recorder.Histogram
}

// newMix is w's mix, nil when w calls one tool. A seed of 0 picks a
// random one.
func newMix(w Workload) *mix {
	if len(w.Operations) == 0 {
		return nil
	}
	seed := uint64(w.Seed)
	if seed == 0 {
		seed = rand.Uint64()
	}
	m := &mix{ops: w.Operations, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), tallies: make([]tally, len(w.Operations))}
	total := 0.0
	for i, op := range w.Operations {
		total += op.Weight
		m.cum = append(m.cum, total)
		m.tallies[i].times = recorder.NewHistogram()
	}
	return m
}

// pick returns the index of the next call's operation.
func (m *mix) pick() int {
	m.pickMu.Lock()
	x := m.rng.Float64() * m.cum[len(m.cum)-1]
	m.pickMu.Unlock()
	for i, c := range m.cum {
		if x < c {
			return i
		}
	}
	return len(m.cum) - 1
}

// add counts one call of operation i.
func (m *mix) add(i int, out engine.CallOutcome) {
	t := &m.tallies[i]
	t.mu.Lock()
	defer t.mu.Unlock()
	if out.Failure == "" {
		t.ok++
	} else {
		t.failed++
	}
	if out.Timed {
		t.times.Record(out.Time)
	}
}

// stats are the operations' outcomes so far, in the workload's order.
func (m *mix) stats() []recorder.OperationStats {
	if m == nil {
		return nil
	}
	out := make([]recorder.OperationStats, len(m.ops))
	for i, op := range m.ops {
		t := &m.tallies[i]
		t.mu.Lock()
		out[i] = recorder.OperationStats{Method: op.Method, Name: op.Name, Total: t.ok + t.failed, OK: t.ok, Failed: t.failed, CallMS: t.times.Percentiles()}
		t.mu.Unlock()
	}
	return out
}

// send makes one call on s, meant to start at intended (zero outside an
// open loop): the workload's tool, or an operation of its mix.
func (l *load) send(s *engine.Session, intended time.Time) engine.CallOutcome {
	if l.mix == nil {
		return s.CallTool(l.ctx, engine.ToolCall{Tool: l.w.Tool, Args: l.w.Args, Timeout: l.w.CallTimeout, Intended: intended})
	}
	i := l.mix.pick()
	op := l.mix.ops[i]
	out := s.Send(l.ctx, engine.Request{Method: op.Method, Name: op.Name, Args: op.Args, Timeout: l.w.CallTimeout, Intended: intended})
	l.mix.add(i, out)
	if out.Failure != "" {
		out.Failure = op.Method + " " + op.Name + ": " + out.Failure
	}
	return out
}
