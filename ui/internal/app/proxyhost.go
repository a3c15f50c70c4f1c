package app

import (
	"errors"
	"fmt"
	"log"

	"github.com/fanout-inspector/inspector/engine/proxy"
	"github.com/fanout-inspector/inspector/internal/capture"
	"github.com/fanout-inspector/inspector/recorder"
)

// hostedProxy is the HTTP proxy the window hosts (Server panel, Proxy
// (HTTP)): the same proxy as inspector proxy --listen --upstream, serving
// on a listener of its own and recording into the window's live
// recording.
type hostedProxy struct {
	c        *capture.Capture // the recording, its journal and observers
	serving  *capture.Serving
	url      string // where clients reach it
	upstream string
}

// errProxyRunning is StartProxy's error while a proxy is hosted.
var errProxyRunning = errors.New("the proxy is already running: stop it first (Server panel, Stop proxy)")

// startProxy hosts the HTTP proxy: it closes any connection, listens on
// listen and forwards to upstream, recording every message into a new
// live recording (journaled like a connection's) that the timeline draws
// as it grows. Workload and Run are off while it runs: the inspector is
// not the client then. Call it on the main goroutine.
func (m *MainWindow) startProxy(listen, upstream string) error {
	if m.proxy != nil {
		return errProxyRunning
	}
	m.timeline.setIdle(idleProxy)
	target := recorder.RedactURL(upstream)
	l, err := proxy.Listen(listen, false) // loopback only: the app offers no remote proxy
	if proxy.IsRemoteListen(err) {
		return fmt.Errorf("%s: the app's proxy listens on loopback only, so that no other machine can use the server behind it: type 127.0.0.1:PORT (inspector proxy --allow-remote serves other machines)", listen)
	}
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is the port taken? type another address, or 127.0.0.1:0 for any free port)", listen, err)
	}
	c, err := capture.Start(capture.Options{
		Meta:     recorder.Meta{Title: "proxy: " + target, Target: target, Inspector: m.opts.Version},
		MaxSpans: m.bridge.maxSpans, Upstream: upstream, Limits: m.opts.Target.Limits,
		JournalDir: m.bridge.journalDir, JournalPrefix: "proxy",
		OnJournalError: func(err error) {
			m.logNote(recorder.EventOther, "no journal for this proxy session: "+err.Error())
		},
		Observers: []capture.Observer{m.bridge.onRecording},
		Log:       log.Writer(), // net/http logs what peers send, through the app's log filter
	})
	if err != nil {
		l.Close()
		return err
	}
	h := &hostedProxy{c: c, serving: c.ServeHTTP(l), upstream: upstream}
	h.url = h.serving.URL()
	go m.bridge.disconnect() // the window shows one live recording at a time
	rec := c.Recording()
	m.proxy = h
	m.live = rec
	m.opened = ""
	m.setFollowing("")
	m.timeline.setRecording(rec)
	m.connection.setProxying(h.url, upstream, nil)
	m.workload.setProxying(true)
	m.logNote(recorder.EventConnection, "proxy: listening on "+h.url+" → "+target)
	if path := c.JournalPath(); path != "" {
		m.logNote(recorder.EventOther, "journaling this proxy session to "+path)
	}
	m.updateTitle()
	go m.watchProxy(h)
	return nil
}

// watchProxy reports a proxy that stopped serving by itself.
func (m *MainWindow) watchProxy(h *hostedProxy) {
	<-h.serving.Done()
	err := h.serving.Err()
	if err == nil { // stopped
		return
	}
	m.do(func() {
		if m.proxy == h {
			m.stopProxy()
			m.errors.Show("The proxy stopped serving", err)
		}
	})
}

// stopProxy stops the hosted proxy: requests still pending end with the
// reason, the journal ends, and the timeline keeps showing the session.
// It does nothing when no proxy runs. Call it on the main goroutine.
func (m *MainWindow) stopProxy() {
	h := m.proxy
	if h == nil {
		return
	}
	m.proxy = nil
	h.stop("the proxy was stopped in the app (Stop proxy)")
	if rec := h.c.Recording(); m.live == rec && m.opened == "" {
		m.timeline.SetSnapshot(rec.Snapshot())
	}
	m.connection.setProxying("", "", nil)
	m.workload.setProxying(false)
	m.logNote(recorder.EventConnection, "proxy stopped")
	m.updateTitle()
}

// stop shuts the server down (a moment's grace for requests in flight),
// ends what is still pending with reason and closes the capture (its
// journal and observers).
func (h *hostedProxy) stop(reason string) {
	h.serving.Stop(reason)
	h.c.Close()
}

// proxyURL returns where clients reach the hosted proxy, "" when none runs.
func (m *MainWindow) proxyURL() string {
	if m.proxy == nil {
		return ""
	}
	return m.proxy.url
}
