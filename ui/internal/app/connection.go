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

// DefaultProxyListen is the address the hosted proxy listens on unless
// the person types another: loopback, a fixed port a client's config can
// name.
const DefaultProxyListen = "127.0.0.1:8931"

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

// ConnectionPanel chooses the server: the transport (the built-in demo, a
// command over stdio, a streamable HTTP or SSE URL), its headers or
// environment, and the protocol version; Connect and Disconnect; the
// status with the server's name, version, protocol and capabilities; and
// the recent connections, remembered in the app's preferences (headers
// and environment are not remembered: they often hold secrets).
type ConnectionPanel struct {
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
	Transport  *widget.Select
	Command    *widget.Entry
	URL        *widget.Entry
	Headers    *widget.Entry
	Env        *widget.Entry
	Protocol   *widget.SelectEntry
	Recent     *widget.Select
	ConnectBtn *widget.Button
	Disconnect *widget.Button
	// Listen and Upstream are the hosted proxy's address and server.
	Listen   *widget.Entry
	Upstream *widget.Entry
	// ProxyURL is where clients reach the hosted proxy, once started
	// (read-only, selectable); CopyURL puts it on the clipboard.
	ProxyURL *widget.Entry
	CopyURL  *widget.Button
	// OAuth signs in to an HTTP or SSE server before connecting.
	OAuth    *OAuthChoice
	proxying bool
	// Servers lists the servers of the client configs found; picking one
	// fills the panel (serverlist.go).
	Servers *ServerList
	picked  *configPick

	status  *widget.Label
	info    *widget.Label
	problem *widget.Label
	prefs   keyValues
	recent  []engine.Target
	rows    map[string]*fyne.Container
	content fyne.CanvasObject
}

// keyValues keeps string values by key between starts: [Settings], or
// Fyne's preferences.
type keyValues interface {
	String(key string) string
	SetString(key, value string)
}

// NewConnectionPanel makes the panel, filled from t; prefs (may be nil)
// keeps the recent connections.
func NewConnectionPanel(t engine.Target, prefs keyValues) *ConnectionPanel {
	p := &ConnectionPanel{prefs: prefs, rows: map[string]*fyne.Container{}}
	p.ExtendBaseWidget(p)
	labels := make([]string, len(transportChoices))
	for i, c := range transportChoices {
		labels[i] = c.label
	}
	p.Transport = widget.NewSelect(labels, func(string) { p.showRows() })
	p.Command = newEntry("e.g. npx -y my-server --flag", nil)
	p.URL = newEntry("e.g. http://localhost:3000/mcp", nil)
	p.Headers = widget.NewMultiLineEntry()
	p.Headers.SetMinRowsVisible(2)
	p.Headers.PlaceHolder = "Name: value, one a line\nAuthorization: Bearer …"
	p.OAuth = newOAuthChoice(func() string { return strings.TrimSpace(p.URL.Text) }, p.showProblem)
	p.Env = widget.NewMultiLineEntry()
	p.Env.SetMinRowsVisible(2)
	p.Env.PlaceHolder = "KEY=value, one a line"
	p.Protocol = widget.NewSelectEntry(protocolChoices)
	p.Recent = widget.NewSelect(nil, func(label string) {
		for _, t := range p.recent {
			if t.String() == label {
				p.SetTarget(t)
			}
		}
	})
	p.Recent.PlaceHolder = "(recent connections)"
	p.Servers = NewServerList(clientconfig.Here())
	p.Servers.onPick = p.pickFromConfig
	p.Listen = newEntry("e.g. "+DefaultProxyListen+" (127.0.0.1:0: any free port)", nil)
	p.Listen.SetText(DefaultProxyListen)
	p.Upstream = newEntry("the server's URL, e.g. http://127.0.0.1:8080/mcp", nil)
	p.ProxyURL = widget.NewEntry()
	p.ProxyURL.Disable()
	p.CopyURL = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		if p.ProxyURL.Text != "" {
			fyne.CurrentApp().Clipboard().SetContent(p.ProxyURL.Text)
		}
	})
	p.ConnectBtn = widget.NewButton("Connect", func() {
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
		t, err := p.Target()
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
	p.ConnectBtn.Importance = widget.HighImportance
	p.Disconnect = widget.NewButton("Disconnect", func() {
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
	p.Disconnect.Disable()
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
		p.Servers,
		container.NewBorder(nil, nil, widget.NewLabel("Transport"), nil, p.Transport),
		row("command", "Command", p.Command),
		row("env", "Environment", p.Env),
		row("url", "URL", p.URL),
		row("headers", "Headers", p.Headers),
		row("oauth", "OAuth", p.OAuth.content),
		row("listen", "Listen on", p.Listen),
		row("upstream", "Upstream URL", p.Upstream),
		row("protocol", "Protocol", p.Protocol),
		container.NewGridWithColumns(2, p.ConnectBtn, p.Disconnect),
		p.problem,
		widget.NewSeparator(),
		p.status,
		row("proxyurl", "Clients use", container.NewBorder(nil, nil, nil, p.CopyURL, p.ProxyURL)),
		p.info,
	)
	p.loadRecent()
	p.SetTarget(t)
	return p
}

// CreateRenderer implements [fyne.Widget].
func (p *ConnectionPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// SetTarget fills the widgets from t.
func (p *ConnectionPanel) SetTarget(t engine.Target) {
	p.keepHidden(t)
	kind := t.Transport
	if kind == "" {
		kind = engine.TransportDemo
	}
	for _, c := range transportChoices {
		if c.kind == kind {
			p.Transport.SetSelected(c.label)
		}
	}
	p.Command.SetText(t.Command)
	p.URL.SetText(t.URL)
	var hs []string
	for k, v := range t.Headers {
		hs = append(hs, k+": "+v)
	}
	slices.Sort(hs)
	p.Headers.SetText(strings.Join(hs, "\n"))
	p.Env.SetText(strings.Join(t.Env, "\n"))
	p.OAuth.set(t)
	proto := t.Protocol
	if proto == "" {
		proto = engine.DefaultProtocol
	}
	p.Protocol.SetText(protocolChoice(proto))
	p.showRows()
}

// proxySelected reports whether the transport chosen is Proxy (HTTP).
func (p *ConnectionPanel) proxySelected() bool { return p.Transport.Selected == proxyChoice }

// proxyTarget reads the hosted proxy's listen address and upstream URL.
func (p *ConnectionPanel) proxyTarget() (listen, upstream string, err error) {
	listen, upstream = strings.TrimSpace(p.Listen.Text), strings.TrimSpace(p.Upstream.Text)
	if listen == "" {
		listen = DefaultProxyListen
	}
	if !strings.HasPrefix(upstream, "http://") && !strings.HasPrefix(upstream, "https://") {
		return "", "", fmt.Errorf("upstream URL %q: give the MCP server's full http:// or https:// address; your client will talk to the proxy instead", recorder.RedactURL(upstream))
	}
	return listen, upstream, nil
}

// SetProxying shows the hosted proxy listening at url (clients use it)
// and forwarding to upstream; SetProxying("", "", err) shows it stopped,
// with why when err is not nil.
func (p *ConnectionPanel) SetProxying(url, upstream string, err error) {
	p.proxying = url != ""
	p.info.SetText("")
	if p.proxying {
		p.ProxyURL.SetText(url)
		p.status.SetText("Proxy: listening on " + url + " → " + recorder.RedactURL(upstream))
		p.info.SetText("Point your client at the address above. Its requests and the server's are recorded and drawn live; the inspector is not the client, so Workload and Run are off until you stop the proxy.")
		p.ConnectBtn.Disable()
		p.Disconnect.Enable()
		p.Transport.Disable()
	} else {
		p.ProxyURL.SetText("")
		p.status.SetText("Proxy stopped.")
		if err != nil {
			p.status.SetText("Proxy stopped: " + err.Error())
		}
		p.ConnectBtn.Enable()
		p.Disconnect.Disable()
		p.Transport.Enable()
	}
	p.showRows()
}

// Target reads the widgets. The error says what to fix.
func (p *ConnectionPanel) Target() (engine.Target, error) {
	var t engine.Target
	for _, c := range transportChoices {
		if c.label == p.Transport.Selected {
			t.Transport = c.kind
		}
	}
	switch t.Transport {
	case engine.TransportStdio:
		t.Command = strings.TrimSpace(p.Command.Text)
		if t.Command == "" {
			return t, fmt.Errorf("no command: type the command that starts the server, such as: npx -y my-server")
		}
		for i, line := range strings.Split(p.Env.Text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if k, _, ok := strings.Cut(line, "="); !ok || k == "" {
				return t, fmt.Errorf("environment line %d %q: write it as KEY=value", i+1, line)
			}
			t.Env = append(t.Env, line)
		}
	case engine.TransportHTTP, engine.TransportSSE:
		t.URL = strings.TrimSpace(p.URL.Text)
		if !strings.HasPrefix(t.URL, "http://") && !strings.HasPrefix(t.URL, "https://") {
			return t, fmt.Errorf("URL %q: give the server's full http:// or https:// address", recorder.RedactURL(t.URL))
		}
		for i, line := range strings.Split(p.Headers.Text, "\n") {
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
		if err := p.OAuth.apply(&t); err != nil {
			return t, err
		}
	case transportProxyHTTP:
		return engine.Target{}, fmt.Errorf("the Proxy (HTTP) choice does not connect: press Start proxy")
	case "":
		return t, fmt.Errorf("choose a transport")
	}
	t.Protocol = protocolOf(p.Protocol.Text)
	if t.Protocol == engine.DefaultProtocol {
		t.Protocol = ""
	}
	return p.withPicked(t), nil
}

// SetConnecting shows that a connection is being made.
func (p *ConnectionPanel) SetConnecting(t engine.Target) {
	p.status.SetText("Connecting to " + t.String() + "…")
	p.info.SetText("")
	p.ConnectBtn.Disable()
	p.Disconnect.Enable()
	p.problem.Hide()
}

// SetConnected shows the server's details, or the disconnected state when
// info is nil (with why, when the connection was lost).
func (p *ConnectionPanel) SetConnected(t engine.Target, info *engine.ServerInfo, lost error) {
	p.ConnectBtn.Enable()
	if info == nil {
		p.Disconnect.Disable()
		p.info.SetText("")
		if lost != nil {
			p.status.SetText("Connection lost: " + lost.Error())
		} else {
			p.status.SetText("Not connected.")
		}
		return
	}
	p.Disconnect.Enable()
	name := strings.TrimSpace(info.Name + " " + info.Version)
	if name == "" {
		name = "(the server gave no name)"
	}
	p.status.SetText("Connected to " + name)
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
func (p *ConnectionPanel) Status() string {
	return strings.TrimSpace(p.status.Text + "\n" + p.info.Text)
}

// RecentTargets returns the remembered connections, newest first.
func (p *ConnectionPanel) RecentTargets() []engine.Target {
	return append([]engine.Target(nil), p.recent...)
}

// remember puts t first in the recent connections, without its headers
// and environment. The preferences get its URL with the credentials
// redacted (they are a plain file); until the app quits, choosing it
// again gives the URL whole.
func (p *ConnectionPanel) remember(t engine.Target) {
	t.Headers, t.Env = nil, nil
	p.recent = slices.DeleteFunc(p.recent, func(r engine.Target) bool { return r.String() == t.String() && r.Protocol == t.Protocol })
	p.recent = append([]engine.Target{t}, p.recent...)
	if len(p.recent) > maxRecent {
		p.recent = p.recent[:maxRecent]
	}
	p.saveRecent()
	p.showRecent()
}

// saveRecent writes the recent connections to the preferences, their
// URLs' credentials redacted.
func (p *ConnectionPanel) saveRecent() {
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
func (p *ConnectionPanel) loadRecent() {
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
func (p *ConnectionPanel) showRecent() {
	labels := make([]string, len(p.recent))
	for i, t := range p.recent {
		labels[i] = t.String()
	}
	p.Recent.SetOptions(labels)
}

// showRows shows the inputs the chosen transport uses.
func (p *ConnectionPanel) showRows() {
	var kind engine.TransportKind
	for _, c := range transportChoices {
		if c.label == p.Transport.Selected {
			kind = c.kind
		}
	}
	proxy := kind == transportProxyHTTP
	show := map[string]bool{
		"listen":   proxy,
		"upstream": proxy,
		"protocol": !proxy, // the client chooses it, not the inspector
		"proxyurl": p.proxying,
		"command":  kind == engine.TransportStdio,
		"env":      kind == engine.TransportStdio,
		"url":      kind == engine.TransportHTTP || kind == engine.TransportSSE,
		"headers":  kind == engine.TransportHTTP || kind == engine.TransportSSE,
		"oauth":    kind == engine.TransportHTTP || kind == engine.TransportSSE,
	}
	p.ConnectBtn.SetText("Connect")
	p.Disconnect.SetText("Disconnect")
	if proxy || p.proxying {
		p.ConnectBtn.SetText("Start proxy")
		p.Disconnect.SetText("Stop proxy")
	}
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
