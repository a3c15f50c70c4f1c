package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/recorder"
)

// After a run of a mix, the Workload panel shows each operation's
// outcome, as `inspector run --workload --json` gives them under
// "operations": its method and name, how many calls picked it, how many
// were ok and failed, and the median and 95th percentile of their call
// times; and the thresholds on operations (operations.N.KEY), passed or
// failed.

// newOperationsArea makes the area the operations table goes in.
func (p *workloadPanel) newOperationsArea() fyne.CanvasObject {
	p.opsTable = widget.NewLabel("Run a mix to see each operation's calls and times here.")
	p.opsTable.Wrapping = fyne.TextWrapWord
	p.opsTable.Selectable = true
	p.opsChecks = widget.NewLabel("")
	p.opsChecks.Wrapping = fyne.TextWrapWord
	p.opsChecks.Hide()
	return container.NewVBox(p.opsTable, p.opsChecks)
}

// showOperations shows a mix run's operations (nil: the run was of one
// tool, and the table is left as it was).
func (p *workloadPanel) showOperations(ops []recorder.OperationStats) {
	if ops == nil {
		return
	}
	p.lastOps = ops
	p.opsTable.SetText(operationsTable(ops))
	p.opsChecks.Hide()
	if checks, err := parseThresholds(p.thresholds.Text, len(ops)); err == nil {
		var parts []string
		failed := false
		for _, c := range checks {
			if c.Operation < 0 {
				continue // the stats bar checks these
			}
			actual, holds := c.Check(recorder.Summary{}, ops)
			mark := "✓ "
			if !holds {
				mark, failed = "✗ ", true
			}
			parts = append(parts, fmt.Sprintf("%s%s (%s)", mark, strings.TrimSpace(c.Expr), thresholdNumber(actual)))
		}
		if len(parts) > 0 {
			p.opsChecks.SetText("Thresholds on operations: " + strings.Join(parts, " · "))
			p.opsChecks.Importance = widget.SuccessImportance
			if failed {
				p.opsChecks.Importance = widget.DangerImportance
			}
			p.opsChecks.Show()
		}
	}
	i := len(p.results.Items) - 1
	p.results.Items[i].Title = fmt.Sprintf("Operations (%d)", len(ops))
	p.results.Open(i)
	p.results.Close(0) // a mix's last call says little: its operations come into view
	p.results.Refresh()
	p.scrollToResult()
}

// OperationsText returns the operations table as shown.
func (p *workloadPanel) OperationsText() string { return p.opsTable.Text }

// operationsTable says ops a line each, in the mix's order, worded to
// wrap in the narrow panel: "0 · tools/call echo: 1403 calls, 1403 ok,
// 0 failed · p50 3.12 ms · p95 89.02 ms".
func operationsTable(ops []recorder.OperationStats) string {
	lines := make([]string, len(ops))
	for i, op := range ops {
		lines[i] = fmt.Sprintf("%d · %s %s: %d calls, %d ok, %d failed · p50 %s ms · p95 %s ms", i, op.Method, op.Name,
			op.Total, op.OK, op.Failed, thresholdNumber(op.CallMS.P50), thresholdNumber(op.CallMS.P95))
	}
	return strings.Join(lines, "\n")
}
