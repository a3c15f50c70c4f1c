package recorder

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Difference is one figure that differs between two summaries, A (the
// baseline) and B.
type Difference struct {
	// Key is the figure's dotted key, as [Summary.Get] takes it, or
	// "verdict".
	Key string  `json:"key"`
	A   float64 `json:"a"`
	B   float64 `json:"b"`
	// Delta is B - A.
	Delta float64 `json:"delta"`
	// Ratio is B/A, or 0 when A is 0.
	Ratio float64 `json:"ratio"`
	// Text says the difference in words, such as
	// "elapsed_ms: 2510.0 → 514.0 (-79.5%, 0.20×)".
	Text string `json:"text"`
}

// compareOrder ranks the keys people look at first.
var compareOrder = []string{
	"verdict", "elapsed_ms", "peak_in_flight", "peak_pending", "achieved_concurrency",
	"serve_ms.", "queue_ms.", "stalled_ms.", "call_ms.", "throughput_per_s", "tool_calls.", "server_requests.",
}

func compareRank(key string) int {
	for i, p := range compareOrder {
		if key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(key, p)) {
			return i
		}
	}
	return len(compareOrder)
}

// Compare lists the figures that differ between a (the baseline) and b:
// the verdict first (with A and B zero and the verdicts in Text), then
// elapsed time, peaks, concurrency, serve and queue times, call times
// and throughput, counts. A method only one run saw counts 0 in the
// other; the per-method times (by_method_ms) are left out.
func Compare(a, b Summary) []Difference {
	var out []Difference
	if a.Verdict != b.Verdict {
		out = append(out, Difference{Key: "verdict", Text: fmt.Sprintf("verdict: %s → %s", a.Verdict, b.Verdict)})
	}
	fa, fb := a.flat(), b.flat()
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var diffs []Difference
	for k := range keys {
		if strings.HasPrefix(k, "by_method_ms.") {
			continue // per method, the same times again: the comparison stays readable
		}
		va, _ := a.Get(k)
		vb, _ := b.Get(k)
		if math.Abs(va-vb) < 1e-9 {
			continue
		}
		d := Difference{Key: k, A: va, B: vb, Delta: vb - va}
		d.Text = fmt.Sprintf("%s: %s → %s", k, FormatFigure(va), FormatFigure(vb))
		if va != 0 {
			d.Ratio = vb / va
			d.Text += fmt.Sprintf(" (%+.1f%%, %.2f×)", 100*(vb-va)/va, d.Ratio)
		}
		diffs = append(diffs, d)
	}
	slices.SortFunc(diffs, func(x, y Difference) int {
		return cmp.Or(cmp.Compare(compareRank(x.Key), compareRank(y.Key)), cmp.Compare(x.Key, y.Key))
	})
	return append(out, diffs...)
}

// FormatFigure prints a summary figure as the comparison and the HTML
// report show it: whole numbers without decimals, others with one or more
// as needed.
func FormatFigure(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	if math.Abs(v) >= 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
