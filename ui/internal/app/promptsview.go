package app

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
)

// promptsPanel is the Prompts tab: the server's prompts (every page),
// a form of the chosen prompt's arguments, and Get, which shows the
// messages the server rendered from them. Every request it makes is on
// the timeline.
type promptsPanel struct {
	widget.BaseWidget

	catalogTab // the session, and listing its prompts

	prompts []engine.Prompt
	chosen  int // the selected prompt, -1 when none

	list     *widget.List
	about    *widget.Label
	form     *SchemaForm // the chosen prompt's arguments, or nil
	formBox  *fyne.Container
	get      *widget.Button
	messages *fyne.Container
	detail   *container.Scroll // what is shown of the chosen prompt
	content  fyne.CanvasObject
}

func newPromptsPanel() *promptsPanel {
	p := &promptsPanel{chosen: -1}
	p.ExtendBaseWidget(p)
	p.initCatalog("prompts", p.listPrompts)
	p.list = widget.NewList(func() int { return len(p.prompts) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(p.prompts) {
				pr := p.prompts[i]
				o.(*widget.Label).SetText(orName(pr.Title, pr.Name) + " — " + pr.Name)
			}
		})
	p.list.OnSelected = p.choose
	p.about = widget.NewLabel("")
	p.about.Wrapping = fyne.TextWrapWord
	p.formBox = container.NewVBox()
	p.get = widget.NewButton("Get", p.getChosen)
	p.messages = container.NewVBox()
	p.showChosen()
	top := container.NewBorder(nil, nil, nil, p.refresh, p.status)
	p.detail = container.NewVScroll(container.NewVBox(p.about, p.formBox, container.NewHBox(p.get), widget.NewSeparator(), p.messages))
	split := container.NewVSplit(p.list, p.detail)
	split.Offset = 0.35
	p.content = container.NewBorder(top, nil, nil, nil, split)
	return p
}

// CreateRenderer implements [fyne.Widget].
func (p *promptsPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// setSession shows session s (nil: none): its prompts are asked for when
// the tab shows.
func (p *promptsPanel) setSession(s *engine.Session) {
	if !p.newSession(s) {
		return
	}
	p.prompts, p.chosen = nil, -1
	p.list.UnselectAll()
	p.list.Refresh()
	p.messages.RemoveAll()
	p.sessionShown()
	p.showChosen()
}

// listPrompts lists the server's prompts, all pages (the tab's [catalogTab.fetch]).
func (p *promptsPanel) listPrompts(ctx context.Context, s *engine.Session) (func() string, error) {
	prompts, err := s.ListPrompts(ctx)
	return func() string {
		p.prompts, p.chosen = prompts, -1
		p.list.UnselectAll()
		p.list.Refresh()
		p.showChosen()
		return fmt.Sprintf("%d %s.", len(prompts), plural(len(prompts), "prompt", "prompts"))
	}, err
}

// choose shows prompt i.
func (p *promptsPanel) choose(i widget.ListItemID) {
	if i < 0 || i >= len(p.prompts) {
		return
	}
	p.chosen = i
	p.messages.RemoveAll()
	p.showChosen()
}

// showChosen shows the chosen prompt's description and the form of its
// arguments.
func (p *promptsPanel) showChosen() {
	defer p.relayout()
	p.formBox.RemoveAll()
	p.form = nil
	if p.chosen < 0 || p.chosen >= len(p.prompts) {
		p.about.SetText("Choose a prompt.")
		p.get.Disable()
		return
	}
	pr := p.prompts[p.chosen]
	p.about.SetText(strings.TrimSpace(pr.Name + "\n" + pr.Description))
	names := make([]string, len(pr.Arguments))
	desc := make([]string, len(pr.Arguments))
	req := make([]bool, len(pr.Arguments))
	for i, a := range pr.Arguments {
		names[i], desc[i], req[i] = a.Name, a.Description, a.Required
	}
	f, err := stringForm(names, desc, req)
	if err != nil {
		p.formBox.Add(widget.NewLabel(err.Error()))
		p.get.Disable()
		return
	}
	f.onSubmit = p.getChosen
	p.form = f
	p.formBox.Add(f)
	p.get.Enable()
}

// getChosen gets the chosen prompt with the form's arguments and shows
// its messages.
func (p *promptsPanel) getChosen() {
	s := p.session
	if s == nil || p.chosen < 0 || p.chosen >= len(p.prompts) || p.form == nil {
		return
	}
	pr := p.prompts[p.chosen]
	args, err := formStrings(p.form)
	if err != nil {
		p.showProblem(err)
		return
	}
	p.messages.RemoveAll()
	p.messages.Add(widget.NewLabel("Getting " + pr.Name + "…"))
	p.relayout()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
		defer cancel()
		res, err := s.GetPrompt(ctx, pr.Name, args, &pr)
		p.do(func() {
			if p.session != s {
				return
			}
			defer p.relayout()
			p.messages.RemoveAll()
			if err != nil {
				p.showProblem(err)
				return
			}
			if res.Description != "" {
				d := widget.NewLabel(res.Description)
				d.Wrapping = fyne.TextWrapWord
				d.TextStyle.Italic = true
				p.messages.Add(d)
			}
			if len(res.Messages) == 0 {
				p.messages.Add(widget.NewLabel("The prompt has no messages."))
			}
			for _, m := range res.Messages {
				role := widget.NewLabel(m.Role)
				role.TextStyle.Bold = true
				p.messages.Add(role)
				p.messages.Add(contentView(m.Content))
			}
		})
	}()
}

// showProblem shows err where the messages go.
func (p *promptsPanel) showProblem(err error) {
	defer p.relayout()
	p.messages.RemoveAll()
	l := widget.NewLabel(err.Error())
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.DangerImportance
	p.messages.Add(l)
}

// relayout lays the details out again once what they hold changed.
func (p *promptsPanel) relayout() {
	if p.detail != nil {
		p.detail.Content.Refresh()
		p.detail.Refresh()
	}
}
