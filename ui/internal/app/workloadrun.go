package app

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/ui/internal/timeline"
)

// How a run goes in the Workload panel: Run and Stop, the progress bar
// and the counts line, how the run ended, and why Run is off.

// progressEvery is how often, at most, the progress bar and the counts
// line are redrawn as calls finish: as often as the timeline's live
// texts, as each redraw repaints the window and measures the wrapped
// counts line again.
const progressEvery = timeline.LiveTextEvery

// setRunning switches the buttons between a run going on and not.
func (p *workloadPanel) setRunning(on bool) {
	p.running = on
	if on {
		p.runButton.Disable()
		p.stopButton.Enable()
		p.started = time.Now()
		p.last = load.Progress{}
		p.progress.SetValue(0)
		p.showProgress()
		// The elapsed time moves on even while no call finishes.
		p.ticker.start(200*time.Millisecond, func() {
			p.handing.Lock()
			defer p.handing.Unlock()
			if !p.stopped && p.running {
				p.showProgress()
			}
		})
		return
	}
	p.runButton.Enable()
	p.stopButton.Disable()
	p.ticker.halt()
}

// Running reports whether the panel shows a run going on.
func (p *workloadPanel) Running() bool { return p.running }

// reportProgress takes a run's progress from any goroutine; the bar is
// redrawn at most every 50 ms.
func (p *workloadPanel) reportProgress(pr load.Progress) {
	p.mu.Lock()
	p.latest = pr
	if p.scheduled {
		p.mu.Unlock()
		return
	}
	p.scheduled = true
	p.mu.Unlock()
	time.AfterFunc(progressEvery, func() {
		p.mu.Lock()
		pr := p.latest
		p.scheduled = false
		p.mu.Unlock()
		fyne.Do(func() {
			p.handing.Lock()
			defer p.handing.Unlock()
			if !p.stopped && p.running {
				p.last = pr
				p.showProgress()
			}
		})
	})
}

// Stop makes progress reported from now on leave the widgets alone, and
// waits for a report being shown to finish: for the window's shutdown,
// which may run after Fyne's main loop has ended.
func (p *workloadPanel) Stop() {
	p.handing.Lock()
	p.stopped = true
	p.handing.Unlock()
}

// setResult shows how a run ended, e (from [workloadPanel.endRun], then
// completed), and re-enables Run; stopped says the person pressed Stop
// (so the cancelled calls are not news).
func (p *workloadPanel) setResult(e *endedRun, res load.RunResult, err error, stopped bool) {
	p.setRunning(false)
	done := res.OK + res.Failed
	p.last = load.Progress{Total: res.Total, Done: done, OK: res.OK, Failed: res.Failed, Elapsed: res.Elapsed}
	if res.Total > 0 {
		p.progress.SetValue(float64(done) / float64(res.Total))
	}
	var text string
	switch {
	case stopped:
		text = fmt.Sprintf("Stopped after %s: %d of %d calls had finished ok; the rest were cancelled.",
			time.Since(p.started).Round(100*time.Millisecond), res.OK, res.Total)
	case err != nil:
		text = fmt.Sprintf("Ended after %d of %d calls (%d ok, %d failed): %v", done, res.Total, res.OK, res.Failed, err)
	default:
		text = fmt.Sprintf("Done: %d of %d calls ok, %d failed, in %s.", res.OK, res.Total, res.Failed, res.Elapsed.Round(time.Millisecond))
	}
	if !stopped {
		for i, e := range res.Errors {
			if i == 3 {
				text += fmt.Sprintf("\n… and %d more errors", len(res.Errors)-3)
				break
			}
			text += "\n• " + e
		}
	}
	p.status.SetText(text)
	p.runEnded(e, res, err, stopped)
	p.showOperations(res.Operations)
}

// Status returns the progress or result line as shown.
func (p *workloadPanel) Status() string { return p.status.Text }

// proxyNoRun says why the Workload panel is off while the window hosts
// the proxy.
const proxyNoRun = "The inspector is hosting the proxy: your client makes the calls and answers the server, so there is nothing to run here. Stop the proxy (Server panel) to run a workload."

// followNoRun says why the Workload panel is off while the window
// follows a journal and has no connection of its own.
const followNoRun = "The window is following a journal: another process makes its runs, so there is nothing to run here. Connect in the Server panel to run a workload of your own."

// setProxying turns Run off (on) with a note saying why, or back on.
func (p *workloadPanel) setProxying(on bool) {
	if on {
		p.setRunOff(proxyNoRun)
		return
	}
	p.setRunOff("")
}

// setRunOff turns Run off with a note saying why, or ("") back on.
func (p *workloadPanel) setRunOff(why string) {
	p.showProblem(why)
	switch {
	case why != "":
		p.runButton.Disable()
	case !p.running:
		p.runButton.Enable()
	}
}

// showProblem shows why a run could not start ("" hides it).
func (p *workloadPanel) showProblem(text string) {
	p.problem.SetText(text)
	p.problem.Hidden = text == ""
	p.problem.Refresh()
}

// showProgress draws the bar and the counts line.
func (p *workloadPanel) showProgress() {
	pr := p.last
	if pr.Total > 0 {
		p.progress.SetValue(float64(pr.Done) / float64(pr.Total))
	}
	done := fmt.Sprintf("%d calls done", pr.Done)
	if total := max(pr.Total, p.want.Calls); total > 0 {
		done = fmt.Sprintf("%d of %d calls done", pr.Done, total)
	}
	if pr.Dropped > 0 {
		done += fmt.Sprintf(", %d dropped", pr.Dropped)
	}
	p.status.SetText(fmt.Sprintf("Running: %s (%d ok, %d failed), %s elapsed",
		done, pr.OK, pr.Failed, time.Since(p.started).Round(100*time.Millisecond)))
}
