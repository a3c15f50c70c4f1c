package recorder

import (
	"fmt"
	"strconv"
	"strings"
)

// OperationStats is the outcome of one operation of a load mix (a tool
// call, a resource read or a prompt get, each picked by weight): how
// many times it was made, how many succeeded and failed, and the HDR
// percentiles of its times, measured as the summary's call_ms is
// ([CallDuration]). `inspector run --workload` prints one per operation,
// in the file's order, under "operations".
type OperationStats struct {
	Method string          `json:"method"`
	Name   string          `json:"name"`
	Total  int             `json:"total"`
	OK     int             `json:"ok"`
	Failed int             `json:"failed"`
	CallMS TailPercentiles `json:"call_ms"`
}

// operationKeys map the keys of one operation, as a threshold names them
// after operations.N., onto the summary keys they are read as: an
// operation is checked as a summary of its own calls, so that parsing
// and comparing stay [ParseAssertion]'s and [Assertion.Check]'s.
var operationKeys = map[string]string{"total": "tool_calls.total", "ok": "tool_calls.ok", "failed": "tool_calls.failed"}

// summary is the operation as a [Summary] holding only its own figures.
func (o OperationStats) summary() Summary {
	var s Summary
	s.ToolCalls.Total, s.ToolCalls.OK, s.ToolCalls.Failed = o.Total, o.OK, o.Failed
	s.CallMS = o.CallMS
	return s
}

// Threshold is an [Assertion] on a run: on its summary, as --assert
// writes them ("call_ms.p95<=200"), or on one operation of its load mix,
// written operations.N.KEY OP NUMBER with N the operation's index in the
// mix from 0 and KEY one of total, ok, failed or
// call_ms.p50|p90|p95|p99|p99_9|max ("operations.0.call_ms.p95<=100").
type Threshold struct {
	Assertion
	// Operation is the index of the operation checked, -1 for the
	// summary.
	Operation int
}

// ParseThreshold reads a [Threshold] for a mix of n operations (n = 0:
// no mix, so no operations.N keys).
func ParseThreshold(expr string, n int) (Threshold, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(expr), "operations.")
	if !ok {
		a, err := ParseAssertion(expr)
		return Threshold{Assertion: a, Operation: -1}, err
	}
	idx, key, _ := strings.Cut(rest, ".")
	i, err := strconv.Atoi(idx)
	switch {
	case n == 0:
		return Threshold{}, fmt.Errorf("%q: operations.N keys need a workload file's operations (inspector run --workload FILE)", expr)
	case err != nil || i < 0 || i >= n:
		return Threshold{}, fmt.Errorf("%q: %q is not an operation: want operations.N. with N from 0 to %d, the operation's place in the file", expr, idx, n-1)
	}
	// KEY OP NUMBER after operations.N., its key mapped onto a summary's.
	inner := key
	for short, long := range operationKeys {
		if k, ok := strings.CutPrefix(key, short); ok && (k == "" || strings.ContainsAny(k[:1], "<>=! ")) {
			inner = long + k
		}
	}
	if inner == key && !strings.HasPrefix(key, "call_ms.") {
		return Threshold{}, fmt.Errorf("%q: unknown key after operations.%d.; write total, ok, failed or call_ms.%s, as in 'operations.%d.call_ms.p95<=100'",
			expr, i, strings.Join(percentileKeys, "|"), i)
	}
	a, err := ParseAssertion(inner)
	if err != nil {
		return Threshold{}, fmt.Errorf("%q: %v", expr, err)
	}
	short := a.Key
	for s, long := range operationKeys {
		if long == a.Key {
			short = s
		}
	}
	a.Expr, a.Key = expr, fmt.Sprintf("operations.%d.%s", i, short)
	return Threshold{Assertion: a, Operation: i}, nil
}

// ParseThresholds reads every expression for a mix of n operations,
// stopping at the first that does not parse.
func ParseThresholds(exprs []string, n int) ([]Threshold, error) {
	out := make([]Threshold, 0, len(exprs))
	for _, e := range exprs {
		t, err := ParseThreshold(e, n)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Check reports whether the threshold holds for the run summarized by
// sum whose mix's operations are ops, and the value it found.
func (t Threshold) Check(sum Summary, ops []OperationStats) (actual float64, holds bool) {
	if t.Operation < 0 {
		return t.Assertion.Check(sum)
	}
	if t.Operation >= len(ops) {
		return 0, false
	}
	a := t.Assertion
	a.Key = strings.TrimPrefix(a.Key, fmt.Sprintf("operations.%d.", t.Operation))
	if long, ok := operationKeys[a.Key]; ok {
		a.Key = long
	}
	return a.Check(ops[t.Operation].summary())
}
