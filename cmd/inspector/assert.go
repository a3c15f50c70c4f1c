package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fanout-inspector/inspector/recorder"
)

// assertion is one --assert expression: a numeric key of the run's JSON
// summary compared with a number, as in "peak_in_flight>=5".
type assertion struct {
	Expr string
	Key  string
	Op   string
	Want float64
}

// assertOps are the comparison operators, longest first so that "<="
// is not read as "<".
var assertOps = []string{"<=", ">=", "==", "!=", "<", ">"}

// parseAssertion reads KEY OP NUMBER. KEY is a numeric field of the JSON
// summary, dotted for nested fields (tool_calls.failed, serve_ms.p99,
// server_requests.by_method.sampling/createMessage).
func parseAssertion(expr string) (assertion, error) {
	a := assertion{Expr: expr}
	for wrong, right := range map[string]string{"=>": ">=", "=<": "<="} {
		if strings.Contains(expr, wrong) {
			return a, fmt.Errorf("--assert %q: %s is not an operator; write %s", expr, wrong, right)
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
		return a, fmt.Errorf("--assert %q: no comparison; write KEY OP NUMBER with OP one of < <= > >= == !=, as in 'peak_in_flight>=5'", expr)
	}
	a.Key = strings.TrimSpace(expr[:at])
	num := strings.TrimSpace(expr[at+len(a.Op):])
	if a.Key == "" {
		return a, fmt.Errorf("--assert %q: nothing before %s; write KEY OP NUMBER, as in 'elapsed_ms<=800'", expr, a.Op)
	}
	if !knownSummaryKey(a.Key) {
		return a, fmt.Errorf("--assert %q: unknown key %q; the keys are %s, server_requests.by_method.METHOD, and by_method_ms.METHOD.count or by_method_ms.METHOD.call_ms|queue_ms|serve_ms.p50|p90|p99|p99_9|max", expr, a.Key, strings.Join(summaryKeys(), ", "))
	}
	w, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return a, fmt.Errorf("--assert %q: %q is not a number", expr, num)
	}
	a.Want = w
	return a, nil
}

// summaryKeys lists the numeric keys every summary has.
func summaryKeys() []string {
	return recorder.Summary{}.Keys()
}

func knownSummaryKey(k string) bool {
	if m, ok := strings.CutPrefix(k, "server_requests.by_method."); ok {
		return m != ""
	}
	if rest, ok := strings.CutPrefix(k, "by_method_ms."); ok {
		return knownMethodTimesKey(rest)
	}
	return slices.Contains(summaryKeys(), k)
}

// knownMethodTimesKey reports whether k is METHOD.count or
// METHOD.{call_ms,queue_ms,serve_ms}.{p50,p90,p99,p99_9,max}, a key under
// by_method_ms.
func knownMethodTimesKey(k string) bool {
	if m, ok := strings.CutSuffix(k, ".count"); ok {
		return m != ""
	}
	for _, what := range []string{".call_ms.", ".queue_ms.", ".serve_ms."} {
		if i := strings.LastIndex(k, what); i > 0 {
			return slices.Contains([]string{"p50", "p90", "p99", "p99_9", "max"}, k[i+len(what):])
		}
	}
	return false
}

// check reports whether the assertion holds for sum, and the actual value.
func (a assertion) check(sum recorder.Summary) (actual float64, holds bool) {
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

// parseAssertions reads every --assert expression, stopping at the first
// that does not parse.
func parseAssertions(exprs []string) ([]assertion, error) {
	var out []assertion
	for _, expr := range exprs {
		a, err := parseAssertion(expr)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// checkAssertions checks each assertion on sum, says on w which failed
// (as "inspector CMD: assertion failed: …"), and returns how many did.
func checkAssertions(w io.Writer, cmd string, asserts []assertion, sum recorder.Summary) int {
	failed := 0
	for _, a := range asserts {
		if actual, holds := a.check(sum); !holds {
			failed++
			fmt.Fprintf(w, "inspector %s: assertion failed: %s (%s is %s)\n", cmd, a.Expr, a.Key, formatNumber(actual))
		}
	}
	return failed
}
