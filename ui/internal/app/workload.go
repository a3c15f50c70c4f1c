package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// workloadPanel chooses what to run: one of the server's tools, its
// arguments (a form generated from the tool's input schema, or raw JSON),
// how many calls and how many at once, and a per-call timeout. Run and
// Stop start and cancel the run; next to them a toggle switches the
// dispatch between concurrent and serial, so the two are one click apart,
// and a line says how the server's requests will be answered. A progress
// bar shows the counts and the elapsed time.
type workloadPanel struct {
	widget.BaseWidget

	// onRun is called when the person asks for a run with a valid workload.
	onRun func(load.Workload)
	// onStop is called when the person stops the run.
	onStop func()
	// onRefresh is called when the person asks for the tool list again.
	onRefresh func()
	// onDispatch is called when the person picks a dispatch mode with
	// the toggle next to Run.
	onDispatch func(mode string)
	// onPolicy is called by a history row's Run again with the
	// answering the run had, before it runs.
	onPolicy func(engine.AnswerPolicy)
	// onCompare is called by a history row's Compare with that run's
	// spans, offsets counted from its start.
	onCompare func(*recorder.Snapshot)

	// The panel's inputs, buttons and progress bar, exported so tests and
	// scripts can drive the panel as a person would.
	tool        *widget.Select
	rawJSON     *widget.Check
	raw         *widget.Entry
	calls       *widget.Entry
	concurrency *widget.Entry
	timeout     *widget.Entry
	// Duration, when set, replaces Calls: keep calling that long. Rate,
	// when set, makes the run an open loop: that many calls started per
	// second for Duration, whatever the answers do.
	duration     *widget.Entry
	rate         *widget.Entry
	runButton    *widget.Button
	stopButton   *widget.Button
	refreshTools *widget.Button
	progress     *widget.ProgressBar
	// dispatch is the toggle next to Run: concurrent or serial (neither
	// is chosen while the Callbacks panel says bounded or inline).
	dispatch *widget.RadioGroup
	// sessions, stages, stagesRamp and maxInFlight: workloadshape.go.
	loadShapeInputs
	// the mix of operations (workloadmix.go) and the workload file
	// (workloadfiles.go).
	mixInputs
	workloadFileInputs
	// opsTable and opsChecks show a mix run's operations
	// (workloadresult.go); lastOps are they.
	opsTable  *widget.Label
	opsChecks *widget.Label
	lastOps   []recorder.OperationStats
	// answering says how the server's requests will be answered (latency
	// and dispatch), as the Callbacks panel sets it.
	answering *widget.Label
	// copyResult copies the last call's result or error to the clipboard.
	copyResult *widget.Button

	description *widget.Label
	status      *widget.Label
	problem     *widget.Label
	argsBox     *fyne.Container
	form        *SchemaForm
	tools       []engine.Tool
	args        map[string]json.RawMessage // last arguments per tool, kept across tool switches
	want        load.Workload              // preset to apply once its tool is listed
	running     bool
	showing     bool // showPolicy is setting the toggle: do not report
	started     time.Time
	last        load.Progress
	ticker      mainTicker // moves the elapsed time while a run goes on
	content     fyne.CanvasObject

	// The last call's result and the history of runs (history.go).
	results  *widget.Accordion
	runRow   *fyne.Container   // Run and Stop
	scroller *container.Scroll // what scrolls under the pinned controls
	below    *fyne.Container   // the scroller's content
	// loadTest folds the load fields (calls, duration, rate, stages …)
	// away until wanted: a first run needs only a tool and Run.
	loadTest   *widget.Accordion
	result     *widget.Label
	resultWhat *widget.Label
	historyBox *fyne.Container
	history    []*historyRow
	current    runRecord           // the run going on, from runStarted
	rec        *recorder.Recording // it records into
	runNo      int                 // its number among rec's runs

	mu        sync.Mutex // guards the fields below, written from engine goroutines
	latest    load.Progress
	scheduled bool

	// handing is held while a progress report is shown, and by Stop;
	// stopped (guarded by handing) says the window is going: once Fyne's
	// main loop has ended, fyne.Do runs the report on the reporting
	// goroutine, beside the window's shutdown. No lock is held across
	// fyne.Do, which may wait for the main loop.
	handing sync.Mutex
	stopped bool
}

// newWorkloadPanel makes an empty panel; [workloadPanel.setTools] fills
// the tool list once connected.
func newWorkloadPanel() *workloadPanel {
	p := &workloadPanel{args: map[string]json.RawMessage{}}
	p.ExtendBaseWidget(p)
	p.tool = widget.NewSelect(nil, func(name string) { p.toolChosen(name) })
	p.tool.PlaceHolder = "(connect to list the tools)"
	p.refreshTools = widget.NewButton("Refresh", func() {
		if p.onRefresh != nil {
			p.onRefresh()
		}
	})
	p.description = widget.NewLabel("")
	p.description.Wrapping = fyne.TextWrapWord
	p.rawJSON = widget.NewCheck("Raw JSON", func(on bool) { p.toggleRaw(on) })
	p.raw = widget.NewMultiLineEntry()
	p.raw.SetMinRowsVisible(5)
	p.raw.PlaceHolder = `{"n": 5}`
	p.raw.TextStyle.Monospace = true
	p.argsBox = container.NewVBox()
	p.calls = newEntry("1", nil)
	p.calls.SetText("1")
	p.concurrency = newEntry("1", nil)
	p.concurrency.SetText("1")
	p.timeout = newEntry("none, or e.g. 30s", nil)
	p.duration = newEntry("none, or e.g. 10s", func(string) { p.showApplies() })
	p.rate = newEntry("none, or calls per second", func(string) { p.showApplies() })
	p.loadShapeInputs = newLoadShapeInputs()
	p.stages.OnChanged = func(string) { p.showApplies() }
	p.stagesRamp.OnChanged = func(string) { p.showApplies() }
	p.runButton = widget.NewButton("Run", func() { p.run() })
	p.runButton.Importance = widget.HighImportance
	p.stopButton = widget.NewButton("Stop", func() {
		if p.onStop != nil {
			p.onStop()
		}
	})
	p.stopButton.Disable()
	p.dispatch = widget.NewRadioGroup([]string{string(engine.Concurrent), string(engine.Serial)}, func(mode string) {
		if mode != "" && !p.showing && p.onDispatch != nil {
			p.onDispatch(mode)
		}
	})
	p.dispatch.Horizontal = true
	p.answering = widget.NewLabel("")
	p.answering.Wrapping = fyne.TextWrapWord
	p.answering.SizeName = theme.SizeNameCaptionText
	p.progress = widget.NewProgressBar()
	p.status = widget.NewLabel("Not run yet.")
	p.status.Wrapping = fyne.TextWrapWord
	p.problem = widget.NewLabel("")
	p.problem.Importance = widget.DangerImportance
	p.problem.Wrapping = fyne.TextWrapWord
	p.problem.Hide()

	form := widget.NewForm(
		widget.NewFormItem("Calls", p.calls),
		widget.NewFormItem("At once", p.concurrency),
		widget.NewFormItem("Call timeout", p.timeout),
		widget.NewFormItem("Duration", p.duration),
		widget.NewFormItem("Rate", p.rate),
		widget.NewFormItem("Max in flight", p.maxInFlight),
		widget.NewFormItem("Stages", container.NewBorder(nil, nil, nil, p.stagesRamp, p.stages)),
		widget.NewFormItem("Sessions", p.sessions),
		p.thresholdsItem(),
	)
	form.Items[1].HintText = "how many calls are in flight together"
	form.Items[3].HintText = "instead of Calls: keep calling this long"
	form.Items[4].HintText = "calls/s for the duration, on schedule"
	form.Items[5].HintText = "with a rate: drop arrivals over it"
	form.Items[6].HintText = "ramp linearly: DURATION:TARGET,..."
	form.Items[7].HintText = "connections to spread the calls over"
	p.runRow = container.NewGridWithColumns(2, p.runButton, p.stopButton)
	p.historyBox = container.NewVBox(widget.NewLabel("The runs made in this window are listed here, newest first."))
	p.results = widget.NewAccordion(
		widget.NewAccordionItem("Result", p.newResultArea()),
		widget.NewAccordionItem("History", p.historyBox),
		widget.NewAccordionItem("Operations", p.newOperationsArea()),
	)
	p.results.MultiOpen = true
	p.results.Open(0)
	p.loadTest = widget.NewAccordion(widget.NewAccordionItem("Load test", form))
	// Tool, dispatch, Run and Stop, and how the run goes are pinned at the
	// top; the tool's arguments, the load test and the results scroll
	// under them, so Run stays where it is whatever is shown below.
	pinned := container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("Tool"), p.refreshTools, p.tool),
		container.NewBorder(nil, nil, widget.NewLabel("Dispatch"), nil, p.dispatch),
		p.answering,
		p.runRow,
		p.progress,
		p.status,
		p.problem,
		widget.NewSeparator(),
	)
	p.below = container.NewVBox(
		p.newFileRow(),
		p.description,
		container.NewBorder(nil, nil, boldLabel("Arguments"), p.rawJSON),
		p.argsBox,
		p.newMixSection(),
		p.loadTest,
		p.results,
	)
	p.scroller = container.NewVScroll(p.below)
	p.content = container.NewBorder(pinned, nil, nil, nil, p.scroller)
	p.showArgs()
	p.showApplies()
	p.watchEdits()
	p.showFile()
	return p
}

// CreateRenderer implements [fyne.Widget].
func (p *workloadPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// setTools shows the server's tools, keeping the chosen one if it is
// still there (or choosing the preset's, or the first).
func (p *workloadPanel) setTools(tools []engine.Tool) {
	p.tools = tools
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		names = append(names, t.Name)
	}
	p.tool.SetOptions(names)
	p.tool.PlaceHolder = "(choose a tool)"
	if len(names) == 0 {
		p.tool.PlaceHolder = "(the server has no tools)"
	}
	p.serverListed()
	choose := p.tool.Selected
	if p.want.Tool != "" && slices.Contains(names, p.want.Tool) {
		choose = p.want.Tool
	}
	if !slices.Contains(names, choose) {
		choose = ""
		if len(names) > 0 {
			choose = names[0]
		}
	}
	if choose == "" {
		p.tool.ClearSelected()
		p.toolChosen("")
		return
	}
	p.tool.SetSelected(choose)
	if choose == p.want.Tool && len(p.want.Args) > 0 {
		p.setArgs(p.want.Args)
	}
}

// setWorkload presets the panel: calls, concurrency and timeout now, the
// tool and its arguments as soon as the tool is listed.
func (p *workloadPanel) setWorkload(w load.Workload) {
	p.want = w
	if w.Tool != "" && len(w.Args) > 0 {
		p.args[w.Tool] = w.Args
	}
	p.calls.SetText(strconv.Itoa(max(w.Calls, 1)))
	p.concurrency.SetText(strconv.Itoa(max(w.Concurrency, 1)))
	if w.CallTimeout > 0 {
		p.timeout.SetText(w.CallTimeout.String())
	} else {
		p.timeout.SetText("")
	}
	p.duration.SetText("")
	if w.Duration > 0 {
		p.duration.SetText(w.Duration.String())
	}
	p.rate.SetText("")
	if w.Rate > 0 {
		p.rate.SetText(strconv.FormatFloat(w.Rate, 'f', -1, 64))
	}
	p.showShape(w)
	p.showApplies()
	if usesLoad(w) {
		p.loadTest.Open(0)
	}
	if len(w.Operations) > 0 || w.Tool != "" {
		p.setOperations(w.Operations) // a mix, or none: the tool
		p.mixSeed = w.Seed
	}
	if slices.ContainsFunc(p.tools, func(t engine.Tool) bool { return t.Name == w.Tool }) {
		p.tool.SetSelected(w.Tool)
		if len(w.Args) > 0 {
			p.setArgs(w.Args)
		}
	}
}

// showPolicy shows how policy answers the server's requests: the dispatch
// toggle and the line under it. It does not call onDispatch.
func (p *workloadPanel) showPolicy(policy engine.AnswerPolicy) {
	p.showing = true
	defer func() { p.showing = false }()
	mode := policy.Dispatch.Mode
	if mode == "" {
		mode = engine.Concurrent
	}
	if mode == engine.Concurrent || mode == engine.Serial {
		p.dispatch.SetSelected(string(mode))
	} else {
		p.dispatch.SetSelected("")
	}
	how := "at once"
	switch mode {
	case engine.Serial:
		how = "one at a time"
	case engine.Bounded:
		how = fmt.Sprintf("at most %d at once", policy.Dispatch.Limit)
	case engine.Inline:
		how = "inline (the client reads nothing else while it serves one)"
	}
	p.answering.SetText(fmt.Sprintf("The server's requests are answered after %s, %s. Change it in Callbacks.", latencyText(policy.Latency), how))
}

// latencyText says a latency model in a few words.
func latencyText(m engine.LatencyModel) string {
	switch m.Dist {
	case engine.Uniform:
		return fmt.Sprintf("%v to %v", m.A, m.B)
	case engine.Normal:
		return fmt.Sprintf("about %v (± %v)", m.A, m.B)
	case engine.Exponential:
		return fmt.Sprintf("%v on average", m.A)
	}
	if m.A == 0 {
		return "no delay"
	}
	return m.A.String()
}

// workload reads the panel. The error says what to fix.
func (p *workloadPanel) workload() (load.Workload, error) {
	var w load.Workload
	var err error
	if len(p.mixRows) > 0 { // the mix, not the tool
		if w.Operations, err = p.operations(); err != nil {
			return w, err
		}
		w.Seed = p.mixSeed
	} else {
		w.Tool = p.tool.Selected
		if w.Tool == "" {
			return w, fmt.Errorf("no tool chosen: connect, then choose a tool in the Workload panel (or add operations to its Mix)")
		}
		if w.Args, err = p.Args(); err != nil {
			return w, err
		}
	}
	if w.Calls, err = positiveInt("calls", p.calls.Text); err != nil {
		return w, err
	}
	if w.Concurrency, err = positiveInt("at once", p.concurrency.Text); err != nil {
		return w, err
	}
	if w.CallTimeout, err = parseOptionalDuration("call timeout", p.timeout.Text); err != nil {
		return w, err
	}
	// A greyed-out field does not apply (see showApplies): it is not read.
	if p.duration.Disabled() {
	} else if w.Duration, err = parseOptionalDuration("duration", p.duration.Text); err != nil {
		return w, err
	}
	if text := strings.TrimSpace(p.rate.Text); !p.rate.Disabled() && text != "" && !strings.EqualFold(text, "none") {
		if w.Rate, err = strconv.ParseFloat(text, 64); err != nil {
			return w, fmt.Errorf("rate: want calls per second, as in 200, not %q", text)
		}
		w.Calls, w.Concurrency = 0, 0 // an open loop: Calls and At once do not apply
	} else if w.Duration > 0 {
		w.Calls = 0 // the duration bounds the run instead
	}
	if err := p.applyShape(&w); err != nil {
		return w, err
	}
	if _, err := p.sessionCount(); err != nil {
		return w, err
	}
	// What goes with what is the workload's to judge, as for the command
	// line: its error is worded with the panel's labels.
	if err := w.Validate(); err != nil {
		var we *load.WorkloadError
		if errors.As(err, &we) {
			return w, errors.New(we.Explain(workloadLabel))
		}
		return w, err
	}
	return w, nil
}

// workloadLabel is the panel's label of a workload field, for
// [load.WorkloadError.Explain].
func workloadLabel(field string) string {
	switch field {
	case "tool":
		return "Tool"
	case "args":
		return "the arguments"
	case "calls":
		return "Calls"
	case "concurrency":
		return "At once"
	case "call_timeout":
		return "Call timeout"
	case "duration":
		return "Duration"
	case "rate":
		return "Rate"
	case "max_in_flight":
		return "Max in flight"
	case "stages", "ramp":
		return "Stages"
	}
	return field
}

// run reads the workload and hands it to onRun.
func (p *workloadPanel) run() {
	w, err := p.workload()
	if err != nil {
		p.showProblem(err.Error())
		return
	}
	p.showProblem("")
	p.want.Calls = w.Calls
	if p.onRun != nil {
		p.onRun(w)
	}
}

// positiveInt reads a whole number of at least 1.
func positiveInt(what, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s: want a whole number of at least 1, not %q", what, s)
	}
	return n, nil
}
