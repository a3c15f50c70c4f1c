package app

import (
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/fanout-inspector/inspector/recorder"
)

// What the run picker can choose: the latest run (the default, which
// moves on to each new run), the whole session, or run n (n ≥ 1).
const (
	pickLatest int64 = 0
	pickWhole  int64 = -1
)

// wholeSession is the run picker's last choice.
const wholeSession = "Whole session"

// runScope is the part of a recording the stats describe: one run, or
// the whole session.
type runScope struct {
	run   recorder.Run
	whole bool
	// provisional says the run (for the whole session: the latest one)
	// has not ended, so its verdict is what it is so far.
	provisional bool
}

// scopeOf is the part of snap that pick chooses. A recording without runs
// is described whole.
func scopeOf(snap *recorder.Snapshot, pick int64) runScope {
	if snap == nil || len(snap.Runs) == 0 {
		return runScope{whole: true}
	}
	latest := snap.Runs[len(snap.Runs)-1]
	switch {
	case pick == pickWhole:
		return runScope{whole: true, run: latest, provisional: latest.Open()}
	case pick > 0 && int(pick) <= len(snap.Runs):
		r := snap.Runs[pick-1]
		return runScope{run: r, provisional: r.Open()}
	}
	return runScope{run: latest, provisional: latest.Open()}
}

// summarize returns the summary of the scope's part of snap, whose
// concurrency steps the caller already has.
func (sc runScope) summarize(snap *recorder.Snapshot, steps []recorder.Step) recorder.Summary {
	if snap == nil {
		return recorder.Summary{}
	}
	if sc.whole {
		sum := summarize(snap, steps)
		if len(snap.Runs) > 1 {
			perRunVerdicts(snap, &sum)
		}
		return sum
	}
	return recorder.Summarize(snap.Segment(sc.run))
}

// perRunVerdicts gives the whole session's summary one verdict per run,
// a line each ("Run 1 · fanout · serial: serialized: …"): one verdict of
// the session would judge two separate runs as one. The verdict word is
// the runs' when they agree, none when they differ.
func perRunVerdicts(snap *recorder.Snapshot, sum *recorder.Summary) {
	lines := make([]string, 0, len(snap.Runs))
	verdict := ""
	for i, r := range snap.Runs {
		rs := recorder.Summarize(snap.Segment(r))
		text := verdictLine(rs)
		if r.Open() {
			text = "so far, " + text
		}
		lines = append(lines, r.Label()+" — "+text)
		if i == 0 {
			verdict = rs.Verdict
		} else if rs.Verdict != verdict {
			verdict = ""
		}
	}
	sum.Verdict, sum.VerdictText = verdict, strings.Join(lines, "\n")
}

// scopeSnapshot is the part of snap the charts draw for sc: the spans
// and events of its run, at their times in the recording, so that a
// chart's mode (server requests or tool calls) and its axes follow the
// run picked; snap itself for the whole session, or when the run holds
// all of it.
func scopeSnapshot(snap *recorder.Snapshot, sc runScope) *recorder.Snapshot {
	if snap == nil || sc.whole {
		return snap
	}
	in := func(session string, at time.Duration) bool {
		return sc.run.Contains(at) && (len(sc.run.Sessions) == 0 || slices.Contains(sc.run.Sessions, session))
	}
	n, first, last := 0, 0, -1
	for i, s := range snap.Spans {
		if in(s.Session, s.Received) {
			if n == 0 {
				first = i
			}
			n, last = n+1, i
		}
	}
	if n == len(snap.Spans) {
		return snap
	}
	out := *snap
	if last-first+1 == n {
		// one stretch of the recording (a run after the session's
		// initialize, say): shared, not copied
		out.Spans = snap.Spans[first : last+1 : last+1]
	} else {
		out.Spans = make([]*recorder.Span, 0, n)
		for _, s := range snap.Spans {
			if in(s.Session, s.Received) {
				out.Spans = append(out.Spans, s)
			}
		}
	}
	out.Events = nil
	for _, e := range snap.Events {
		if in(e.Session, e.At) {
			out.Events = append(out.Events, e)
		}
	}
	return &out
}

// firstCall returns when the first tool call of the scope's part of snap
// was sent, as an offset from the recording's start.
func firstCall(snap *recorder.Snapshot, sc runScope) (time.Duration, bool) {
	if snap == nil {
		return 0, false
	}
	var first time.Duration
	found := false
	for _, s := range snap.Spans {
		if s.Direction != recorder.Outgoing || s.Kind != recorder.KindTool || s.Parent != 0 || s.Received == recorder.Unset {
			continue
		}
		if !sc.whole && !sc.run.Contains(s.Received) {
			continue
		}
		if !found || s.Received < first {
			first, found = s.Received, true
		}
	}
	return first, found
}

// shifted returns snap with every offset moved by d (later when d > 0).
// What would then start before the recording's start (what came before
// the first tool call of a recording moved earlier) is left out.
func shifted(snap *recorder.Snapshot, d time.Duration) *recorder.Snapshot {
	if d == 0 {
		return snap
	}
	out := *snap
	out.Spans, out.Events, out.Runs = nil, nil, nil
	move := func(t time.Duration) time.Duration {
		if t == recorder.Unset {
			return t
		}
		return t + d
	}
	for _, s := range snap.Spans {
		if s.Received != recorder.Unset && s.Received+d < 0 {
			continue
		}
		c := *s
		c.Received, c.Queued, c.Serving, c.Answered = move(c.Received), move(c.Queued), move(c.Serving), move(c.Answered)
		out.Spans = append(out.Spans, &c)
	}
	for _, e := range snap.Events {
		if e.At+d >= 0 {
			e.At += d
			out.Events = append(out.Events, e)
		}
	}
	for _, r := range snap.Runs {
		if r.Start+d >= 0 {
			r.Start = move(r.Start)
			r.End = move(r.End)
			out.Runs = append(out.Runs, r)
		}
	}
	out.Now = max(snap.Now+d, 0)
	return &out
}

// showRuns lists snap's runs in the run picker, and shows what it chose;
// without runs the picker is hidden.
func (t *TimelineView) showRuns(snap *recorder.Snapshot) {
	if snap == nil || len(snap.Runs) == 0 {
		if t.runPickBox.Visible() {
			t.runPickBox.Hide()
			t.left.Refresh()
		}
		return
	}
	labels := make([]string, 0, len(snap.Runs)+1)
	for _, r := range snap.Runs {
		labels = append(labels, r.Label())
	}
	labels = append(labels, wholeSession)
	t.settingRun = true
	defer func() { t.settingRun = false }()
	if !slices.Equal(labels, t.runLabels) {
		t.runLabels = labels
		t.runPick.SetOptions(labels)
		// as wide as its longest choice, with room for the drop-down icon
		var w float32
		for _, l := range labels {
			w = max(w, fyne.MeasureText(l, theme.TextSize(), fyne.TextStyle{}).Width)
		}
		t.runPickW.SetMinSize(fyne.NewSize(w+theme.IconInlineSize()+4*theme.InnerPadding(), 0))
	}
	chosen := labels[len(labels)-2] // the latest run
	switch p := t.pick.Load(); {
	case p == pickWhole:
		chosen = wholeSession
	case p > 0 && int(p) <= len(snap.Runs):
		chosen = labels[p-1]
	}
	if t.runPick.Selected != chosen {
		t.runPick.SetSelected(chosen)
	}
	if !t.runPickBox.Visible() {
		t.runPickBox.Show()
		t.left.Refresh()
	}
}

// pickRun follows the person's choice in the run picker: the stats,
// verdict and Fit describe that run, or the whole session. Choosing the
// latest run follows each new run from then on.
func (t *TimelineView) pickRun(label string) {
	if t.settingRun {
		return
	}
	i := slices.Index(t.runLabels, label)
	switch {
	case i < 0:
		return
	case label == wholeSession:
		t.pick.Store(pickWhole)
	case i == len(t.runLabels)-2:
		t.pick.Store(pickLatest)
	default:
		t.pick.Store(int64(i + 1))
	}
	if t.snap == nil {
		return
	}
	f := liveFrame{snap: t.snap, raw: t.raw, steps: t.steps, scope: scopeOf(t.snap, t.pick.Load())}
	if f.steps == nil {
		f.steps = recorder.Steps(t.snap)
	}
	f.scopeCharts()
	f.summarized(f.scope.summarize(f.snap, f.steps))
	t.apply(f)
	t.fit()
}

// runPicker returns the choices of the run picker and the one chosen
// ("" while the recording has no runs).
func (t *TimelineView) runPicker() (options []string, chosen string) {
	if !t.runPickBox.Visible() {
		return nil, ""
	}
	return t.runPick.Options, t.runPick.Selected
}

// PickRun chooses label in the run picker, as a person would.
func (t *TimelineView) PickRun(label string) { t.runPick.SetSelected(label) }

// provisional reports whether the verdict shown is of a run still going.
func (t *TimelineView) provisional() bool { return t.stats.Provisional() }
