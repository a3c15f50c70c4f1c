package app

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// Thresholds are checks on the figures of the run the statistics
// describe, written as `inspector run --assert` takes them (KEY OP NUMBER
// on the run's JSON summary: call_ms.p95<=200, tool_calls.failed==0). The
// Workload panel's Load test section holds them, one per line; the stats
// bar shows each passed or failed under the verdict, for the run picked,
// so far while it goes on.

// thresholdsHint is what the Thresholds field says under it: short, as a
// form's hint does not wrap and would widen the panel.
const thresholdsHint = "one a line, as --assert takes them"

// thresholdsItem makes the Load test section's Thresholds field.
func (p *workloadPanel) thresholdsItem() *widget.FormItem {
	p.thresholds = widget.NewMultiLineEntry()
	p.thresholds.SetPlaceHolder("call_ms.p95<=200\ntool_calls.failed==0")
	p.thresholds.SetMinRowsVisible(2)
	// what is wrong shows in a wrapping label under the field, not as
	// the form's hint, which does not wrap
	p.thresholdsProblem = widget.NewLabel("")
	p.thresholdsProblem.Wrapping = fyne.TextWrapWord
	p.thresholdsProblem.Importance = widget.DangerImportance
	p.thresholdsProblem.Hide()
	p.thresholds.OnChanged = func(string) {
		p.thresholdsChanged()
		if p.onEdited != nil {
			p.onEdited()
		}
	}
	item := widget.NewFormItem("Thresholds", container.NewVBox(p.thresholds, p.thresholdsProblem))
	item.HintText = thresholdsHint
	return item
}

// setThresholds presets the Thresholds field (from --assert) and opens
// the Load test section to show them.
func (p *workloadPanel) setThresholds(checks []recorder.Assertion) {
	exprs := make([]string, len(checks))
	for i, a := range checks {
		exprs[i] = strings.TrimSpace(a.Expr)
	}
	p.thresholds.SetText(strings.Join(exprs, "\n"))
	if len(checks) > 0 {
		p.loadTest.Open(0)
	}
}

// thresholdsChanged reads the field again (its text, or the mix's
// number of operations, changed): the checks on the run's figures go to
// onThresholds, those on the mix's operations are checked when a run of
// the mix ends (workloadresult.go); what does not parse is said under
// the field, and the checks shown stay.
func (p *workloadPanel) thresholdsChanged() {
	checks, err := parseThresholds(p.thresholds.Text, len(p.mixRows))
	if err != nil {
		p.thresholdsProblem.SetText(err.Error())
		p.thresholdsProblem.Show()
		return
	}
	p.thresholdsProblem.Hide()
	var onRun []recorder.Assertion
	for _, c := range checks {
		if c.Operation < 0 {
			onRun = append(onRun, c.Assertion)
		}
	}
	if p.onThresholds != nil {
		p.onThresholds(onRun)
	}
}

// thresholdLines are the field's expressions, a line each, blank lines
// skipped.
func thresholdLines(text string) []string {
	var exprs []string
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			exprs = append(exprs, line)
		}
	}
	return exprs
}

// parseThresholds reads the field's text for a mix of n operations (0:
// no mix): an expression a line, blank lines skipped, as a workload
// file's thresholds (operations.N keys check one operation). An unknown
// key is named without the list of every key, which would not fit under
// the field.
func parseThresholds(text string, n int) ([]recorder.Threshold, error) {
	checks, err := recorder.ParseThresholds(thresholdLines(text), n)
	var unknown *recorder.UnknownKeyError
	switch {
	case errors.As(err, &unknown):
		return nil, fmt.Errorf("%q: no figure %q; use a key of inspector run --json, as call_ms.p95 or tool_calls.failed", unknown.Expr, unknown.Key)
	case err != nil:
		return nil, err
	}
	return checks, nil
}

// thresholdsLine says how sum fares against checks: how many pass, then
// each failed one with the value found, then each passed one; and
// whether any failed. provisional says the run goes on.
func thresholdsLine(checks []recorder.Assertion, sum recorder.Summary, provisional bool) (text string, failed bool) {
	var fails, passes []string
	for _, a := range checks {
		actual, holds := a.Check(sum)
		part := fmt.Sprintf("%s (%s)", strings.TrimSpace(a.Expr), thresholdNumber(actual))
		if holds {
			passes = append(passes, "✓ "+part)
		} else {
			fails = append(fails, "✗ "+part)
		}
	}
	head := "Thresholds"
	if provisional {
		head += " so far"
	}
	text = fmt.Sprintf("%s: %d of %d pass", head, len(passes), len(checks))
	for _, part := range append(fails, passes...) {
		text += " · " + part
	}
	return text, len(fails) > 0
}

// thresholdNumber writes a figure as the summary's JSON does, without a
// run of zeros: 0, 12, 23.34.
func thresholdNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// setThresholds shows checks against each run the stats describe.
func (s *statsBar) setThresholds(checks []recorder.Assertion) {
	s.thresholds = checks
	s.showThresholds()
}

// showThresholds writes the thresholds line for the summary shown, or
// hides it when there are none or nothing has run.
func (s *statsBar) showThresholds() {
	if len(s.thresholds) == 0 || isIdle(s.summary) {
		if s.checks.Visible() {
			s.checks.Hide()
		}
		return
	}
	text, failed := thresholdsLine(s.thresholds, s.summary, s.provisional)
	importance := widget.SuccessImportance
	if failed {
		importance = widget.DangerImportance
	}
	if text != s.checks.Text || importance != s.checks.Importance {
		s.checks.Importance = importance
		s.checks.SetText(text)
	}
	if !s.checks.Visible() {
		s.checks.Show()
	}
}

// setThresholds shows checks on the runs the timeline describes.
func (t *TimelineView) setThresholds(checks []recorder.Assertion) {
	t.setStats(func() { t.stats.setThresholds(checks) })
}

// newChecksLabel is the stats bar's thresholds line, hidden until there
// are thresholds and a run.
func newChecksLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return l
}
