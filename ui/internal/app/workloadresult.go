package app

import (
	"fmt"
	"strings"
	"text/tabwriter"

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
	p.opsTable.TextStyle.Monospace = true
	p.opsTable.Selectable = true
	p.opsChecks = widget.NewLabel("")
	p.opsChecks.Wrapping = fyne.TextWrapWord
	p.opsChecks.Hide()
	return container.NewVBox(container.NewHScroll(p.opsTable), p.opsChecks)
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
	p.results.Refresh()
}

// OperationsText returns the operations table as shown.
func (p *workloadPanel) OperationsText() string { return p.opsTable.Text }

// operationsTable writes ops as a table, a line each in the mix's order.
func operationsTable(ops []recorder.OperationStats) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "#\tMETHOD\tNAME\tTOTAL\tOK\tFAILED\tP50 MS\tP95 MS\n")
	for i, op := range ops {
		name := op.Name
		if len(name) > 40 {
			name = name[:39] + "…"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", i, op.Method, name, op.Total, op.OK, op.Failed,
			thresholdNumber(op.CallMS.P50), thresholdNumber(op.CallMS.P95))
	}
	tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}
