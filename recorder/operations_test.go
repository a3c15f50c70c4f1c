package recorder

import (
	"strings"
	"testing"
)

// TestThresholds: operations.N.KEY thresholds are parsed and checked on
// that operation, summary keys on the summary, and bad ones say what to
// write.
func TestThresholds(t *testing.T) {
	ops := []OperationStats{
		{Method: "tools/call", Name: "echo", Total: 70, OK: 70, CallMS: TailPercentiles{P95: 5}},
		{Method: "resources/read", Name: "demo://readme", Total: 30, OK: 28, Failed: 2, CallMS: TailPercentiles{P95: 50}},
	}
	sum := Summary{CallMS: TailPercentiles{P95: 5}}
	for _, tc := range []struct {
		expr   string
		holds  bool
		actual float64
		err    string
	}{
		{"operations.0.call_ms.p95<=10", true, 5, ""},
		{"operations.1.call_ms.p95<=10", false, 50, ""},
		{"operations.1.failed==0", false, 2, ""},
		{"operations.1.ok >= 28", true, 28, ""},
		{"operations.0.total>60", true, 70, ""},
		{"call_ms.p95<=10", true, 5, ""},
		{"operations.2.total>0", false, 0, "N from 0 to 1"},
		{"operations.x.total>0", false, 0, "is not an operation"},
		{"operations.0.peak_in_flight>0", false, 0, "unknown key after operations.0."},
		{"operations.0.totalx>0", false, 0, "unknown key after operations.0."},
		{"operations.0.call_ms.p97<1", false, 0, "unknown key"},
		{"operations.0.failed=>1", false, 0, "write >="},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			th, err := ParseThreshold(tc.expr, len(ops))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseThreshold: %v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			actual, holds := th.Check(sum, ops)
			if holds != tc.holds || actual != tc.actual {
				t.Errorf("Check = %v, %v; want %v, %v", actual, holds, tc.actual, tc.holds)
			}
			if th.Expr != tc.expr {
				t.Errorf("Expr %q, want it as written", th.Expr)
			}
		})
	}
	if _, err := ParseThreshold("operations.0.total>0", 0); err == nil || !strings.Contains(err.Error(), "--workload") {
		t.Errorf("an operations key without a mix: %v, want an error pointing to --workload", err)
	}
	th, _ := ParseThreshold("operations.1.failed==0", 2)
	if th.Key != "operations.1.failed" {
		t.Errorf("Key %q, want operations.1.failed (as the message names it)", th.Key)
	}
}
