package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClockURI is a resource that changes every [ClockPeriod] while a client
// is subscribed to it: each change reads as the next tick, and the
// server sends notifications/resources/updated for it, to show
// subscriptions on both protocol eras.
const ClockURI = "demo://clock"

// ClockPeriod is how often demo://clock changes while subscribed to.
const ClockPeriod = 2 * time.Second

// clock is demo://clock and the server's resource subscriptions: who is
// subscribed to what, and the ticker that runs while anyone is
// subscribed to the clock.
type clock struct {
	srv *mcp.Server

	mu    sync.Mutex
	subs  map[*mcp.ServerSession][]string // guarded by mu
	ticks int                             // guarded by mu
	stop  chan struct{}                   // the running ticker's, nil when none; guarded by mu
}

func newClock() *clock {
	return &clock{subs: map[*mcp.ServerSession][]string{}}
}

// subscribed says whether uri is one of the demo server's resources,
// which may be subscribed to.
func subscribable(uri string) bool {
	if uri == ClockURI || uri == ReadmeURI {
		return true
	}
	id, ok := strings.CutPrefix(uri, "demo://item/")
	return ok && id != "" && !strings.Contains(id, "/")
}

func (c *clock) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if !subscribable(uri) {
		return mcp.ResourceNotFoundError(uri)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.subs[req.Session], uri) {
		c.subs[req.Session] = append(c.subs[req.Session], uri)
	}
	if uri == ClockURI && c.stop == nil {
		c.stop = make(chan struct{})
		go c.run(c.stop)
	}
	return nil
}

func (c *clock) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	uris := slices.DeleteFunc(c.subs[req.Session], func(u string) bool { return u == req.Params.URI })
	if len(uris) == 0 {
		delete(c.subs, req.Session)
	} else {
		c.subs[req.Session] = uris
	}
	c.stopIfIdle()
	return nil
}

// stopIfIdle stops the ticker when nobody is subscribed to the clock;
// c.mu is held.
func (c *clock) stopIfIdle() {
	for _, uris := range c.subs {
		if slices.Contains(uris, ClockURI) {
			return
		}
	}
	if c.stop != nil {
		close(c.stop)
		c.stop = nil
	}
}

// run ticks every ClockPeriod until stop is closed, telling the
// subscribers that the clock changed. Sessions that ended without
// unsubscribing are forgotten as it goes.
func (c *clock) run(stop chan struct{}) {
	t := time.NewTicker(ClockPeriod)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		live := map[*mcp.ServerSession]bool{}
		for ss := range c.srv.Sessions() {
			live[ss] = true
		}
		c.mu.Lock()
		for ss := range c.subs {
			if !live[ss] {
				delete(c.subs, ss)
			}
		}
		c.ticks++
		c.stopIfIdle()
		c.mu.Unlock()
		select {
		case <-stop:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), ClockPeriod)
		_ = c.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: ClockURI})
		cancel()
	}
}

func (c *clock) read(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	c.mu.Lock()
	n := c.ticks
	c.mu.Unlock()
	text := fmt.Sprintf("tick %d at %s\n", n, time.Now().UTC().Format("15:04:05.000"))
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
}
