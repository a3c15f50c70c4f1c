package main

import (
	"fmt"
	"io"

	"github.com/fanout-inspector/inspector/recorder"
)

// parseAssertions reads every --assert expression (see
// [recorder.ParseAssertion]), stopping at the first that does not parse.
func parseAssertions(exprs []string) ([]recorder.Assertion, error) {
	out, err := recorder.ParseAssertions(exprs)
	if err != nil {
		return nil, fmt.Errorf("--assert %w", err)
	}
	return out, nil
}

// parseThresholds reads every --assert expression of a run without a
// workload file (see [recorder.ParseThreshold]).
func parseThresholds(exprs []string) ([]recorder.Threshold, error) {
	out, err := recorder.ParseThresholds(exprs, 0)
	if err != nil {
		return nil, fmt.Errorf("--assert %w", err)
	}
	return out, nil
}

// checkAssertions checks each assertion on sum, says on w which failed
// (as "inspector CMD: assertion failed: …"), and returns how many did.
func checkAssertions(w io.Writer, cmd string, asserts []recorder.Assertion, sum recorder.Summary) int {
	ts := make([]recorder.Threshold, len(asserts))
	for i, a := range asserts {
		ts[i] = recorder.Threshold{Assertion: a, Operation: -1}
	}
	return checkThresholds(w, cmd, ts, sum, nil)
}

// checkThresholds checks each threshold on sum and a mix's operations,
// says on w which failed (as "inspector CMD: assertion failed: …"), and
// returns how many did.
func checkThresholds(w io.Writer, cmd string, ts []recorder.Threshold, sum recorder.Summary, ops []recorder.OperationStats) int {
	failed := 0
	for _, t := range ts {
		if actual, holds := t.Check(sum, ops); !holds {
			failed++
			fmt.Fprintf(w, "inspector %s: assertion failed: %s (%s is %s)\n", cmd, t.Expr, t.Key, formatNumber(actual))
		}
	}
	return failed
}
