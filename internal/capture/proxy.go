package capture

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/fanout-inspector/inspector/engine/proxy"
	"github.com/fanout-inspector/inspector/recorder"
)

// ProxyStdio runs p, a proxy between this process's client and the
// server it starts, recording into the capture, until the server exits
// or ctx is done ([proxy.Stdio.Run]).
//
// A client ends its server by closing the server's stdin, waiting a
// moment, then SIGTERM, then SIGKILL (2 s + 2 s for inspector run, 5 s +
// 5 s for the Go SDK's CommandTransport): the proxy may be killed while
// its own server is still stopping. So as soon as the client's side ends
// or ctx is done (SIGTERM), the recording is saved to Options.Record as
// it stands, with every message passed on until then
// ([proxy.Stdio.Checkpoint]); [Capture.Close] saves it again, complete
// with how the session ended, when the server has exited. Both saves are
// atomic: a kill at any moment leaves a recording that loads.
func (c *Capture) ProxyStdio(ctx context.Context, p *proxy.Stdio) (proxy.Result, error) {
	p.Rec, p.Checkpoint = c.rec, c.checkpoint
	return p.Run(ctx)
}

// checkpoint saves the recording as it stands to Options.Record, unless
// the capture is closed (its own save is then the newer one).
func (c *Capture) checkpoint() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.o.Record == "" {
		return
	}
	_ = recorder.SaveFile(c.o.Record, c.rec.Snapshot()) // Close says what failed
}

// HTTPProxy returns the proxy over HTTP that [Start] built for
// Options.Upstream, nil without one.
func (c *Capture) HTTPProxy() *proxy.HTTP { return c.http }

// Serving is the capture's HTTP proxy serving clients on a listener.
type Serving struct {
	srv    *http.Server
	p      *proxy.HTTP
	url    string
	done   chan struct{}
	err    error // Serve's, once done is closed
	stopMu sync.Mutex
}

// ServeHTTP serves the capture's HTTP proxy ([Capture.HTTPProxy]) on l
// until [Serving.Stop]. It panics without Options.Upstream.
func (c *Capture) ServeHTTP(l net.Listener) *Serving {
	if c.http == nil {
		panic("capture: ServeHTTP without Options.Upstream")
	}
	s := &Serving{
		srv:  &http.Server{Handler: c.http, ReadHeaderTimeout: proxy.DialTimeout},
		p:    c.http,
		url:  "http://" + l.Addr().String() + c.http.Path(),
		done: make(chan struct{}),
	}
	go func() {
		s.err = s.srv.Serve(l)
		close(s.done)
	}()
	return s
}

// URL is where clients reach the proxy.
func (s *Serving) URL() string { return s.url }

// Done is closed when the proxy stopped serving, by [Serving.Stop] or by
// itself (then [Serving.Err] says why).
func (s *Serving) Done() <-chan struct{} { return s.done }

// Err is why serving stopped, once Done is closed; nil after Stop.
func (s *Serving) Err() error {
	<-s.done
	if errors.Is(s.err, http.ErrServerClosed) {
		return nil
	}
	return s.err
}

// Stop stops serving: requests in flight get a second's grace (event
// streams never end by themselves), then what is still pending ends with
// reason.
func (s *Serving) Stop(reason string) {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	grace, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(grace)
	s.p.Close(reason) // before the connections close, or what is pending reads "the client went away"
	if err != nil {
		s.srv.Close()
	}
	s.p.EndExchanges()
}

// Serve serves the capture's HTTP proxy on l until ctx is done or it
// stops by itself, then stops it, and returns why it ended.
func (c *Capture) Serve(ctx context.Context, l net.Listener) proxy.Result {
	s := c.ServeHTTP(l)
	var reason string
	select {
	case <-ctx.Done():
		reason = "the proxy was stopped (" + context.Cause(ctx).Error() + ")"
	case <-s.Done():
		reason = "the proxy stopped serving: " + s.err.Error()
	}
	s.Stop(reason)
	return proxy.Result{Reason: reason}
}
