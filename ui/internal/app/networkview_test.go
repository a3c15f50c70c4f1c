package app

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestNetworkTab connects the window to the demo server over streamable
// HTTP on 2026-07-28 with a bearer token, calls a tool and an unknown
// one, and reads the Network tab as a person would: a row per HTTP
// request with its status coloured by class (the unknown tool's 400 in
// the error colour), and, selected, the exchange's headers with the MCP
// ones highlighted and the token masked, and its bodies. The same
// exchanges show from the recording saved and opened again.
func TestNetworkTab(t *testing.T) {
	const token = "net-tab-token-6e1f0a93d2"
	srv := httptest.NewServer(demo.NewHTTPHandler())
	t.Cleanup(srv.Close)
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.window.Resize(fyne.NewSize(1200, 800))
	m.connect(engine.Target{Transport: engine.TransportHTTP, URL: srv.URL + "/mcp", Protocol: "2026-07-28",
		Headers: map[string]string{"Authorization": "Bearer " + token}})
	loop.waitFor(t, "the session", 15*time.Second, func() bool { return m.bridge.session() != nil })
	s := m.bridge.session()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, w := range []load.Workload{{Tool: "echo", Args: []byte(`{"text":"hi"}`)}, {Tool: "no-such-tool", Args: []byte(`{}`)}} {
		if _, err := load.Run(ctx, []*engine.Session{s}, w, nil); err != nil {
			t.Fatalf("%s: %v", w.Tool, err)
		}
	}

	selectTabNamed(t, m, "Network")
	var bad int
	loop.waitFor(t, "the unknown tool's exchange in the Network tab", 10*time.Second, func() bool {
		bad = rowWhere(m.network, func(x *recorder.Exchange) bool { return x.Status == 400 })
		return bad >= 0
	})
	if got := m.network.summary.Text; !strings.Contains(got, "HTTP exchanges · select one") {
		t.Errorf("summary %q", got)
	}
	row := newExchangeRow()
	setExchangeRow(row, m.network.rows[bad], m.network.now)
	left := row.(*fyne.Container).Objects[1].(*fyne.Container) // Border puts the centre first
	if status := left.Objects[1].(*canvas.Text); status.Text != "400" || status.Color != theme.Color(theme.ColorNameError) {
		t.Errorf("the 400's status shows %q in %v, want 400 in the error colour", status.Text, status.Color)
	}
	if rest := row.(*fyne.Container).Objects[0].(*widget.Label).Text; !strings.HasPrefix(rest, "/mcp  tools/call  ") {
		t.Errorf("the 400's row reads %q, want the path, then tools/call (its Mcp-Method)", rest)
	}
	ok := rowWhere(m.network, func(x *recorder.Exchange) bool { return x.Status == 200 && x.RPC == "tools/call" })
	setExchangeRow(row, m.network.rows[ok], m.network.now)
	if status := left.Objects[1].(*canvas.Text); status.Color != theme.Color(theme.ColorNameSuccess) {
		t.Errorf("a 200 shows in %v, want the success colour", status.Color)
	}

	m.network.list.Select(bad)
	text := m.network.detailText()
	for _, want := range []string{"400 Bad Request", "Request headers", "Mcp-Method: tools/call", "Mcp-Protocol-Version: 2026-07-28",
		"Authorization: Bearer REDACTED  (masked)", "Request body", `"name": "no-such-tool"`, "Response body", "-32602"} {
		if !strings.Contains(text, want) {
			t.Errorf("the detail lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, token) {
		t.Error("the detail shows the token")
	}
	for _, seg := range m.network.detail.Segments {
		ts, _ := seg.(*widget.TextSegment)
		switch {
		case ts == nil:
		case ts.Text == "Mcp-Method: ":
			if ts.Style.ColorName != theme.ColorNamePrimary || !ts.Style.TextStyle.Bold {
				t.Errorf("Mcp-Method is not highlighted: %+v", ts.Style)
			}
		case strings.HasPrefix(ts.Text, "Bearer REDACTED"):
			if ts.Style.ColorName != theme.ColorNameWarning {
				t.Errorf("the masked value is not marked: %+v", ts.Style)
			}
		}
	}

	// Saved and opened again, the file's exchanges show.
	file := filepath.Join(t.TempDir(), "net.json")
	if err := m.saveFile(file); err != nil {
		t.Fatal(err)
	}
	m.disconnect()
	if err := m.openFile(file); err != nil {
		t.Fatal(err)
	}
	m.network.refresh()
	// The exchange selected is the file's own now, the same request.
	if i := rowWhere(m.network, func(x *recorder.Exchange) bool { return x.Status == 400 && x.RPC == "tools/call" }); i < 0 || m.network.shown != m.network.rows[i] {
		t.Errorf("the opened file's exchanges: %d rows, the 400 at %d, detail of %+v", len(m.network.rows), i, m.network.shown)
	}
}

// TestNetworkTabWithoutHTTP: a session with no HTTP says where the
// traffic would come from.
func TestNetworkTabWithoutHTTP(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "the session", 15*time.Second, func() bool { return m.bridge.session() != nil })
	m.network.refresh()
	if got := m.network.summary.Text; got != networkNone || len(m.network.rows) != 0 {
		t.Errorf("summary %q with %d rows, want %q", got, len(m.network.rows), networkNone)
	}
}

// selectTabNamed selects the window's tab named name.
func selectTabNamed(t *testing.T, m *MainWindow, name string) {
	t.Helper()
	for _, item := range m.tabs.Items {
		if item.Text == name {
			m.tabs.Select(item)
			return
		}
	}
	t.Fatalf("no tab named %q", name)
}

// rowWhere is the index of the first row of v that ok accepts, or -1.
func rowWhere(v *networkView, ok func(*recorder.Exchange) bool) int {
	for i, x := range v.rows {
		if ok(x) {
			return i
		}
	}
	return -1
}

// TestNetworkTabGolden pins the tab's look: statuses coloured by class,
// an open stream, a request that got no response, and the 400's detail
// with its MCP headers highlighted and its token masked.
func TestNetworkTabGolden(t *testing.T) {
	test.NewTempApp(t)
	log := networkFixture()
	v := newNetworkView(func() networkShown { return networkShown{log: log, now: 900 * time.Millisecond, key: log} })
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(900, 640))
	v.refresh()
	v.list.Select(3)
	assertImage(t, "network_tab.png", w.Canvas().Capture())
}

// networkFixture is a short session over streamable HTTP on 2026-07-28,
// as the recording keeps it.
func networkFixture() *recorder.HTTPLog {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	common := []recorder.Header{
		{Name: "Accept", Value: "application/json, text/event-stream"},
		{Name: "Authorization", Value: "Bearer REDACTED", Masked: true},
		{Name: "Content-Type", Value: "application/json"},
	}
	req := func(method string, extra ...recorder.Header) []recorder.Header {
		hs := append(append([]recorder.Header(nil), common...), recorder.Header{Name: "Mcp-Method", Value: method})
		return append(append(hs, extra...), recorder.Header{Name: "Mcp-Protocol-Version", Value: "2026-07-28"})
	}
	sse := []recorder.Header{{Name: "Content-Type", Value: "text/event-stream"}}
	return &recorder.HTTPLog{Total: 5, Exchanges: []*recorder.Exchange{
		{ID: 1, Session: "s1", Method: "POST", URL: "http://127.0.0.1:8080/mcp", RPC: "server/discover", Sent: ms(3), Responded: ms(20), Ended: ms(27), Status: 200,
			RequestHeaders: req("server/discover"), ResponseHeaders: sse, RequestBody: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, RequestBytes: 63,
			Events: []recorder.StreamEvent{{At: ms(20), Event: "message", Data: `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25"]}}`}}, EventCount: 1},
		{ID: 2, Session: "s1", Method: "POST", URL: "http://127.0.0.1:8080/mcp", RPC: "subscriptions/listen", Sent: ms(30), Responded: ms(41), Ended: recorder.Unset, Status: 200,
			RequestHeaders: req("subscriptions/listen"), ResponseHeaders: sse, EventCount: 1,
			Events: []recorder.StreamEvent{{At: ms(41), Event: "message", Data: `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}`}}},
		{ID: 3, Session: "s1", Method: "POST", URL: "http://127.0.0.1:8080/mcp", RPC: "tools/call", Sent: ms(50), Responded: ms(61), Ended: ms(64), Status: 200,
			RequestHeaders: req("tools/call", recorder.Header{Name: "Mcp-Name", Value: "echo"}), ResponseHeaders: sse, EventCount: 1,
			Events: []recorder.StreamEvent{{At: ms(61), Event: "message", Data: `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}`}}},
		{ID: 4, Session: "s1", Method: "POST", URL: "http://127.0.0.1:8080/mcp", RPC: "tools/call", Sent: ms(70), Responded: ms(84), Ended: ms(85), Status: 400,
			RequestHeaders:  req("tools/call", recorder.Header{Name: "Mcp-Name", Value: "no-such-tool"}),
			ResponseHeaders: []recorder.Header{{Name: "Content-Length", Value: "90"}, {Name: "Content-Type", Value: "application/json"}},
			RequestBody:     `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no-such-tool","arguments":{}}}`, RequestBytes: 93,
			ResponseBody: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool \"no-such-tool\""}}`, ResponseBytes: 90},
		{ID: 5, Session: "s1", Method: "POST", URL: "http://127.0.0.1:8080/mcp", RPC: "tools/call", Sent: ms(90), Responded: recorder.Unset, Ended: ms(95),
			RequestHeaders: req("tools/call"), Error: `Post "http://127.0.0.1:8080/mcp": dial tcp 127.0.0.1:8080: connect: connection refused`},
	}}
}

// TestNetworkTabOpenStreamGrows: an event stream still open shows how
// long it has been open, growing with the recording's clock though no
// exchange changed.
func TestNetworkTabOpenStreamGrows(t *testing.T) {
	test.NewTempApp(t)
	log := networkFixture()
	now := 900 * time.Millisecond
	v := newNetworkView(func() networkShown { return networkShown{log: log, now: now, key: log} })
	w := test.NewWindow(v)
	defer w.Close()
	v.refresh()
	v.list.Select(1) // the open subscriptions/listen stream
	before := exchangeLine(v.rows[1], v.now)
	now = 2 * time.Second
	v.refresh()
	after := exchangeLine(v.rows[1], v.now)
	if before != "/mcp  subscriptions/listen  open, 870.0 ms  1 event" || after != "/mcp  subscriptions/listen  open, 1970.0 ms  1 event" {
		t.Errorf("the open stream's row: %q, then %q", before, after)
	}
	if !strings.Contains(v.detailText(), "200 OK · 1970.0 ms") {
		t.Errorf("the detail did not follow:\n%s", v.detailText())
	}
}
