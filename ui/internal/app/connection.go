package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/clientconfig"
	"github.com/fanout-inspector/inspector/recorder"
)

// recentKey is the preferences key of the recent connections.
const recentKey = "recentTargets"

// maxRecent is how many recent connections are remembered.
const maxRecent = 10

// The transports as the panel names them.
var transportChoices = []struct {
	kind  engine.TransportKind
	label string
}{
	{engine.TransportDemo, "Demo server (built in)"},
	{engine.TransportStdio, "Command (stdio)"},
	{engine.TransportHTTP, "Streamable HTTP URL"},
	{engine.TransportSSE, "SSE URL (legacy)"},
	{transportProxyHTTP, proxyChoice},
}

// transportProxyHTTP is the Server panel's choice to host the HTTP proxy
// (inspector proxy --listen --upstream) instead of connecting: not a
// transport of the engine's, so never in a [engine.Target].
const transportProxyHTTP engine.TransportKind = "proxy-http"

// proxyChoice is the transport select's label of [transportProxyHTTP].
const proxyChoice = "Proxy (HTTP)"

// defaultProxyListen is the address the hosted proxy listens on unless
// the person types another: loopback, a fixed port a client's config can
// name.
const defaultProxyListen = "127.0.0.1:8931"

// protocolChoices are offered in the protocol select, each with the era
// it belongs to; any other version can be typed. Only the version (the
// text before " — ") is offered to the server.
var protocolChoices = []string{
	engine.DefaultProtocol + eraSep + "server sends requests during a call",
	"2026-07-28" + eraSep + "input_required rounds (multi round-trip)",
	"2025-06-18" + eraSep + "server sends requests during a call",
	"2025-03-26" + eraSep + "server sends requests during a call",
	"2024-11-05" + eraSep + "server sends requests during a call",
	"latest" + eraSep + "the SDK's newest version",
}

// eraSep separates a protocol version from its era in the choices.
const eraSep = " — "

// protocolChoice returns the choice that names version v with its era, or
// v as it is.
func protocolChoice(v string) string {
	for _, c := range protocolChoices {
		if strings.HasPrefix(c, v+eraSep) {
			return c
		}
	}
	return v
}

// protocolOf returns the version a choice or a typed text names.
func protocolOf(text string) string {
	v, _, _ := strings.Cut(text, eraSep)
	return strings.TrimSpace(v)
}

// connectionPanel chooses the server: the transport (the built-in demo, a
// command over stdio, a streamable HTTP or SSE URL), its headers or
// environment, and the protocol version; Connect and Disconnect; the
// status with the server's name, version, protocol and capabilities; and
// the recent connections, remembered in the app's preferences (headers
// and environment are not remembered: they often hold secrets).
type connectionPanel struct {
	widget.BaseWidget

	// onConnect is called when the person asks to connect to a target.
	onConnect func(engine.Target)
	// onDisconnect is called when the person asks to disconnect.
	onDisconnect func()
	// onStartProxy is called when the person asks to host the HTTP proxy
	// (the Proxy (HTTP) choice): listen on listen, forward to upstream.
	onStartProxy func(listen, upstream string)
	// onStopProxy is called when the person asks to stop it.
	onStopProxy func()

	// The panel's inputs and buttons, exported so tests and scripts can
	// drive the panel as a person would.
	transport *widget.Select
	command   *widget.Entry
	url       *widget.Entry
	headers   *widget.Entry
	env       *widget.Entry
	// inheritEnv gives a stdio server the inspector's whole environment
	// (--inherit-env); unchecked it gets only HOME, LOGNAME, PATH, SHELL,
	// TERM, USER and the lines of env.
	inheritEnv *widget.Check
	// era chooses how the session opens (erachoice.go); protocol pins a
	// version within it ("" for the era's own).
	era        *widget.Select
	protocol   *widget.SelectEntry
	settingEra bool // the panel is setting era or protocol itself
	// badge shows the era the session got, once connected.
	badge      *eraBadge
	Recent     *widget.Select
	connectBtn *widget.Button
	disconnect *widget.Button
	// listen and upstream are the hosted proxy's address and server.
	listen   *widget.Entry
	upstream *widget.Entry
	// proxyURL is where clients reach the hosted proxy, once started
	// (read-only, selectable); copyURL puts it on the clipboard.
	proxyURL *widget.Label
	copyURL  *widget.Button
	// clientUp: the panel's own connection is up or being made (what
	// Disconnect ends); the hosted proxy's state is proxying.
	clientUp bool
	// oauth signs in to an HTTP or SSE server before connecting.
	oauth    *oauthChoice
	proxying bool
	// servers lists the servers of the client configs found; picking one
	// fills the panel (serverlist.go).
	servers *serverList
	picked  *configPick

	status  *widget.Label
	info    *widget.Label
	problem *widget.Label
	prefs   keyValues
	recent  []engine.Target
	rows    map[string]*fyne.Container
	content fyne.CanvasObject
}

// keyValues keeps string values by key between starts: [settings], or
// Fyne's preferences.
type keyValues interface {
	String(key string) string
	SetString(key, value string)
}

// newConnectionPanel makes the panel, filled from t; prefs (may be nil)
// keeps the recent connections.
func newConnectionPanel(t engine.Target, prefs keyValues) *connectionPanel {
	p := &connectionPanel{prefs: prefs, rows: map[string]*fyne.Container{}}
	p.ExtendBaseWidget(p)
	labels := make([]string, len(transportChoices))
	for i, c := range transportChoices {
		labels[i] = c.label
	}
	p.transport = widget.NewSelect(labels, func(string) { p.showRows() })
	p.command = newEntry("e.g. npx -y my-server --flag", nil)
	p.url = newEntry("e.g. http://localhost:3000/mcp", nil)
	p.headers = widget.NewMultiLineEntry()
	p.headers.SetMinRowsVisible(2)
	p.headers.PlaceHolder = "Name: value, one a line\nAuthorization: Bearer …"
	p.oauth = newOAuthChoice(func() string { return strings.TrimSpace(p.url.Text) }, p.showProblem)
	p.env = widget.NewMultiLineEntry()
	p.env.SetMinRowsVisible(2)
	p.env.PlaceHolder = "KEY=value, one a line"
	p.inheritEnv = widget.NewCheck("Pass my whole environment", nil)
	p.protocol = widget.NewSelectEntry(protocolChoices)
	p.protocol.PlaceHolder = "the era's own version"
	p.protocol.OnChanged = p.protocolChanged
	p.era = widget.NewSelect(eraChoices, p.eraChanged)
	p.badge = newEraBadge()
	p.Recent = widget.NewSelect(nil, func(label string) {
		for _, t := range p.recent {
			if recentLabel(t) == label {
				p.setTarget(t)
			}
		}
	})
	p.Recent.PlaceHolder = "(recent connections)"
	p.servers = newServerList(clientconfig.Here())
	p.servers.onPick = p.pickFromConfig
	p.listen = newEntry("e.g. "+defaultProxyListen+" (127.0.0.1:0: any free port)", nil)
	p.listen.SetText(defaultProxyListen)
	p.upstream = newEntry("the server's URL, e.g. http://127.0.0.1:8080/mcp", nil)
	// a label, selectable, in the normal text colour: a disabled entry's
	// grey read as placeholder text where the address is what to copy
	p.proxyURL = widget.NewLabel("")
	p.proxyURL.Selectable = true
	p.proxyURL.TextStyle.Monospace = true
	p.copyURL = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		if p.proxyURL.Text != "" {
			fyne.CurrentApp().Clipboard().SetContent(p.proxyURL.Text)
		}
	})
	p.connectBtn = widget.NewButton("Connect", func() {
		if p.proxySelected() {
			listen, upstream, err := p.proxyTarget()
			if err != nil {
				p.problem.SetText(err.Error())
				p.problem.Show()
				return
			}
			p.problem.Hide()
			if p.onStartProxy != nil {
				p.onStartProxy(listen, upstream)
			}
			return
		}
		t, err := p.target()
		if err != nil {
			p.problem.SetText(err.Error())
			p.problem.Show()
			return
		}
		p.problem.Hide()
		if p.onConnect != nil {
			p.onConnect(t)
		}
	})
	p.connectBtn.Importance = widget.HighImportance
	p.disconnect = widget.NewButton("Disconnect", func() {
		if p.proxying {
			if p.onStopProxy != nil {
				p.onStopProxy()
			}
			return
		}
		if p.onDisconnect != nil {
			p.onDisconnect()
		}
	})
	p.disconnect.Disable()
	p.status = boldLabel("Not connected.")
	p.status.Wrapping = fyne.TextWrapWord
	p.info = widget.NewLabel("")
	p.info.Wrapping = fyne.TextWrapWord
	p.problem = widget.NewLabel("")
	p.problem.Importance = widget.DangerImportance
	p.problem.Wrapping = fyne.TextWrapWord
	p.problem.Hide()

	row := func(key, label string, w fyne.CanvasObject) *fyne.Container {
		c := container.NewBorder(nil, nil, widget.NewLabel(label), nil, w)
		p.rows[key] = c
		return c
	}
	p.content = container.NewVBox(
		p.Recent,
		p.servers,
		container.NewBorder(nil, nil, widget.NewLabel("Transport"), nil, p.transport),
		row("command", "Command", p.command),
		row("env", "Environment", container.NewVBox(p.env, p.inheritEnv)),
		row("url", "URL", p.url),
		row("headers", "Headers", p.headers),
		row("oauth", "OAuth", p.oauth.content),
		row("listen", "Listen on", p.listen),
		row("upstream", "Upstream URL", p.upstream),
		row("era", "Era", p.era),
		row("protocol", "Protocol", p.protocol),
		container.NewGridWithColumns(2, p.connectBtn, p.disconnect),
		p.problem,
		widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, container.NewVBox(p.badge), p.status),
		row("proxyurl", "Clients use", container.NewBorder(nil, nil, nil, p.copyURL, p.proxyURL)),
		p.info,
	)
	p.loadRecent()
	p.setTarget(t)
	return p
}

// CreateRenderer implements [fyne.Widget].
func (p *connectionPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// setTarget fills the widgets from t.
func (p *connectionPanel) setTarget(t engine.Target) {
	p.keepHidden(t)
	kind := t.Transport
	if kind == "" {
		kind = engine.TransportDemo
	}
	for _, c := range transportChoices {
		if c.kind == kind {
			p.transport.SetSelected(c.label)
		}
	}
	p.command.SetText(t.Command)
	p.url.SetText(t.URL)
	var hs []string
	for k, v := range t.Headers {
		hs = append(hs, k+": "+v)
	}
	slices.Sort(hs)
	p.headers.SetText(strings.Join(hs, "\n"))
	p.env.SetText(strings.Join(t.Env, "\n"))
	p.inheritEnv.SetChecked(t.InheritEnv)
	p.oauth.set(t)
	p.setEraAndProtocol(t) // erachoice.go
	p.showRows()
}

// proxySelected reports whether the transport chosen is Proxy (HTTP).
func (p *connectionPanel) proxySelected() bool { return p.transport.Selected == proxyChoice }

// proxyTarget reads the hosted proxy's listen address and upstream URL.
func (p *connectionPanel) proxyTarget() (listen, upstream string, err error) {
	listen, upstream = strings.TrimSpace(p.listen.Text), strings.TrimSpace(p.upstream.Text)
	if listen == "" {
		listen = defaultProxyListen
	}
	if !strings.HasPrefix(upstream, "http://") && !strings.HasPrefix(upstream, "https://") {
		return "", "", fmt.Errorf("upstream URL %q: give the MCP server's full http:// or https:// address; your client will talk to the proxy instead", recorder.RedactURL(upstream))
	}
	return listen, upstream, nil
}

// setProxying shows the hosted proxy listening at url (clients use it)
// and forwarding to upstream; setProxying("", "", err) shows it stopped,
// with why when err is not nil.
func (p *connectionPanel) setProxying(url, upstream string, err error) {
	p.proxying = url != ""
	p.info.SetText("")
	if p.proxying {
		p.proxyURL.SetText(url)
		p.status.SetText("Proxy: listening on " + url + " → " + recorder.RedactURL(upstream))
		p.info.SetText("Point your client at the address above. Its requests and the server's are recorded and drawn live; the inspector is not the client, so Workload and Run are off until you stop the proxy.")
		p.connectBtn.Disable()
		p.transport.Disable()
	} else {
		p.proxyURL.SetText("")
		p.status.SetText("Proxy stopped.")
		if err != nil {
			p.status.SetText("Proxy stopped: " + err.Error())
		}
		p.connectBtn.Enable()
		p.transport.Enable()
	}
	p.showRows()
}

// target reads the widgets. The error says what to fix.
func (p *connectionPanel) target() (engine.Target, error) {
	var t engine.Target
	for _, c := range transportChoices {
		if c.label == p.transport.Selected {
			t.Transport = c.kind
		}
	}
	switch t.Transport {
	case engine.TransportStdio:
		t.Command = strings.TrimSpace(p.command.Text)
		if t.Command == "" {
			return t, fmt.Errorf("no command: type the command that starts the server, such as: npx -y my-server")
		}
		for i, line := range strings.Split(p.env.Text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if k, _, ok := strings.Cut(line, "="); !ok || k == "" {
				return t, fmt.Errorf("environment line %d %q: write it as KEY=value", i+1, line)
			}
			t.Env = append(t.Env, line)
		}
		t.InheritEnv = p.inheritEnv.Checked
	case engine.TransportHTTP, engine.TransportSSE:
		t.URL = strings.TrimSpace(p.url.Text)
		if !strings.HasPrefix(t.URL, "http://") && !strings.HasPrefix(t.URL, "https://") {
			return t, fmt.Errorf("URL %q: give the server's full http:// or https:// address", recorder.RedactURL(t.URL))
		}
		for i, line := range strings.Split(p.headers.Text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return t, fmt.Errorf("header line %d %q: write it as Name: value", i+1, line)
			}
			if t.Headers == nil {
				t.Headers = map[string]string{}
			}
			t.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		if err := p.oauth.apply(&t); err != nil {
			return t, err
		}
	case transportProxyHTTP:
		return engine.Target{}, fmt.Errorf("the Proxy (HTTP) choice does not connect: press Start proxy")
	case "":
		return t, fmt.Errorf("choose a transport")
	}
	t.Era, t.Protocol = eraOfChoice(p.era.Selected), protocolOf(p.protocol.Text)
	if _, _, err := t.ProtocolEra(); err != nil {
		return t, err
	}
	if t.Era == engine.EraLegacy && t.Protocol == engine.DefaultProtocol {
		t.Protocol = "" // the era's own
	}
	return p.withPicked(t), nil
}

// setConnecting shows that a connection is being made.
func (p *connectionPanel) setConnecting(t engine.Target) {
	p.status.SetText("Connecting to " + t.String() + "…")
	p.badge.set("") // the era is known once connected
	p.info.SetText("")
	p.connectBtn.Disable()
	p.clientUp = true
	p.showStop()
	p.problem.Hide()
}

// showStop enables Disconnect (Stop proxy, under the Proxy (HTTP)
// choice) only when there is something for it to end: under the proxy
// choice the hosted proxy, else the panel's own connection.
func (p *connectionPanel) showStop() {
	can := p.proxying || (p.clientUp && !p.proxySelected())
	if can == p.disconnect.Disabled() {
		if can {
			p.disconnect.Enable()
		} else {
			p.disconnect.Disable()
		}
	}
}

// setConnected shows the server's details, or the disconnected state when
// info is nil (with why, when the connection was lost).
func (p *connectionPanel) setConnected(t engine.Target, info *engine.ServerInfo, lost error) {
	p.connectBtn.Enable()
	p.clientUp = info != nil
	p.showStop()
	p.badge.set("")
	if info == nil {
		p.info.SetText("")
		if lost != nil {
			p.status.SetText("Connection lost: " + lost.Error())
		} else {
			p.status.SetText("Not connected.")
		}
		return
	}
	name := strings.TrimSpace(info.Name + " " + info.Version)
	if name == "" {
		name = "(the server gave no name)"
	}
	p.status.SetText("Connected to " + name)
	p.badge.set(info.EraBadge())
	caps := "none"
	if len(info.Capabilities) > 0 {
		caps = strings.Join(info.Capabilities, ", ")
	}
	text := fmt.Sprintf("Target: %s\nProtocol: %s\nCapabilities: %s", t, info.Protocol, caps)
	if info.Instructions != "" {
		text += "\nInstructions: " + info.Instructions
	}
	p.info.SetText(text)
	p.remember(t)
}

// Status returns the status line and details as shown.
func (p *connectionPanel) Status() string {
	return strings.TrimSpace(p.status.Text + "\n" + p.info.Text)
}

// recentTargets returns the remembered connections, newest first.
func (p *connectionPanel) recentTargets() []engine.Target {
	return append([]engine.Target(nil), p.recent...)
}

// remember puts t first in the recent connections, without its headers
// and environment. The preferences get its URL with the credentials
// redacted (they are a plain file); until the app quits, choosing it
// again gives the URL whole.
func (p *connectionPanel) remember(t engine.Target) {
	t.Headers, t.Env = nil, nil
	p.recent = slices.DeleteFunc(p.recent, func(r engine.Target) bool {
		return r.String() == t.String() && r.Era == t.Era && r.Protocol == t.Protocol
	})
	p.recent = append([]engine.Target{t}, p.recent...)
	if len(p.recent) > maxRecent {
		p.recent = p.recent[:maxRecent]
	}
	p.saveRecent()
	p.showRecent()
}

// saveRecent writes the recent connections to the preferences, their
// URLs' credentials redacted.
func (p *connectionPanel) saveRecent() {
	if p.prefs != nil {
		saved := slices.Clone(p.recent)
		for i := range saved {
			saved[i].URL = recorder.RedactURL(saved[i].URL)
		}
		if b, err := json.Marshal(saved); err == nil {
			p.prefs.SetString(recentKey, string(b))
		}
	}
}

// loadRecent reads the recent connections from the preferences.
func (p *connectionPanel) loadRecent() {
	if p.prefs == nil {
		return
	}
	var ts []engine.Target
	if json.Unmarshal([]byte(p.prefs.String(recentKey)), &ts) == nil {
		p.recent = ts
		// An older version kept URLs whole: redact them and rewrite.
		changed := false
		for i, t := range p.recent {
			if u := recorder.RedactURL(t.URL); u != t.URL {
				p.recent[i].URL, changed = u, true
			}
		}
		if changed {
			p.saveRecent()
		}
	}
	p.showRecent()
}

// showRecent fills the recent select.
func (p *connectionPanel) showRecent() {
	labels := make([]string, len(p.recent))
	for i, t := range p.recent {
		labels[i] = recentLabel(t)
	}
	p.Recent.SetOptions(labels)
}

// showRows shows the inputs the chosen transport uses.
func (p *connectionPanel) showRows() {
	var kind engine.TransportKind
	for _, c := range transportChoices {
		if c.label == p.transport.Selected {
			kind = c.kind
		}
	}
	proxy := kind == transportProxyHTTP
	show := map[string]bool{
		"listen":   proxy,
		"upstream": proxy,
		"era":      !proxy, // the client chooses it, not the inspector
		"protocol": !proxy,
		"proxyurl": p.proxying,
		"command":  kind == engine.TransportStdio,
		"env":      kind == engine.TransportStdio,
		"url":      kind == engine.TransportHTTP || kind == engine.TransportSSE,
		"headers":  kind == engine.TransportHTTP || kind == engine.TransportSSE,
		"oauth":    kind == engine.TransportHTTP || kind == engine.TransportSSE,
	}
	p.connectBtn.SetText("Connect")
	p.disconnect.SetText("Disconnect")
	if proxy || p.proxying {
		p.connectBtn.SetText("Start proxy")
		p.disconnect.SetText("Stop proxy")
	}
	p.showStop()
	for key, row := range p.rows {
		if show[key] {
			row.Show()
		} else {
			row.Hide()
		}
	}
	if c, ok := p.content.(*fyne.Container); ok {
		c.Refresh() // lay the rows shown out again
	}
}
