package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/clientconfig"
)

// serverList lists the MCP servers of the client configs found on this
// machine (Claude Desktop, Claude Code, Cursor, VS Code: see
// [clientconfig.Discover]), each with the file it came from, and a file
// that cannot be read with what is wrong. Picking one calls onPick; a
// server whose VS Code config asks a person for inputs first shows an
// entry for each (a password entry for a password input) and a Use
// button.
type serverList struct {
	widget.BaseWidget

	// onPick is called with the server picked: shown is the target as its
	// file writes it (placeholders unfilled, for the panel's inputs), real
	// the one to connect to (placeholders filled).
	onPick func(s clientconfig.Server, shown, real engine.Target)

	// buttons pick the servers of Servers, one each, in precedence order;
	// exported so tests and scripts can pick as a person would.
	buttons []*widget.Button
	servers []clientconfig.Server
	// inputs are the entries of the inputs the server being picked needs,
	// useInputs the button that picks it with them.
	inputs    []*widget.Entry
	useInputs *widget.Button
	// rescan reads the config files again.
	rescan *widget.Button
	// accordion folds the list away.
	accordion *widget.Accordion

	places  clientconfig.Places
	found   clientconfig.Found
	title   *widget.Label
	rows    *fyne.Container
	form    *fyne.Container
	problem *widget.Label
	content fyne.CanvasObject
	pending clientconfig.Server
}

// newServerList makes the list and fills it from the config files in
// places.
func newServerList(places clientconfig.Places) *serverList {
	l := &serverList{places: places}
	l.ExtendBaseWidget(l)
	l.title = widget.NewLabel("")
	l.title.Wrapping = fyne.TextWrapWord
	l.rows = container.NewVBox()
	l.form = container.NewVBox()
	l.problem = widget.NewLabel("")
	l.problem.Importance = widget.DangerImportance
	l.problem.Wrapping = fyne.TextWrapWord
	l.problem.Hide()
	l.rescan = widget.NewButtonWithIcon("", theme.ViewRefreshIcon(), func() { l.setFound(clientconfig.Discover(l.places)) })
	l.rescan.Importance = widget.LowImportance
	l.accordion = widget.NewAccordion(widget.NewAccordionItem("Servers in your client configs",
		container.NewVBox(container.NewBorder(nil, nil, nil, l.rescan, l.title), l.rows, l.form, l.problem)))
	l.accordion.Open(0)
	l.content = l.accordion
	l.setFound(clientconfig.Discover(places))
	return l
}

// CreateRenderer implements [fyne.Widget].
func (l *serverList) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(l.content)
}

// setFound lists the files of found and their servers.
func (l *serverList) setFound(found clientconfig.Found) {
	l.found = found
	l.buttons, l.servers = nil, nil
	l.rows.RemoveAll()
	l.form.RemoveAll()
	l.problem.Hide()
	n := 0
	for _, f := range found.Files {
		head := widget.NewLabelWithStyle(string(f.Format)+" — "+l.short(f.Path), fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
		head.Truncation = fyne.TextTruncateEllipsis
		l.rows.Add(head)
		if f.Err != nil {
			l.rows.Add(dangerLabel(f.Err.Error()))
			continue
		}
		for _, s := range f.Servers {
			if s.Err != nil {
				l.rows.Add(dangerLabel(s.Name + ": " + s.Err.Error()))
				continue
			}
			n++
			s := s
			b := widget.NewButton(s.Name, func() { l.pick(s) })
			b.Alignment = widget.ButtonAlignLeading
			detail := string(s.Transport) + " · " + s.Summary()
			if s.Era != "" {
				detail += " · era " + string(s.Era)
			}
			if by, ok := found.Shadowed(s); ok {
				detail += " (the name is also in " + l.short(by.File) + ", which --server takes)"
			}
			if ins := s.Inputs(); len(ins) > 0 {
				detail += fmt.Sprintf(" · asks for %d input(s)", len(ins))
			}
			info := widget.NewLabel(detail)
			info.Truncation = fyne.TextTruncateEllipsis
			l.rows.Add(container.NewBorder(nil, nil, b, nil, info))
			l.buttons = append(l.buttons, b)
			l.servers = append(l.servers, s)
		}
	}
	switch {
	case len(found.Files) == 0:
		l.title.SetText("No client config found (Claude Desktop, Claude Code, Cursor, VS Code).")
	default:
		l.title.SetText(fmt.Sprintf("%d server(s) in %d file(s); press one to fill the connection.", n, len(found.Files)))
	}
	l.accordion.Items[0].Title = fmt.Sprintf("Servers in your client configs (%d)", n)
	l.accordion.Refresh()
	l.Refresh()
}

// Rows returns the list's text as shown, one line a row, for tests.
func (l *serverList) Rows() []string {
	var out []string
	for _, o := range l.rows.Objects {
		switch w := o.(type) {
		case *widget.Label:
			out = append(out, w.Text)
		case *fyne.Container: // a server: its button and its details
			out = append(out, w.Objects[1].(*widget.Button).Text+"  "+w.Objects[0].(*widget.Label).Text)
		}
	}
	return out
}

// pick fills the connection from s, or asks for the inputs it needs.
func (l *serverList) pick(s clientconfig.Server) {
	l.form.RemoveAll()
	l.problem.Hide()
	real, err := s.Target(clientconfig.Values{})
	var miss *clientconfig.MissingInputsError
	switch {
	case errors.As(err, &miss):
		l.askInputs(s)
		return
	case err != nil:
		l.problem.SetText(err.Error())
		l.problem.Show()
		return
	}
	l.use(s, real)
}

// askInputs shows an entry for each input s needs and a Use button.
func (l *serverList) askInputs(s clientconfig.Server) {
	l.pending = s
	l.inputs = nil
	ins := s.Inputs()
	l.form.Add(widget.NewLabel(fmt.Sprintf("%s asks for %s:", s.Name, plural(len(ins), "a value", "these values"))))
	for _, in := range ins {
		e := widget.NewEntry()
		if in.Password {
			e = widget.NewPasswordEntry()
		}
		e.SetText(in.Default)
		e.PlaceHolder = in.ID
		label := in.Description
		if label == "" {
			label = in.ID
		}
		l.inputs = append(l.inputs, e)
		l.form.Add(container.NewBorder(nil, nil, widget.NewLabel(label), nil, e))
	}
	l.useInputs = widget.NewButton("Use "+s.Name, func() {
		vals := clientconfig.Values{Inputs: map[string]string{}}
		for i, in := range ins {
			vals.Inputs[in.ID] = l.inputs[i].Text
		}
		real, err := s.Target(vals)
		if err != nil {
			l.problem.SetText(err.Error())
			l.problem.Show()
			return
		}
		l.form.RemoveAll()
		l.inputs, l.useInputs = nil, nil
		l.use(s, real)
	})
	l.useInputs.Importance = widget.HighImportance
	l.form.Add(l.useInputs)
}

// use hands the picked server on.
func (l *serverList) use(s clientconfig.Server, real engine.Target) {
	shown := s.Written()
	shown.Dir = real.Dir
	// an envFile's variables are not in the entry: show their names only
	written := map[string]bool{}
	for k := range s.Env {
		written[k] = true
	}
	for _, kv := range real.Env {
		if k, _, _ := strings.Cut(kv, "="); !written[k] {
			shown.Env = append(shown.Env, k+"=(from "+filepath.Base(s.EnvFile)+")")
		}
	}
	if l.onPick != nil {
		l.onPick(s, shown, real)
	}
}

// short writes a path with the home folder as ~.
func (l *serverList) short(path string) string {
	if h := l.places.Home; h != "" && strings.HasPrefix(path, h+string(filepath.Separator)) {
		return "~" + path[len(h):]
	}
	return path
}

func dangerLabel(text string) *widget.Label {
	w := widget.NewLabel(text)
	w.Importance = widget.DangerImportance
	w.Wrapping = fyne.TextWrapWord
	return w
}

// configPick is the server picked from a config, kept by the connection
// panel: the target shown in its inputs and the one to connect to.
type configPick struct {
	shown, real engine.Target
}

// pickFromConfig fills the panel from a server of a client config: its
// inputs show the entry as written, and Connect uses the values it was
// filled with (and its working directory) for whatever the person left as
// shown.
func (p *connectionPanel) pickFromConfig(s clientconfig.Server, shown, real engine.Target) {
	p.setTarget(shown)
	p.picked = &configPick{shown: shown, real: real}
	p.problem.Hide()
	p.info.SetText("From " + s.Label())
}

// keepHidden remembers what the panel cannot show of a target it is
// filled with (its working directory and secret values), so that
// connecting to it unchanged keeps them.
func (p *connectionPanel) keepHidden(t engine.Target) {
	p.picked = nil
	if t.Dir != "" || len(t.SecretValues) > 0 {
		p.picked = &configPick{shown: t, real: t}
	}
}

// withPicked puts back into t, read from the panel's inputs, the values
// of the server picked from a config where t still shows it as written.
func (p *connectionPanel) withPicked(t engine.Target) engine.Target {
	pk := p.picked
	if pk == nil || t.Transport != pk.real.Transport {
		return t
	}
	switch t.Transport {
	case engine.TransportStdio:
		if t.Command == pk.shown.Command {
			t.Command, t.Dir = pk.real.Command, pk.real.Dir
		}
		realByKey := map[string]string{}
		for _, kv := range pk.real.Env {
			k, _, _ := strings.Cut(kv, "=")
			realByKey[k] = kv
		}
		for i, kv := range t.Env {
			k, _, _ := strings.Cut(kv, "=")
			for _, shown := range pk.shown.Env {
				if shown == kv && realByKey[k] != "" {
					t.Env[i] = realByKey[k]
				}
			}
		}
	case engine.TransportHTTP, engine.TransportSSE:
		if t.URL == pk.shown.URL {
			t.URL = pk.real.URL
		}
		for k, v := range t.Headers {
			if pk.shown.Headers[k] == v {
				t.Headers[k] = pk.real.Headers[k]
			}
		}
	}
	t.SecretValues = pk.real.SecretValues
	return t
}
