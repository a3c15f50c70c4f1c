package app

import (
	"context"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
)

// catalogTab is what the Resources and Prompts tabs share: the session
// they show, listed the first time the tab shows with it (or on Refresh)
// off the main goroutine within listTimeout, and the status line and
// Refresh button that say how the listing went.
type catalogTab struct {
	// do runs f on the main goroutine (while the window is open);
	// onError shows an error.
	do      func(f func())
	onError func(doing string, err error)

	session *engine.Session
	listed  bool // the session's lists were asked for
	shownUp bool // the tab is showing

	status  *widget.Label
	refresh *widget.Button

	// capability is the server capability that offers what is listed,
	// and the word for it ("resources", "prompts").
	capability string
	// fetch lists everything of its kind from s, not on the main
	// goroutine; show, called on it, puts what was listed (all of it,
	// or what came before an error) in the tab and returns the status
	// line that counts it.
	fetch func(ctx context.Context, s *engine.Session) (show func() string, err error)
}

// initCatalog sets c up to list capability with fetch.
func (c *catalogTab) initCatalog(capability string, fetch func(context.Context, *engine.Session) (func() string, error)) {
	c.do, c.onError = fyne.Do, func(string, error) {}
	c.capability, c.fetch = capability, fetch
	c.status = widget.NewLabel("Not connected.")
	c.status.Truncation = fyne.TextTruncateEllipsis
	c.refresh = widget.NewButton("Refresh", c.listAll)
}

// newSession reports whether s is another session than the one shown,
// and takes it, to be listed again.
func (c *catalogTab) newSession(s *engine.Session) bool {
	if s == c.session {
		return false
	}
	c.session, c.listed = s, false
	return true
}

// sessionShown says what there is to do with the session taken, and
// lists it at once when the tab is showing.
func (c *catalogTab) sessionShown() {
	c.status.SetText("Not connected.")
	if c.session != nil {
		c.status.SetText("Connected: Refresh lists the server's " + c.capability + ".")
		if c.shownUp {
			c.listAll()
		}
	}
}

// shown tells the tab that it is showing (or not): the first time with
// a session, it lists.
func (c *catalogTab) shown(on bool) {
	c.shownUp = on
	if on && c.session != nil && !c.listed {
		c.listAll()
	}
}

// listAll lists the session's c.capability, all pages.
func (c *catalogTab) listAll() {
	s := c.session
	if s == nil {
		c.status.SetText("Not connected: connect to a server first (Server tab).")
		return
	}
	c.listed = true
	c.status.SetText("Listing…")
	c.refresh.Disable()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
		defer cancel()
		show, err := c.fetch(ctx, s)
		c.do(func() {
			c.refresh.Enable()
			if c.session != s {
				return
			}
			counted := show()
			switch {
			case err != nil:
				c.status.SetText("Listing failed: see the error.")
				c.onError("Listing the server's "+c.capability, err)
			case !slices.Contains(s.Info().Capabilities, c.capability):
				c.status.SetText("The server offers no " + c.capability + ".")
			default:
				c.status.SetText(counted)
			}
		})
	}()
}
