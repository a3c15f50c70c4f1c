package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/fanout-inspector/inspector/recorder"
)

// withOperations is the JSON summary v with a mix's operations after its
// other keys, under "operations"; v itself without a mix.
func withOperations(v any, ops []recorder.OperationStats) any {
	if ops == nil {
		return v
	}
	head, err := json.Marshal(v)
	if err != nil || len(head) < 2 || head[len(head)-1] != '}' {
		return v
	}
	tail, err := json.Marshal(ops)
	if err != nil {
		return v
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	if len(head) > 2 {
		b.WriteByte(',')
	}
	b.WriteString(`"operations":`)
	b.Write(tail)
	b.WriteByte('}')
	return json.RawMessage(b.Bytes())
}

// writeOperationsText prints a mix's operations for a person, a line
// each in the file's order, with their share of the calls.
func writeOperationsText(w io.Writer, ops []recorder.OperationStats) {
	if len(ops) == 0 {
		return
	}
	all := 0
	for _, op := range ops {
		all += op.Total
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "#\tOPERATION\tCALLS\tSHARE\tFAILED\tP50 MS\tP95 MS\tP99 MS\tMAX MS\n")
	for i, op := range ops {
		share := 0.0
		if all > 0 {
			share = 100 * float64(op.Total) / float64(all)
		}
		fmt.Fprintf(tw, "%d\t%s %s\t%d\t%.1f%%\t%d\t%s\t%s\t%s\t%s\n", i, op.Method, op.Name, op.Total, share, op.Failed,
			formatNumber(op.CallMS.P50), formatNumber(op.CallMS.P95), formatNumber(op.CallMS.P99), formatNumber(op.CallMS.Max))
	}
	tw.Flush()
}
