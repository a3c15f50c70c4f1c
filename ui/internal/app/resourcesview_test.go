package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
)

// shownText is every text o shows, one line per label, as a person
// reads it.
func shownText(o fyne.CanvasObject) string {
	var b strings.Builder
	for _, c := range test.LaidOutObjects(o) {
		switch v := c.(type) {
		case *widget.Label:
			if v.Visible() {
				b.WriteString(v.Text + "\n")
			}
		case *canvas.Text:
			if v.Visible() {
				b.WriteString(v.Text + "\n")
			}
		}
	}
	return b.String()
}

// tabNamed returns the window's tab with the given text.
func tabNamed(t *testing.T, m *MainWindow, name string) *container.TabItem {
	t.Helper()
	for _, it := range m.tabs.Items {
		if it.Text == name {
			return it
		}
	}
	t.Fatalf("no %s tab", name)
	return nil
}

// TestResourcesTab lists the demo server's resources in the Resources
// tab as it is first shown, reads a resource and a template filled in
// from its form, and subscribes to the ticking clock until an update
// shows; each is on the timeline. It runs on both eras.
func TestResourcesTab(t *testing.T) {
	for _, protocol := range []string{engine.DefaultProtocol, "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			loop := newMainLoop(t)
			m := openMainWindow(t, loop, Options{})
			m.connect(engine.Target{Protocol: protocol})
			loop.waitFor(t, "the connection", 15*time.Second, func() bool { return m.resources.session != nil })
			p := m.resources
			if len(p.entries) != 0 {
				t.Fatal("resources were listed before the tab was shown")
			}
			m.tabs.Select(tabNamed(t, m, "Resources"))
			loop.waitFor(t, "the resources listed", 15*time.Second, func() bool { return len(p.entries) == 3 })
			if got := p.status.Text; got != "2 resources, 1 template." {
				t.Errorf("status %q", got)
			}
			find := func(label string) int {
				for i, e := range p.entries {
					if strings.Contains(e.label(), label) {
						return i
					}
				}
				t.Fatalf("no entry %q in %v", label, p.entries)
				return -1
			}

			p.list.Select(find(demo.ReadmeURI))
			test.Tap(p.read)
			loop.waitFor(t, "the readme read", 10*time.Second, func() bool {
				return strings.Contains(shownText(p.contents), "Fanout Inspector demo server.")
			})
			if got := shownText(p.contents); !strings.Contains(got, "text · demo://readme · text/plain") {
				t.Errorf("contents heading: %q", got)
			}

			p.list.Select(find(demo.ItemTemplate))
			test.Tap(p.read)
			if got := shownText(p.contents); !strings.Contains(got, "Required") && !strings.Contains(got, "fill in") {
				t.Errorf("reading the template with its variable empty shows %q, want it refused", got)
			}
			typeInto(p.form.Field("id").Entry, "7")
			test.Tap(p.read)
			loop.waitFor(t, "the item read", 10*time.Second, func() bool { return strings.Contains(shownText(p.contents), "item 7") })

			p.list.Select(find(demo.ClockURI))
			if p.subscribe.Disabled() || p.subscribe.Hidden {
				t.Fatal("Subscribe is not offered for demo://clock")
			}
			test.Tap(p.subscribe)
			loop.waitFor(t, "an update of the clock", 10*demo.ClockPeriod, func() bool { return strings.HasPrefix(p.updated.Text, "1 update received") })
			s := m.bridge.session()
			snap := s.Recording().Snapshot()
			var updates int
			for _, e := range snap.Events {
				if e.Method == "notifications/resources/updated" && e.Span != 0 {
					updates++
				}
			}
			if updates == 0 {
				t.Error("no update event on a subscription's span in the recording")
			}
			test.Tap(p.subscribe) // off
			loop.waitFor(t, "unsubscribed", 10*time.Second, func() bool { return len(s.Subscriptions()) == 0 && !p.subscribe.Disabled() })
			for _, sp := range s.Recording().Snapshot().Spans {
				if (sp.Method == "subscriptions/listen" && sp.Name == demo.ClockURI) && sp.Status == recorder.StatusOpen {
					t.Errorf("the listen span is still open after unsubscribing")
				}
			}
		})
	}
}

// TestPromptsTab lists the demo server's prompts, refuses Get while the
// required argument is empty, and shows the rendered message once it is
// filled in.
func TestPromptsTab(t *testing.T) {
	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.connect(engine.Target{})
	loop.waitFor(t, "the connection", 15*time.Second, func() bool { return m.prompts.session != nil })
	p := m.prompts
	m.tabs.Select(tabNamed(t, m, "Prompts"))
	loop.waitFor(t, "the prompts listed", 15*time.Second, func() bool { return len(p.prompts) == 1 })
	if p.status.Text != "1 prompt." {
		t.Errorf("status %q", p.status.Text)
	}
	p.list.Select(0)
	if p.form == nil || p.form.Field("name") == nil || p.form.Field("style") == nil {
		t.Fatal("no form with the prompt's arguments name and style")
	}
	test.Tap(p.get)
	if got := shownText(p.messages); !strings.Contains(got, "name: Required") {
		t.Errorf("Get with name empty shows %q, want it refused", got)
	}
	typeInto(p.form.Field("name").Entry, "Ada")
	typeInto(p.form.Field("style").Entry, "formal")
	test.Tap(p.get)
	loop.waitFor(t, "the rendered prompt", 10*time.Second, func() bool {
		return strings.Contains(shownText(p.messages), "Greet Ada formally, in one sentence.")
	})
	if got := shownText(p.messages); !strings.Contains(got, "user\n") || !strings.Contains(got, "a greeting for Ada") {
		t.Errorf("messages %q, want the role and the description", got)
	}
	typeInto(p.form.Field("style").Entry, "loud")
	test.Tap(p.get)
	loop.waitFor(t, "the server's refusal", 10*time.Second, func() bool {
		return strings.Contains(shownText(p.messages), `style "loud": want plain or formal`)
	})
}

// TestPromptsTabGolden pins the look of the Prompts tab once a prompt
// was got: the list, the form with its required argument marked, and
// the rendered message with its role.
func TestPromptsTabGolden(t *testing.T) {
	loop := newMainLoop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := engine.Connect(ctx, engine.Target{}, engine.DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := newPromptsPanel()
	w := test.NewWindow(p)
	defer w.Close()
	w.Resize(fyne.NewSize(560, 640))
	p.setSession(s)
	p.shown(true)
	loop.waitFor(t, "the prompts listed", 15*time.Second, func() bool { return len(p.prompts) == 1 })
	p.list.Select(0)
	typeInto(p.form.Field("name").Entry, "Ada")
	test.Tap(p.get)
	loop.waitFor(t, "the rendered prompt", 10*time.Second, func() bool {
		return strings.Contains(shownText(p.messages), "Say hello to Ada.")
	})
	w.Canvas().Unfocus()
	assertImage(t, "prompts_tab.png", w.Canvas().Capture())
}

// TestResourcesTabGolden pins the look of the Resources tab once a
// template was read: the list, the template's variable filled in, and
// the JSON it read as a tree.
func TestResourcesTabGolden(t *testing.T) {
	loop := newMainLoop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := engine.Connect(ctx, engine.Target{}, engine.DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := newResourcesPanel()
	w := test.NewWindow(p)
	defer w.Close()
	w.Resize(fyne.NewSize(560, 640))
	p.setSession(s)
	p.shown(true)
	loop.waitFor(t, "the resources listed", 15*time.Second, func() bool { return len(p.entries) == 3 })
	p.list.Select(2) // the template, after the resources
	typeInto(p.form.Field("id").Entry, "7")
	test.Tap(p.read)
	loop.waitFor(t, "the item read", 10*time.Second, func() bool { return strings.Contains(shownText(p.contents), "item 7") })
	assertImage(t, "resources_tab.png", w.Canvas().Capture())
}
