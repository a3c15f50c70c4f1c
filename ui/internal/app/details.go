package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/recorder"
)

// details shows everything about one request: its method, direction, kind,
// status and error, ids and parent, phase instants and durations, and its
// params and result as JSON trees whose objects and arrays fold, with the
// JSON that a string holds shown as JSON. Text wraps at words and can be
// selected; the params and result can be copied with a button.
type details struct {
	widget.BaseWidget

	span    *recorder.Span
	parent  *recorder.Span
	run     *recorder.Run // the run the span belongs to, when the recording has runs
	proxy   bool          // the recording is a proxy's: see [details.setProxy]
	header  *widget.Label
	facts   [][2]string     // (name, value) rows, in order
	grid    *fyne.Container // the facts as a two-column form
	why     *widget.Label   // why the request is unlinked, word-wrapped; hidden otherwise
	params  *jsonTree
	result  *jsonTree
	body    *fyne.Container
	content *container.Scroll

	copyParams, copyResult *widget.Button // put the JSON on the clipboard
	notesTitle             *widget.Label
	notes                  *widget.Label // the notifications that name the request

	// onSpan, when set, hears of every span shown (nil: none); the
	// window opens or closes the pane with it.
	onSpan func(*recorder.Span)
}

// newDetails returns a details pane with nothing selected.
func newDetails() *details {
	d := &details{
		header: widget.NewLabel(""),
		grid:   container.New(layout.NewFormLayout()),
		params: newJSONTree(),
		result: newJSONTree(),
	}
	d.header.TextStyle.Bold = true
	d.header.Wrapping = fyne.TextWrapWord
	d.header.Selectable = true
	d.why = widget.NewLabel("")
	d.why.Wrapping = fyne.TextWrapWord
	d.why.Selectable = true
	copyButton := func(raw func(*recorder.Span) json.RawMessage) *widget.Button {
		b := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
			if d.span != nil {
				fyne.CurrentApp().Clipboard().SetContent(prettyJSON(raw(d.span)))
			}
		})
		b.Importance = widget.LowImportance
		return b
	}
	// Copy sits beside its title, not at the pane's right edge: a JSON
	// row wider than the pane widens the pane's content, and a button at
	// its right edge was cut off by the pane
	heading := func(title string, copyBtn *widget.Button) fyne.CanvasObject {
		return container.NewHBox(widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), copyBtn)
	}
	d.copyParams = copyButton(func(s *recorder.Span) json.RawMessage { return s.Params })
	d.copyResult = copyButton(func(s *recorder.Span) json.RawMessage { return s.Result })
	d.notes = widget.NewLabel("")
	d.notes.Selectable = true
	d.notes.Wrapping = fyne.TextWrapWord
	d.notesTitle = widget.NewLabelWithStyle("Notifications (events naming it)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.body = container.NewVBox(
		d.header, d.grid, d.why,
		heading("Params", d.copyParams), d.params,
		heading("Result", d.copyResult), d.result,
		d.notesTitle, d.notes,
	)
	d.content = container.NewVScroll(container.NewThemeOverride(d.body, compactTheme{theme.Current()}))
	d.ExtendBaseWidget(d)
	d.setSpan(nil, nil)
	return d
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (d *details) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(d.content)
}

// MinSize keeps the pane readable when the window gives it little room;
// everything in it wraps at words below that.
func (d *details) MinSize() fyne.Size {
	return fyne.NewSize(detailsMinWidth, d.BaseWidget.MinSize().Height)
}

// detailsMinWidth is the narrowest the details pane gets.
const detailsMinWidth = 200

// compactTheme is the app's theme with less room around each text, so
// that a request's facts and JSON rows sit close together.
// It keeps the app's theme of when the pane was made.
type compactTheme struct{ base fyne.Theme }

func (t compactTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return t.base.Color(n, v)
}
func (t compactTheme) Font(s fyne.TextStyle) fyne.Resource     { return t.base.Font(s) }
func (t compactTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return t.base.Icon(n) }
func (t compactTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameInnerPadding:
		return 3
	case theme.SizeNamePadding:
		return 2
	}
	return t.base.Size(n)
}

// addFacts appends rows to the facts and shows them.
func (d *details) addFacts(rows ...[2]string) {
	d.facts = append(d.facts, rows...)
	d.showFacts()
}

// showFacts lays the facts out as a form: names on the left, values
// wrapped at words on the right.
func (d *details) showFacts() {
	d.grid.Objects = d.grid.Objects[:0]
	for _, f := range d.facts {
		k := widget.NewLabel(f[0])
		k.Importance = widget.LowImportance
		v := widget.NewLabel(f[1])
		v.Wrapping = fyne.TextWrapWord
		v.Selectable = true
		d.grid.Add(k)
		d.grid.Add(v)
	}
	d.grid.Refresh()
}

// factsText is the facts one per line, aligned.
func (d *details) factsText() string {
	var b strings.Builder
	for i, f := range d.facts {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%-10s %s", f[0], f[1])
	}
	return b.String()
}

// maxNotes is the most notifications listed for one request.
const maxNotes = 50

// setNotifications lists the notifications that name the request shown
// (progress of a tool call, the cancellation of a request), up to
// fifty; nil or none hides the list.
func (d *details) setNotifications(events []recorder.Event) {
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

// setChildren says how many requests the tool call shown caused, and how
// many of them failed; it is not shown for a request that caused none.
func (d *details) setChildren(total, failed int) {
	if total == 0 || d.span == nil {
		return
	}
	d.addFacts([2]string{"caused", fmt.Sprintf("%d (%d failed)", total, failed)})
	d.body.Refresh()
}

// setRoundFacts adds what the recording says about s as part of a
// multi-round-trip call: a call's rounds and the client's fulfilment time,
// a round's number, outcome and the fulfilment before and after it, an
// input request's round and key. Set it after setSpan.
func (d *details) setRoundFacts(facts [][2]string) {
	if len(facts) == 0 || d.span == nil {
		return
	}
	d.addFacts(facts...)
	d.body.Refresh()
}

// setSpan shows s (nil shows a hint) and the tool call that caused it, if
// known. It clears the notifications: set them after it.
func (d *details) setSpan(s, parent *recorder.Span) {
	d.setSpanIn(s, parent, nil)
}

// setSpanIn shows s, of the given run (nil: the recording has none),
// whose times are then told from the run's start.
func (d *details) setSpanIn(s, parent *recorder.Span, run *recorder.Run) {
	d.run = run
	d.span, d.parent = s, parent
	d.facts = nil
	if s == nil {
		d.copyParams.Disable()
		d.copyResult.Disable()
		d.header.SetText("Click a request in the timeline to see its details.")
		d.why.SetText("")
		d.params.setJSON(nil)
		d.result.setJSON(nil)
	} else {
		d.copyParams.Enable()
		d.copyResult.Enable()
		d.header.SetText(spanHeader(s))
		d.facts = spanFacts(s, parent, d.run)
		if d.proxy {
			d.facts = proxyFacts(s, d.facts)
		}
		d.why.SetText(unlinkedText(s, parent))
		d.params.setJSON(s.Params)
		d.result.setJSON(s.Result)
		d.content.ScrollToTop()
	}
	d.showFacts()
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
	if d.onSpan != nil {
		d.onSpan(s)
	}
}

// setProxy says whether the recording is a proxy's: a server request's
// facts are then what a proxy can know (the wait at the client, exact; the
// work inside it, estimated), and a round's fulfilment says its input
// requests never crossed the wire. Set it before setSpan.
func (d *details) setProxy(on bool) { d.proxy = on }

// proxyFacts rewrites the facts of a server request recorded by a proxy:
// the proxy saw it reach the client and the client's answer come back,
// nothing in between, so the queued/serving split is replaced by the wait
// (exact) and the estimated work.
func proxyFacts(s *recorder.Span, rows [][2]string) [][2]string {
	if s.Direction != recorder.Incoming {
		return rows
	}
	var out [][2]string
	for _, r := range rows {
		switch r[0] {
		case "queued", "serving", "hand-off", "waited", "served", "total":
			continue // a proxy measured none of these apart
		case "direction":
			r[1] = "incoming: a request from the server to your client, passed on by the proxy"
		}
		out = append(out, r)
	}
	if s.InputRequests > 0 {
		out = append(out, [2]string{"fulfilment", fmt.Sprintf("%d input requests fulfilled inside the client; their concurrency cannot be seen on the wire", s.InputRequests)})
		if s.Answered != recorder.Unset {
			out = append(out, [2]string{"took", formatDuration(s.Answered-s.Received) + " (from the input_required answer to the retry)"})
		}
		return out
	}
	if s.Answered != recorder.Unset {
		out = append(out, [2]string{"waiting at the client", formatDuration(s.Answered-s.Received) + " (exact: from when the proxy passed it on to the client's answer)"})
		if s.Serving != recorder.Unset {
			out = append(out, [2]string{"estimated work", formatDuration(s.Answered-s.Serving) + " (estimated: the client is a black box, no queued/serving split is measured)"})
		}
	} else {
		out = append(out, [2]string{"waiting at the client", "not answered yet"})
	}
	return out
}

// Span returns the span shown, or nil.
func (d *details) Span() *recorder.Span { return d.span }

// Text returns everything the pane shows, as text, with every JSON value
// unfolded.
func (d *details) Text() string {
	parts := []string{d.header.Text}
	if len(d.facts) > 0 {
		parts = append(parts, d.factsText())
	}
	if d.why.Text != "" {
		parts = append(parts, d.why.Text)
	}
	parts = append(parts, "Params", d.params.Text(), "Result", d.result.Text())
	if d.notes.Visible() {
		parts = append(parts, "Notifications", d.notes.Text)
	}
	return strings.Join(parts, "\n")
}

// spanHeader names a span: a request the server sent, a call the client
// made, or one round of a multi-round-trip call.
func spanHeader(s *recorder.Span) string {
	h := fmt.Sprintf("#%d %s", s.ID, spanLabel(s))
	if s.Kind == recorder.KindRound && s.Round > 0 {
		h += fmt.Sprintf(" — round %d of its call", s.Round)
	}
	return h
}

// directionText says who sent a request, in words.
func directionText(s *recorder.Span) string {
	switch {
	case s.Direction == recorder.Incoming:
		return "incoming: a request from the server to the client"
	case s.Kind == recorder.KindRound:
		return "outgoing: one round of a multi-round-trip call, from the client to the server"
	}
	return "outgoing: a call from the client to the server"
}

// spanFacts lists a span's properties as (name, value) rows. A request
// the server sent is received, queued, served and answered; a call the
// client made (or a round of one) is sent and answered.
//
// Its times are offsets from the start of its run, when the recording
// has runs, and the first (received, or sent) also says how long after
// its parent call was sent it came and where it lies in the recording.
func spanFacts(s *recorder.Span, parent *recorder.Span, run *recorder.Run) [][2]string {
	var rows [][2]string
	row := func(k, v string) {
		if v != "" {
			rows = append(rows, [2]string{k, v})
		}
	}
	status := s.Status.String()
	if s.Open() {
		status = "in flight"
	}
	row("method", s.Method)
	row("tool", s.Name)
	row("direction", directionText(s))
	row("kind", s.Kind.String())
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
	if s.InputTokens > 0 || s.OutputTokens > 0 {
		row("tokens", fmt.Sprintf("%d in, %d out (the sampling endpoint's count)", s.InputTokens, s.OutputTokens))
	}
	at := func(t time.Duration) string {
		if run == nil || t == recorder.Unset {
			return formatOffset(t)
		}
		return formatOffset(t-run.Start) + " into " + run.Name
	}
	first := func(t time.Duration) string {
		text := at(t)
		if t == recorder.Unset {
			return text
		}
		if parent != nil && parent.Received != recorder.Unset && t >= parent.Received {
			text += ", " + formatDuration(t-parent.Received) + " after its call was sent"
		}
		if run != nil {
			text += " (" + formatOffset(t) + " into the recording)"
		}
		return text
	}
	if s.Direction == recorder.Incoming {
		row("received", first(s.Received))
		row("queued", at(s.Queued))
		row("serving", at(s.Serving))
		row("answered", at(s.Answered))
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
		row("sent", first(s.Received))
		row("answered", at(s.Answered))
		if s.Answered != recorder.Unset {
			row("round trip", formatDuration(s.Total()))
		}
	}
	return rows
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
