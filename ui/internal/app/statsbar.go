package app

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// statsBar shows the numbers of a run in one line (peak in flight, peak
// pending, elapsed time, median and 99th percentile serve and queue times)
// and, under it, the verdict in words.
type statsBar struct {
	widget.BaseWidget

	summary recorder.Summary
	// numbers holds one label a figure ("peak in flight 5", "elapsed
	// 2.51 s", …) in a flowing layout: the figures wrap onto more lines
	// at a narrow width, each kept whole, never cut off.
	numbers     *fyne.Container
	numberParts []*canvas.Text
	verdict     *widget.Label
	compare     *widget.Label // the compared recording's numbers and verdict
	// thresholds are checked on the summary shown, each passed or failed
	// on the checks line (thresholds.go).
	thresholds []recorder.Assertion
	checks     *widget.Label
	// provisional says the run described has not ended: the verdict is
	// what it is so far.
	provisional bool
	// idle is what the line says while nothing is recorded: what to do
	// to see something (see [idleRun]).
	idle string
	// A verdict of several parts (a round each, or a run each for the
	// whole session) shows its first on one line; more unfolds the rest,
	// a line each, and folds them again.
	more     *widget.Button
	unfolded bool
	lastText string // the verdict's full text, as last set
}

// What the stats line says before anything is recorded, by what the
// window shows: a connection of its own, a journal followed, a proxy
// hosted.
const (
	idleRun    = "Nothing has run yet: choose a tool under Workload and press Run (Ctrl+R). Each request the server sends back while the tool runs gets a row on the timeline."
	idleFollow = "No tool call in the journal yet: its runs are drawn as they are written."
	idleProxy  = "No tool call has passed through the proxy yet: point a client at the address under Server and call a tool."
)

// provisionalPrefix starts the verdict of a run still going on.
const provisionalPrefix = "So far (the run is still going): "

// maxStatsParts is how many figures the stats line shows at most.
const maxStatsParts = 8

// newStatsBar returns a stats bar for an empty run.
func newStatsBar() *statsBar {
	s := &statsBar{
		verdict: widget.NewLabel(""),
		compare: widget.NewLabel(""),
		checks:  newChecksLabel(),
		idle:    idleRun,
	}
	s.more = widget.NewButton("", func() {
		s.unfolded = !s.unfolded
		s.setRunSummary(s.summary, s.provisional)
	})
	s.more.Importance = widget.LowImportance
	s.more.Hide()
	parts := make([]fyne.CanvasObject, maxStatsParts)
	for i := range parts {
		// plain texts, not labels: a label's padding would make each
		// line of figures twice as tall as its text
		l := canvas.NewText("", theme.Color(theme.ColorNameForeground))
		l.Hide()
		s.numberParts = append(s.numberParts, l)
		parts[i] = l
	}
	s.numbers = container.New(layout.NewCustomPaddedLayout(theme.Padding(), 0, theme.InnerPadding(), theme.InnerPadding()),
		container.New(&flowLayout{gap: 4 * theme.Padding()}, parts...))
	s.compare.Wrapping = fyne.TextWrapWord
	s.compare.Hide()
	s.verdict.TextStyle.Bold = true
	s.verdict.Wrapping = fyne.TextWrapWord
	s.ExtendBaseWidget(s)
	s.setSummary(recorder.Summary{})
	return s
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (s *statsBar) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewVBox(s.numbers, container.NewBorder(nil, nil, nil, container.NewVBox(s.more), s.verdict), s.checks, s.compare))
}

// setSummary shows sum.
func (s *statsBar) setSummary(sum recorder.Summary) { s.setRunSummary(sum, false) }

// setRunSummary shows sum, the summary of a run; provisional says the run
// is still going, and the verdict says it is only what it is so far.
func (s *statsBar) setRunSummary(sum recorder.Summary, provisional bool) {
	s.summary = sum
	s.provisional = provisional
	// setting a label's text measures it again: skip what did not change,
	// as a live run shows the same numbers for many frames
	parts := statsParts(sum)
	idle := isIdle(sum)
	if idle {
		parts = nil // no figures that read like a result of nothing
	}
	changed := false
	for i, l := range s.numberParts {
		text := ""
		if i < len(parts) {
			text = parts[i]
		}
		if text != l.Text {
			l.Text = text
			changed = true
		}
		if (text != "") != l.Visible() {
			l.Hidden = text == ""
			changed = true
		}
	}
	if changed {
		s.numbers.Objects[0].Refresh()
		s.numbers.Refresh()
	}
	text := verdictLine(sum)
	if provisional && sum.Verdict != "" {
		text = provisionalPrefix + text
	}
	if idle {
		text = s.idle
	}
	s.lastText = text
	head, rest := verdictParts(sum, text, provisional)
	if !idle && len(rest) > 0 {
		label := fmt.Sprintf("▸ %d more", len(rest))
		if s.unfolded {
			head, label = head+"\n"+strings.Join(rest, "\n"), "▾ fold"
		} else {
			head += " …"
		}
		if s.more.Text != label {
			s.more.SetText(label)
		}
		if !s.more.Visible() {
			s.more.Show()
		}
		text = head
	} else if s.more.Visible() {
		s.more.Hide()
	}
	if text != s.verdict.Text {
		s.verdict.SetText(text)
	}
	importance := s.verdict.Importance
	switch {
	case idle:
		s.verdict.Importance = widget.MediumImportance
	case sum.Verdict == recorder.VerdictSerialized:
		s.verdict.Importance = widget.DangerImportance
	case sum.Verdict == recorder.VerdictPartial, sum.Verdict == recorder.VerdictBounded:
		s.verdict.Importance = widget.WarningImportance
	case sum.Verdict == recorder.VerdictConcurrent:
		s.verdict.Importance = widget.SuccessImportance
	default:
		s.verdict.Importance = widget.MediumImportance
	}
	if s.verdict.Importance != importance {
		s.verdict.Refresh()
	}
	s.showThresholds()
}

// verdictParts splits a verdict's text into what shows folded (head)
// and what unfolds under it (rest, a line each): the rounds of a verdict
// that describes them one by one, or the lines of one with several
// (the whole session's, a run each). A one-part verdict has no rest.
func verdictParts(sum recorder.Summary, text string, provisional bool) (head string, rest []string) {
	if r := sum.VerdictRounds; len(r) > 1 && sum.Verdict != "" && strings.Contains(text, strings.Join(r, "; ")) {
		before, after, _ := strings.Cut(text, strings.Join(r, "; "))
		head = before + r[0]
		rest = append(rest, r[1:]...)
		if after != "" {
			rest[len(rest)-1] += after // what follows the rounds (stalled messages, …)
		}
		return head, rest
	}
	if lines := strings.Split(text, "\n"); len(lines) > 1 {
		return lines[0], lines[1:]
	}
	return text, nil
}

// VerdictText returns the verdict's full text, folded or not.
func (s *statsBar) VerdictText() string { return s.lastText }

// isIdle reports whether sum describes no run yet: no tool call and no
// request from the server. The client's own requests of connecting
// (initialize, tools/list, logging/setLevel) are not a run: a verdict on
// them ("no fan-out") would read like a result of nothing.
func isIdle(sum recorder.Summary) bool {
	return sum.ToolCalls.Total == 0 && sum.ServerRequests.Total == 0 && sum.PeakInFlight == 0
}

// setIdle sets what the line says while nothing is recorded.
func (s *statsBar) setIdle(text string) {
	s.idle = text
	s.setRunSummary(s.summary, s.provisional)
}

// setCompare shows a compared recording's summary on a line of its own;
// nil removes it.
func (s *statsBar) setCompare(sum *recorder.Summary) {
	if sum == nil {
		s.compare.SetText("")
		s.compare.Hide()
	} else {
		verdict := sum.Verdict
		if verdict == "" {
			verdict = "no verdict"
		}
		s.compare.SetText("B: " + verdict + " — " + statsLine(*sum))
		s.compare.Show()
	}
	s.Refresh()
}

// Refresh redraws the bar in the colours of the current theme.
func (s *statsBar) Refresh() {
	for _, l := range s.numberParts {
		l.Color = theme.Color(theme.ColorNameForeground)
	}
	s.BaseWidget.Refresh()
}

// Summary returns the summary shown.
func (s *statsBar) Summary() recorder.Summary { return s.summary }

// Text returns the bar's text as shown: the numbers, a new line, the
// verdict, the thresholds' line when there are thresholds, and when
// comparing a line for the other recording.
func (s *statsBar) Text() string {
	var shown []string
	for _, l := range s.numberParts {
		if l.Visible() {
			shown = append(shown, l.Text)
		}
	}
	text := strings.Join(shown, "   ") + "\n" + s.verdict.Text
	if s.checks.Visible() {
		text += "\n" + s.checks.Text
	}
	if s.compare.Visible() {
		text += "\n" + s.compare.Text
	}
	return text
}

// Provisional reports whether the verdict shown is of a run still going.
func (s *statsBar) Provisional() bool { return s.provisional }

// statsLine is the figures of sum on one line.
func statsLine(sum recorder.Summary) string { return strings.Join(statsParts(sum), "   ") }

// statsParts is the figures of sum, one a string, and last, for a
// recording that kept a sample of its spans, what it kept ("kept 100,000
// of 1,000,000 spans; statistics are exact").
func statsParts(sum recorder.Summary) []string {
	parts := figureParts(sum)
	if sum.Sampled != nil {
		parts = append(parts[:min(len(parts), maxStatsParts-1)], sum.Sampled.Note)
	}
	return parts
}

// errorRate is failed of total as a percentage: "0% errors", "0.4% errors".
func errorRate(failed, total int) string {
	if total == 0 || failed == 0 {
		return "0% errors"
	}
	pct := 100 * float64(failed) / float64(total)
	if pct < 10 {
		return fmt.Sprintf("%.1f%% errors", pct)
	}
	return fmt.Sprintf("%.0f%% errors", pct)
}

// figureParts is the figures of sum, one a string.
func figureParts(sum recorder.Summary) []string {
	ms := func(v float64) string { return formatDuration(time.Duration(v * float64(time.Millisecond))) }
	if sum.ServerRequests.Total == 0 && sum.ToolCalls.Total >= 2 {
		// A load test: the server sent nothing, so the figures of its
		// requests would all read 0; those of the calls say what happened.
		// As `inspector report` gives them: call times from the intended
		// start (late starts count), the error rate, and what an open
		// loop could not keep to (late starts, arrivals dropped).
		c := sum.ToolCalls
		parts := []string{
			fmt.Sprintf("calls in flight ≤ %d", c.PeakInFlight),
			fmt.Sprintf("throughput %.1f calls/s", c.ThroughputPerS),
			"elapsed " + ms(sum.ElapsedMS),
			fmt.Sprintf("call p50 %s · p95 %s · p99 %s", ms(sum.CallMS.P50), ms(sum.CallMS.P95), ms(sum.CallMS.P99)),
			fmt.Sprintf("%d tool calls (%d failed, %s)", c.Total, c.Failed, errorRate(c.Failed, c.Total)),
		}
		if sum.LateStarts > 0 {
			parts = append(parts, fmt.Sprintf("%d late starts (over %v after their time)", sum.LateStarts, recorder.LateStart))
		}
		if sum.Dropped > 0 {
			parts = append(parts, fmt.Sprintf("%d arrivals dropped (max in flight)", sum.Dropped))
		}
		return parts
	}
	if sum.Estimated {
		// A proxy's recording: say which figures are estimated.
		parts := []string{
			fmt.Sprintf("peak in flight %d (estimated)", sum.PeakInFlight),
			fmt.Sprintf("pending at the client %d", sum.PeakPending),
			"elapsed " + ms(sum.ElapsedMS),
			fmt.Sprintf("work p50 %s · p99 %s (estimated)", ms(sum.ServeMS.P50), ms(sum.ServeMS.P99)),
		}
		if n := sum.ServerRequests.Total; n > 0 {
			parts = append(parts, fmt.Sprintf("%d server requests (%d failed)", n, sum.ServerRequests.Failed))
		}
		for _, f := range sum.Fulfilments {
			parts = append(parts, fmt.Sprintf("round %d: %d inside the client, %s", f.Round, f.Requests, ms(f.MS)))
		}
		if n := sum.ToolCalls.Total; n > 0 {
			parts = append(parts, fmt.Sprintf("%d tool calls (%d failed)", n, sum.ToolCalls.Failed))
		}
		return parts
	}
	parts := []string{
		fmt.Sprintf("peak in flight %d", sum.PeakInFlight),
		fmt.Sprintf("peak pending %d", sum.PeakPending),
		"elapsed " + ms(sum.ElapsedMS),
		fmt.Sprintf("serve p50 %s · p99 %s", ms(sum.ServeMS.P50), ms(sum.ServeMS.P99)),
		fmt.Sprintf("queue p50 %s · p99 %s", ms(sum.QueueMS.P50), ms(sum.QueueMS.P99)),
	}
	if n := sum.ServerRequests.Total; n > 0 {
		parts = append(parts, fmt.Sprintf("%d server requests (%d failed)", n, sum.ServerRequests.Failed))
	}
	if in, out := sum.ServerRequests.InputTokens, sum.ServerRequests.OutputTokens; in > 0 || out > 0 {
		parts = append(parts, fmt.Sprintf("tokens %d in · %d out", in, out))
	}
	if n := sum.ToolCalls.Total; n > 0 {
		parts = append(parts, fmt.Sprintf("%d tool calls (%d failed)", n, sum.ToolCalls.Failed))
	}
	return parts
}

func verdictLine(sum recorder.Summary) string {
	switch {
	case sum.VerdictText != "":
		return sum.VerdictText
	case sum.Verdict != "":
		return sum.Verdict
	}
	return "no requests yet"
}

// summarize returns the recorder's summary of snap, whose concurrency
// steps the caller already has.
func summarize(snap *recorder.Snapshot, steps []recorder.Step) recorder.Summary {
	if snap == nil {
		return recorder.Summary{}
	}
	if snap.Meta.Mode == recorder.ModeProxy {
		// the proxy summary: the client's work estimated, the fulfilments
		// of rounds apart, a verdict about the client (steps are the
		// drawn ones, fulfilments included: not what it counts)
		return recorder.Summarize(snap)
	}
	return recorder.SummarizeSteps(snap, steps)
}
