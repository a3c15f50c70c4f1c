package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
)

// listTimeout bounds a listing, a read or a get made from a tab.
const listTimeout = 30 * time.Second

// resourceEntry is one row of the Resources list: a resource or a
// template.
type resourceEntry struct {
	resource *engine.Resource
	template *engine.ResourceTemplate
}

func (e resourceEntry) label() string {
	if e.template != nil {
		return "template " + orName(e.template.Title, e.template.Name) + " — " + e.template.URITemplate
	}
	return orName(e.resource.Title, e.resource.Name) + " — " + e.resource.URI
}

func orName(title, name string) string {
	if title != "" {
		return title
	}
	return name
}

// resourcesPanel is the Resources tab: the server's resources and
// templates (every page), read one (a template once its variables are
// filled in) to see its contents, and subscribe to one to see its
// updates arrive. Every request it makes is on the timeline.
type resourcesPanel struct {
	widget.BaseWidget

	catalogTab // the session, and listing its resources and templates

	entries []resourceEntry
	chosen  int                      // the selected entry, -1 when none
	updates map[string]int           // updates received, by URI
	last    map[string]time.Duration // when the last one was read

	list      *widget.List
	about     *widget.Label
	form      *SchemaForm // the chosen template's variables, or nil
	formBox   *fyne.Container
	read      *widget.Button
	subscribe *widget.Check
	updated   *widget.Label
	contents  *fyne.Container
	detail    *container.Scroll // what is shown of the chosen entry
	content   fyne.CanvasObject
}

func newResourcesPanel() *resourcesPanel {
	p := &resourcesPanel{chosen: -1, updates: map[string]int{}, last: map[string]time.Duration{}}
	p.ExtendBaseWidget(p)
	p.initCatalog("resources", p.listResources)
	p.list = widget.NewList(func() int { return len(p.entries) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(p.entries) {
				o.(*widget.Label).SetText(p.entries[i].label())
			}
		})
	p.list.OnSelected = p.choose
	p.about = widget.NewLabel("")
	p.about.Wrapping = fyne.TextWrapWord
	p.formBox = container.NewVBox()
	p.read = widget.NewButton("Read", p.readChosen)
	p.subscribe = widget.NewCheck("Subscribe", p.setSubscribed)
	p.updated = widget.NewLabel("")
	p.updated.Wrapping = fyne.TextWrapWord
	p.contents = container.NewVBox()
	p.showChosen()
	top := container.NewBorder(nil, nil, nil, p.refresh, p.status)
	p.detail = container.NewVScroll(container.NewVBox(p.about, p.formBox,
		container.NewHBox(p.read, p.subscribe), p.updated, widget.NewSeparator(), p.contents))
	split := container.NewVSplit(p.list, p.detail)
	split.Offset = 0.35
	p.content = container.NewBorder(top, nil, nil, nil, split)
	return p
}

// CreateRenderer implements [fyne.Widget].
func (p *resourcesPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// setSession shows session s (nil: none): the lists are asked for when
// the tab shows.
func (p *resourcesPanel) setSession(s *engine.Session) {
	if !p.newSession(s) {
		return
	}
	p.entries, p.chosen, p.updates, p.last = nil, -1, map[string]int{}, map[string]time.Duration{}
	p.list.UnselectAll()
	p.list.Refresh()
	p.contents.RemoveAll()
	if s != nil {
		s.OnResourceUpdated(func(u engine.ResourceUpdate) { p.do(func() { p.resourceUpdated(s, u) }) })
	}
	p.sessionShown()
	p.showChosen()
}

// listResources lists the server's resources and templates, all pages
// (the tab's [catalogTab.fetch]).
func (p *resourcesPanel) listResources(ctx context.Context, s *engine.Session) (func() string, error) {
	res, err := s.ListResources(ctx)
	tmpls, terr := s.ListResourceTemplates(ctx)
	return func() string {
		p.entries = p.entries[:0]
		for i := range res {
			p.entries = append(p.entries, resourceEntry{resource: &res[i]})
		}
		for i := range tmpls {
			p.entries = append(p.entries, resourceEntry{template: &tmpls[i]})
		}
		p.chosen = -1
		p.list.UnselectAll()
		p.list.Refresh()
		p.showChosen()
		return fmt.Sprintf("%d %s, %d %s.", len(res), plural(len(res), "resource", "resources"), len(tmpls), plural(len(tmpls), "template", "templates"))
	}, firstErr(err, terr)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// choose shows entry i.
func (p *resourcesPanel) choose(i widget.ListItemID) {
	if i < 0 || i >= len(p.entries) {
		return
	}
	p.chosen = i
	p.contents.RemoveAll()
	p.showChosen()
}

// showChosen shows the chosen entry's description, its template's form
// and what can be done with it.
func (p *resourcesPanel) showChosen() {
	defer p.relayout()
	p.formBox.RemoveAll()
	p.form = nil
	if p.chosen < 0 || p.chosen >= len(p.entries) {
		p.about.SetText("Choose a resource or a template.")
		p.read.Disable()
		p.subscribe.Hide()
		p.updated.SetText("")
		return
	}
	e := p.entries[p.chosen]
	p.read.Enable()
	if e.template != nil {
		t := e.template
		p.about.SetText(strings.TrimSpace(fmt.Sprintf("%s\n%s\n%s", t.URITemplate, t.Description, t.MIMEType)))
		p.subscribe.Hide()
		p.updated.SetText("")
		if err := p.templateForm(t.URITemplate); err != nil {
			p.formBox.Add(widget.NewLabel(err.Error()))
			p.read.Disable()
		}
		return
	}
	r := e.resource
	p.about.SetText(strings.TrimSpace(fmt.Sprintf("%s\n%s\n%s", r.URI, r.Description, r.MIMEType)))
	p.subscribe.Show()
	canSubscribe := p.session != nil && slices.Contains(p.session.Info().Capabilities, "resources.subscribe")
	if canSubscribe {
		p.subscribe.Enable()
	} else {
		p.subscribe.Disable()
	}
	on := p.session != nil && slices.Contains(p.session.Subscriptions(), r.URI)
	p.subscribe.OnChanged = nil // showing the state is not asking for it
	p.subscribe.SetChecked(on)
	p.subscribe.OnChanged = p.setSubscribed
	p.showUpdates(r.URI)
}

// templateForm builds the form of a template's variables.
func (p *resourcesPanel) templateForm(tmpl string) error {
	vars, err := engine.TemplateVariables(tmpl)
	if err != nil {
		return err
	}
	desc := make([]string, len(vars))
	req := make([]bool, len(vars))
	for i := range vars {
		req[i] = true
	}
	f, err := stringForm(vars, desc, req)
	if err != nil {
		return err
	}
	f.onSubmit = p.readChosen
	p.form = f
	p.formBox.Add(f)
	return nil
}

// chosenURI is the URI the chosen entry reads: a resource's, or its
// template filled with the form.
func (p *resourcesPanel) chosenURI() (string, error) {
	e := p.entries[p.chosen]
	if e.template == nil {
		return e.resource.URI, nil
	}
	values, err := formStrings(p.form)
	if err != nil {
		return "", err
	}
	return engine.ExpandTemplate(e.template.URITemplate, values)
}

// readChosen reads the chosen resource and shows its contents.
func (p *resourcesPanel) readChosen() {
	s := p.session
	if s == nil || p.chosen < 0 || p.chosen >= len(p.entries) {
		return
	}
	uri, err := p.chosenURI()
	if err != nil {
		p.showProblem(err)
		return
	}
	p.contents.RemoveAll()
	p.contents.Add(widget.NewLabel("Reading " + uri + "…"))
	p.relayout()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
		defer cancel()
		res, err := s.ReadResource(ctx, uri)
		p.do(func() {
			if p.session != s {
				return
			}
			defer p.relayout()
			p.contents.RemoveAll()
			if err != nil {
				p.showProblem(err)
				return
			}
			if len(res.Contents) == 0 {
				p.contents.Add(widget.NewLabel(uri + " has no contents."))
			}
			for _, c := range res.Contents {
				p.contents.Add(contentView(c))
			}
		})
	}()
}

// showProblem shows err where the contents go.
func (p *resourcesPanel) showProblem(err error) {
	defer p.relayout()
	p.contents.RemoveAll()
	l := widget.NewLabel(err.Error())
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.DangerImportance
	p.contents.Add(l)
}

// setSubscribed subscribes to the chosen resource, or unsubscribes.
func (p *resourcesPanel) setSubscribed(on bool) {
	s := p.session
	if s == nil || p.chosen < 0 || p.chosen >= len(p.entries) || p.entries[p.chosen].resource == nil {
		return
	}
	uri := p.entries[p.chosen].resource.URI
	p.subscribe.Disable()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
		defer cancel()
		var err error
		doing := "Subscribing to " + uri
		if on {
			err = s.Subscribe(ctx, uri)
		} else {
			doing = "Unsubscribing from " + uri
			err = s.Unsubscribe(ctx, uri)
		}
		p.do(func() {
			if p.session != s {
				return
			}
			if err != nil {
				p.onError(doing, err)
			}
			p.showChosen()
		})
	}()
}

// resourceUpdated counts an update of a resource and shows it when that
// resource is chosen.
func (p *resourcesPanel) resourceUpdated(s *engine.Session, u engine.ResourceUpdate) {
	if p.session != s {
		return
	}
	p.updates[u.URI]++
	p.last[u.URI] = u.At
	if p.chosen >= 0 && p.chosen < len(p.entries) && p.entries[p.chosen].resource != nil && p.entries[p.chosen].resource.URI == u.URI {
		p.showUpdates(u.URI)
	}
}

// showUpdates says how many updates of uri arrived.
func (p *resourcesPanel) showUpdates(uri string) {
	switch n := p.updates[uri]; {
	case n > 0:
		p.updated.SetText(fmt.Sprintf("%d %s received, the last at %.1f s on the timeline (Read to see the contents now)",
			n, plural(n, "update", "updates"), p.last[uri].Seconds()))
	case p.subscribe.Checked:
		p.updated.SetText("Subscribed: updates show here as they arrive.")
	default:
		p.updated.SetText("")
	}
}

// relayout lays the details out again once what they hold changed.
func (p *resourcesPanel) relayout() {
	if p.detail != nil {
		p.detail.Content.Refresh()
		p.detail.Refresh()
	}
}
