package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
)

// FirstRunLatency is the latency the desktop app answers with when the
// command line names none: long enough that serial and concurrent
// dispatch look and measure different at a glance (the README's 500 ms
// demo). `inspector run` keeps its own default of 0.
var FirstRunLatency = engine.LatencyModel{Dist: engine.Fixed, A: 500 * time.Millisecond}

// The methods whose latency can be set apart from the default, with the
// names the panel shows for them.
var latencyMethods = []struct{ method, label string }{
	{"sampling/createMessage", "Sampling"},
	{"elicitation/create", "Elicitation"},
	{"roots/list", "Roots"},
}

// dispatchChoices are the dispatch modes the panel offers, with the hint
// shown under the choice. "inline" is named by its text: the engine reads
// it with [engine.ParseDispatch], and says so if it does not know it.
var dispatchChoices = []struct{ mode, hint string }{
	{string(engine.Concurrent), "every request served at once"},
	{string(engine.Serial), "one at a time; the client keeps reading, later requests wait visibly in the queue"},
	{string(engine.Bounded), "at most this many at once, first in first out"},
	{"inline", "a client whose receive loop awaits each request: nothing else is read while one is served"},
}

// dispatchHint returns the hint of dispatch mode m, or "".
func dispatchHint(m string) string {
	for _, c := range dispatchChoices {
		if c.mode == m {
			return c.hint
		}
	}
	return ""
}

// sameAsDefault is the distribution choice of an override row that
// follows the default latency.
const sameAsDefault = "as default"

// distChoices are the latency distributions as the panel names them.
var distChoices = []struct {
	dist  engine.Distribution
	label string
}{
	{engine.Fixed, "fixed"},
	{engine.Uniform, "uniform"},
	{engine.Normal, "normal"},
	{engine.Exponential, "exponential"},
}

// latencyInputs are the widgets of one latency model: its distribution and
// its one or two durations (fixed: A; uniform: min A, max B; normal: mean
// A, deviation B; exponential: mean A).
type latencyInputs struct {
	// dist chooses the distribution; a and b are its durations.
	dist *widget.Select
	a, b *widget.Entry
}

// policyPanel sets how the inspector answers the server's requests:
// dispatch policy, latency (default and per method), seed, the sampling
// reply, elicitation answers, roots, failure rate and timeout. Every valid
// change is passed to onChanged at once, so it applies to the next
// request without reconnecting; an invalid one shows what is wrong and
// keeps the last valid answer policy.
type policyPanel struct {
	widget.BaseWidget

	// onChanged is called on the main goroutine with each valid change.
	onChanged func(engine.AnswerPolicy)

	// The panel's inputs, exported so tests and scripts can drive the
	// panel as a person would. Overrides holds the per-method latency
	// rows, keyed by method.
	dispatch *widget.Select
	slots    *widget.Entry
	// dispatchHint says in a line what the chosen dispatch mode does.
	dispatchHint   *widget.Label
	latency        *latencyInputs
	overrides      map[string]*latencyInputs // by method
	seed           *widget.Entry
	samplingReply  *widget.Entry
	samplingModel  *widget.Entry
	samplingManual *widget.Check
	endpoint       *endpointInputs // endpointinputs.go
	elicitation    *widget.Select
	roots          *widget.Entry
	failRate       *widget.Entry
	timeout        *widget.Entry

	problem *widget.Label
	base    engine.AnswerPolicy
	filling bool // SetPolicy is filling the widgets: do not report
	content fyne.CanvasObject
}

// newPolicyPanel makes the panel, filled from policy.
func newPolicyPanel(policy engine.AnswerPolicy) *policyPanel {
	p := &policyPanel{overrides: map[string]*latencyInputs{}}
	p.ExtendBaseWidget(p)
	changed := func() { p.changed() }
	onText := func(string) { changed() }

	modes := make([]string, len(dispatchChoices))
	for i, c := range dispatchChoices {
		modes[i] = c.mode
	}
	p.dispatchHint = widget.NewLabel("")
	p.dispatchHint.Wrapping = fyne.TextWrapWord
	p.dispatchHint.SizeName = theme.SizeNameCaptionText
	p.dispatch = widget.NewSelect(modes, func(v string) {
		p.dispatchHint.SetText(dispatchHint(v))
		if v == string(engine.Bounded) {
			p.slots.Enable()
		} else {
			p.slots.Disable()
		}
		changed()
	})
	p.slots = newEntry("slots, e.g. 4", onText)
	p.latency = newLatencyInputs(false, changed)
	for _, m := range latencyMethods {
		p.overrides[m.method] = newLatencyInputs(true, changed)
	}
	p.seed = newEntry("0", onText)
	p.samplingReply = widget.NewMultiLineEntry()
	p.samplingReply.SetMinRowsVisible(2)
	p.samplingReply.OnChanged = onText
	p.samplingModel = newEntry("model name", onText)
	p.samplingManual = widget.NewCheck("Answer sampling by hand", func(bool) { changed() })
	p.endpoint = newEndpointInputs(changed)
	p.elicitation = widget.NewSelect([]string{string(engine.ElicitAccept), string(engine.ElicitDecline), string(engine.ElicitCancel), string(engine.ElicitManual)}, func(string) { changed() })
	p.roots = widget.NewMultiLineEntry()
	p.roots.SetMinRowsVisible(2)
	p.roots.PlaceHolder = "one URI a line, e.g. file:///tmp"
	p.roots.OnChanged = onText
	p.failRate = newEntry("0, 0.1 or 10%", onText)
	p.timeout = newEntry("none, or e.g. 5s", onText)
	p.problem = widget.NewLabel("")
	p.problem.Importance = widget.DangerImportance
	p.problem.Wrapping = fyne.TextWrapWord
	p.problem.Hide()

	hint := widget.NewLabel("fixed: time · uniform: min and max · normal: mean and deviation · exponential: mean")
	hint.Wrapping = fyne.TextWrapWord
	hint.SizeName = theme.SizeNameCaptionText
	row := func(in *latencyInputs) fyne.CanvasObject {
		return container.NewBorder(nil, nil, in.dist, nil, container.New(layout.NewGridLayout(2), in.a, in.b))
	}
	latency := container.NewVBox(hint, widget.NewLabel("Every request"), row(p.latency))
	for _, m := range latencyMethods {
		latency.Add(widget.NewLabel(m.label))
		latency.Add(row(p.overrides[m.method]))
	}
	items := []*widget.FormItem{
		widget.NewFormItem("Dispatch", container.NewVBox(container.NewGridWithColumns(2, p.dispatch, p.slots), p.dispatchHint)),
		widget.NewFormItem("Seed", p.seed),
		widget.NewFormItem("Sampling reply", p.samplingReply),
		widget.NewFormItem("Model", p.samplingModel),
		widget.NewFormItem("", p.samplingManual),
	}
	items = append(items, p.endpoint.formItems()...)
	failRate := widget.NewFormItem("Failure rate", p.failRate)
	timeout := widget.NewFormItem("Timeout", p.timeout)
	form := widget.NewForm(append(items,
		widget.NewFormItem("Elicitation", p.elicitation),
		widget.NewFormItem("Roots", p.roots),
		failRate,
		timeout,
	)...)
	form.Items[2].HintText = "sees {{.Index}} {{.LastUserMessage}} {{.Model}}"
	failRate.HintText = "share of requests answered with an error"
	timeout.HintText = "unanswered this long: an error"
	p.content = container.NewVBox(
		wrapped(widget.NewRichTextFromMarkdown("Changes apply to the **next request**, without reconnecting.")),
		form,
		widget.NewSeparator(),
		boldLabel("Latency"),
		latency,
		p.problem,
	)
	p.setPolicy(policy)
	return p
}

// CreateRenderer implements [fyne.Widget].
func (p *policyPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// Problem returns what is wrong with the panel's input, or "".
func (p *policyPanel) Problem() string {
	if !p.problem.Visible() {
		return ""
	}
	return p.problem.Text
}

// setPolicy fills the widgets from policy without calling onChanged.
func (p *policyPanel) setPolicy(policy engine.AnswerPolicy) {
	p.filling = true
	defer func() { p.filling = false }()
	p.base = policy
	mode := policy.Dispatch.Mode
	if mode == "" {
		mode = engine.Concurrent
	}
	p.dispatch.SetSelected(string(mode))
	if policy.Dispatch.Limit > 0 {
		p.slots.SetText(strconv.Itoa(policy.Dispatch.Limit))
	} else {
		p.slots.SetText("4")
	}
	p.latency.set(policy.Latency, true)
	for _, m := range latencyMethods {
		lm, ok := policy.MethodLatency[m.method]
		p.overrides[m.method].set(lm, ok)
	}
	p.seed.SetText(strconv.FormatInt(policy.Seed, 10))
	p.samplingReply.SetText(policy.SamplingReply)
	p.samplingModel.SetText(policy.SamplingModel)
	p.samplingManual.SetChecked(policy.SamplingManual)
	p.endpoint.set(policy.SamplingEndpoint)
	el := policy.Elicitation
	if el == "" {
		el = engine.ElicitAccept
	}
	p.elicitation.SetSelected(string(el))
	p.roots.SetText(strings.Join(policy.Roots, "\n"))
	p.failRate.SetText(strconv.FormatFloat(policy.FailRate, 'f', -1, 64))
	if policy.RequestTimeout > 0 {
		p.timeout.SetText(policy.RequestTimeout.String())
	} else {
		p.timeout.SetText("")
	}
	p.problem.Hide()
}

// policy reads the answer policy the widgets set. The error says what to fix.
func (p *policyPanel) policy() (engine.AnswerPolicy, error) {
	policy := p.base
	var err error
	if mode := p.dispatch.Selected; mode == string(engine.Bounded) {
		n, err := strconv.Atoi(strings.TrimSpace(p.slots.Text))
		if err != nil {
			return policy, fmt.Errorf("bounded dispatch: slots must be a whole number of at least 1, not %q", p.slots.Text)
		}
		policy.Dispatch = engine.DispatchPolicy{Mode: engine.Bounded, Limit: n}
		if err := policy.Dispatch.Validate(); err != nil {
			return policy, err
		}
	} else if policy.Dispatch, err = engine.ParseDispatch(mode); err != nil {
		// the engine reads the other modes by name, so a mode it does
		// not know (yet) is its error, shown like any other
		return policy, err
	}
	if policy.Latency, _, err = p.latency.model("default latency"); err != nil {
		return policy, err
	}
	policy.MethodLatency = nil
	for _, m := range latencyMethods {
		lm, set, err := p.overrides[m.method].model(m.label + " latency")
		if err != nil {
			return policy, err
		}
		if set {
			if policy.MethodLatency == nil {
				policy.MethodLatency = map[string]engine.LatencyModel{}
			}
			policy.MethodLatency[m.method] = lm
		}
	}
	// Keep overrides of other methods (ping) that the panel does not show.
	for method, lm := range p.base.MethodLatency {
		if _, shown := p.overrides[method]; !shown {
			if policy.MethodLatency == nil {
				policy.MethodLatency = map[string]engine.LatencyModel{}
			}
			policy.MethodLatency[method] = lm
		}
	}
	if s := strings.TrimSpace(p.seed.Text); s != "" {
		if policy.Seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			return policy, fmt.Errorf("seed: %q is not a whole number", s)
		}
	} else {
		policy.Seed = 0
	}
	policy.SamplingReply = p.samplingReply.Text
	policy.SamplingModel = strings.TrimSpace(p.samplingModel.Text)
	policy.SamplingManual = p.samplingManual.Checked
	if policy.SamplingEndpoint, err = p.endpoint.endpoint(); err != nil {
		return policy, err
	}
	policy.Elicitation = engine.ElicitationMode(p.elicitation.Selected)
	policy.Roots = nil
	for _, line := range strings.Split(p.roots.Text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			policy.Roots = append(policy.Roots, line)
		}
	}
	if policy.FailRate, err = parseRate(p.failRate.Text); err != nil {
		return policy, err
	}
	if policy.RequestTimeout, err = parseOptionalDuration("timeout", p.timeout.Text); err != nil {
		return policy, err
	}
	if err := policy.Validate(); err != nil {
		return policy, err
	}
	return policy, nil
}

// changed reports a valid change, or shows the problem.
func (p *policyPanel) changed() {
	if p.filling {
		return
	}
	policy, err := p.policy()
	if err != nil {
		p.problem.SetText(err.Error())
		p.problem.Show()
		return
	}
	p.problem.Hide()
	p.base = policy
	if p.onChanged != nil {
		p.onChanged(policy)
	}
}

// newLatencyInputs makes the inputs of one latency model; an override row
// can follow the default.
func newLatencyInputs(override bool, changed func()) *latencyInputs {
	in := &latencyInputs{}
	var opts []string
	if override {
		opts = append(opts, sameAsDefault)
	}
	for _, d := range distChoices {
		opts = append(opts, d.label)
	}
	in.a = newEntry("e.g. 500ms", func(string) { changed() })
	in.b = newEntry("", func(string) { changed() })
	in.dist = widget.NewSelect(opts, func(string) {
		in.showFor()
		changed()
	})
	return in
}

// showFor enables the duration entries the distribution uses.
func (in *latencyInputs) showFor() {
	switch in.dist.Selected {
	case sameAsDefault:
		in.a.Disable()
		in.b.Disable()
		in.b.SetPlaceHolder("")
	case "uniform":
		in.a.Enable()
		in.b.Enable()
		in.b.SetPlaceHolder("max, e.g. 800ms")
	case "normal":
		in.a.Enable()
		in.b.Enable()
		in.b.SetPlaceHolder("deviation, e.g. 100ms")
	default:
		in.a.Enable()
		in.b.Disable()
		in.b.SetPlaceHolder("")
	}
}

// set fills the inputs from m; set false selects "as default".
func (in *latencyInputs) set(m engine.LatencyModel, set bool) {
	if !set {
		in.dist.SetSelected(sameAsDefault)
		in.a.SetText("")
		in.b.SetText("")
		in.showFor()
		return
	}
	label := "fixed"
	for _, d := range distChoices {
		if d.dist == m.Dist {
			label = d.label
		}
	}
	in.dist.SetSelected(label)
	in.a.SetText(durationText(m.A))
	if m.Dist == engine.Uniform || m.Dist == engine.Normal {
		in.b.SetText(durationText(m.B))
	} else {
		in.b.SetText("")
	}
	in.showFor()
}

// model reads the inputs; set is false for "as default".
func (in *latencyInputs) model(what string) (m engine.LatencyModel, set bool, err error) {
	if in.dist.Selected == sameAsDefault {
		return m, false, nil
	}
	for _, d := range distChoices {
		if d.label == in.dist.Selected {
			m.Dist = d.dist
		}
	}
	if m.Dist == "" {
		m.Dist = engine.Fixed
	}
	if m.A, err = parseDuration(what, in.a.Text); err != nil {
		return m, true, err
	}
	if m.Dist == engine.Uniform || m.Dist == engine.Normal {
		if m.B, err = parseDuration(what, in.b.Text); err != nil {
			return m, true, err
		}
		if m.Dist == engine.Uniform && m.B < m.A {
			return m, true, fmt.Errorf("%s: the maximum %v is below the minimum %v", what, m.B, m.A)
		}
	}
	return m, true, nil
}

// parseDuration reads a duration as a person types it: "500ms", "1.5s",
// or a bare number of milliseconds ("300"); empty is 0.
func parseDuration(what, s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if ms, err := strconv.ParseFloat(s, 64); err == nil {
		if ms < 0 {
			return 0, fmt.Errorf("%s: %q is negative", what, s)
		}
		return time.Duration(ms * float64(time.Millisecond)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a duration; write it like 500ms or 1.5s", what, s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s: %q is negative", what, s)
	}
	return d, nil
}

// parseOptionalDuration is parseDuration where "none" also means 0.
func parseOptionalDuration(what, s string) (time.Duration, error) {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		return 0, nil
	}
	return parseDuration(what, s)
}

// parseRate reads a failure rate: a fraction 0..1 or a percentage.
func parseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	pct := strings.HasSuffix(s, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("failure rate: %q is not a number; write 0.1 or 10%%", s)
	}
	if pct {
		f /= 100
	}
	if f < 0 || f > 1 {
		return 0, fmt.Errorf("failure rate: %q is outside 0..1 (0%%..100%%)", s)
	}
	return f, nil
}

// durationText writes a duration the way parseDuration reads it.
func durationText(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// newEntry makes a one-line entry with a placeholder and change handler.
func newEntry(placeholder string, onChanged func(string)) *widget.Entry {
	e := widget.NewEntry()
	e.PlaceHolder = placeholder
	e.OnChanged = onChanged
	return e
}

// wrapped makes rich text wrap at word boundaries, so it does not widen
// the column it is in.
func wrapped(rt *widget.RichText) *widget.RichText {
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// boldLabel is a label in bold.
func boldLabel(text string) *widget.Label {
	return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}
