package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// maxHistory is how many runs the Workload panel's history keeps.
const maxHistory = 50

// runRecord is one run made in this window, as the Workload panel's
// history keeps it: what was run, how the server's requests were
// answered, how it went, and the run's part of the recording.
type runRecord struct {
	workload load.Workload
	// name is the run's name: its tool, or its mix's (runName).
	name   string
	policy engine.AnswerPolicy
	// sessions is how many sessions the calls were spread over (1: the
	// connection alone).
	sessions int
	// when is the wall-clock time the run started.
	when time.Time
	// ok and failed count the run's calls; stopped says the person
	// stopped it.
	ok, failed int
	stopped    bool
	elapsed    time.Duration
	// verdict is the verdict word of the run's own spans ("serialized",
	// "concurrent", …), "" without a recording.
	verdict string
	// result is the last call's result, pretty-printed JSON, or its
	// error; failed says which.
	result    string
	resultErr bool
	// segment is the run's spans, offsets counted from its start; nil
	// without a recording.
	segment *recorder.Snapshot
}

// historyRow is one line of the history: the run in a few words and its
// two buttons.
type historyRow struct {
	run      runRecord
	text     *widget.Label
	runAgain *widget.Button
	// compare shows the run's spans beside the live recording.
	compare *widget.Button
}

// dispatchText says a dispatch in a word or two: "serial", "bounded 4".
func dispatchText(d engine.DispatchPolicy) string {
	mode := d.Mode
	if mode == "" {
		mode = engine.Concurrent
	}
	if mode == engine.Bounded {
		return fmt.Sprintf("bounded %d", d.Limit)
	}
	return string(mode)
}

// summary says the run on one line, for its history row.
func (r runRecord) summary() string {
	args := string(r.workload.Args)
	if args == "" {
		args = "{}"
	}
	if len(r.workload.Operations) > 0 {
		args = ""
	}
	if len(args) > 40 {
		args = args[:39] + "…"
	}
	calls := ""
	switch w := r.workload; {
	case len(w.Stages) > 0 && w.Ramp == load.RampConcurrency:
		calls = fmt.Sprintf(" ramping callers %s", stagesText(w.Stages))
	case len(w.Stages) > 0:
		calls = fmt.Sprintf(" ramping calls/s %s", stagesText(w.Stages))
	case w.Rate > 0:
		calls = fmt.Sprintf(" at %v/s for %v", w.Rate, w.Duration)
	case w.Duration > 0:
		calls = fmt.Sprintf(" for %v (%d at once)", w.Duration, max(w.Concurrency, 1))
	case max(w.Calls, 1) > 1:
		calls = fmt.Sprintf(" ×%d (%d at once)", w.Calls, max(w.Concurrency, 1))
	}
	if r.sessions > 1 {
		calls += fmt.Sprintf(" over %d sessions", r.sessions)
	}
	outcome := fmt.Sprintf("%d ok", r.ok)
	if r.failed > 0 {
		outcome += fmt.Sprintf(", %d failed", r.failed)
	}
	if r.stopped {
		outcome = "stopped, " + outcome
	}
	verdict := r.verdict
	if verdict == "" {
		verdict = "no verdict"
	}
	return fmt.Sprintf("%s  %s %s%s\n%s, %s · %s · %s · %s",
		r.when.Format("15:04:05"), r.name, args, calls,
		dispatchText(r.policy.Dispatch), latencyText(r.policy.Latency),
		outcome, verdict, r.elapsed.Round(time.Millisecond))
}

// lastCall returns the tool call of seg sent last, nil without one.
func lastCall(seg *recorder.Snapshot) *recorder.Span {
	var last *recorder.Span
	for _, s := range seg.Spans {
		if s.Direction == recorder.Outgoing && s.Kind == recorder.KindTool && s.Parent == 0 {
			if last == nil || s.Received >= last.Received {
				last = s
			}
		}
	}
	return last
}

// callResult says what a tool call came back with: its result,
// pretty-printed, or its error (with the result, if the server sent one
// that says isError). isErr says it failed.
func callResult(s *recorder.Span) (text string, isErr bool) {
	if s == nil {
		return "The run made no call.", true
	}
	pretty := readableResult(s.Result)
	switch {
	case s.Open():
		return "The call had not ended when the run did.", true
	case s.Status != recorder.StatusOK:
		text = "The call failed"
		if s.Status != recorder.StatusError {
			text = fmt.Sprintf("The call ended %s", s.Status)
		}
		if s.Error != "" {
			text += ": " + s.Error
		}
		if pretty != "" && !onlySays(s.Result, s.Error) {
			text += "\n\n" + pretty
		}
		return text, true
	}
	if pretty == "" {
		return "(the call's result is empty)", false
	}
	return pretty, false
}

// readableResult shows a tool result for reading: each text content as
// its text (its line breaks kept, not escaped), other content and the
// structured content as indented JSON. Anything else is indented JSON.
func readableResult(raw json.RawMessage) string {
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	if json.Unmarshal(raw, &r) != nil || len(r.Content) == 0 {
		return resultJSON(raw)
	}
	var parts []string
	for _, c := range r.Content {
		var text struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &text) == nil && text.Type == "text" {
			parts = append(parts, text.Text)
		} else {
			parts = append(parts, resultJSON(c))
		}
	}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		parts = append(parts, "structuredContent:\n"+resultJSON(r.StructuredContent))
	}
	return strings.Join(parts, "\n\n")
}

// onlySays reports whether a tool result says nothing but text: its
// content is that one text and it has no structured content.
func onlySays(result json.RawMessage, text string) bool {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(result, &r) != nil || len(r.StructuredContent) > 0 || len(r.Content) != 1 {
		return false
	}
	return r.Content[0].Type == "text" && r.Content[0].Text == text
}

// resultJSON indents a JSON value; a JSON string (as a capped payload
// is) is shown as its text.
func resultJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// newResultArea makes the area that shows the last call's result: a
// selectable monospace label in a scroller, with a Copy button.
func (p *workloadPanel) newResultArea() fyne.CanvasObject {
	p.result = widget.NewLabel("Run a tool to see its result here.")
	p.result.Selectable = true
	p.result.Wrapping = fyne.TextWrapWord // words kept whole; a longer one is broken
	p.result.TextStyle.Monospace = true
	p.copyResult = widget.NewButton("Copy", func() {
		if a := fyne.CurrentApp(); a != nil {
			a.Clipboard().SetContent(p.result.Text)
		}
	})
	p.copyResult.Disable()
	scroll := container.NewVScroll(p.result)
	scroll.SetMinSize(fyne.NewSize(0, 160))
	p.resultWhat = widget.NewLabel("")
	p.resultWhat.Wrapping = fyne.TextWrapWord
	return container.NewBorder(container.NewBorder(nil, nil, nil, p.copyResult, p.resultWhat), nil, nil, nil, scroll)
}

// showResult shows the last call's result or error.
func (p *workloadPanel) showResult(r runRecord) {
	what := "Result of the last call"
	p.result.Importance = widget.MediumImportance
	if r.resultErr {
		what = "Error of the last call"
		p.result.Importance = widget.DangerImportance
	}
	if n := max(r.workload.Calls, r.ok+r.failed, 1); n > 1 {
		what += fmt.Sprintf(" (of %d)", n)
	}
	p.resultWhat.SetText(what + " to " + r.name + ":")
	p.result.SetText(r.result)
	p.copyResult.Enable()
	p.results.Items[0].Title = what
	p.results.Open(0)
	p.results.Refresh()
}

// scrollToResult scrolls what lies under the pinned controls so that
// the result is in view; Run, Stop and the status line stay where they
// are.
func (p *workloadPanel) scrollToResult() {
	s := p.scroller
	s.Refresh()
	maxY := max(p.below.MinSize().Height-s.Size().Height, 0)
	s.ScrollToOffset(fyne.NewPos(0, min(p.results.Position().Y, maxY)))
}

// addHistory puts r at the top of the history, dropping the oldest past
// maxHistory.
func (p *workloadPanel) addHistory(r runRecord) {
	row := &historyRow{run: r, text: widget.NewLabel(r.summary())}
	row.text.Wrapping = fyne.TextWrapWord
	if r.resultErr || r.failed > 0 {
		row.text.Importance = widget.DangerImportance
	}
	row.runAgain = widget.NewButton("Run again", func() { p.runAgain(row.run) })
	row.compare = widget.NewButton("Compare", func() {
		if p.onCompare != nil {
			p.onCompare(row.run.segment)
		}
	})
	if r.segment == nil {
		row.compare.Disable()
	}
	p.history = append([]*historyRow{row}, p.history...)
	if len(p.history) > maxHistory {
		p.history = p.history[:maxHistory]
	}
	p.historyBox.RemoveAll()
	for i, h := range p.history {
		if i > 0 {
			p.historyBox.Add(widget.NewSeparator())
		}
		p.historyBox.Add(container.NewBorder(nil, nil, nil,
			container.NewVBox(h.runAgain, h.compare), h.text))
	}
	p.results.Items[1].Title = fmt.Sprintf("History (%d)", len(p.history))
	p.results.Open(1)
	p.results.Refresh()
	p.Refresh()
}

// History returns the history's rows, newest first.
func (p *workloadPanel) History() []*historyRow { return p.history }

// resultText returns the last call's result or error as shown.
func (p *workloadPanel) resultText() string { return p.result.Text }

// runAgain fills the panel (and the answering) back from r and runs.
func (p *workloadPanel) runAgain(r runRecord) {
	if p.running {
		p.showProblem("A run is already going on: stop it first, then run again.")
		return
	}
	if p.onPolicy != nil {
		p.onPolicy(r.policy)
	}
	p.setWorkload(r.workload)
	p.setSessions(r.sessions)
	if r.workload.Tool != "" && p.tool.Selected != r.workload.Tool {
		p.showProblem(fmt.Sprintf("The server no longer lists the tool %q: refresh the tools or choose another.", r.workload.Tool))
		return
	}
	p.run()
}

// runStarted tells the panel a run of w began, answering with policy and
// recording into rec (nil: none), so that when it ends the panel can
// show its last call's result and add it to the history.
func (p *workloadPanel) runStarted(w load.Workload, policy engine.AnswerPolicy, rec *recorder.Recording) {
	n, _ := p.sessionCount()
	p.current = runRecord{workload: w, name: p.runName(w), policy: policy, when: time.Now(), sessions: max(n, 1)}
	p.rec = rec
	p.runNo = 0
	if rec != nil { // the run is a segment of the recording from now
		p.runNo = rec.BeginRun(p.current.name, dispatchText(policy.Dispatch))
	}
}

// runNotStarted tells the panel that the run announced by runStarted
// could not start after all: its segment ends empty and it is not added
// to the history.
func (p *workloadPanel) runNotStarted() {
	if p.rec != nil {
		p.rec.EndRun(p.runNo)
	}
	p.current = runRecord{}
}

// endedRun is a run that ended, on its way to the history: its record
// so far, and what completes it from the recording.
type endedRun struct {
	record runRecord
	rec    *recorder.Recording // nil: the run was not recorded
	runNo  int                 // its run in rec
}

// endRun ends the current run's segment of the recording, on the main
// goroutine, and returns the run for [endedRun.complete]; nil when no
// run was started through runStarted.
func (p *workloadPanel) endRun() *endedRun {
	if p.current.when.IsZero() {
		return nil
	}
	e := &endedRun{record: p.current, rec: p.rec, runNo: p.runNo}
	p.current = runRecord{}
	if e.rec != nil {
		e.rec.EndRun(e.runNo)
	}
	return e
}

// complete fills in the run's part of the recording, its verdict and
// its last call's result. It copies and walks the whole recording (some
// 100 ms for 100,000 spans), so it runs off the main goroutine, which
// meanwhile goes on drawing.
func (e *endedRun) complete() {
	if e == nil || e.rec == nil {
		return
	}
	snap := e.rec.Snapshot()
	e.record.segment = snap.Segment(snap.Runs[e.runNo-1])
	e.record.verdict = recorder.Summarize(e.record.segment).Verdict
	e.record.result, e.record.resultErr = callResult(lastCall(e.record.segment))
}

// runEnded shows the result of e, a run completed from res and the
// recording, and adds it to the history.
func (p *workloadPanel) runEnded(e *endedRun, res load.RunResult, err error, stopped bool) {
	if e == nil {
		return // not started through runStarted
	}
	r := e.record
	r.ok, r.failed, r.stopped, r.elapsed = res.OK, res.Failed, stopped, res.Elapsed
	switch {
	case e.rec != nil: // complete read the result off the recording
	case len(res.Errors) > 0:
		r.result, r.resultErr = strings.Join(res.Errors, "\n"), true
	default:
		r.result = "(no recording: the result was not kept)"
	}
	if err != nil && r.segment != nil && lastCall(r.segment) == nil {
		r.result, r.resultErr = err.Error(), true
	}
	p.showResult(r)
	p.addHistory(r)
	p.scrollToResult()
}
