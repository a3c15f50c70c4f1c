package recorder

import (
	"strings"
	"testing"
)

func TestParseAssertion(t *testing.T) {
	sum := Summary{PeakInFlight: 5, ElapsedMS: 512.5,
		CallMS:         TailPercentiles{P95: 150},
		ServerRequests: RequestCounts{ByMethod: map[string]int{"sampling/createMessage": 5}}}
	cases := []struct {
		expr   string
		holds  bool
		actual float64
		bad    string // the parse error, if any
	}{
		{"peak_in_flight>=5", true, 5, ""},
		{"peak_in_flight > 5", false, 5, ""},
		{" elapsed_ms <= 800 ", true, 512.5, ""},
		{"elapsed_ms<500", false, 512.5, ""},
		{"tool_calls.failed==0", true, 0, ""},
		{"server_requests.by_method.sampling/createMessage>=5", true, 5, ""},
		{"server_requests.by_method.roots/list==0", true, 0, ""},
		{"queue_ms.p99!=0", false, 0, ""},
		{"call_ms.p95<=200", true, 150, ""},
		{"by_method_ms.tools/call.call_ms.p95<100", false, 0, ""}, // never called: does not hold
		{"by_method_ms.tools/call.call_ms.p97<100", false, 0, "unknown key"},
		{"peak_in_flight=5", false, 0, "no comparison"},
		{"peak_in_flight=>5", false, 0, "write >="},
		{"verdict==1", false, 0, "unknown key"},
		{">=5", false, 0, "nothing before"},
		{"peak_in_flight>=", false, 0, "is not a number"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			a, err := ParseAssertion(tc.expr)
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("ParseAssertion(%q) error = %v, want one saying %q", tc.expr, err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			actual, holds := a.Check(sum)
			if holds != tc.holds || actual != tc.actual {
				t.Errorf("check = %v (actual %v), want %v (actual %v)", holds, actual, tc.holds, tc.actual)
			}
		})
	}
}
