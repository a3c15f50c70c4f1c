package app

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/ui/internal/mainloop"
)

// logLevelTimeout bounds asking a server for another log level.
const logLevelTimeout = 10 * time.Second

// logLevelControl is the Logs tab's level control: the level of log
// messages the server is asked for. The next connection starts with it
// ([engine.Target.LogLevel]); a change while connected asks the session's
// server at once ([engine.Session.SetLogLevel]), the way its protocol era
// carries it, which the label beside it says (or why the server cannot).
// Main goroutine only.
type logLevelControl struct {
	sel   *widget.Select
	route *widget.Label

	// session is the session to ask, nil when there is none.
	session func() *engine.Session
	asked   string // the level chosen
	quiet   bool   // the select is being set, not chosen
	// gate hands the server's answer to the main goroutine
	gate *mainloop.Gate
}

// newLogLevelControl makes the control, which shows the server's answers
// through gate.
func newLogLevelControl(gate *mainloop.Gate) *logLevelControl {
	c := &logLevelControl{asked: recorder.DefaultLogLevel, route: widget.NewLabel(""), gate: gate}
	c.route.Wrapping = fyne.TextWrapWord
	c.route.Importance = widget.LowImportance
	c.sel = widget.NewSelect(recorder.LogLevels, c.changed)
	c.setLevel(recorder.DefaultLogLevel)
	c.route.SetText("the level the next connection asks for")
	return c
}

// row is the control as laid out at the top of the Logs tab: the select,
// and under it how the level goes to the server, wrapped to the panel's
// width (on one line it ran past the panel, cut at a few letters).
func (c *logLevelControl) row() fyne.CanvasObject {
	return container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("Ask the server for"), widget.NewLabel("and above"), c.sel), c.route)
}

// Level is the level chosen, for the next connection to ask for.
func (c *logLevelControl) Level() string { return c.asked }

// setLevel shows level as chosen without asking anyone for it; "" is
// the default level.
func (c *logLevelControl) setLevel(level string) {
	if level == "" {
		level = recorder.DefaultLogLevel
	}
	c.asked = level
	c.quiet = true
	c.sel.SetSelected(level)
	c.quiet = false
}

// setSession shows what the session s asked its server for and how, or,
// with no session, that the level waits for the next connection.
func (c *logLevelControl) setSession(s *engine.Session) {
	if s == nil {
		c.route.SetText("the level the next connection asks for")
		return
	}
	if level := s.LogLevel(); level != "" {
		c.setLevel(level)
	}
	c.route.SetText(s.LogLevelRoute())
}

// changed asks the connected server for the level a person chose, in the
// background; the label says how it went.
func (c *logLevelControl) changed(level string) {
	if c.quiet || level == "" {
		return
	}
	c.asked = level
	var s *engine.Session
	if c.session != nil {
		s = c.session()
	}
	if s == nil {
		c.route.SetText("the level the next connection asks for")
		return
	}
	c.route.SetText("asking the server for " + level + "…")
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), logLevelTimeout)
		defer cancel()
		err := s.SetLogLevel(ctx, level)
		c.gate.Do(func() {
			if err != nil {
				c.route.SetText(level + " not set: " + err.Error())
				return
			}
			c.route.SetText(s.LogLevelRoute())
		})
	}()
}
