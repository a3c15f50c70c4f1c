package main

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/fanout-inspector/inspector/recorder"
)

// serverLine says what a recording was connected to: the target, then the
// server's name, version and the era and protocol it spoke when it
// reported them: "demo (fanout-demo 1.0.0, protocol 2025-11-25, era
// auto → legacy)".
func serverLine(meta recorder.Meta) string {
	server := meta.Target
	if meta.Server != "" {
		server += " (" + meta.Server
		if meta.Protocol != "" {
			server += ", protocol " + meta.Protocol + ", era " + eraWords(meta)
		}
		server += ")"
	}
	return strings.TrimSpace(server)
}

// writeFigures writes a summary's figures, from the tool calls to the
// verdict, as rows of tw: the part `run` and `report` print alike.
func writeFigures(tw *tabwriter.Writer, sum recorder.Summary) {
	calls := fmt.Sprintf("%d total, %d ok, %d failed", sum.ToolCalls.Total, sum.ToolCalls.OK, sum.ToolCalls.Failed)
	if sum.ToolCalls.Requests != sum.ToolCalls.Total || sum.ToolCalls.InputRounds > 0 {
		calls += fmt.Sprintf(" (%d wire requests, %d input_required rounds)", sum.ToolCalls.Requests, sum.ToolCalls.InputRounds)
	}
	fmt.Fprintf(tw, "tool calls\t%s\n", calls)
	for _, e := range sum.ToolCalls.Errors {
		fmt.Fprintf(tw, "  %d×\t%s\n", e.Count, oneLine(e.Message))
	}
	if sum.Sessions > 1 {
		fmt.Fprintf(tw, "sessions\t%d\n", sum.Sessions)
	}
	if sum.Dropped > 0 || sum.LateStarts > 0 {
		fmt.Fprintf(tw, "open loop\t%d dropped (--max-in-flight outstanding), %d late starts (sent over %v after their intended start)\n",
			sum.Dropped, sum.LateStarts, recorder.LateStart)
	}
	if sum.ToolCalls.Total >= 2 {
		c := sum.CallMS
		fmt.Fprintf(tw, "call time\tp50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f ms, %.1f calls/s\n", c.P50, c.P90, c.P99, c.P999, c.Max, sum.ThroughputPerS)
	}
	requests := fmt.Sprintf("%d total, %d ok, %d failed", sum.ServerRequests.Total, sum.ServerRequests.OK, sum.ServerRequests.Failed)
	if a := sum.ServerRequests.Aborted; a > 0 {
		requests += fmt.Sprintf(", %d aborted (never answered)", a)
	}
	fmt.Fprintf(tw, "server requests\t%s\n", requests)
	methods := make([]string, 0, len(sum.ServerRequests.ByMethod))
	for m := range sum.ServerRequests.ByMethod {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		fmt.Fprintf(tw, "  %s\t%d\n", m, sum.ServerRequests.ByMethod[m])
	}
	if in, out := sum.ServerRequests.InputTokens, sum.ServerRequests.OutputTokens; in > 0 || out > 0 {
		fmt.Fprintf(tw, "  tokens\t%d in, %d out (%d total, from the sampling endpoint)\n", in, out, in+out)
	}
	if d := sum.ServerRequests.Duplicates; d > 0 {
		ids := strings.Join(sum.ServerRequests.DuplicateIDs, ", ")
		if len(sum.ServerRequests.DuplicateIDs) >= recorder.MaxDuplicateIDs {
			ids += ", …"
		}
		fmt.Fprintf(tw, "  duplicates\t%d reused the id of a request still pending (ids %s)\n", d, ids)
	}
	if sum.Estimated {
		// A proxy's recording: the client is a black box, its waits are
		// exact and the work inside them is estimated.
		fmt.Fprintf(tw, "peak in flight\t%d (estimated from the answers)\n", sum.PeakInFlight)
		fmt.Fprintf(tw, "peak pending\t%d (waiting at the client at once)\n", sum.PeakPending)
		fmt.Fprintf(tw, "achieved concurrency\t%.2f (estimated)\n", sum.AchievedConcurrency)
		fmt.Fprintf(tw, "elapsed\t%.1f ms\n", sum.ElapsedMS)
		fmt.Fprintf(tw, "wait before work\tp50 %.1f  p90 %.1f  p99 %.1f  max %.1f ms (estimated)\n", sum.QueueMS.P50, sum.QueueMS.P90, sum.QueueMS.P99, sum.QueueMS.Max)
		fmt.Fprintf(tw, "client's work\tp50 %.1f  p90 %.1f  p99 %.1f  max %.1f ms (estimated)\n", sum.ServeMS.P50, sum.ServeMS.P90, sum.ServeMS.P99, sum.ServeMS.Max)
		for _, f := range sum.Fulfilments {
			fmt.Fprintf(tw, "round %d\t%d input requests fulfilled inside the client in %.1f ms\n", f.Round, f.Requests, f.MS)
		}
	} else {
		fmt.Fprintf(tw, "peak in flight\t%d\n", sum.PeakInFlight)
		fmt.Fprintf(tw, "peak pending\t%d\n", sum.PeakPending)
		fmt.Fprintf(tw, "achieved concurrency\t%.2f\n", sum.AchievedConcurrency)
		fmt.Fprintf(tw, "elapsed\t%.1f ms\n", sum.ElapsedMS)
		fmt.Fprintf(tw, "hand-off time\tp50 %.1f  p90 %.1f  p99 %.1f  max %.1f ms\n", sum.HandoffMS.P50, sum.HandoffMS.P90, sum.HandoffMS.P99, sum.HandoffMS.Max)
		fmt.Fprintf(tw, "queue time\tp50 %.1f  p90 %.1f  p99 %.1f  max %.1f ms\n", sum.QueueMS.P50, sum.QueueMS.P90, sum.QueueMS.P99, sum.QueueMS.Max)
		fmt.Fprintf(tw, "serve time\tp50 %.1f  p90 %.1f  p99 %.1f  max %.1f ms\n", sum.ServeMS.P50, sum.ServeMS.P90, sum.ServeMS.P99, sum.ServeMS.Max)
	}
	if sum.StalledMessages > 0 {
		fmt.Fprintf(tw, "stalled time\tp50 %.1f  p90 %.1f  p99 %.1f  max %.1f ms (%d messages withheld)\n",
			sum.StalledMS.P50, sum.StalledMS.P90, sum.StalledMS.P99, sum.StalledMS.Max, sum.StalledMessages)
	}
	verdict := sum.VerdictText // it starts with the verdict's word
	if verdict == "" {
		verdict = sum.Verdict
	}
	fmt.Fprintf(tw, "verdict\t%s\n", verdict)
	if sum.Sampled != nil {
		fmt.Fprintf(tw, "spans\t%s (--max-spans)\n", sum.Sampled.Note)
	}
}

// oneLine puts a multi-line message on one table row.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
