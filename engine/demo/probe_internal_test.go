package demo

import (
	"testing"
	"time"
)

// TestClassify pins the verdict rule on answer times a client of each
// shape would give (L = one request's work).
func TestClassify(t *testing.T) {
	const L = 100 * time.Millisecond
	at := func(ls ...float64) []time.Duration {
		var ds []time.Duration
		for _, l := range ls {
			ds = append(ds, time.Duration(l*float64(L)))
		}
		return ds
	}
	for _, tc := range []struct {
		name    string
		times   []time.Duration
		verdict string
		atOnce  int
	}{
		{"all together", at(1, 1.02, 1.05, 1.1, 1.01), "concurrent", 5},
		{"one at a time", at(1, 2, 3, 4, 5), "serialized", 1},
		{"two at a time", at(1, 1, 2, 2, 3, 3), "bounded", 2},
		{"five of six at once", at(1, 1, 1, 1, 1, 2), "bounded", 5},
		{"two, one at a time", at(1, 2), "serialized", 1},
		{"too fast to tell apart", []time.Duration{100 * time.Microsecond, 2 * time.Millisecond, 4 * time.Millisecond}, "concurrent", 3},
		{"one first, the rest together", at(1, 2, 2, 2, 2), "bounded", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, k := classify(tc.times, max(tc.times[0], tc.times[len(tc.times)-1]))
			if v != tc.verdict || k != tc.atOnce {
				t.Errorf("classify = %s, %d; want %s, %d", v, k, tc.verdict, tc.atOnce)
			}
		})
	}
	for _, tc := range []struct {
		n               int
		single, elapsed time.Duration
		verdict         string
		atOnce          int
	}{
		{5, L, L + 20*time.Millisecond, "concurrent", 5},
		{5, L, 5 * L, "serialized", 1},
		{6, L, 3 * L, "bounded", 2},
		{2, L, 2 * L, "serialized", 1},
		{5, time.Millisecond, 4 * time.Millisecond, "concurrent", 5},
	} {
		v, k := classifyRounds(tc.n, tc.single, tc.elapsed)
		if v != tc.verdict || k != tc.atOnce {
			t.Errorf("classifyRounds(%d, %v, %v) = %s, %d; want %s, %d", tc.n, tc.single, tc.elapsed, v, k, tc.verdict, tc.atOnce)
		}
	}
}
