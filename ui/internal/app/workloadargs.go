package app

import (
	"encoding/json"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"

	"github.com/fanout-inspector/inspector/engine"
)

// The arguments of the Workload panel's tool: a form made from the tool's
// input schema, or raw JSON, kept per tool across tool switches.

// Form returns the arguments form of the chosen tool (nil without one).
func (p *workloadPanel) Form() *SchemaForm { return p.form }

// Args returns the chosen tool's arguments as a JSON object.
func (p *workloadPanel) Args() (json.RawMessage, error) {
	if p.rawJSON.Checked || p.form == nil {
		text := strings.TrimSpace(p.raw.Text)
		if text == "" {
			return json.RawMessage(`{}`), nil
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(text), &obj); err != nil {
			return nil, fmt.Errorf("arguments: not a JSON object: %v", err)
		}
		return json.RawMessage(text), nil
	}
	content, err := p.form.Content()
	if err != nil {
		return nil, fmt.Errorf("arguments:\n%v", err)
	}
	b, err := json.Marshal(content)
	return b, err
}

// toolChosen rebuilds the arguments for the chosen tool.
func (p *workloadPanel) toolChosen(name string) {
	p.description.SetText("")
	p.form = nil
	var tool *engine.Tool
	for _, t := range p.tools {
		if t.Name == name {
			tool = &t
		}
	}
	if tool != nil {
		desc := tool.Description
		if tool.Title != "" {
			desc = tool.Title + ": " + desc
		}
		p.description.SetText(desc)
		schema, _ := json.Marshal(tool.InputSchema)
		form, err := NewSchemaForm(schema)
		if err != nil {
			p.description.SetText(desc + "\n(its input schema cannot be shown as a form: " + err.Error() + "; use raw JSON)")
		} else {
			p.form = form
			p.form.onChanged = func() {
				if b, err := json.Marshal(p.form.Values()); err == nil {
					p.args[name] = b
				}
			}
		}
		if a, ok := p.args[name]; ok {
			p.setArgs(a)
		}
	}
	p.showArgs()
}

// setArgs puts a JSON object into the form and the raw entry.
func (p *workloadPanel) setArgs(args json.RawMessage) {
	p.raw.SetText(string(args))
	if p.form != nil {
		var obj map[string]any
		if json.Unmarshal(args, &obj) == nil {
			p.form.setValues(obj)
		}
	}
}

// toggleRaw switches between the form and raw JSON, carrying the values over.
func (p *workloadPanel) toggleRaw(on bool) {
	if p.form != nil {
		if on {
			b, _ := json.MarshalIndent(p.form.Values(), "", "  ")
			p.raw.SetText(string(b))
		} else {
			var obj map[string]any
			if err := json.Unmarshal([]byte(p.raw.Text), &obj); err == nil {
				p.form.setValues(obj)
			} else if strings.TrimSpace(p.raw.Text) != "" {
				p.showProblem("The raw JSON is not an object, so the form was left as it was: " + err.Error())
			}
		}
	}
	p.showArgs()
}

// showArgs shows the form or the raw entry.
func (p *workloadPanel) showArgs() {
	p.argsBox.RemoveAll()
	if p.argsNote != nil {
		p.argsBox.Add(p.argsNote)
	}
	if p.rawJSON.Checked || p.form == nil {
		p.argsBox.Add(p.raw)
	} else {
		p.argsBox.Add(p.form)
	}
	p.showArgsUse()
	p.argsBox.Refresh()
	// The panel is on screen from the start (the window opens on it):
	// lay it out again, as the arguments changed its height.
	p.Refresh()
}

// showArgsUse greys out the Tool's arguments (the form's fields, the raw
// entry and its check) while the mix has operations, as Run then runs the
// mix and does not send them; the note above them says so. With no
// operations they are enabled again.
func (p *workloadPanel) showArgsUse() {
	if p.argsNote == nil {
		return
	}
	off := len(p.mixRows) > 0
	inputs := []fyne.Disableable{p.rawJSON, p.raw}
	if p.form != nil {
		for _, f := range p.form.Fields() {
			if in, ok := f.Input().(fyne.Disableable); ok {
				inputs = append(inputs, in)
			}
		}
	}
	for _, in := range inputs {
		if off {
			in.Disable()
		} else {
			in.Enable()
		}
	}
	if off == p.argsNote.Visible() {
		return
	}
	if off {
		p.argsNote.Show()
	} else {
		p.argsNote.Hide()
	}
	if p.below != nil { // built: the note takes room, or gives it back
		p.argsBox.Refresh()
		p.below.Refresh()
	}
}
