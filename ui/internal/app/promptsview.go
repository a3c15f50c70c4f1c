package app

import (
	"context"
	"fmt"
	"slices"
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

	// do runs f on the main goroutine (while the window is open);
	// onError shows an error.
	do      func(f func())
	onError func(doing string, err error)

	session *engine.Session
	listed  bool // the session's prompts were asked for
	shownUp bool // the tab is showing
	prompts []engine.Prompt
	chosen  int // the selected prompt, -1 when none

	list     *widget.List
	status   *widget.Label
	refresh  *widget.Button
	about    *widget.Label
	form     *SchemaForm // the chosen prompt's arguments, or nil
	formBox  *fyne.Container
	get      *widget.Button
	messages *fyne.Container
	detail   *container.Scroll // what is shown of the chosen prompt
	content  fyne.CanvasObject
}

func newPromptsPanel() *promptsPanel {
	p := &promptsPanel{chosen: -1, do: fyne.Do, onError: func(string, error) {}}
	p.ExtendBaseWidget(p)
	p.status = widget.NewLabel("Not connected.")
	p.status.Truncation = fyne.TextTruncateEllipsis
	p.refresh = widget.NewButton("Refresh", p.listAll)
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
	if s == p.session {
		return
	}
	p.session, p.listed = s, false
	p.prompts, p.chosen = nil, -1
	p.list.UnselectAll()
	p.list.Refresh()
	p.messages.RemoveAll()
	p.status.SetText("Not connected.")
	if s != nil {
		p.status.SetText("Connected: Refresh lists the server's prompts.")
		if p.shownUp {
			p.listAll()
		}
	}
	p.showChosen()
}

// shown tells the panel that its tab is showing (or not): the first time
// with a session, it lists.
func (p *promptsPanel) shown(on bool) {
	p.shownUp = on
	if on && p.session != nil && !p.listed {
		p.listAll()
	}
}

// listAll asks the server for its prompts, all pages.
func (p *promptsPanel) listAll() {
	s := p.session
	if s == nil {
		p.status.SetText("Not connected: connect to a server first (Server tab).")
		return
	}
	p.listed = true
	p.status.SetText("Listing…")
	p.refresh.Disable()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
		defer cancel()
		prompts, err := s.ListPrompts(ctx)
		p.do(func() {
			p.refresh.Enable()
			if p.session != s {
				return
			}
			p.prompts, p.chosen = prompts, -1
			p.list.UnselectAll()
			p.list.Refresh()
			p.showChosen()
			switch {
			case err != nil:
				p.status.SetText("Listing failed: see the error.")
				p.onError("Listing the server's prompts", err)
			case !slices.Contains(s.Info().Capabilities, "prompts"):
				p.status.SetText("The server offers no prompts.")
			default:
				p.status.SetText(fmt.Sprintf("%d %s.", len(prompts), plural(len(prompts), "prompt", "prompts")))
			}
		})
	}()
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
