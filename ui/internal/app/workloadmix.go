package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
)

// The Workload panel's mix: a list of operations (a tool call, a resource
// read or a prompt get, with a weight and JSON arguments), as a workload
// file's [[operations]] say them. With one or more operations, Run runs
// the mix through the same load runner as `inspector run --workload`,
// each call picking an operation by weight; with none, Run calls the
// Tool chosen above.

// mixMethods are the methods an operation may have.
var mixMethods = []string{engine.MethodCallTool, engine.MethodReadResource, engine.MethodGetPrompt}

// mixInputs are the mix's widgets and what they offer.
type mixInputs struct {
	mixRows   []*mixRow
	mixBox    *fyne.Container // the rows
	addOp     *widget.Button
	mixNote   *widget.Label     // says what Run runs
	mixFold   *widget.Accordion // the Mix section
	mixNames  map[string][]string
	mixSeed   int64 // a file's seed, written back as it was
	namesAsk  bool  // the server's resources and prompts were asked for
	onNames   func()
	onEdited  func() // any field of the panel changed (workloadfiles.go)
	mixLoaded bool   // rows are being filled in: do not report edits
	// argsNote says why the Tool's arguments are greyed out while the
	// mix has rows (workloadargs.go).
	argsNote *widget.Label
}

// mixRow is one operation's row.
type mixRow struct {
	method *widget.Select
	name   *widget.SelectEntry
	weight *widget.Entry
	args   *widget.Entry
	remove *widget.Button
	box    fyne.CanvasObject
	// offered are the names the name field offers.
	offered []string
}

// newMixSection makes the Mix section (empty).
func (p *workloadPanel) newMixSection() *widget.Accordion {
	p.mixBox = container.NewVBox()
	p.mixNote = widget.NewLabel("")
	p.mixNote.Wrapping = fyne.TextWrapWord
	p.argsNote = widget.NewLabel("Not sent while the Mix below has operations: Run runs the mix, each operation with its own args. Remove the operations to call the Tool with these arguments.")
	p.argsNote.Wrapping = fyne.TextWrapWord
	p.argsNote.Importance = widget.WarningImportance
	p.addOp = widget.NewButtonWithIcon("Add operation", theme.ContentAddIcon(), func() {
		op := load.Operation{Method: engine.MethodCallTool, Name: p.tool.Selected, Weight: 1}
		if a, err := p.Args(); err == nil && op.Name != "" {
			op.Args = a
		}
		p.addOperation(op)
		p.thresholdsChanged() // operations.N may now name a row
		p.mixChanged()
	})
	p.mixFold = widget.NewAccordion(widget.NewAccordionItem("Mix", container.NewVBox(p.mixNote, p.mixBox, p.addOp)))
	p.showMixNote()
	return p.mixFold
}

// addOperation adds a row holding op.
func (p *workloadPanel) addOperation(op load.Operation) {
	r := &mixRow{}
	r.name = widget.NewSelectEntry(nil)
	r.name.PlaceHolder = "name or URI"
	r.name.SetText(op.Name)
	r.method = widget.NewSelect(mixMethods, nil)
	r.method.SetSelected(op.Method)
	r.weight = newEntry("weight", nil)
	r.weight.SetText(strconv.FormatFloat(op.Weight, 'f', -1, 64))
	r.args = newEntry(`arguments, as {"n": 5}`, nil)
	r.args.TextStyle.Monospace = true
	if len(bytes.TrimSpace(op.Args)) > 0 {
		r.args.SetText(string(op.Args))
	}
	r.method.OnChanged = func(method string) {
		if method == engine.MethodReadResource {
			r.args.SetText("") // a read takes none
		}
		p.offerNames(r)
		p.mixChanged()
	}
	r.name.OnChanged = func(string) { p.mixChanged() }
	r.weight.OnChanged = func(string) { p.mixChanged() }
	r.args.OnChanged = func(string) { p.mixChanged() }
	r.remove = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { p.removeOperation(r) })
	r.box = container.NewVBox(
		container.NewBorder(nil, nil, r.method, container.NewHBox(container.NewGridWrap(fyne.NewSize(70, r.weight.MinSize().Height), r.weight), r.remove), r.name),
		container.NewBorder(nil, nil, widget.NewLabel("args"), nil, r.args),
		widget.NewSeparator(),
	)
	p.mixRows = append(p.mixRows, r)
	p.mixBox.Add(r.box)
	p.offerNames(r)
	p.showMixNote()
	p.mixFold.Open(0)
	if p.onNames != nil && !p.namesAsk {
		p.namesAsk = true
		p.onNames()
	}
}

// removeOperation takes a row out.
func (p *workloadPanel) removeOperation(r *mixRow) {
	i := slices.Index(p.mixRows, r)
	if i < 0 {
		return
	}
	p.mixRows = slices.Delete(p.mixRows, i, i+1)
	p.mixBox.Remove(r.box)
	p.showMixNote()
	p.thresholdsChanged() // operations.N may now name a row, or none
	p.mixChanged()
}

// setOperations replaces the rows with ops.
func (p *workloadPanel) setOperations(ops []load.Operation) {
	p.mixLoaded = true
	defer func() { p.mixLoaded = false }()
	p.mixRows = nil
	p.mixBox.RemoveAll()
	for _, op := range ops {
		p.addOperation(op)
	}
	p.showMixNote()
	p.thresholdsChanged()
}

// operations returns the mix's rows as operations; the error names the
// row and the field to fix.
func (p *workloadPanel) operations() ([]load.Operation, error) {
	ops := make([]load.Operation, 0, len(p.mixRows))
	for i, r := range p.mixRows {
		op := load.Operation{Method: r.method.Selected, Name: strings.TrimSpace(r.name.Text)}
		what := fmt.Sprintf("Mix, operation %d (%s %s)", i+1, orNone(op.Method), orNone(op.Name))
		text := strings.TrimSpace(r.weight.Text)
		w, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: weight: want a number above 0, as in 70, not %q", what, text)
		}
		op.Weight = w
		if args := strings.TrimSpace(r.args.Text); args != "" {
			if !json.Valid([]byte(args)) {
				var v any
				return nil, fmt.Errorf("%s: args: not JSON: %v", what, json.Unmarshal([]byte(args), &v))
			}
			op.Args = json.RawMessage(args)
		}
		ops = append(ops, op)
	}
	// What each field may hold is the load runner's to judge, as for a file.
	if err := (load.Workload{Operations: ops}).Validate(); err != nil {
		var oe *load.OperationError
		if errors.As(err, &oe) {
			op := ops[oe.Index]
			return nil, fmt.Errorf("Mix, operation %d (%s %s): %s: %s", oe.Index+1, orNone(op.Method), orNone(op.Name), oe.Field, oe.Reason)
		}
		return nil, err
	}
	return ops, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// serverListed follows a new listing of the server's tools (a new
// connection, or Refresh): the rows offer its tools, and its resources
// and prompts are asked for again while the mix has rows.
func (p *workloadPanel) serverListed() {
	for _, r := range p.mixRows {
		p.offerNames(r)
	}
	p.namesAsk = false
	if len(p.mixRows) > 0 && p.onNames != nil {
		p.namesAsk = true
		p.onNames()
	}
}

// setMixNames offers the server's resources (their URIs, and its
// templates) and prompts as the names of the mix's reads and gets.
func (p *workloadPanel) setMixNames(resources []engine.Resource, templates []engine.ResourceTemplate, prompts []engine.Prompt) {
	names := map[string][]string{}
	for _, r := range resources {
		names[engine.MethodReadResource] = append(names[engine.MethodReadResource], r.URI)
	}
	for _, t := range templates {
		names[engine.MethodReadResource] = append(names[engine.MethodReadResource], t.URITemplate)
	}
	for _, pr := range prompts {
		names[engine.MethodGetPrompt] = append(names[engine.MethodGetPrompt], pr.Name)
	}
	p.mixNames = names
	for _, r := range p.mixRows {
		p.offerNames(r)
	}
}

// offerNames sets a row's name choices for its method: the server's
// tools, resources or prompts.
func (p *workloadPanel) offerNames(r *mixRow) {
	var names []string
	if r.method.Selected == engine.MethodCallTool {
		for _, t := range p.tools {
			names = append(names, t.Name)
		}
	} else {
		names = p.mixNames[r.method.Selected]
	}
	r.offered = names
	r.name.SetOptions(names)
}

// mixChanged follows an edit of the mix.
func (p *workloadPanel) mixChanged() {
	if p.mixLoaded {
		return
	}
	p.showMixNote()
	if p.onEdited != nil {
		p.onEdited()
	}
}

// showMixNote says what Run runs: the mix, or the tool.
func (p *workloadPanel) showMixNote() {
	if p.mixNote == nil {
		return
	}
	p.showArgsUse()
	if len(p.mixRows) == 0 {
		p.mixNote.SetText("No operations: Run calls the Tool above. Add operations (or open a workload file) to run a mix, each call picking one by its weight.")
		return
	}
	p.mixNote.SetText(fmt.Sprintf("Run runs this mix of %d operations, each call picking one with a probability of its weight over the sum of the weights; the Tool above is not called.", len(p.mixRows)))
}

// runName names a run of w in its history row, its segment of the
// recording and the log: its tool, or for a mix the workload file shown
// (as `inspector run --workload` names its run), else "mix of N
// operations".
func (p *workloadPanel) runName(w load.Workload) string {
	switch {
	case len(w.Operations) == 0:
		return w.Tool
	case p.filePath != "":
		return "workload " + filepath.Base(p.filePath)
	}
	return fmt.Sprintf("mix of %d operations", len(w.Operations))
}
