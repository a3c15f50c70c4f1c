package capture

import (
	"context"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/oauth"
)

// SignIn signs in to t's server when t carries an OAuth client
// ([oauth.Client]), telling the person through Options.Tell and opening
// the authorization address with Options.OpenBrowser. Every secret of the
// sign-in (tokens, client secret) is registered on the recording before
// anything else sees it. Without an OAuth client it does nothing.
func (c *Capture) SignIn(ctx context.Context, t engine.Target) error {
	client, ok := t.HTTPAuth.(*oauth.Client)
	if !ok {
		return nil
	}
	open := c.o.OpenBrowser
	if open == nil {
		open = func(string) error { return nil }
	}
	client.Tell(func(s string) {
		if c.o.Tell == nil {
			return
		}
		c.tell.Lock() // the sign-in tells from more than one goroutine
		defer c.tell.Unlock()
		c.o.Tell(s)
	}, open)
	return client.SignIn(ctx, c.rec.AddSecrets)
}
