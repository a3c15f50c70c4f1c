package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

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
	fromModel := *fixedSnapshot().Spans[1]
	fromModel.InputTokens, fromModel.OutputTokens = 31, 12
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
		}, []string{"unlinked", "tokens"}},
		{"answered by a model endpoint", &fromModel, nil, []string{
			"tokens     31 in, 12 out (the sampling endpoint's count)",
		}, nil},
		{"unlinked under concurrent calls", &unlinked, nil, []string{
			"#9 unlinked sampling/createMessage",
			"parent     unlinked (see below)",
			"Unlinked: 3 tool calls were in flight and the request carried no progress token, so no call can be named as its cause. A server links",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDetails()
			test.NewTempWindow(t, d)
			d.setSpan(tt.span, tt.parent)
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

// TestDetailsJSON: a tool result whose text content is itself JSON shows
// that JSON decoded, not as an escaped string; big values start folded
// and unfold with their arrow; a huge array lists its first members and
// says how many more there are; Copy copies the whole JSON as it came.
func TestDetailsJSON(t *testing.T) {
	test.NewTempApp(t)
	call := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
	call.ID, call.Name, call.Received, call.Answered, call.Status = 3, "search", 0, 40*ms, recorder.StatusOK
	var items []string
	for i := range 300 {
		items = append(items, fmt.Sprintf(`{"id":%d,"title":"item number %d of the search"}`, i, i))
	}
	inner, _ := json.Marshal(`{"query":"cats","hits":[` + strings.Join(items, ",") + `]}`)
	call.Result = json.RawMessage(`{"content":[{"type":"text","text":` + string(inner) + `}],"isError":false}`)
	call.Params = json.RawMessage(`{"name":"search","arguments":{"q":"cats"}}`)

	d := newDetails()
	w := test.NewTempWindow(t, d)
	w.Resize(fyne.NewSize(320, 700))
	d.setSpan(&call, nil)
	text := d.Text()
	for _, want := range []string{`"query": "cats"`, `"text": (JSON inside a string) {`, `"title": "item number 7 of the search"`, "… 200 more (Copy has them all)"} {
		if !strings.Contains(text, want) {
			t.Errorf("details do not show %s:\n%.2000s", want, text)
		}
	}
	if strings.Contains(text, `\"query\"`) {
		t.Errorf("details show the nested JSON as an escaped string:\n%.600s", text)
	}

	rows := func() []string { return labelTexts(d.result) }
	find := func(prefix string) (*jsonNode, bool) {
		var found *jsonNode
		var walk func(n *jsonNode)
		walk = func(n *jsonNode) {
			if found == nil && strings.HasPrefix(n.key, prefix) {
				found = n
			}
			for _, c := range n.children {
				walk(c)
			}
		}
		walk(d.result.root)
		return found, found != nil && d.result.open[found]
	}
	// the wrappers around the big value open, the 300 hits do not
	if !slices.Contains(rows(), `"query": "cats"`) || !slices.Contains(rows(), `"text": {2 keys}  (JSON inside a string)`) {
		t.Errorf("the text content's JSON is not shown unfolded down to its hits: rows %q", rows())
	}
	hits, open := find(`"hits"`)
	if hits == nil || open {
		t.Fatalf("the 300 hits are not folded at first (found %v): rows %q", hits != nil, rows())
	}
	const hitsRow = `"hits": [300 items]`
	for _, r := range rows() {
		if strings.Contains(r, "item number") {
			t.Errorf("a folded value's members are shown: %q", r)
		}
	}
	// unfold them with the arrow, as a person does: the first hundred show
	tapToggle(t, d.result, hitsRow)
	if _, open := find(`"hits"`); !open || !slices.Contains(rows(), "… 200 more (Copy has them all)") {
		t.Errorf("tapping the arrow did not unfold the hits, bounded: rows %q", rows())
	}
	if n := len(rows()); n > 150 {
		t.Errorf("the unfolded hits built %d rows, want about a hundred", n)
	}
	tapToggle(t, d.result, hitsRow)
	if slices.Contains(rows(), "… 200 more (Copy has them all)") {
		t.Errorf("tapping the arrow again did not fold them: rows %q", rows())
	}

	test.Tap(d.copyResult)
	if got := fyne.CurrentApp().Clipboard().Content(); got != prettyJSON(call.Result) {
		t.Errorf("Copy put %.200q on the clipboard, want the result as it came, indented", got)
	}
	// the facts wrap at words: a long value keeps its words whole
	for _, o := range test.LaidOutObjects(d.grid) {
		if l, ok := o.(*widget.Label); ok && l.Text != "" && l.Wrapping == fyne.TextWrapBreak {
			t.Errorf("fact %q breaks mid-word", l.Text)
		}
	}
}

// TestDetailsDirectionWords: a call the client sent is sent and
// answered, never "received"; a request the server sent is received,
// queued, served and answered; a round says it is a round.
func TestDetailsDirectionWords(t *testing.T) {
	test.NewTempApp(t)
	call := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
	call.ID, call.Name, call.Received, call.Answered, call.Status = 1, "fanout", 2*ms, 40*ms, recorder.StatusOK
	round := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
	round.ID, round.Kind, round.Round, round.Parent, round.Received = 2, recorder.KindRound, 2, 1, 5*ms
	req := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
	req.ID, req.Received, req.Queued, req.Serving = 3, 3*ms, 3*ms, 4*ms
	d := newDetails()
	test.NewTempWindow(t, d)
	for _, tt := range []struct {
		span      *recorder.Span
		want, not []string
	}{
		{&call, []string{"direction  outgoing: a call from the client to the server", "sent       0.002 s", "answered   0.040 s", "round trip 38.0 ms"},
			[]string{"received", "queued", "serving"}},
		{&round, []string{"#2 tools/call — round 2 of its call", "one round of a multi-round-trip call", "sent       0.005 s", "answered   —"},
			[]string{"received", "queued"}},
		{&req, []string{"direction  incoming: a request from the server to the client", "received   0.003 s", "queued     0.003 s", "serving    0.004 s", "answered   —"},
			[]string{"sent "}},
	} {
		d.setSpan(tt.span, nil)
		text := d.Text()
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("#%d: details do not show %q:\n%s", tt.span.ID, w, text)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(text, w) {
				t.Errorf("#%d: details show %q:\n%s", tt.span.ID, w, text)
			}
		}
	}
}

// TestDetailsTimesFromTheRun: in a recording with runs, a request's
// times are told from its run's start, and the first says how long after
// its call was sent it came and where it lies in the recording.
func TestDetailsTimesFromTheRun(t *testing.T) {
	test.NewTempApp(t)
	call := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
	call.ID, call.Name, call.Received, call.Answered, call.Status = 1, "fanout", 5*time.Second+2*ms, 5*time.Second+540*ms, recorder.StatusOK
	req := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
	req.ID, req.Parent, req.Received, req.Queued, req.Serving, req.Answered = 2, 1, 5*time.Second+14*ms, 5*time.Second+14*ms, 5*time.Second+15*ms, 5*time.Second+515*ms
	run := recorder.Run{Name: "Run 2", Start: 5 * time.Second, End: 6 * time.Second}
	d := newDetails()
	test.NewTempWindow(t, d)
	d.setSpanIn(&req, &call, &run)
	text := d.Text()
	for _, w := range []string{"received   0.014 s into Run 2, 12.0 ms after its call was sent (5.014 s into the recording)",
		"serving    0.015 s into Run 2", "answered   0.515 s into Run 2"} {
		if !strings.Contains(text, w) {
			t.Errorf("details do not show %q:\n%s", w, text)
		}
	}
	d.setSpanIn(&call, nil, &run)
	if w := "sent       0.002 s into Run 2 (5.002 s into the recording)"; !strings.Contains(d.Text(), w) {
		t.Errorf("details of the call do not show %q:\n%s", w, d.Text())
	}
}

// labelTexts lists the texts of the labels shown in o, in order.
func labelTexts(o fyne.CanvasObject) []string {
	var out []string
	for _, c := range test.LaidOutObjects(o) {
		if l, ok := c.(*widget.Label); ok && c.Visible() {
			out = append(out, l.Text)
		}
	}
	return out
}

// tapToggle taps the fold arrow of the tree row labelled row.
func tapToggle(t *testing.T, tree *jsonTree, row string) {
	t.Helper()
	for _, c := range test.LaidOutObjects(tree) {
		box, ok := c.(*fyne.Container)
		if !ok || len(box.Objects) != 2 {
			continue
		}
		l, lok := box.Objects[0].(*widget.Label)
		b, bok := box.Objects[1].(*widget.Button)
		if lok && bok && l.Text == row {
			test.Tap(b)
			return
		}
	}
	t.Fatalf("no row %q with a fold arrow", row)
}
