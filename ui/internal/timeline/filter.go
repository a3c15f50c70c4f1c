package timeline

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/recorder"
)

// spanFilter is what a person typed to find requests: words that must all
// match. A word matches a span when its method, tool name, status, JSON-RPC
// id or "#span" contains it (ignoring case); "method:", "status:" and
// "id:" limit a word to that field.
type spanFilter struct {
	words []filterWord
}

type filterWord struct {
	field string // "", "method", "status" or "id"
	text  string
}

func parseFilter(s string) spanFilter {
	var f spanFilter
	for _, w := range strings.Fields(strings.ToLower(s)) {
		field, text, ok := strings.Cut(w, ":")
		switch {
		case ok && (field == "method" || field == "status" || field == "id") && text != "":
			f.words = append(f.words, filterWord{field, text})
		default:
			f.words = append(f.words, filterWord{"", w})
		}
	}
	return f
}

// active reports whether the filter hides anything.
func (f spanFilter) active() bool { return len(f.words) > 0 }

// match reports whether s shows under the filter.
func (f spanFilter) match(s *recorder.Span) bool {
	for _, w := range f.words {
		method := strings.ToLower(s.Method + " " + s.Name)
		status := s.Status.String()
		id := strings.ToLower(s.RequestID)
		span := fmt.Sprintf("#%d", s.ID)
		var ok bool
		switch w.field {
		case "method":
			ok = strings.Contains(method, w.text)
		case "status":
			ok = strings.Contains(status, w.text)
		case "id":
			ok = id == w.text || span == w.text || "#"+w.text == span
		default:
			ok = strings.Contains(method, w.text) || strings.Contains(status, w.text) ||
				id == w.text || span == w.text
		}
		if !ok {
			return false
		}
	}
	return true
}

// setFilter shows only the requests that match text: words that must all
// match a request's method or tool name, status, JSON-RPC id or "#span"
// ("echo error", "status:timeout", "id:17"). Empty text shows every row.
// The chart and the stats still count every request.
func (g *Gantt) setFilter(text string) {
	f := parseFilter(text)
	if fmt.Sprint(f) == fmt.Sprint(g.layout.filter) {
		return
	}
	g.layout.filter = f
	g.scrollY = 0
	g.relayout()
}

// NewFilterEntry returns a search field that filters the rows of g as the
// person types (see [Gantt.setFilter]), wide enough to read.
func NewFilterEntry(g *Gantt) fyne.CanvasObject {
	e := widget.NewEntry()
	e.SetPlaceHolder("Filter: method, status:error, id:17")
	e.OnChanged = g.setFilter
	return container.NewGridWrap(fyne.NewSize(260, e.MinSize().Height), e)
}
