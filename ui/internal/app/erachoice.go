package app

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
)

// The Server panel's era select: each era of the engine with what it
// does. The era is the word before " — "; the panel hands it to the
// engine, which reads it together with the protocol
// ([engine.Target.ProtocolEra]).
var eraChoices = func() []string {
	out := make([]string, 0, len(engine.Eras()))
	for _, e := range engine.Eras() {
		out = append(out, string(e)+eraSep+eraMeaning(e))
	}
	return out
}()

// eraMeaning says what an era does, for its choice.
func eraMeaning(e engine.Era) string {
	switch e {
	case engine.EraAuto:
		return "server/discover and " + engine.ModernProtocol + " when the server speaks it, else initialize"
	case engine.EraModern:
		return engine.ModernProtocol + " only (server/discover, input_required rounds)"
	}
	return "initialize, " + engine.DefaultProtocol + " (the default)"
}

// eraChoice is the choice of era e.
func eraChoice(e engine.Era) string {
	if e == "" {
		e = engine.EraLegacy
	}
	for _, c := range eraChoices {
		if strings.HasPrefix(c, string(e)+eraSep) {
			return c
		}
	}
	return string(e)
}

// eraOfChoice is the era a choice names.
func eraOfChoice(choice string) engine.Era {
	e, _, _ := strings.Cut(choice, eraSep)
	return engine.Era(strings.TrimSpace(e))
}

// setEraAndProtocol fills the era select and the protocol entry from t,
// as the engine reads the two together (a target that says "latest" and
// no era shows auto); a pair the engine refuses is shown as written, and
// Connect says what is wrong with it.
func (p *connectionPanel) setEraAndProtocol(t engine.Target) {
	era, pinned, err := t.ProtocolEra()
	if err != nil {
		era, pinned = t.Era, t.Protocol
	}
	if era == engine.EraAuto && t.Protocol == "latest" {
		pinned = "" // auto offers the newest anyway
	}
	p.settingEra = true
	p.era.SetSelected(eraChoice(era))
	p.protocol.SetText(protocolChoice(pinned))
	p.settingEra = false
}

// eraChanged clears a pinned protocol the era chosen cannot offer, so
// that the two never disagree through the panel's own choices.
func (p *connectionPanel) eraChanged(choice string) {
	if p.settingEra {
		return
	}
	t := engine.Target{Era: eraOfChoice(choice), Protocol: protocolOf(p.protocol.Text)}
	if _, _, err := t.ProtocolEra(); err != nil && t.Protocol != "" {
		p.settingEra = true
		p.protocol.SetText("")
		p.settingEra = false
	}
}

// protocolChanged moves the era to the one a protocol chosen belongs to
// (latest to auto, unless modern is chosen), so that picking
// 2026-07-28 under legacy is not an error to read.
func (p *connectionPanel) protocolChanged(text string) {
	if p.settingEra {
		return
	}
	v := protocolOf(text)
	t := engine.Target{Era: eraOfChoice(p.era.Selected), Protocol: v}
	if _, _, err := t.ProtocolEra(); err == nil || v == "" {
		return
	}
	want, _, err := engine.Target{Protocol: v}.ProtocolEra()
	if err != nil {
		return // not a version at all: Connect says so
	}
	p.settingEra = true
	p.era.SetSelected(eraChoice(want))
	p.settingEra = false
}

// eraBadge shows the era a session got, and for auto which one it fell
// to ("auto → legacy · 2025-11-25", [engine.ServerInfo.EraBadge]): a
// caption in a rounded box, hidden while not connected.
type eraBadge struct {
	widget.BaseWidget
	text string
}

func newEraBadge() *eraBadge {
	b := &eraBadge{}
	b.ExtendBaseWidget(b)
	b.Hide()
	return b
}

// set shows text, or hides the badge when it is "".
func (b *eraBadge) set(text string) {
	b.text = text
	if text == "" {
		b.Hide()
	} else {
		b.Show()
	}
	b.Refresh()
}

// Text returns what the badge says ("" when hidden).
func (b *eraBadge) Text() string { return b.text }

// CreateRenderer implements [fyne.Widget].
func (b *eraBadge) CreateRenderer() fyne.WidgetRenderer {
	r := &eraBadgeRenderer{b: b, bg: canvas.NewRectangle(color.Transparent), label: canvas.NewText("", color.Black)}
	r.label.TextStyle.Bold = true
	r.Refresh()
	return r
}

type eraBadgeRenderer struct {
	b     *eraBadge
	bg    *canvas.Rectangle
	label *canvas.Text
}

func (r *eraBadgeRenderer) pad() fyne.Size {
	p := theme.InnerPadding() / 2
	return fyne.NewSize(p*2, p)
}

func (r *eraBadgeRenderer) Layout(size fyne.Size) {
	r.bg.Resize(size)
	m := r.label.MinSize()
	r.label.Move(fyne.NewPos((size.Width-m.Width)/2, (size.Height-m.Height)/2))
	r.label.Resize(m)
}

func (r *eraBadgeRenderer) MinSize() fyne.Size {
	m, p := r.label.MinSize(), r.pad()
	return fyne.NewSize(m.Width+2*p.Width, m.Height+2*p.Height)
}

func (r *eraBadgeRenderer) Refresh() {
	th := r.b.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.label.Text = r.b.text
	r.label.TextSize = th.Size(theme.SizeNameCaptionText)
	r.label.Color = th.Color(theme.ColorNameForeground, v)
	// the modern era in the primary colour, legacy in the quieter one
	fill := th.Color(theme.ColorNameInputBackground, v)
	if strings.Contains(r.b.text, string(engine.EraModern)+" ·") {
		fill = th.Color(theme.ColorNameSelection, v)
	}
	r.bg.FillColor = fill
	r.bg.StrokeColor = th.Color(theme.ColorNamePrimary, v)
	r.bg.StrokeWidth = 1
	r.bg.CornerRadius = th.Size(theme.SizeNameInputRadius)
	r.bg.Refresh()
	r.label.Refresh()
}

func (r *eraBadgeRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.bg, r.label} }

func (r *eraBadgeRenderer) Destroy() {}

// recentLabel names a recent connection in the Recent select: the
// target, and its era and pinned protocol when it has them, so that the
// demo on modern and the demo on legacy are two choices.
func recentLabel(t engine.Target) string {
	label := t.String()
	if t.Era != "" {
		label += " · era " + string(t.Era)
	}
	if t.Protocol != "" {
		label += " · protocol " + t.Protocol
	}
	return label
}
