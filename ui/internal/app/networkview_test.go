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
