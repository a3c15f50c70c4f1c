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

// checkAssertions checks each assertion on sum, says on w which failed
// (as "inspector CMD: assertion failed: …"), and returns how many did.
func checkAssertions(w io.Writer, cmd string, asserts []recorder.Assertion, sum recorder.Summary) int {
	failed := 0
	for _, a := range asserts {
		if actual, holds := a.Check(sum); !holds {
			failed++
			fmt.Fprintf(w, "inspector %s: assertion failed: %s (%s is %s)\n", cmd, a.Expr, a.Key, formatNumber(actual))
		}
	}
	return failed
}
