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

// LatencyInputs are the widgets of one latency model: its distribution and
// its one or two durations (fixed: A; uniform: min A, max B; normal: mean
// A, deviation B; exponential: mean A).
type LatencyInputs struct {
	// Dist chooses the distribution; A and B are its durations.
	Dist *widget.Select
	A, B *widget.Entry
}

// PolicyPanel sets how the inspector answers the server's requests:
// dispatch policy, latency (default and per method), seed, the sampling
// reply, elicitation answers, roots, failure rate and timeout. Every valid
// change is passed to OnChanged at once, so it applies to the next
// request without reconnecting; an invalid one shows what is wrong and
// keeps the last valid answer policy.
type PolicyPanel struct {
	widget.BaseWidget

	// onChanged is called on the main goroutine with each valid change.
	onChanged func(engine.AnswerPolicy)

	// The panel's inputs, exported so tests and scripts can drive the
	// panel as a person would. Overrides holds the per-method latency
	// rows, keyed by method.
	Dispatch *widget.Select
	Slots    *widget.Entry
	// DispatchHint says in a line what the chosen dispatch mode does.
	DispatchHint   *widget.Label
	Latency        *LatencyInputs
	Overrides      map[string]*LatencyInputs // by method
	Seed           *widget.Entry
	SamplingReply  *widget.Entry
	SamplingModel  *widget.Entry
	SamplingManual *widget.Check
	Endpoint       *EndpointInputs // endpointinputs.go
	Elicitation    *widget.Select
	Roots          *widget.Entry
	FailRate       *widget.Entry
	Timeout        *widget.Entry

	problem *widget.Label
	base    engine.AnswerPolicy
	filling bool // SetPolicy is filling the widgets: do not report
	content fyne.CanvasObject
}

// NewPolicyPanel makes the panel, filled from policy.
func NewPolicyPanel(policy engine.AnswerPolicy) *PolicyPanel {
	p := &PolicyPanel{Overrides: map[string]*LatencyInputs{}}
	p.ExtendBaseWidget(p)
	changed := func() { p.changed() }
	onText := func(string) { changed() }

	modes := make([]string, len(dispatchChoices))
	for i, c := range dispatchChoices {
		modes[i] = c.mode
	}
	p.DispatchHint = widget.NewLabel("")
	p.DispatchHint.Wrapping = fyne.TextWrapWord
	p.DispatchHint.SizeName = theme.SizeNameCaptionText
	p.Dispatch = widget.NewSelect(modes, func(v string) {
		p.DispatchHint.SetText(dispatchHint(v))
		if v == string(engine.Bounded) {
			p.Slots.Enable()
		} else {
			p.Slots.Disable()
		}
		changed()
	})
	p.Slots = newEntry("slots, e.g. 4", onText)
	p.Latency = newLatencyInputs(false, changed)
	for _, m := range latencyMethods {
		p.Overrides[m.method] = newLatencyInputs(true, changed)
	}
	p.Seed = newEntry("0", onText)
	p.SamplingReply = widget.NewMultiLineEntry()
	p.SamplingReply.SetMinRowsVisible(2)
	p.SamplingReply.OnChanged = onText
	p.SamplingModel = newEntry("model name", onText)
	p.SamplingManual = widget.NewCheck("Answer sampling by hand", func(bool) { changed() })
	p.Endpoint = newEndpointInputs(changed)
	p.Elicitation = widget.NewSelect([]string{string(engine.ElicitAccept), string(engine.ElicitDecline), string(engine.ElicitCancel), string(engine.ElicitManual)}, func(string) { changed() })
	p.Roots = widget.NewMultiLineEntry()
	p.Roots.SetMinRowsVisible(2)
	p.Roots.PlaceHolder = "one URI a line, e.g. file:///tmp"
	p.Roots.OnChanged = onText
	p.FailRate = newEntry("0, 0.1 or 10%", onText)
	p.Timeout = newEntry("none, or e.g. 5s", onText)
	p.problem = widget.NewLabel("")
	p.problem.Importance = widget.DangerImportance
	p.problem.Wrapping = fyne.TextWrapWord
	p.problem.Hide()

	hint := widget.NewLabel("fixed: time · uniform: min and max · normal: mean and deviation · exponential: mean")
	hint.Wrapping = fyne.TextWrapWord
	hint.SizeName = theme.SizeNameCaptionText
	row := func(in *LatencyInputs) fyne.CanvasObject {
		return container.NewBorder(nil, nil, in.Dist, nil, container.New(layout.NewGridLayout(2), in.A, in.B))
	}
	latency := container.NewVBox(hint, widget.NewLabel("Every request"), row(p.Latency))
	for _, m := range latencyMethods {
		latency.Add(widget.NewLabel(m.label))
		latency.Add(row(p.Overrides[m.method]))
	}
	items := []*widget.FormItem{
		widget.NewFormItem("Dispatch", container.NewVBox(container.NewGridWithColumns(2, p.Dispatch, p.Slots), p.DispatchHint)),
		widget.NewFormItem("Seed", p.Seed),
		widget.NewFormItem("Sampling reply", p.SamplingReply),
		widget.NewFormItem("Model", p.SamplingModel),
		widget.NewFormItem("", p.SamplingManual),
	}
	items = append(items, p.Endpoint.formItems()...)
	failRate := widget.NewFormItem("Failure rate", p.FailRate)
	timeout := widget.NewFormItem("Timeout", p.Timeout)
	form := widget.NewForm(append(items,
		widget.NewFormItem("Elicitation", p.Elicitation),
		widget.NewFormItem("Roots", p.Roots),
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
	p.SetPolicy(policy)
	return p
}

// CreateRenderer implements [fyne.Widget].
func (p *PolicyPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// Problem returns what is wrong with the panel's input, or "".
func (p *PolicyPanel) Problem() string {
	if !p.problem.Visible() {
		return ""
	}
	return p.problem.Text
}

// SetPolicy fills the widgets from policy without calling OnChanged.
func (p *PolicyPanel) SetPolicy(policy engine.AnswerPolicy) {
	p.filling = true
	defer func() { p.filling = false }()
	p.base = policy
	mode := policy.Dispatch.Mode
	if mode == "" {
		mode = engine.Concurrent
	}
	p.Dispatch.SetSelected(string(mode))
	if policy.Dispatch.Limit > 0 {
		p.Slots.SetText(strconv.Itoa(policy.Dispatch.Limit))
	} else {
		p.Slots.SetText("4")
	}
	p.Latency.set(policy.Latency, true)
	for _, m := range latencyMethods {
		lm, ok := policy.MethodLatency[m.method]
		p.Overrides[m.method].set(lm, ok)
	}
	p.Seed.SetText(strconv.FormatInt(policy.Seed, 10))
	p.SamplingReply.SetText(policy.SamplingReply)
	p.SamplingModel.SetText(policy.SamplingModel)
	p.SamplingManual.SetChecked(policy.SamplingManual)
	p.Endpoint.set(policy.SamplingEndpoint)
	el := policy.Elicitation
	if el == "" {
		el = engine.ElicitAccept
	}
	p.Elicitation.SetSelected(string(el))
	p.Roots.SetText(strings.Join(policy.Roots, "\n"))
	p.FailRate.SetText(strconv.FormatFloat(policy.FailRate, 'f', -1, 64))
	if policy.RequestTimeout > 0 {
		p.Timeout.SetText(policy.RequestTimeout.String())
	} else {
		p.Timeout.SetText("")
	}
	p.problem.Hide()
}

// Policy reads the answer policy the widgets set. The error says what to fix.
func (p *PolicyPanel) Policy() (engine.AnswerPolicy, error) {
	policy := p.base
	var err error
	if mode := p.Dispatch.Selected; mode == string(engine.Bounded) {
		n, err := strconv.Atoi(strings.TrimSpace(p.Slots.Text))
		if err != nil {
			return policy, fmt.Errorf("bounded dispatch: slots must be a whole number of at least 1, not %q", p.Slots.Text)
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
	if policy.Latency, _, err = p.Latency.model("default latency"); err != nil {
		return policy, err
	}
	policy.MethodLatency = nil
	for _, m := range latencyMethods {
		lm, set, err := p.Overrides[m.method].model(m.label + " latency")
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
		if _, shown := p.Overrides[method]; !shown {
			if policy.MethodLatency == nil {
				policy.MethodLatency = map[string]engine.LatencyModel{}
			}
			policy.MethodLatency[method] = lm
		}
	}
	if s := strings.TrimSpace(p.Seed.Text); s != "" {
		if policy.Seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			return policy, fmt.Errorf("seed: %q is not a whole number", s)
		}
	} else {
		policy.Seed = 0
	}
	policy.SamplingReply = p.SamplingReply.Text
	policy.SamplingModel = strings.TrimSpace(p.SamplingModel.Text)
	policy.SamplingManual = p.SamplingManual.Checked
	if policy.SamplingEndpoint, err = p.Endpoint.endpoint(); err != nil {
		return policy, err
	}
	policy.Elicitation = engine.ElicitationMode(p.Elicitation.Selected)
	policy.Roots = nil
	for _, line := range strings.Split(p.Roots.Text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			policy.Roots = append(policy.Roots, line)
		}
	}
	if policy.FailRate, err = parseRate(p.FailRate.Text); err != nil {
		return policy, err
	}
	if policy.RequestTimeout, err = parseOptionalDuration("timeout", p.Timeout.Text); err != nil {
		return policy, err
	}
	if err := policy.Validate(); err != nil {
		return policy, err
	}
	return policy, nil
}

// changed reports a valid change, or shows the problem.
func (p *PolicyPanel) changed() {
	if p.filling {
		return
	}
	policy, err := p.Policy()
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
func newLatencyInputs(override bool, changed func()) *LatencyInputs {
	in := &LatencyInputs{}
	var opts []string
	if override {
		opts = append(opts, sameAsDefault)
	}
	for _, d := range distChoices {
		opts = append(opts, d.label)
	}
	in.A = newEntry("e.g. 500ms", func(string) { changed() })
	in.B = newEntry("", func(string) { changed() })
	in.Dist = widget.NewSelect(opts, func(string) {
		in.showFor()
		changed()
	})
	return in
}

// showFor enables the duration entries the distribution uses.
func (in *LatencyInputs) showFor() {
	switch in.Dist.Selected {
	case sameAsDefault:
		in.A.Disable()
		in.B.Disable()
		in.B.SetPlaceHolder("")
	case "uniform":
		in.A.Enable()
		in.B.Enable()
		in.B.SetPlaceHolder("max, e.g. 800ms")
	case "normal":
		in.A.Enable()
		in.B.Enable()
		in.B.SetPlaceHolder("deviation, e.g. 100ms")
	default:
		in.A.Enable()
		in.B.Disable()
		in.B.SetPlaceHolder("")
	}
}

// set fills the inputs from m; set false selects "as default".
func (in *LatencyInputs) set(m engine.LatencyModel, set bool) {
	if !set {
		in.Dist.SetSelected(sameAsDefault)
		in.A.SetText("")
		in.B.SetText("")
		in.showFor()
		return
	}
	label := "fixed"
	for _, d := range distChoices {
		if d.dist == m.Dist {
			label = d.label
		}
	}
	in.Dist.SetSelected(label)
	in.A.SetText(durationText(m.A))
	if m.Dist == engine.Uniform || m.Dist == engine.Normal {
		in.B.SetText(durationText(m.B))
	} else {
		in.B.SetText("")
	}
	in.showFor()
}

// model reads the inputs; set is false for "as default".
func (in *LatencyInputs) model(what string) (m engine.LatencyModel, set bool, err error) {
	if in.Dist.Selected == sameAsDefault {
		return m, false, nil
	}
	for _, d := range distChoices {
		if d.label == in.Dist.Selected {
			m.Dist = d.dist
		}
	}
	if m.Dist == "" {
		m.Dist = engine.Fixed
	}
	if m.A, err = parseDuration(what, in.A.Text); err != nil {
		return m, true, err
	}
	if m.Dist == engine.Uniform || m.Dist == engine.Normal {
		if m.B, err = parseDuration(what, in.B.Text); err != nil {
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
