package ui

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// StatsBar shows the numbers of a run in one line (peak in flight, peak
// pending, elapsed time, median and 99th percentile serve and queue times)
// and, under it, the verdict in words.
type StatsBar struct {
	widget.BaseWidget

	summary recorder.Summary
	numbers *widget.Label
	verdict *widget.Label
	compare *widget.Label // the compared recording's numbers and verdict
}

// NewStatsBar returns a stats bar for an empty run.
func NewStatsBar() *StatsBar {
	s := &StatsBar{
		numbers: widget.NewLabel(""),
		verdict: widget.NewLabel(""),
		compare: widget.NewLabel(""),
	}
	s.compare.Truncation = fyne.TextTruncateEllipsis
	s.compare.Hide()
	s.verdict.TextStyle.Bold = true
	s.verdict.Wrapping = fyne.TextWrapWord
	s.numbers.Truncation = fyne.TextTruncateEllipsis
	s.ExtendBaseWidget(s)
	s.SetSummary(recorder.Summary{})
	return s
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (s *StatsBar) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewVBox(s.numbers, s.verdict, s.compare))
}

// SetSummary shows sum.
func (s *StatsBar) SetSummary(sum recorder.Summary) {
	s.summary = sum
	// setting a label's text measures it again: skip what did not change,
	// as a live run shows the same numbers for many frames
	if text := statsLine(sum); text != s.numbers.Text {
		s.numbers.SetText(text)
	}
	if text := verdictLine(sum); text != s.verdict.Text {
		s.verdict.SetText(text)
	}
	importance := s.verdict.Importance
	switch sum.Verdict {
	case recorder.VerdictSerialized:
		s.verdict.Importance = widget.DangerImportance
	case recorder.VerdictPartial, recorder.VerdictBounded:
		s.verdict.Importance = widget.WarningImportance
	case recorder.VerdictConcurrent:
		s.verdict.Importance = widget.SuccessImportance
	default:
		s.verdict.Importance = widget.MediumImportance
	}
	if s.verdict.Importance != importance {
		s.verdict.Refresh()
	}
}

// SetCompare shows a compared recording's summary on a line of its own;
// nil removes it.
func (s *StatsBar) SetCompare(sum *recorder.Summary) {
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

// Summary returns the summary shown.
func (s *StatsBar) Summary() recorder.Summary { return s.summary }

// Text returns the bar's text as shown: the numbers, a new line, the
// verdict, and when comparing a line for the other recording.
func (s *StatsBar) Text() string {
	text := s.numbers.Text + "\n" + s.verdict.Text
	if s.compare.Visible() {
		text += "\n" + s.compare.Text
	}
	return text
}

func statsLine(sum recorder.Summary) string {
	ms := func(v float64) string { return formatDuration(time.Duration(v * float64(time.Millisecond))) }
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
	if n := sum.ToolCalls.Total; n > 0 {
		parts = append(parts, fmt.Sprintf("%d tool calls (%d failed)", n, sum.ToolCalls.Failed))
	}
	return strings.Join(parts, "   ")
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
	return recorder.SummarizeSteps(snap, steps)
}
