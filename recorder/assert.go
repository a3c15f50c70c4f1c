package recorder

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Assertion is a threshold on a run: a numeric key of the run's JSON
// summary compared with a number, as in "peak_in_flight>=5" or
// "call_ms.p95<=200". `inspector run --assert`, `inspector proxy
// --assert` and the app's Thresholds field all read and check them here.
type Assertion struct {
	Expr string  // as written
	Key  string  // a key [Summary.Get] knows, dotted for nested fields
	Op   string  // one of < <= > >= == !=
	Want float64 // the number compared with
}

// assertOps are the comparison operators, longest first so that "<="
// is not read as "<".
var assertOps = []string{"<=", ">=", "==", "!=", "<", ">"}

// percentileKeys are the leaves of a [TailPercentiles].
var percentileKeys = []string{"p50", "p90", "p95", "p99", "p99_9", "max"}

// ParseAssertion reads KEY OP NUMBER. KEY is a numeric field of the JSON
// summary, dotted for nested fields (tool_calls.failed, serve_ms.p99,
// server_requests.by_method.sampling/createMessage). Its errors quote
// expr and say how to write it; a face adds its own prefix (the flag's
// name, the field's).
func ParseAssertion(expr string) (Assertion, error) {
	a := Assertion{Expr: expr}
	for wrong, right := range map[string]string{"=>": ">=", "=<": "<="} {
		if strings.Contains(expr, wrong) {
			return a, fmt.Errorf("%q: %s is not an operator; write %s", expr, wrong, right)
		}
	}
	at := -1
	for i := 0; i < len(expr) && at < 0; i++ {
		for _, op := range assertOps {
			if strings.HasPrefix(expr[i:], op) {
				at, a.Op = i, op
				break
			}
		}
	}
	if at < 0 {
		return a, fmt.Errorf("%q: no comparison; write KEY OP NUMBER with OP one of < <= > >= == !=, as in 'peak_in_flight>=5'", expr)
	}
	a.Key = strings.TrimSpace(expr[:at])
	num := strings.TrimSpace(expr[at+len(a.Op):])
	if a.Key == "" {
		return a, fmt.Errorf("%q: nothing before %s; write KEY OP NUMBER, as in 'elapsed_ms<=800'", expr, a.Op)
	}
	if !knownSummaryKey(a.Key) {
		return a, &UnknownKeyError{Expr: expr, Key: a.Key}
	}
	w, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return a, fmt.Errorf("%q: %q is not a number", expr, num)
	}
	a.Want = w
	return a, nil
}

// UnknownKeyError is an assertion on a key no summary has. Its message
// lists every key; a face with little room can say less.
type UnknownKeyError struct {
	Expr, Key string
}

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("%q: unknown key %q; the keys are %s, server_requests.by_method.METHOD, and by_method_ms.METHOD.count or by_method_ms.METHOD.call_ms|queue_ms|serve_ms.%s", e.Expr, e.Key, strings.Join(Summary{}.Keys(), ", "), strings.Join(percentileKeys, "|"))
}

// ParseAssertions reads every expression, stopping at the first that does
// not parse.
func ParseAssertions(exprs []string) ([]Assertion, error) {
	var out []Assertion
	for _, expr := range exprs {
		a, err := ParseAssertion(expr)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func knownSummaryKey(k string) bool {
	if m, ok := strings.CutPrefix(k, "server_requests.by_method."); ok {
		return m != ""
	}
	if rest, ok := strings.CutPrefix(k, "by_method_ms."); ok {
		return knownMethodTimesKey(rest)
	}
	return slices.Contains(Summary{}.Keys(), k)
}

// knownMethodTimesKey reports whether k is METHOD.count or
// METHOD.{call_ms,queue_ms,serve_ms}.PERCENTILE, a key under by_method_ms.
func knownMethodTimesKey(k string) bool {
	if m, ok := strings.CutSuffix(k, ".count"); ok {
		return m != ""
	}
	for _, what := range []string{".call_ms.", ".queue_ms.", ".serve_ms."} {
		if i := strings.LastIndex(k, what); i > 0 {
			return slices.Contains(percentileKeys, k[i+len(what):])
		}
	}
	return false
}

// Check reports whether the assertion holds for sum, and the value it
// found. A key sum does not have (a method that was never called) does
// not hold.
func (a Assertion) Check(sum Summary) (actual float64, holds bool) {
	v, ok := sum.Get(a.Key)
	if !ok {
		return 0, false
	}
	switch a.Op {
	case "<":
		return v, v < a.Want
	case "<=":
		return v, v <= a.Want
	case ">":
		return v, v > a.Want
	case ">=":
		return v, v >= a.Want
	case "==":
		return v, v == a.Want
	case "!=":
		return v, v != a.Want
	}
	return v, false
}
