package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
)

// The sources of sampling answers the policy panel offers.
const (
	samplingFromReply    = "reply template"
	samplingFromEndpoint = "model endpoint"
)

// endpointInputs choose where sampling answers come from (the reply
// template, or a model behind an OpenAI-compatible chat-completions API)
// and describe that API: its base URL, the model, the name of the
// environment variable holding its key — never the key itself, which
// stays in the environment — and the time a call may take.
type endpointInputs struct {
	from    *widget.Select
	url     *widget.Entry
	model   *widget.Entry
	keyEnv  *widget.Entry
	timeout *widget.Entry
	hint    *widget.Label
}

func newEndpointInputs(changed func()) *endpointInputs {
	in := &endpointInputs{}
	onText := func(string) { changed() }
	in.url = newEntry("http://127.0.0.1:11434/v1", onText)
	in.model = newEntry("model name, or the request's hint", onText)
	in.keyEnv = newEntry(engine.DefaultEndpointKeyEnv, onText)
	in.timeout = newEntry(engine.DefaultEndpointTimeout.String(), onText)
	in.hint = widget.NewLabel("")
	in.hint.Wrapping = fyne.TextWrapWord
	in.hint.SizeName = theme.SizeNameCaptionText
	in.from = widget.NewSelect([]string{samplingFromReply, samplingFromEndpoint}, func(string) {
		in.showFor()
		changed()
	})
	return in
}

// formItems are the inputs' rows of the policy panel's form.
func (in *endpointInputs) formItems() []*widget.FormItem {
	url := widget.NewFormItem("Endpoint", in.url)
	url.HintText = "base URL; /chat/completions is appended"
	model := widget.NewFormItem("Model asked", in.model)
	key := widget.NewFormItem("Key variable", in.keyEnv)
	key.HintText = "the key stays in the environment"
	timeout := widget.NewFormItem("Call timeout", in.timeout)
	return []*widget.FormItem{widget.NewFormItem("Sampling from", container.NewVBox(in.from, in.hint)), url, model, key, timeout}
}

// showFor enables the endpoint's inputs when sampling comes from it.
func (in *endpointInputs) showFor() {
	for _, e := range []*widget.Entry{in.url, in.model, in.keyEnv, in.timeout} {
		if in.from.Selected == samplingFromEndpoint {
			e.Enable()
		} else {
			e.Disable()
		}
	}
	if in.from.Selected == samplingFromEndpoint {
		in.hint.SetText("each sampling request goes to an OpenAI-compatible chat-completions API, under the dispatch and latency above")
	} else {
		in.hint.SetText("the reply template answers")
	}
}

// set fills the inputs from e.
func (in *endpointInputs) set(e engine.SamplingEndpoint) {
	from := samplingFromReply
	if e.Enabled() {
		from = samplingFromEndpoint
	}
	in.from.SetSelected(from)
	in.url.SetText(e.URL)
	in.model.SetText(e.Model)
	keyEnv := e.KeyEnv
	if !e.Enabled() && keyEnv == "" {
		keyEnv = engine.DefaultEndpointKeyEnv
	}
	in.keyEnv.SetText(keyEnv)
	if e.Timeout > 0 {
		in.timeout.SetText(e.Timeout.String())
	} else {
		in.timeout.SetText("")
	}
	in.showFor()
}

// endpoint reads the inputs: the zero endpoint when sampling comes from
// the reply template.
func (in *endpointInputs) endpoint() (engine.SamplingEndpoint, error) {
	if in.from.Selected != samplingFromEndpoint {
		return engine.SamplingEndpoint{}, nil
	}
	e := engine.SamplingEndpoint{
		URL:    strings.TrimSpace(in.url.Text),
		Model:  strings.TrimSpace(in.model.Text),
		KeyEnv: strings.TrimSpace(in.keyEnv.Text),
	}
	if e.URL == "" {
		return e, fmt.Errorf("sampling endpoint: give the API's base URL, as in http://127.0.0.1:11434/v1")
	}
	var err error
	if e.Timeout, err = parseOptionalDuration("endpoint timeout", in.timeout.Text); err != nil {
		return e, err
	}
	return e, nil
}
