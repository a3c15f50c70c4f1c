package app

import (
	"fyne.io/fyne/v2/container"
	"github.com/fanout-inspector/inspector/engine"
)

// wireContentTabs connects the Resources and Prompts tabs: they follow
// the window's session, list when first shown with one, and show their
// errors the window's way. Call it once the tabs exist.
func (m *MainWindow) wireContentTabs() {
	m.resources.do, m.prompts.do = m.do, m.do
	m.resources.onError, m.prompts.onError = m.errors.Show, m.errors.Show
	onSession := m.bridge.OnSession
	m.bridge.OnSession = func(s *engine.Session, err error) {
		onSession(s, err)
		m.do(func() {
			m.resources.setSession(s)
			m.prompts.setSession(s)
		})
	}
	onSelected := m.tabs.OnSelected
	m.tabs.OnSelected = func(t *container.TabItem) {
		if onSelected != nil {
			onSelected(t)
		}
		m.resources.shown(t.Content == m.resources)
		m.prompts.shown(t.Content == m.prompts)
	}
}
