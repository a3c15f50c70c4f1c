package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// Details shows everything about one request: its method, direction, kind,
// status and error, ids and parent, phase instants and durations, and its
// params and result as indented JSON. All text can be selected, and the
// params and result copied with a button.
type Details struct {
	widget.BaseWidget

	span    *recorder.Span
	parent  *recorder.Span
	header  *widget.Label
	facts   *widget.Label
	why     *widget.Label // why the request is unlinked, word-wrapped; hidden otherwise
	params  *widget.Label
	result  *widget.Label
	body    *fyne.Container
	content *container.Scroll

	copyParams, copyResult *widget.Button // put the JSON on the clipboard
	notesTitle             *widget.Label
	notes                  *widget.Label // the notifications that name the request
}

// NewDetails returns a details pane with nothing selected.
func NewDetails() *Details {
	mono := func() *widget.Label {
		l := widget.NewLabel("")
		l.TextStyle.Monospace = true
		l.Selectable = true
		l.Wrapping = fyne.TextWrapBreak
		return l
	}
	d := &Details{
		header: widget.NewLabel(""),
		facts:  mono(),
		params: mono(),
		result: mono(),
	}
	d.header.TextStyle.Bold = true
	d.header.Wrapping = fyne.TextWrapWord
	d.header.Selectable = true
	d.why = widget.NewLabel("")
	d.why.Wrapping = fyne.TextWrapWord
	d.why.Selectable = true
	copyButton := func(body *widget.Label) *widget.Button {
		b := widget.NewButtonWithIcon("", theme.ContentCopyIcon(), func() {
			if d.span != nil {
				fyne.CurrentApp().Clipboard().SetContent(body.Text)
			}
		})
		b.Importance = widget.LowImportance
		return b
	}
	heading := func(title string, copyBtn *widget.Button) fyne.CanvasObject {
		return container.NewBorder(nil, nil, nil, copyBtn,
			widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}
	d.copyParams, d.copyResult = copyButton(d.params), copyButton(d.result)
	d.notes = mono()
	d.notesTitle = widget.NewLabelWithStyle("Notifications", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.body = container.NewVBox(
		d.header, d.facts, d.why,
		heading("Params", d.copyParams), d.params,
		heading("Result", d.copyResult), d.result,
		d.notesTitle, d.notes,
	)
	d.content = container.NewVScroll(d.body)
	d.ExtendBaseWidget(d)
	d.SetSpan(nil, nil)
	return d
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (d *Details) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(d.content)
}

// MinSize keeps the pane readable when the split gives it little room.
func (d *Details) MinSize() fyne.Size {
	return fyne.NewSize(240, d.BaseWidget.MinSize().Height)
}

// maxNotes is the most notifications listed for one request.
const maxNotes = 50

// SetNotifications lists the notifications that name the request shown
// (progress of a tool call, the cancellation of a request), up to
// fifty; nil or none hides the list.
func (d *Details) SetNotifications(events []recorder.Event) {
	if len(events) == 0 {
		d.notes.SetText("")
		d.notesTitle.Hide()
		d.notes.Hide()
	} else {
		var b strings.Builder
		for i, e := range events {
			if i == maxNotes {
				fmt.Fprintf(&b, "… and %d more\n", len(events)-maxNotes)
				break
			}
			name := e.Method
			if name == "" {
				name = string(e.Kind)
			}
			fmt.Fprintf(&b, "%s  %s", formatOffset(e.At), name)
			if e.Stalled > 0 {
				fmt.Fprintf(&b, " (stalled %s)", formatDuration(e.Stalled))
			}
			if e.Text != "" {
				b.WriteString("  " + truncate(e.Text, 80))
			} else if len(e.Data) > 0 {
				b.WriteString("  " + truncate(string(e.Data), 80))
			}
			b.WriteByte('\n')
		}
		d.notes.SetText(strings.TrimRight(b.String(), "\n"))
		d.notesTitle.Show()
		d.notes.Show()
	}
	d.body.Refresh()
}

// SetChildren says how many requests the tool call shown caused, and how
// many of them failed; it is not shown for a request that caused none.
func (d *Details) SetChildren(total, failed int) {
	if total == 0 || d.span == nil {
		return
	}
	d.facts.SetText(d.facts.Text + fmt.Sprintf("\n%-10s %d (%d failed)", "caused", total, failed))
	d.body.Refresh()
}

// SetRoundFacts adds what the recording says about s as part of a
// multi-round-trip call: a call's rounds and the client's fulfilment time,
// a round's number, outcome and the fulfilment before and after it, an
// input request's round and key. Set it after SetSpan.
func (d *Details) SetRoundFacts(facts [][2]string) {
	if len(facts) == 0 || d.span == nil {
		return
	}
	var b strings.Builder
	for _, f := range facts {
		fmt.Fprintf(&b, "\n%-10s %s", f[0], f[1])
	}
	d.facts.SetText(d.facts.Text + b.String())
	d.body.Refresh()
}

// SetSpan shows s (nil shows a hint) and the tool call that caused it, if
// known. It clears the notifications: set them after it.
func (d *Details) SetSpan(s, parent *recorder.Span) {
	d.span, d.parent = s, parent
	if s == nil {
		d.copyParams.Disable()
		d.copyResult.Disable()
		d.header.SetText("Click a request in the timeline to see its details.")
		d.facts.SetText("")
		d.why.SetText("")
		d.params.SetText("")
		d.result.SetText("")
	} else {
		d.copyParams.Enable()
		d.copyResult.Enable()
		d.header.SetText(fmt.Sprintf("#%d %s", s.ID, spanLabel(s)))
		d.facts.SetText(spanFacts(s, parent))
		d.why.SetText(unlinkedText(s, parent))
		d.params.SetText(prettyJSON(s.Params))
		d.result.SetText(prettyJSON(s.Result))
		d.content.ScrollToTop()
	}
	if d.why.Text == "" {
		d.why.Hide()
	} else {
		d.why.Show()
	}
	d.notes.SetText("")
	d.notesTitle.Hide()
	d.notes.Hide()
	// the labels changed height: lay them out again
	d.body.Refresh()
	d.content.Refresh()
}

// Span returns the span shown, or nil.
func (d *Details) Span() *recorder.Span { return d.span }

// Text returns everything the pane shows, as text.
func (d *Details) Text() string {
	parts := []string{d.header.Text, d.facts.Text}
	if d.why.Text != "" {
		parts = append(parts, d.why.Text)
	}
	parts = append(parts, "Params", d.params.Text, "Result", d.result.Text)
	if d.notes.Visible() {
		parts = append(parts, "Notifications", d.notes.Text)
	}
	return strings.Join(parts, "\n")
}

// spanFacts lists a span's properties one per line, aligned.
func spanFacts(s *recorder.Span, parent *recorder.Span) string {
	var b strings.Builder
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-10s %s\n", k, v)
		}
	}
	status := string(s.Status)
	if s.Open() {
		status = "in flight"
	}
	row("method", s.Method)
	row("tool", s.Name)
	row("direction", string(s.Direction))
	row("kind", string(s.Kind))
	row("status", status)
	row("error", s.Error)
	row("session", s.Session)
	row("request", s.RequestID)
	row("span", fmt.Sprint(s.ID))
	switch {
	case parent != nil:
		row("parent", fmt.Sprintf("#%d %s", parent.ID, spanLabel(parent)))
	case s.Parent != 0:
		row("parent", fmt.Sprintf("#%d", s.Parent))
	case s.Unlinked != "":
		row("parent", "unlinked (see below)")
	}
	if s.Stalled > 0 {
		// withheld from the client (dispatch inline): an incoming request
		// before it was seen, an outgoing one's response after it was read
		what := "read, not yet seen by the client"
		if s.Direction != recorder.Incoming {
			what = "response read, not yet seen by the client"
		}
		row("stalled", formatDuration(s.Stalled)+" ("+what+")")
	}
	if s.Direction == recorder.Incoming {
		row("received", formatOffset(s.Received))
		row("queued", formatOffset(s.Queued))
		row("serving", formatOffset(s.Serving))
		row("answered", formatOffset(s.Answered))
		if s.Queued != recorder.Unset {
			row("hand-off", formatDuration(s.HandoffTime()))
		}
		if s.Serving != recorder.Unset {
			row("waited", formatDuration(s.QueueTime()))
		}
		if s.Answered != recorder.Unset {
			row("served", formatDuration(s.ServeTime()))
			row("total", formatDuration(s.Total()))
		}
	} else {
		row("sent", formatOffset(s.Received))
		row("answered", formatOffset(s.Answered))
		if s.Answered != recorder.Unset {
			row("round trip", formatDuration(s.Total()))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// unlinkedText says why a request has no tool call as its parent and
// what would have linked it, or "" when it is linked or no call was in
// flight.
func unlinkedText(s, parent *recorder.Span) string {
	if s.Unlinked == "" || s.Parent != 0 || parent != nil {
		return ""
	}
	return "Unlinked: " + s.Unlinked + ", so no call can be named as its cause. " +
		"A server links its requests to a call by echoing the call's progressToken in their params._meta " +
		"(over streamable HTTP, also by sending them on the call's response stream)."
}

// prettyJSON indents raw JSON for reading; text that is not JSON is shown
// as it is.
func prettyJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "(none)"
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return string(raw)
	}
	return out.String()
}
