package app

import (
	"strings"
	"testing"
)

// TestTabAtStart checks that TabNames are the panels' tabs as the window
// shows them, and that Options.Tab opens on the one it names, in any
// case (Workload, where Run is, when it names none).
func TestTabAtStart(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	var shown []string
	for _, item := range m.tabs.Items {
		shown = append(shown, item.Text)
	}
	if strings.Join(shown, ",") != strings.Join(TabNames, ",") {
		t.Errorf("the tabs are %v, TabNames %v", shown, TabNames)
	}
	if got := m.tabs.Selected().Text; got != "Workload" {
		t.Errorf("opened on %q, want Workload", got)
	}
	for _, name := range []string{"protocol", "Network", "LOGS"} {
		m := openMainWindow(t, loop, Options{Tab: name})
		if got := m.tabs.Selected().Text; !strings.EqualFold(got, name) {
			t.Errorf("Tab %q: opened on %q", name, got)
		}
	}
}
