package app

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestFollowedJournalShowsExchanges follows the journal of a session
// with the demo server over streamable HTTP, made with a bearer token
// while the window follows: its Network tab shows the HTTP exchanges as
// the journal gains them, a tool call's among them, with the token
// masked in the detail, and after the journal ends the same exchanges
// as the recording that wrote it.
func TestFollowedJournalShowsExchanges(t *testing.T) {
	const token = "follow-net-3b9d7e21c4"
	srv := httptest.NewServer(demo.NewHTTPHandler())
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec := recorder.New(recorder.Meta{Title: "followed over HTTP"})
	j, err := recorder.OpenJournal(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()

	loop := newMainLoop(t)
	m := openMainWindow(t, loop, Options{})
	m.followFile(path)
	selectTabNamed(t, m, "Network")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportHTTP, URL: srv.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer " + token}}, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() }) // before the server closes: it waits for the session's stream
	if _, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "echo", Args: []byte(`{"text":"followed"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	call := func(x *recorder.Exchange) bool { return x.RPC == "tools/call" && x.Status == 200 && !x.Open() }
	var i int
	loop.waitFor(t, "the tool call's exchange in the followed journal's Network tab", 10*time.Second, func() bool {
		i = rowWhere(m.network, call)
		return i >= 0
	})
	m.network.list.Select(i)
	text := m.network.detailText()
	for _, want := range []string{"200 OK", "Authorization: Bearer REDACTED  (masked)", `"text": "followed"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the followed exchange's detail lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, token) {
		t.Error("the followed exchange's detail shows the token")
	}

	s.Close()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := rec.HTTP()
	loop.waitFor(t, "every exchange of the ended journal", 10*time.Second, func() bool {
		return len(m.network.rows) == len(want.Exchanges) && m.network.summary.Text == networkSummary(want)
	})
	for k, x := range m.network.rows {
		if w := want.Exchanges[k]; x.ID != w.ID || x.Method != w.Method || x.Status != w.Status || x.RPC != w.RPC || x.Ended != w.Ended {
			t.Errorf("row %d shows %s %d %s, the recording has %s %d %s", k, x.Method, x.Status, x.RPC, w.Method, w.Status, w.RPC)
		}
	}
}
