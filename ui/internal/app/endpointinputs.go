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

// EndpointInputs choose where sampling answers come from (the reply
// template, or a model behind an OpenAI-compatible chat-completions API)
// and describe that API: its base URL, the model, the name of the
// environment variable holding its key — never the key itself, which
// stays in the environment — and the time a call may take.
type EndpointInputs struct {
	From    *widget.Select
	URL     *widget.Entry
	Model   *widget.Entry
	KeyEnv  *widget.Entry
	Timeout *widget.Entry
	Hint    *widget.Label
}

func newEndpointInputs(changed func()) *EndpointInputs {
	in := &EndpointInputs{}
	onText := func(string) { changed() }
	in.URL = newEntry("http://127.0.0.1:11434/v1", onText)
	in.Model = newEntry("model name, or the request's hint", onText)
	in.KeyEnv = newEntry(engine.DefaultEndpointKeyEnv, onText)
	in.Timeout = newEntry(engine.DefaultEndpointTimeout.String(), onText)
	in.Hint = widget.NewLabel("")
	in.Hint.Wrapping = fyne.TextWrapWord
	in.Hint.SizeName = theme.SizeNameCaptionText
	in.From = widget.NewSelect([]string{samplingFromReply, samplingFromEndpoint}, func(string) {
		in.showFor()
		changed()
	})
	return in
}

// formItems are the inputs' rows of the policy panel's form.
func (in *EndpointInputs) formItems() []*widget.FormItem {
	url := widget.NewFormItem("Endpoint", in.URL)
	url.HintText = "base URL; /chat/completions is appended"
	model := widget.NewFormItem("Model asked", in.Model)
	key := widget.NewFormItem("Key variable", in.KeyEnv)
	key.HintText = "the key stays in the environment"
	timeout := widget.NewFormItem("Call timeout", in.Timeout)
	return []*widget.FormItem{widget.NewFormItem("Sampling from", container.NewVBox(in.From, in.Hint)), url, model, key, timeout}
}

// showFor enables the endpoint's inputs when sampling comes from it.
func (in *EndpointInputs) showFor() {
	for _, e := range []*widget.Entry{in.URL, in.Model, in.KeyEnv, in.Timeout} {
		if in.From.Selected == samplingFromEndpoint {
			e.Enable()
		} else {
			e.Disable()
		}
	}
	if in.From.Selected == samplingFromEndpoint {
		in.Hint.SetText("each sampling request goes to an OpenAI-compatible chat-completions API, under the dispatch and latency above")
	} else {
		in.Hint.SetText("the reply template answers")
	}
}

// set fills the inputs from e.
func (in *EndpointInputs) set(e engine.SamplingEndpoint) {
	from := samplingFromReply
	if e.Enabled() {
		from = samplingFromEndpoint
	}
	in.From.SetSelected(from)
	in.URL.SetText(e.URL)
	in.Model.SetText(e.Model)
	keyEnv := e.KeyEnv
	if !e.Enabled() && keyEnv == "" {
		keyEnv = engine.DefaultEndpointKeyEnv
	}
	in.KeyEnv.SetText(keyEnv)
	if e.Timeout > 0 {
		in.Timeout.SetText(e.Timeout.String())
	} else {
		in.Timeout.SetText("")
	}
	in.showFor()
}

// endpoint reads the inputs: the zero endpoint when sampling comes from
// the reply template.
func (in *EndpointInputs) endpoint() (engine.SamplingEndpoint, error) {
	if in.From.Selected != samplingFromEndpoint {
		return engine.SamplingEndpoint{}, nil
	}
	e := engine.SamplingEndpoint{
		URL:    strings.TrimSpace(in.URL.Text),
		Model:  strings.TrimSpace(in.Model.Text),
		KeyEnv: strings.TrimSpace(in.KeyEnv.Text),
	}
	if e.URL == "" {
		return e, fmt.Errorf("sampling endpoint: give the API's base URL, as in http://127.0.0.1:11434/v1")
	}
	var err error
	if e.Timeout, err = parseOptionalDuration("endpoint timeout", in.Timeout.Text); err != nil {
		return e, err
	}
	return e, nil
}
