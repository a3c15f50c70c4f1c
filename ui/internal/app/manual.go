package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
)

// manualPanel lists the sampling and elicitation requests waiting for a
// person (manual mode) and lets the person answer the selected one:
// sampling with an editable reply and model, elicitation with a form
// generated from the requested schema; either can also be declined or
// cancelled, and the whole queue can be accepted, declined or cancelled at
// once. The waiting time is the request's serving phase on the timeline;
// the panel counts it up, or down to the request timeout when there is
// one. A request the server cancels, or that times out, leaves the list
// by itself. An invalid form is not sent: the message shows under the
// field and the field takes the focus.
type manualPanel struct {
	widget.BaseWidget

	// onCountChanged is called on the main goroutine when the number of
	// waiting requests changes.
	onCountChanged func(n int)
	// onError reports a problem answering that is not the form's.
	onError func(doing string, err error)

	list     *widget.List
	detail   *fyne.Container
	pending  []*engine.PendingRequest
	selected *engine.PendingRequest
	content  fyne.CanvasObject
	ticker   mainTicker // moves the clock while something waits
	// gate hands a request's end (and the clock's ticks) to the main
	// goroutine
	gate *mainloop.Gate

	// The buttons that answer every waiting request at once.
	acceptAll, declineAll, cancelAll *widget.Button
	// Clock says how long the selected request has waited, or how long
	// it has left before its timeout.
	Clock *widget.Label
	// problem says why the answer was not sent (the form is not valid).
	problem *widget.Label

	// The answer widgets of the selected request: replyText and replyModel
	// for sampling, form for elicitation (nil when not shown).
	replyText  *widget.Entry
	replyModel *widget.Entry
	form       *SchemaForm
}

// newManualPanel makes an empty panel that hands background work to the
// main goroutine through gate.
func newManualPanel(gate *mainloop.Gate) *manualPanel {
	p := &manualPanel{gate: gate, ticker: mainTicker{gate: gate}}
	p.ExtendBaseWidget(p)
	p.list = widget.NewList(
		func() int { return len(p.pending) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(p.pending) {
				o.(*widget.Label).SetText(pendingTitle(p.pending[i]))
			}
		})
	p.list.OnSelected = func(i widget.ListItemID) {
		if i < len(p.pending) {
			p.show(p.pending[i])
		}
	}
	p.acceptAll = widget.NewButton("Accept all", func() { p.all((*engine.PendingRequest).AcceptDefault) })
	p.declineAll = widget.NewButton("Decline all", func() { p.all((*engine.PendingRequest).Decline) })
	p.cancelAll = widget.NewButton("Cancel all", func() { p.all((*engine.PendingRequest).Cancel) })
	p.Clock = widget.NewLabel("")
	p.Clock.SizeName = theme.SizeNameCaptionText
	p.problem = widget.NewLabel("")
	p.problem.Importance = widget.DangerImportance
	p.problem.Wrapping = fyne.TextWrapWord
	p.detail = container.NewVBox()
	p.show(nil)
	p.enableAll()
	// The answer area scrolls both ways, so a wide form never widens the
	// left column (which would squeeze and reflow the timeline).
	split := container.NewVSplit(p.list, container.NewScroll(p.detail))
	split.Offset = 0.3
	p.content = container.NewBorder(
		container.NewVBox(
			wrapped(widget.NewRichTextFromMarkdown("Requests wait here when **Elicitation** is *manual* or **Answer sampling by hand** is ticked (Callbacks panel). *Accept all* answers them as the policy *accept* would.")),
			container.NewGridWithColumns(3, p.acceptAll, p.declineAll, p.cancelAll),
		),
		nil, nil, nil, split)
	return p
}

// all answers every waiting request with answer, oldest first.
func (p *manualPanel) all(answer func(*engine.PendingRequest)) {
	for _, req := range p.Pending() {
		answer(req)
		p.remove(req)
	}
}

// withdrawAll ends the wait of every waiting request without an answer
// from a person: each ends cancelled with reason (see
// [engine.PendingRequest.Withdraw]). Stop uses it: what asked for them is
// gone.
func (p *manualPanel) withdrawAll(reason string) {
	p.all(func(req *engine.PendingRequest) { req.Withdraw(reason) })
}

// enableAll enables the all-at-once buttons when something waits.
func (p *manualPanel) enableAll() {
	for _, b := range []*widget.Button{p.acceptAll, p.declineAll, p.cancelAll} {
		if len(p.pending) > 0 {
			b.Enable()
		} else {
			b.Disable()
		}
	}
}

// CreateRenderer implements [fyne.Widget].
func (p *manualPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// Add lists a waiting request and selects it if nothing is selected.
// Call it on the main goroutine.
func (p *manualPanel) Add(req *engine.PendingRequest) {
	p.pending = append(p.pending, req)
	p.list.Refresh()
	p.countChanged()
	if p.selected == nil {
		p.list.Select(len(p.pending) - 1)
	}
	go func() {
		<-req.Done()
		p.gate.Do(func() { p.remove(req) })
	}()
}

// Pending returns the requests waiting now, oldest first.
func (p *manualPanel) Pending() []*engine.PendingRequest {
	return append([]*engine.PendingRequest(nil), p.pending...)
}

// Select shows request i of [manualPanel.Pending] for answering.
func (p *manualPanel) Select(i int) { p.list.Select(i) }

// Selected returns the request shown for answering, or nil.
func (p *manualPanel) Selected() *engine.PendingRequest { return p.selected }

// answerSelected sends the shown answer of the selected request: the
// reply for sampling, the form's content for elicitation (refused with
// the form's messages when invalid).
func (p *manualPanel) answerSelected() error {
	req := p.selected
	if req == nil {
		return fmt.Errorf("no request selected")
	}
	switch req.Method {
	case "sampling/createMessage":
		req.AnswerSampling(p.replyText.Text, p.replyModel.Text)
	default:
		if p.form == nil {
			req.Accept(map[string]any{})
			break
		}
		content, err := p.form.Content()
		if err != nil {
			p.focusInvalid()
			return fmt.Errorf("the answer is not valid yet:\n%v", err)
		}
		req.Accept(content)
	}
	p.remove(req)
	return nil
}

// declineSelected declines the selected request: an elicitation is
// answered with action "decline", a sampling request is refused with the
// JSON-RPC error -1 "user rejected the sampling request" (its span ends
// with that error).
func (p *manualPanel) declineSelected() {
	if req := p.selected; req != nil {
		req.Decline()
		p.remove(req)
	}
}

// cancelSelected cancels the selected request: an elicitation is
// answered with action "cancel", a sampling request is refused with the
// JSON-RPC error -1 "cancelled by the user".
func (p *manualPanel) cancelSelected() {
	if req := p.selected; req != nil {
		req.Cancel()
		p.remove(req)
	}
}

// focusInvalid says under the buttons which field holds the answer back
// (its own message is under it) and moves the focus to that field.
func (p *manualPanel) focusInvalid() {
	fld := p.form.firstInvalid()
	if fld == nil {
		return
	}
	p.problem.SetText(fmt.Sprintf("Not sent: %s — %s", fld.title, fld.Message()))
	p.problem.Show()
	in := fld.Input()
	if f, ok := in.(fyne.Focusable); ok {
		if c := fyne.CurrentApp().Driver().CanvasForObject(in); c != nil {
			c.Focus(f)
		}
	}
}

// tick shows the selected request's waiting time or time left.
func (p *manualPanel) tick() {
	req := p.selected
	if req == nil {
		p.Clock.SetText("")
		return
	}
	p.Clock.SetText(waitText(req, time.Now()))
}

// waitText is how long req has waited, or how long it has left before its
// timeout, at now.
func waitText(req *engine.PendingRequest, now time.Time) string {
	if !req.Deadline.IsZero() {
		left := max(req.Deadline.Sub(now), 0).Round(time.Second)
		return fmt.Sprintf("Times out in %s (request timeout, Callbacks panel)", left)
	}
	return fmt.Sprintf("Waiting for you for %s", now.Sub(req.Since).Round(time.Second))
}

// clock runs the ticker that moves the clock while something waits.
func (p *manualPanel) clock() {
	if len(p.pending) == 0 {
		p.ticker.halt()
		return
	}
	p.ticker.start(500*time.Millisecond, p.tick)
}

// remove takes an answered (or abandoned) request off the list.
func (p *manualPanel) remove(req *engine.PendingRequest) {
	i := slices.Index(p.pending, req)
	if i < 0 {
		return
	}
	p.pending = slices.Delete(p.pending, i, i+1)
	p.list.UnselectAll()
	p.list.Refresh()
	p.countChanged()
	if p.selected == req {
		p.show(nil)
		if len(p.pending) > 0 {
			p.list.Select(min(i, len(p.pending)-1))
		}
	} else if j := slices.Index(p.pending, p.selected); j >= 0 {
		p.list.Select(j) // keep the highlight on the request being answered
	}
}

// show fills the answer area for req (nil: nothing waits).
func (p *manualPanel) show(req *engine.PendingRequest) {
	p.selected = req
	p.replyText, p.replyModel, p.form = nil, nil, nil
	p.detail.RemoveAll()
	p.problem.SetText("")
	p.problem.Hide()
	p.tick()
	if req == nil {
		p.detail.Add(widget.NewLabel("Nothing is waiting for you."))
		p.detail.Refresh()
		return
	}
	title := boldLabel(pendingTitle(req))
	title.Wrapping = fyne.TextWrapWord
	msg := widget.NewLabel(req.Message)
	msg.Wrapping = fyne.TextWrapWord
	p.detail.Add(title)
	p.detail.Add(p.Clock)
	if req.Message != "" {
		p.detail.Add(msg)
	}
	decline := widget.NewButton("Decline", p.declineSelected)
	cancel := widget.NewButton("Cancel", p.cancelSelected)
	answer := func() {
		// An invalid form says so under its field (see focusInvalid):
		// no dialog to dismiss.
		if err := p.answerSelected(); err != nil && p.form == nil && p.onError != nil {
			p.onError("Answering the request", err)
		}
	}
	if req.Method == "sampling/createMessage" {
		p.replyText = widget.NewMultiLineEntry()
		p.replyText.SetMinRowsVisible(4)
		p.replyText.SetText("reply")
		p.replyModel = widget.NewEntry()
		p.replyModel.PlaceHolder = "(the model set in Callbacks)"
		p.replyModel.OnSubmitted = func(string) { answer() }
		send := widget.NewButton("Send reply", answer)
		send.Importance = widget.HighImportance
		p.detail.Add(widget.NewForm(
			widget.NewFormItem("Reply", p.replyText),
			widget.NewFormItem("Model", p.replyModel),
		))
		// Declining or cancelling refuses the request with an error, as
		// MCP clients do when their user turns a sampling request down.
		p.detail.Add(container.NewGridWithColumns(3, send, decline, cancel))
	} else {
		form, err := NewSchemaForm(req.Schema)
		if err != nil {
			p.detail.Add(widget.NewLabel("The requested schema cannot be shown as a form (" + err.Error() + "); you can still decline or cancel."))
		} else {
			p.form = form
			form.onSubmit = answer
			p.detail.Add(form)
		}
		accept := widget.NewButton("Accept", answer)
		accept.Importance = widget.HighImportance
		if p.form == nil {
			accept.Disable()
		}
		p.detail.Add(container.NewGridWithColumns(3, accept, decline, cancel))
		p.detail.Add(p.problem)
	}
	if len(req.Params) > 0 {
		raw := widget.NewLabel(indentJSON(req.Params))
		raw.TextStyle.Monospace = true
		raw.Wrapping = fyne.TextWrapBreak
		p.detail.Add(widget.NewAccordion(widget.NewAccordionItem("Request params", raw)))
	}
	p.detail.Refresh()
}

// countChanged tells onCountChanged.
func (p *manualPanel) countChanged() {
	p.enableAll()
	p.clock()
	if p.onCountChanged != nil {
		p.onCountChanged(len(p.pending))
	}
}

// pendingTitle is a request's line in the list.
func pendingTitle(req *engine.PendingRequest) string {
	what := "Elicitation"
	if req.Method == "sampling/createMessage" {
		what = "Sampling"
	}
	msg := req.Message
	if len(msg) > 60 {
		msg = msg[:57] + "…"
	}
	return fmt.Sprintf("#%d %s: %s", req.Span, what, msg)
}

// indentJSON indents JSON for reading, or returns it as it is.
func indentJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}
