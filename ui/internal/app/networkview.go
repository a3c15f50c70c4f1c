package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/recorder"
)

// networkEvery is how often the Network tab looks for new exchanges while
// it is shown.
const networkEvery = 300 * time.Millisecond

// networkNone is what the Network tab says before there is anything to
// show.
const networkNone = "No HTTP exchanges: connect to a server over streamable HTTP or SSE (Server tab) to see its HTTP traffic here; stdio and the demo have none."

// networkShown is what the Network tab shows: the HTTP exchanges of the
// recording on screen, the recording's now, and a key that changes
// whenever they do.
type networkShown struct {
	log *recorder.HTTPLog
	now time.Duration
	key any
}

// networkView is the Network tab: the HTTP exchanges of a session over
// HTTP, one a row (method, status coloured by class, path, what it
// carried, duration); selecting one shows its headers, the MCP ones
// highlighted and the secrets as the recording masked them, its bodies
// and an event stream's events.
type networkView struct {
	widget.BaseWidget

	source  func() networkShown // called on the main goroutine
	summary *widget.Label
	list    *widget.List
	detail  *widget.RichText
	split   *container.Split
	ticker  mainTicker

	// main goroutine only:
	key      any
	now      time.Duration
	rows     []*recorder.Exchange
	selected recorder.ExchangeID
	shown    *recorder.Exchange // the exchange in the detail pane
	log      *recorder.HTTPLog  // the exchanges in rows

	// spans returns the recording the timeline shows, whose requests
	// the exchanges are linked with; onSelectSpan is called with the
	// request of an exchange clicked (networklink.go).
	spans        func() *recorder.Snapshot
	onSelectSpan func(recorder.SpanID)
	links        recorder.ExchangeLinks
}

// newNetworkView makes the Network tab; source says what to show.
func newNetworkView(source func() networkShown) *networkView {
	v := &networkView{source: source}
	v.ExtendBaseWidget(v)
	v.summary = widget.NewLabel(networkNone)
	v.summary.Truncation = fyne.TextTruncateEllipsis
	v.list = widget.NewList(func() int { return len(v.rows) }, newExchangeRow, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(v.rows) {
			setExchangeRow(o, v.rows[i], v.now)
		}
	})
	v.list.OnSelected = func(i widget.ListItemID) {
		if i < len(v.rows) {
			v.selected = v.rows[i].ID
			v.showDetail(v.rows[i])
			v.exchangeClicked(v.rows[i])
		}
	}
	v.detail = widget.NewRichText()
	v.detail.Wrapping = fyne.TextWrapBreak
	v.split = container.NewVSplit(v.list, container.NewScroll(v.detail))
	v.split.Offset = 0.4
	return v
}

// CreateRenderer implements [fyne.Widget].
func (v *networkView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(v.summary, nil, nil, nil, v.split))
}

// follow starts looking for new exchanges every networkEvery while the
// tab is shown, until stopped reports true.
func (v *networkView) follow(stopped func() bool) {
	v.ticker.start(networkEvery, func() {
		if stopped() {
			v.ticker.halt()
			return
		}
		if v.Visible() {
			v.refresh()
		}
	})
}

// refresh shows the exchanges the source has now, if they changed.
func (v *networkView) refresh() {
	s := v.source()
	if s.key == v.key {
		if v.anyOpen() && s.now != v.now { // their durations grow
			v.now = s.now
			v.list.Refresh()
			if v.shown != nil && v.shown.Open() {
				v.showDetail(v.shown)
			}
		}
		return
	}
	v.key, v.now = s.key, s.now
	v.rows, v.log = nil, s.log
	if s.log != nil {
		v.rows = s.log.Exchanges
	}
	v.summary.SetText(networkSummary(s.log))
	v.list.Refresh()
	var sel *recorder.Exchange
	for _, x := range v.rows {
		if x.ID == v.selected {
			sel = x
		}
	}
	switch {
	case sel == nil && v.shown != nil:
		v.selected, v.shown = 0, nil
		v.list.UnselectAll()
		v.detail.Segments = nil
		v.detail.Refresh()
	case sel != nil && sel != v.shown:
		v.showDetail(sel) // it changed: an event stream's new events
	}
}

// anyOpen reports whether an exchange shown is still open.
func (v *networkView) anyOpen() bool {
	for _, x := range v.rows {
		if x.Open() {
			return true
		}
	}
	return false
}

// networkSummary is the line above the list.
func networkSummary(log *recorder.HTTPLog) string {
	if log == nil || log.Total == 0 {
		return networkNone
	}
	s := fmt.Sprintf("%d HTTP exchanges · select one for its headers and bodies", log.Total)
	if d := log.Dropped(); d > 0 {
		s = fmt.Sprintf("%d HTTP exchanges, %d shown (the first and the latest) · select one for its headers and bodies", log.Total, len(log.Exchanges))
	}
	return s
}

// newExchangeRow makes a list row: method and status at the left, the
// rest in a label that takes the remaining width.
func newExchangeRow() fyne.CanvasObject {
	method := canvas.NewText("DELETE", theme.Color(theme.ColorNameForeground))
	method.TextStyle = fyne.TextStyle{Monospace: true}
	status := canvas.NewText("000", theme.Color(theme.ColorNameForeground))
	status.TextStyle = fyne.TextStyle{Monospace: true}
	rest := widget.NewLabel("")
	rest.TextStyle = fyne.TextStyle{Monospace: true}
	rest.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, container.NewHBox(method, status), nil, rest)
}

// setExchangeRow fills a row made by newExchangeRow with x.
func setExchangeRow(o fyne.CanvasObject, x *recorder.Exchange, now time.Duration) {
	c := o.(*fyne.Container)
	var rest *widget.Label
	var left *fyne.Container
	for _, obj := range c.Objects {
		switch obj := obj.(type) {
		case *widget.Label:
			rest = obj
		case *fyne.Container:
			left = obj
		}
	}
	method, status := left.Objects[0].(*canvas.Text), left.Objects[1].(*canvas.Text)
	method.Text = fmt.Sprintf("%-6s", x.Method)
	method.Refresh()
	status.Text = statusText(x)
	status.Color = theme.Color(statusColor(x))
	status.Refresh()
	rest.SetText(exchangeLine(x, now))
}

// statusText is the status column: the code, or ERR when no response
// came.
func statusText(x *recorder.Exchange) string {
	if x.Status == 0 {
		return "ERR"
	}
	return fmt.Sprint(x.Status)
}

// statusColor colours a status by its class: success for 2xx, warning
// for 3xx, error for 4xx, 5xx and no response at all.
func statusColor(x *recorder.Exchange) fyne.ThemeColorName {
	switch {
	case x.Status >= 200 && x.Status < 300:
		return theme.ColorNameSuccess
	case x.Status >= 300 && x.Status < 400:
		return theme.ColorNameWarning
	}
	return theme.ColorNameError
}

// exchangeLine is a row's text after the status: the URL's path, what
// the request carried (its Mcp-Method header, else the JSON-RPC method
// of its body) and how long it took.
func exchangeLine(x *recorder.Exchange, now time.Duration) string {
	what := recorder.HeaderValue(x.RequestHeaders, "Mcp-Method")
	if what == "" {
		what = x.RPC
	}
	if what == "" && x.Method == http.MethodGet {
		what = "event stream"
	}
	took := formatMS(x.Duration(now))
	if x.Open() {
		took = "open, " + took
	}
	line := fmt.Sprintf("%s  %s  %s", pathOf(x.URL), what, took)
	switch {
	case x.EventCount == 1:
		line += "  1 event"
	case x.EventCount > 1:
		line += fmt.Sprintf("  %d events", x.EventCount)
	}
	if x.Error != "" {
		line += "  " + x.Error
	}
	return line
}

// formatMS is a duration in milliseconds with one decimal.
func formatMS(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// pathOf is the path and query of u.
func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return u
	}
	return p.RequestURI()
}

// showDetail shows x's headers, bodies and events.
func (v *networkView) showDetail(x *recorder.Exchange) {
	v.shown = x
	v.detail.Segments = exchangeDetail(x, v.now)
	v.detail.Refresh()
}

// detailText is the detail pane's text as shown.
func (v *networkView) detailText() string { return v.detail.String() }

// exchangeDetail lays out x for the detail pane.
func exchangeDetail(x *recorder.Exchange, now time.Duration) []widget.RichTextSegment {
	status := "no response"
	if x.Status != 0 {
		status = fmt.Sprintf("%d %s", x.Status, http.StatusText(x.Status))
	}
	segs := []widget.RichTextSegment{
		&widget.TextSegment{Text: fmt.Sprintf("#%d %s %s", x.ID, x.Method, x.URL), Style: widget.RichTextStyleSubHeading},
		&widget.TextSegment{Text: fmt.Sprintf("%s · %s · sent at %.3f s", status, formatMS(x.Duration(now)), x.Sent.Seconds()), Style: widget.RichTextStyleParagraph},
	}
	if x.Error != "" {
		segs = append(segs, &widget.TextSegment{Text: x.Error, Style: colored(widget.RichTextStyleParagraph, theme.ColorNameError)})
	}
	segs = append(segs, headerSegments("Request headers", x.RequestHeaders)...)
	segs = append(segs, bodySegments("Request body", x.RequestBody, x.RequestBytes)...)
	segs = append(segs, headerSegments("Response headers", x.ResponseHeaders)...)
	segs = append(segs, bodySegments("Response body", x.ResponseBody, x.ResponseBytes)...)
	if x.EventCount > 0 {
		title := fmt.Sprintf("Event stream: %d events", x.EventCount)
		if len(x.Events) < x.EventCount {
			title += fmt.Sprintf(" (the first %d kept)", len(x.Events))
		}
		segs = append(segs, &widget.TextSegment{Text: title, Style: sectionStyle})
		for _, e := range x.Events {
			head := fmt.Sprintf("at %.3f s", e.At.Seconds())
			if e.Event != "" {
				head += " · event " + e.Event
			}
			if e.ID != "" {
				head += " · id " + e.ID
			}
			segs = append(segs, &widget.TextSegment{Text: head, Style: colored(widget.RichTextStyleParagraph, theme.ColorNamePlaceHolder)},
				&widget.TextSegment{Text: prettyJSON(json.RawMessage(e.Data)), Style: widget.RichTextStyleCodeBlock})
		}
	}
	return segs
}

// headerSegments lays out headers a line each: the MCP headers
// (Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method…) highlighted, a
// masked value marked as such.
func headerSegments(title string, hs []recorder.Header) []widget.RichTextSegment {
	if len(hs) == 0 {
		return nil
	}
	segs := []widget.RichTextSegment{&widget.TextSegment{Text: title, Style: sectionStyle}}
	for _, h := range hs {
		name := widget.RichTextStyleInline
		value := widget.RichTextStyleParagraph
		if isMCPHeader(h.Name) {
			name.ColorName, name.TextStyle.Bold = theme.ColorNamePrimary, true
			value.ColorName = theme.ColorNamePrimary
		}
		text := h.Value
		if h.Masked {
			value.ColorName, value.TextStyle.Italic = theme.ColorNameWarning, true
			text += "  (masked)"
		}
		segs = append(segs, &widget.TextSegment{Text: h.Name + ": ", Style: name}, &widget.TextSegment{Text: text, Style: value})
	}
	return segs
}

// isMCPHeader reports whether a header is one of MCP's own.
func isMCPHeader(name string) bool { return strings.HasPrefix(strings.ToLower(name), "mcp-") }

// bodySegments lays out a body, pretty-printed when it is JSON.
func bodySegments(title, body string, total int64) []widget.RichTextSegment {
	if body == "" {
		return nil
	}
	if total > int64(len(body)) {
		title += fmt.Sprintf(" (the first %d of %d bytes)", len(body), total)
	}
	return []widget.RichTextSegment{
		&widget.TextSegment{Text: title, Style: sectionStyle},
		&widget.TextSegment{Text: prettyJSON(json.RawMessage(body)), Style: widget.RichTextStyleCodeBlock},
	}
}

// sectionStyle titles the parts of an exchange's detail.
var sectionStyle = widget.RichTextStyle{SizeName: theme.SizeNameText, TextStyle: fyne.TextStyle{Bold: true}}

func colored(s widget.RichTextStyle, c fyne.ThemeColorName) widget.RichTextStyle {
	s.ColorName = c
	return s
}

// networkSource is what the Network tab shows: the live recording's
// exchanges while the window follows it, else those of the recording on
// screen.
func (m *MainWindow) networkSource() networkShown {
	if rec := m.liveRecording(); rec != nil && m.opened == "" && m.following == "" {
		log, version := rec.HTTP()
		return networkShown{log: log, now: rec.Now(), key: struct {
			rec     *recorder.Recording
			version uint64
		}{rec, version}}
	}
	snap := m.timeline.snapshot()
	if snap == nil {
		return networkShown{}
	}
	return networkShown{log: snap.HTTP, now: snap.Now, key: snap}
}
