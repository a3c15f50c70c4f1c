package main

import (
	"context"
	"io"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestProxyJournalHoldsTheStreamsEnd: the HTTP proxy is stopped while a
// client still holds its event stream open through it. The journal read
// back and the saved recording hold the same HTTP exchanges, the
// stream's among them, ended: what the proxy wrote last is its end, not
// a stream that ended after the files were written.
func TestProxyJournalHoldsTheStreamsEnd(t *testing.T) {
	up := httptest.NewServer(demo.NewHTTPHandler())
	defer up.Close()
	dir := t.TempDir()
	journal, saved := filepath.Join(dir, "proxy.jsonl"), filepath.Join(dir, "proxy.json")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- proxyMain(ctx, []string{"--listen", "127.0.0.1:0", "--upstream", up.URL + "/mcp",
			"--record", saved, "--journal", journal}, nil, io.Discard, &stderr)
	}()
	m := waitForLine(t, &stderr, regexp.MustCompile(`listening on (http://\S+) →`))

	// The 2025-11-25 era opens the standalone event stream as it connects.
	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := engine.Connect(cctx, engine.Target{Transport: engine.TransportHTTP, URL: m[1], Protocol: "2025-11-25"},
		engine.DefaultAnswerPolicy(), recorder.New(recorder.Meta{Title: t.Name()}))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.ListTools(cctx); err != nil {
		t.Fatal(err)
	}
	stop() // the client is still connected
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("the proxy exited %d, want 0:\n%s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the proxy did not end 20 s after it was stopped")
	}

	fromJournal, err := recorder.LoadFile(journal)
	if err != nil {
		t.Fatalf("reading the journal back: %v", err)
	}
	recording, err := recorder.LoadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if recording.HTTP == nil {
		t.Fatal("the saved recording has no HTTP exchanges")
	}
	var stream *recorder.Exchange
	for _, x := range recording.HTTP.Exchanges {
		if x.Method == "GET" {
			stream = x
		}
	}
	if stream == nil || stream.Open() {
		t.Errorf("the event stream's exchange in the recording: %+v; want the GET, ended", stream)
	}
	if !reflect.DeepEqual(fromJournal.HTTP, recording.HTTP) {
		t.Errorf("the journal read back has %d exchanges of %d, the recording %d of %d, or they differ:\n%+v\n---\n%+v",
			len(fromJournal.HTTP.Exchanges), fromJournal.HTTP.Total, len(recording.HTTP.Exchanges), recording.HTTP.Total,
			fromJournal.HTTP.Exchanges, recording.HTTP.Exchanges)
	}
}
