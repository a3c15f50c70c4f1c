package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/internal/wire"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource subscriptions, on both protocol eras. Up to 2025-11-25 a
// subscription is a resources/subscribe request (one span, answered at
// once) and ends with resources/unsubscribe. From 2026-07-28 it is a
// subscriptions/listen request naming the resource: the server answers
// it with notifications/subscriptions/acknowledged and keeps it open,
// sending the resource's updates on it, until the client cancels it;
// its span stays open as long. Either way each
// notifications/resources/updated is an event on the subscription's
// span, and [Session.OnResourceUpdated] hears of it.

// The notifications of subscriptions.
const (
	notificationUpdated = "notifications/resources/updated"
	notificationAcked   = "notifications/subscriptions/acknowledged"
)

// ackTimeout bounds the wait for a subscriptions/listen's
// acknowledgement.
const ackTimeout = 10 * time.Second

// ResourceUpdate is a notifications/resources/updated the server sent.
type ResourceUpdate struct {
	URI string
	// At is when it was read, from the recording's start.
	At time.Duration
	// Span is the subscription it came on (0 when none is known).
	Span recorder.SpanID
}

// subscriptions are a session's resource subscriptions.
type subscriptions struct {
	mu       sync.Mutex
	byURI    map[string]recorder.SpanID // subscribed resources and their spans
	listens  map[string]*call           // their subscriptions/listen, on 2026-07-28
	sending  map[string]*call           // subscribes and listens under way, by URI
	acks     map[string][]string        // acknowledgements read, by subscription id: the URIs agreed
	ackRead  chan struct{}              // closed (and replaced) as an acknowledgement is read
	onUpdate func(ResourceUpdate)
}

// maxAcks bounds the acknowledgements kept for a Subscribe to find.
const maxAcks = 64

// listenEnd is how a subscriptions/listen call learns that the server
// answered it: its stream is over.
type listenEnd struct {
	once sync.Once
	done chan struct{}
	err  error // the answer's error, set before done is closed
	// closed is closed once the listen's span ended.
	closed chan struct{}
}

func (l *listenEnd) answered(err error) {
	l.once.Do(func() {
		l.err = err
		close(l.done)
	})
}

// subscribedURI is the resource a subscription request is about ("" for
// another request, or a listen for list changes only).
func subscribedURI(params mcp.Params) string {
	switch p := params.(type) {
	case *mcp.SubscribeParams:
		if p != nil {
			return p.URI
		}
	case *mcp.UnsubscribeParams:
		if p != nil {
			return p.URI
		}
	case *mcp.SubscriptionsListenParams:
		if p != nil && p.Notifications != nil {
			return strings.Join(p.Notifications.ResourceSubscriptions, " ")
		}
	}
	return ""
}

// begin notes a request about to be sent as c: a subscribe or a listen
// for resources is kept by URI until [Session.Subscribe] picks it up,
// and a listen for resources is told when its answer comes.
func (subs *subscriptions) begin(c *call, params mcp.Params) {
	uri := subscribedURI(params)
	if uri == "" {
		return
	}
	switch params.(type) {
	case *mcp.SubscribeParams:
	case *mcp.SubscriptionsListenParams:
		c.listen = &listenEnd{done: make(chan struct{}), closed: make(chan struct{})}
	default:
		return
	}
	subs.mu.Lock()
	if subs.sending == nil {
		subs.sending = map[string]*call{}
	}
	subs.sending[uri] = c
	subs.mu.Unlock()
}

// taken returns the call begun for uri and forgets it.
func (subs *subscriptions) taken(uri string) *call {
	subs.mu.Lock()
	defer subs.mu.Unlock()
	c := subs.sending[uri]
	delete(subs.sending, uri)
	return c
}

// Subscribe asks the server for notifications when the resource at uri
// changes: resources/subscribe up to 2025-11-25; on 2026-07-28 a
// subscriptions/listen stream, which Subscribe returns from once the
// server acknowledged it (within 10s). Each update becomes an event on
// the timeline, on the subscription's span, and goes to the function
// set with [Session.OnResourceUpdated]. Subscribing again to a resource
// already subscribed to does nothing.
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	what := "subscribing to " + uri
	if strings.TrimSpace(uri) == "" {
		return errors.New("subscribing to a resource: give its URI")
	}
	if !s.info.hasCapability("resources.subscribe") {
		return fmt.Errorf("%s: the server does not offer subscriptions (its resources capability has no subscribe); read the resource again to see whether it changed", what)
	}
	s.subs.mu.Lock()
	_, already := s.subs.byURI[uri]
	s.subs.mu.Unlock()
	if already {
		return nil
	}
	err := s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	c := s.subs.taken(uri)
	if err != nil {
		return s.explainCallError(what, err)
	}
	var span recorder.SpanID
	if c != nil {
		span = c.span
	}
	if c != nil && c.listen != nil {
		if err := s.awaitAck(ctx, c, uri); err != nil {
			// The stream is of no use: end it.
			_ = s.cs.Unsubscribe(context.WithoutCancel(ctx), &mcp.UnsubscribeParams{URI: uri})
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	s.subs.mu.Lock()
	if s.subs.byURI == nil {
		s.subs.byURI = map[string]recorder.SpanID{}
	}
	s.subs.byURI[uri] = span
	if c != nil && c.listen != nil {
		if s.subs.listens == nil {
			s.subs.listens = map[string]*call{}
		}
		s.subs.listens[uri] = c
	}
	s.subs.mu.Unlock()
	return nil
}

// awaitAck waits for the acknowledgement of listen c, which asked for
// updates of uri, and checks that the server agreed to send them.
func (s *Session) awaitAck(ctx context.Context, c *call, uri string) error {
	timer := time.NewTimer(ackTimeout)
	defer timer.Stop()
	for {
		id := c.firstID()
		s.subs.mu.Lock()
		agreed, ok := s.subs.acks[id]
		if ok {
			delete(s.subs.acks, id)
		}
		if s.subs.ackRead == nil {
			s.subs.ackRead = make(chan struct{})
		}
		read := s.subs.ackRead
		s.subs.mu.Unlock()
		if ok && id != "" {
			if !slices.Contains(agreed, uri) {
				return fmt.Errorf("the server acknowledged the subscriptions/listen without %s, so it will send no updates of it", uri)
			}
			return nil
		}
		select {
		case <-read:
		case <-c.listen.done:
			if c.listen.err != nil {
				return fmt.Errorf("the server ended the subscriptions/listen at once: %v", c.listen.err)
			}
			return errors.New("the server ended the subscriptions/listen at once, without acknowledging it")
		case <-timer.C:
			return fmt.Errorf("the server did not acknowledge the subscriptions/listen within %v (no notifications/subscriptions/acknowledged)", ackTimeout)
		case <-ctx.Done():
			return ctx.Err()
		case <-s.life.done:
			return errors.New("the connection ended")
		}
	}
}

// Unsubscribe stops the updates of the resource at uri:
// resources/unsubscribe up to 2025-11-25, cancelling its
// subscriptions/listen on 2026-07-28, whose span has ended when
// Unsubscribe returns.
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	s.subs.mu.Lock()
	_, ok := s.subs.byURI[uri]
	delete(s.subs.byURI, uri)
	c := s.subs.listens[uri]
	delete(s.subs.listens, uri)
	s.subs.mu.Unlock()
	if !ok {
		return fmt.Errorf("unsubscribing from %s: the session is not subscribed to it", uri)
	}
	if err := s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return s.explainCallError("unsubscribing from "+uri, err)
	}
	if c != nil {
		timer := time.NewTimer(ackTimeout)
		defer timer.Stop()
		select { // its span ends as the SDK cancels it, at once
		case <-c.listen.closed:
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	return nil
}

// Subscriptions returns the URIs the session is subscribed to, sorted.
func (s *Session) Subscriptions() []string {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	uris := make([]string, 0, len(s.subs.byURI))
	for u := range s.subs.byURI {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	return uris
}

// OnResourceUpdated sets f to be called, from its own goroutine, with
// each notifications/resources/updated the server sends. Like
// [Session.OnLog], f never holds up the session.
func (s *Session) OnResourceUpdated(f func(ResourceUpdate)) {
	s.subs.mu.Lock()
	s.subs.onUpdate = f
	s.subs.mu.Unlock()
}

// listening keeps the span of c, a subscriptions/listen the SDK sent
// without waiting for its answer, open until its stream ends: the server
// answered it, or it was cancelled (Unsubscribe) or the session ended
// (ctx). release lets go of what the sending middleware held for it.
func (s *Session) listening(ctx context.Context, c *call, release func()) {
	select {
	case <-ctx.Done():
	case <-c.listen.done:
	}
	release()
	if s.wire != nil {
		s.wire.forget(c)
	}
	o := recorder.Outcome{Status: recorder.StatusOK}
	select {
	case <-c.listen.done:
		if err := c.listen.err; err != nil {
			o.Status, o.Error = recorder.StatusError, s.rec.Scrub(err.Error())
		} else {
			o.Result = c.recordedResult(nil)
		}
	default:
		if s.isDone() && s.Err() != nil {
			o.Status, o.Error = recorder.StatusAborted, s.Err().Error()
		}
	}
	c.end(s.rec.Now(), o)
	close(c.listen.closed)
}

// firstID is the JSON-RPC id the call was first written with ("" before
// it was written).
func (c *call) firstID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.rounds) == 0 {
		return ""
	}
	return c.rounds[0].id
}

// subscriptionNotice completes the event of a subscription's
// notification as it is read: what it says, and the span of the
// subscription it came on (by the subscription id in its _meta on
// 2026-07-28, by its URI before). An acknowledgement wakes the Subscribe
// waiting for it.
func (s *Session) subscriptionNotice(ev *recorder.Event, params json.RawMessage) {
	if ev.Method != notificationUpdated && ev.Method != notificationAcked {
		return
	}
	var p struct {
		Meta          map[string]json.RawMessage    `json:"_meta"`
		URI           string                        `json:"uri"`
		Notifications mcp.NotificationSubscriptions `json:"notifications"`
	}
	_ = json.Unmarshal(params, &p) // what cannot be read says less
	id := ""
	if raw, ok := p.Meta[mcp.MetaKeySubscriptionID]; ok {
		id = wire.Key(raw)
	}
	if id != "" && s.wire != nil {
		if c := s.wire.caller(id); c != nil {
			ev.Span = c.span
		}
	}
	if ev.Method == notificationAcked {
		agreed := p.Notifications.ResourceSubscriptions
		ev.Text = "subscriptions acknowledged"
		if len(agreed) > 0 {
			ev.Text += ": updates of " + strings.Join(agreed, ", ")
		}
		s.subs.mu.Lock()
		if s.subs.acks == nil {
			s.subs.acks = map[string][]string{}
		}
		if len(s.subs.acks) >= maxAcks {
			clear(s.subs.acks) // nobody waits for these any more
		}
		s.subs.acks[id] = agreed
		if s.subs.ackRead != nil {
			close(s.subs.ackRead)
			s.subs.ackRead = nil
		}
		s.subs.mu.Unlock()
		return
	}
	ev.Text = "resource updated: " + p.URI
	if ev.Span == 0 {
		s.subs.mu.Lock()
		ev.Span = s.subs.byURI[p.URI]
		s.subs.mu.Unlock()
	}
}

// resourceUpdated hands a recorded notifications/resources/updated to
// the function set with [Session.OnResourceUpdated].
func (s *Session) resourceUpdated(ev recorder.Event) {
	if ev.Method != notificationUpdated {
		return
	}
	s.subs.mu.Lock()
	f := s.subs.onUpdate
	s.subs.mu.Unlock()
	if f == nil {
		return
	}
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(ev.Data, &p)
	u := ResourceUpdate{URI: s.rec.Scrub(p.URI), At: ev.At, Span: ev.Span}
	s.hooks.notices.push(func() { f(u) })
}
