package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/recorder"
)

func TestDetails(t *testing.T) {
	test.NewTempApp(t)
	open := recorder.NewSpan("s1", recorder.Incoming, "roots/list")
	open.ID, open.Received, open.Queued = 7, 5*ms, 5*ms
	open.Params = json.RawMessage(`not json {`)
	unlinked := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
	unlinked.ID, unlinked.Received = 9, 5*ms
	unlinked.Unlinked = "3 tool calls were in flight and the request carried no progress token"
	tests := []struct {
		name         string
		span, parent *recorder.Span
		want         []string
		not          []string
	}{
		{"nothing selected", nil, nil, []string{"Click a request"}, []string{"method"}},
		{"a request still waiting", &open, nil, []string{
			"#7 roots/list", "status     in flight", "received   0.005 s", "serving    —", "Params\nnot json {", "Result\n(none)",
		}, []string{"served", "parent"}},
		{"with its tool call", fixedSnapshot().Spans[1], fixedSnapshot().Spans[0], []string{
			"parent     #1 tools/call fanout", "request    0", `"maxTokens": 100`, `"model": "demo"`,
		}, []string{"unlinked"}},
		{"unlinked under concurrent calls", &unlinked, nil, []string{
			"#9 unlinked sampling/createMessage",
			"parent     unlinked (see below)",
			"Unlinked: 3 tool calls were in flight and the request carried no progress token, so no call can be named as its cause. A server links",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDetails()
			test.NewTempWindow(t, d)
			d.SetSpan(tt.span, tt.parent)
			text := d.Text()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("details do not show %q:\n%s", w, text)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(text, w) {
					t.Errorf("details show %q:\n%s", w, text)
				}
			}
			if tt.span != nil {
				test.Tap(d.copyResult)
				if got, want := fyne.CurrentApp().Clipboard().Content(), prettyJSON(tt.span.Result); got != want {
					t.Errorf("copied result = %q, want %q", got, want)
				}
			}
		})
	}
}
