package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestBookPairsAnswers: a duplicate's refusal is not taken for the first
// request's answer, a second answer and an answer to an unknown id are
// protocol events, and the first request ends with its own answer.
func TestBookPairsAnswers(t *testing.T) {
	rec := recorder.New(recorder.Meta{})
	b := NewBook(rec)
	for i, m := range []struct {
		from Side
		msg  string
	}{
		{FromServer, `{"jsonrpc":"2.0","id":"d","method":"roots/list"}`},
		{FromServer, `{"jsonrpc":"2.0","id":"d","method":"roots/list"}`},
		{FromClient, `{"jsonrpc":"2.0","id":"d","error":{"code":-32600,"message":"duplicate"}}`},
		{FromClient, `{"jsonrpc":"2.0","id":"d","result":{"roots":[]}}`},
		{FromClient, `{"jsonrpc":"2.0","id":"d","result":{"roots":[]}}`},
		{FromClient, `{"jsonrpc":"2.0","id":"nope","result":{}}`},
		{FromServer, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
	} {
		b.Message(m.from, []byte(m.msg), time.Duration(i+1)*time.Millisecond, Stream{})
	}
	snap := rec.Snapshot()
	var ok, dup int
	for _, s := range snap.Spans {
		switch {
		case s.Duplicate && s.Status == recorder.StatusError:
			dup++
		case !s.Duplicate && s.Status == recorder.StatusOK && s.Answered != recorder.Unset:
			ok++
		default:
			t.Errorf("span %+v", s)
		}
	}
	if ok != 1 || dup != 1 {
		t.Errorf("%d answered and %d duplicate spans, want 1 and 1", ok, dup)
	}
	var texts []string
	for _, e := range snap.Events {
		if e.Kind == recorder.EventProtocol {
			texts = append(texts, e.Text)
		}
	}
	want := []string{`answered id "d" a second time`, `answered id "nope", which no pending request has`, "without a usable id"}
	if len(texts) != len(want) {
		t.Fatalf("protocol events %q, want %d", texts, len(want))
	}
	for i, w := range want {
		if !strings.Contains(texts[i], w) {
			t.Errorf("protocol event %q, want it to say %q", texts[i], w)
		}
	}
}
