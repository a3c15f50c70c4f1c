package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/fanout-inspector/inspector/engine/proxy"
	"github.com/fanout-inspector/inspector/recorder"
)

// hostedProxy is the HTTP proxy the window hosts (Server panel, Proxy
// (HTTP)): the same proxy as inspector proxy --listen --upstream, serving
// on a listener of its own and recording into the window's live
// recording.
type hostedProxy struct {
	srv      *http.Server
	p        *proxy.HTTP
	rec      *recorder.Recording
	journal  *recorder.Journal
	url      string // where clients reach it
	upstream string
	served   chan error // srv.Serve's end
}

// errProxyRunning is StartProxy's error while a proxy is hosted.
var errProxyRunning = errors.New("the proxy is already running: stop it first (Server panel, Stop proxy)")

// StartProxy hosts the HTTP proxy: it closes any connection, listens on
// listen and forwards to upstream, recording every message into a new
// live recording (journaled like a connection's) that the timeline draws
// as it grows. Workload and Run are off while it runs: the inspector is
// not the client then. Call it on the main goroutine.
func (m *MainWindow) StartProxy(listen, upstream string) error {
	if m.proxy != nil {
		return errProxyRunning
	}
	target := recorder.RedactURL(upstream)
	rec := recorder.New(recorder.Meta{Title: "proxy: " + target, Target: target, Inspector: m.opts.Version})
	rec.SetMaxSpans(m.Bridge.MaxSpans)
	p, err := proxy.NewHTTP(upstream, rec, m.opts.Target.Limits, nil) // registers the URL's credentials
	if err != nil {
		return err
	}
	l, err := proxy.Listen(listen, false) // loopback only: the app offers no remote proxy
	if proxy.IsRemoteListen(err) {
		return fmt.Errorf("%s: the app's proxy listens on loopback only, so that no other machine can use the server behind it: type 127.0.0.1:PORT (inspector proxy --allow-remote serves other machines)", listen)
	}
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is the port taken? type another address, or 127.0.0.1:0 for any free port)", listen, err)
	}
	h := &hostedProxy{
		srv:      &http.Server{Handler: p, ReadHeaderTimeout: proxy.DialTimeout},
		p:        p,
		rec:      rec,
		url:      "http://" + l.Addr().String() + p.Path(),
		upstream: upstream,
		served:   make(chan error, 1),
	}
	if dir := m.Bridge.JournalDir; dir != "" {
		name := filepath.Join(dir, "proxy-"+time.Now().Format("20060102-150405.000")+".jsonl")
		err := recorder.MakeJournalDir(dir)
		if err == nil {
			h.journal, err = recorder.OpenJournal(name, rec)
		}
		if err != nil {
			m.logNote(recorder.EventOther, "no journal for this proxy session: "+err.Error())
		}
	}
	go func() {
		m.Bridge.Disconnect() // the window shows one live recording at a time
		h.served <- h.srv.Serve(l)
	}()
	m.proxy = h
	m.live = rec
	m.opened, m.following = "", ""
	m.Timeline.SetRecording(rec)
	m.Connection.SetProxying(h.url, upstream, nil)
	m.Workload.SetProxying(true)
	m.logNote(recorder.EventConnection, "proxy: listening on "+h.url+" → "+target)
	if h.journal != nil {
		m.logNote(recorder.EventOther, "journaling this proxy session to "+h.journal.Path())
	}
	m.updateTitle()
	go m.watchProxy(h)
	return nil
}

// watchProxy reports a proxy that stopped serving by itself.
func (m *MainWindow) watchProxy(h *hostedProxy) {
	err := <-h.served
	h.served <- err // for stopProxy
	if errors.Is(err, http.ErrServerClosed) {
		return
	}
	m.do(func() {
		if m.proxy == h {
			m.StopProxy()
			m.Errors.Show("The proxy stopped serving", err)
		}
	})
}

// StopProxy stops the hosted proxy: requests still pending end with the
// reason, the journal ends, and the timeline keeps showing the session.
// It does nothing when no proxy runs. Call it on the main goroutine.
func (m *MainWindow) StopProxy() {
	h := m.proxy
	if h == nil {
		return
	}
	m.proxy = nil
	h.stop("the proxy was stopped in the app (Stop proxy)")
	if m.live == h.rec && m.opened == "" {
		m.Timeline.SetSnapshot(h.rec.Snapshot())
	}
	m.Connection.SetProxying("", "", nil)
	m.Workload.SetProxying(false)
	m.logNote(recorder.EventConnection, "proxy stopped")
	m.updateTitle()
}

// stop shuts the server down (a moment's grace for requests in flight:
// event streams never end by themselves), ends what is still pending with
// reason and closes the journal.
func (h *hostedProxy) stop(reason string) {
	grace, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := h.srv.Shutdown(grace)
	h.p.Close(reason) // before the connections close, or what is pending reads "the client went away"
	if err != nil {
		h.srv.Close()
	}
	if h.journal != nil {
		h.journal.Close()
	}
}

// ProxyURL returns where clients reach the hosted proxy, "" when none runs.
func (m *MainWindow) ProxyURL() string {
	if m.proxy == nil {
		return ""
	}
	return m.proxy.url
}
